package openaishell_test

// Behaviour of the openai-shell spec on the shared runtime. Every expected value is written from the
// reference host's code (openai-agents-python examples/tools/shell.py, its ShellExecutor, and the SDK's
// shell_call_output: truncate_shell_outputs, serialize_shell_output, normalize_shell_output_entries),
// never captured from our own output.

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants/openai-shell"
)

// out is one command's entry of shell_call_output.output.
func exit(stdout, stderr string, code int) string {
	b, _ := json.Marshal(map[string]any{"stdout": stdout, "stderr": stderr, "outcome": map[string]any{"type": "exit", "exit_code": code}})
	return string(b)
}

func timeout(stdout, stderr string) string {
	b, _ := json.Marshal(map[string]any{"stdout": stdout, "stderr": stderr, "outcome": map[string]any{"type": "timeout"}})
	return string(b)
}

// answer is the shell_call_output's output and, when the action had one, max_output_length.
func answer(limit int, entries ...string) string {
	s := `{"output": [` + strings.Join(entries, ",") + `]`
	if limit > 0 {
		s += `, "max_output_length": ` + itoa(limit)
	}
	return s + "}"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// cases are calls and the answers the reference host gives (reference_test.go runs them through its code).
var cases = []struct{ name, params, want string }{
	{"one command", `{"commands": ["echo hi"]}`, answer(0, exit("hi\n", "", 0))},
	{"in order, each its outcome", `{"commands": ["echo a; echo b >&2", "exit 3", "pwd"]}`,
		answer(0, exit("a\n", "b\n", 0), exit("", "", 3), exit("/ws\n", "", 0))},
	{"each command its own shell", `{"commands": ["cd /; X=1", "pwd; echo \"[$X]\""]}`,
		answer(0, exit("", "", 0), exit("/ws\n[]\n", "", 0))},
	{"a signal is a negative exit code", `{"commands": ["kill -9 $$"]}`, answer(0, exit("", "", -9))},
	// wait_for cancels communicate(), which drops what it read; the second communicate() after the kill
	// reads what was left: the output written before the timeout is lost.
	{"a timeout loses the output and ends the list", `{"commands": ["echo before; exec sleep 30", "echo never"], "timeout_ms": 300}`,
		answer(0, timeout("", ""))},
	{"timeout_ms 0 is no timeout", `{"commands": ["sleep 0.2; echo slept"], "timeout_ms": 0}`, answer(0, exit("slept\n", "", 0))},
	{"max_output_length: stdout first, stderr what is left", `{"commands": ["printf ab; printf cdef >&2"], "max_output_length": 4}`,
		answer(4, exit("ab", "cd", 0))},
	{"max_output_length counts characters", `{"commands": ["printf 'ééé'; printf 'ü' >&2"], "max_output_length": 3}`,
		answer(3, exit("ééé", "", 0))},
	{"max_output_length above the output", `{"commands": ["echo hi"], "max_output_length": 100}`, answer(100, exit("hi\n", "", 0))},
	{"invalid UTF-8 is dropped", `{"commands": ["printf 'a\\377b'"]}`, answer(0, exit("ab", "", 0))},
	{"stdin is the host's (closed here)", `{"commands": ["cat; echo done"]}`, answer(0, exit("done\n", "", 0))},
	{"no commands", `{"commands": []}`, answer(0)},
}

// listed are the calls the reference host answers otherwise, each listed in the spec's disagreements or
// deviations: our answer, and the host's (reference_test.go checks that it still answers so).
var listed = []struct{ name, params, want, upstream string }{
	// The API documents max_output_length per command; the SDK shares it across the list.
	{"max_output_length per command", `{"commands": ["printf abcdef; printf xyz >&2", "printf ab; printf cdef >&2"], "max_output_length": 4}`,
		answer(4, exit("abcd", "", 0), exit("ab", "cd", 0)), answer(4, exit("abcd", "", 0), exit("", "", 0))},
}

func TestBehavior(t *testing.T) {
	ws := realDir(t)
	tool, err := openaishell.New(runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	all := cases
	for _, l := range listed {
		all = append(all, struct{ name, params, want string }{l.name, l.params, l.want})
	}
	for _, c := range all {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			res, err := tool.Call(ctx, json.RawMessage(c.params))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(string(res), ws, "/ws")
			if !sameJSON(got, c.want) {
				t.Fatalf("%s:\n got %s\nwant %s", c.params, got, c.want)
			}
		})
	}
}

// What the action's schema refuses is the tool's invalid parameter; the typed adapter sends the action.
func TestParams(t *testing.T) {
	tool, err := openaishell.New(runtime.WithWorkspace(realDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	for _, params := range []string{`{}`, `{"commands": "echo"}`, `{"commands": ["echo", 1]}`, `{"commands": ["echo"], "timeout_ms": "1"}`} {
		if res, err := tool.Call(t.Context(), json.RawMessage(params)); err == nil {
			t.Errorf("%s: answered %s", params, res)
		}
	}
	limit := 2
	res, err := tool.Shell(t.Context(), openaishell.ShellParams{Commands: []string{"echo one", "echo two"}, MaxOutputLength: &limit})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if want := answer(2, exit("on", "", 0), exit("tw", "", 0)); !sameJSON(string(b), want) {
		t.Fatalf("typed: %s, want %s", b, want)
	}
}

// A timed-out command's whole process group is killed: nothing it started survives.
func TestTimeoutNoSurvivor(t *testing.T) {
	tool, err := openaishell.New(runtime.WithWorkspace(realDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	mark := proctest.UniqueSleep()
	params, _ := json.Marshal(map[string]any{"commands": []string{"sleep " + mark + " & sleep 30"}, "timeout_ms": 300})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := tool.Call(ctx, params); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if !proctest.Poll(3*time.Second, func() bool { return len(proctest.WithCmdline("sleep "+mark)) == 0 }) {
		t.Fatal("a process the command started survived its timeout")
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
