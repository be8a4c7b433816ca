package openailocalshell_test

// Behaviour of the openai-local-shell spec on the shared runtime. Every expected value is written from the
// reference host's code (openai-agents-python examples/tools/local_shell.py, shell_executor), never
// captured from our own output; reference_test.go runs the same calls through that code.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants/internal/openaiagents"
	"github.com/agentbash/agentbash/variants/openai-local-shell"
)

// cases are local_shell actions and the output string; the workspace is /ws and holds a directory src.
var cases = []struct{ name, params, want string }{
	{"stdout then stderr", `{"type": "exec", "command": ["sh", "-c", "echo err >&2; echo out; exit 3"]}`, "out\nerr\n"},
	{"no shell: words as given", `{"type": "exec", "command": ["printf", "%s|", "$HOME", "a b", "*"]}`, "$HOME|a b|*|"},
	{"universal newlines", `{"type": "exec", "command": ["printf", "a\\r\\nb\\rc"]}`, "a\nb\nc"},
	{"runs in the workspace", `{"type": "exec", "command": ["pwd"]}`, "/ws\n"},
	{"working_directory", `{"type": "exec", "command": ["pwd"], "working_directory": "src"}`, "/ws/src\n"},
	{"working_directory null", `{"type": "exec", "command": ["pwd"], "working_directory": null}`, "/ws\n"},
	{"a missing working_directory", `{"type": "exec", "command": ["pwd"], "working_directory": "/nonexistent-agentbash"}`,
		"Error executing command: [Errno 2] No such file or directory: '/nonexistent-agentbash'"},
	{"env over the host's", `{"type": "exec", "command": ["sh", "-c", "echo $AGENTBASH_X; test -n \"$PATH\" && echo path"], "env": {"AGENTBASH_X": "1"}}`, "1\npath\n"},
	{"a missing program", `{"type": "exec", "command": ["no-such-program-agentbash"]}`,
		"Error executing command: [Errno 2] No such file or directory: 'no-such-program-agentbash'"},
	{"a directory as the program", `{"type": "exec", "command": ["/"]}`, "Error executing command: [Errno 13] Permission denied: '/'"},
	{"an empty command", `{"type": "exec", "command": []}`, "Error executing command: list index out of range"},
	{"timeout", `{"type": "exec", "command": ["sleep", "30"], "timeout_ms": 300}`, "Command execution timed out"},
	{"timeout_ms 0 is none", `{"type": "exec", "command": ["sh", "-c", "sleep 0.2; echo slept"], "timeout_ms": 0}`, "slept\n"},
	{"timeout_ms null is none", `{"type": "exec", "command": ["echo", "hi"], "timeout_ms": null, "user": null}`, "hi\n"},
	{"undecodable stdout", `{"type": "exec", "command": ["printf", "ab\\377"]}`,
		"Error executing command: 'utf-8' codec can't decode byte 0xff in position 2: invalid start byte"},
	{"undecodable stderr", `{"type": "exec", "command": ["sh", "-c", "echo ok; printf '\\303' >&2"]}`,
		"Error executing command: 'utf-8' codec can't decode byte 0xc3 in position 0: unexpected end of data"},
	{"a signal", `{"type": "exec", "command": ["sh", "-c", "echo before; kill -9 $$"]}`, "before\n"},
	{"stdin is the host's (closed here)", `{"type": "exec", "command": ["cat"]}`, ""},
}

func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(d, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestBehavior(t *testing.T) {
	ws := realDir(t)
	tool, err := openailocalshell.New(runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			res, err := tool.Call(ctx, json.RawMessage(c.params))
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if err := json.Unmarshal(res, &got); err != nil {
				t.Fatalf("not a text: %s", res)
			}
			if got = strings.ReplaceAll(got, ws, "/ws"); got != c.want {
				t.Fatalf("%s:\n got %q\nwant %q", c.params, got, c.want)
			}
		})
	}
}

// TestReference runs every case through the SDK example's executor (variants/internal/openaiagents).
func TestReference(t *testing.T) {
	ws := realDir(t)
	var calls []string
	for _, c := range cases {
		calls = append(calls, c.params)
	}
	got := openaiagents.Run(t, "local_shell", ws, calls)
	for i, c := range cases {
		want, _ := json.Marshal(c.want)
		if !openaiagents.SameJSON(got[i], string(want)) {
			t.Errorf("%s %s: the SDK's executor answers\n %s\nthe case says\n %s", c.name, c.params, got[i], want)
		}
	}
}
