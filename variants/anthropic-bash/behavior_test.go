package anthropicbash_test

// Behaviour of the anthropic-bash spec on the shared runtime. Every expected value is written from the
// reference implementation's code (anthropic-quickstarts computer-use-demo tools/bash.py and tools/base.py
// at 44c2b5c), never captured from our own output; reference_test.go runs the same steps against that code.

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants/anthropic-bash"
)

// step is one call of a conversation and what the reference answers: a ToolResult's fields that are not
// None (the JSON result), or a raised error ({"type", "message"}). The workspace is written /ws.
type step struct {
	params string
	want   string
}

func ok(output, errText string) string {
	b, _ := json.Marshal(map[string]string{"output": output, "error": errText})
	return string(b)
}

func raised(typ, msg string) string {
	b, _ := json.Marshal(map[string]map[string]string{"error": {"type": typ, "message": msg}})
	return string(b)
}

const (
	restarted = `{"system": "tool has been restarted."}`
	// testTimeout is the timeout the timeout conversations run with (the variant's is 120 s), in both.
	testTimeout = 1 * time.Second
)

func exited(code string) string {
	return `{"error": "bash has exited with returncode ` + code + `", "system": "tool must be restarted"}`
}

var timedOut = raised("ToolError", "timed out: bash has not returned in 1.0 seconds and must be restarted")

// conversations are the steps, each list one conversation (one tool, one shell), in order.
var conversations = map[string][]step{
	"state persists": {
		{`{"command": "echo hi"}`, ok("hi", "")},
		{`{"command": "pwd"}`, ok("/ws", "")},
		{`{"command": "mkdir -p d && cd d && X=42 && f() { echo \"f$1\"; }"}`, ok("", "")},
		{`{"command": "pwd; echo $X; f 1"}`, ok("/ws/d\n42\nf1", "")},
		{`{"command": "set -o noglob; echo *"}`, ok("*", "")},
		{`{"command": "shopt -po noglob"}`, ok("set -o noglob", "")},
	},
	"streams": {
		{`{"command": "echo out; echo err >&2"}`, ok("out", "err")},
		{`{"command": "false"}`, ok("", "")},
		{`{"command": "printf 'a\\n\\n'; printf 'e\\n\\n' >&2"}`, ok("a\n", "e\n")},
		{`{"command": "printf 'no newline'"}`, ok("no newline", "")},
		{`{"command": "printf 'h\\303\\251llo \\360\\237\\230\\200'"}`, ok("héllo 😀", "")},
		{`{"command": "ls /nonexistent-agentbash-path"}`, ok("", "ls: cannot access '/nonexistent-agentbash-path': No such file or directory")},
		{`{"command": "echo kw", "extra": 1}`, ok("kw", "")},
		{`{"command": "echo no-restart", "restart": false}`, ok("no-restart", "")},
	},
	"restart": {
		{`{"command": "X=1; cd /"}`, ok("", "")},
		{`{"restart": true}`, restarted},
		{`{"command": "pwd; echo \"[$X]\""}`, ok("/ws\n[]", "")},
		// restart is read as Python reads its truth.
		{`{"restart": "yes", "command": "echo ignored"}`, restarted},
		{`{"restart": 0, "command": "echo zero"}`, ok("zero", "")},
	},
	"parameters": {
		{`{}`, raised("ToolError", "no command provided.")},
		{`{"command": null}`, raised("ToolError", "no command provided.")},
		{`{"command": 5}`, raised("AttributeError", "'int' object has no attribute 'encode'")},
		{`{"command": ["echo"]}`, raised("AttributeError", "'list' object has no attribute 'encode'")},
		{`{"command": "echo still"}`, ok("still", "")},
	},
	"exit": {
		{`{"command": "exit 3"}`, timedOut},
		{`{"command": "echo after"}`, exited("3")},
		{`{"command": "echo again"}`, exited("3")},
		{`{"restart": true}`, restarted},
		{`{"command": "echo back"}`, ok("back", "")},
	},
	"syntax": {
		// `echo a\n; echo '<<exit>>'`: the line `; echo '<<exit>>'` is a syntax error; bash, reading a
		// script on its stdin, exits with status 2.
		{`{"command": "echo a\n"}`, timedOut},
		{`{"command": "echo b"}`, exited("2")},
	},
	"timeout": {
		{`{"command": "sleep 30"}`, timedOut},
		{`{"command": "echo x"}`, timedOut},
		{`{"restart": true}`, restarted},
		{`{"command": "echo fresh"}`, ok("fresh", "")},
	},
	"not utf-8": {
		{`{"command": "printf 'a\\377b'"}`, raised("UnicodeDecodeError", "'utf-8' codec can't decode byte 0xff in position 1: invalid start byte")},
		{`{"restart": true}`, restarted},
		{`{"command": "echo clean"}`, ok("clean", "")},
	},
}

// engineWith starts the variant with its persistent timeout set to d (0: the variant's own).
func engineWith(t *testing.T, ws string, d time.Duration) *runtime.Engine {
	t.Helper()
	v, err := anthropicbash.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if d > 0 {
		v.Tools[0].Persistent.Timeout = spec.Duration(d)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// answer is a call's answer as the steps write it: the result, or {"error": {type, message}}.
func answer(t *testing.T, eng *runtime.Engine, params string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := eng.Call(ctx, "bash", json.RawMessage(params))
	var te *runtime.ToolError
	switch {
	case errors.As(err, &te):
		return raised(te.Type, te.Message)
	case err != nil:
		t.Fatalf("%s: %v", params, err)
	}
	return string(res)
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

func TestBehavior(t *testing.T) {
	for name, steps := range conversations {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := realDir(t)
			eng := engineWith(t, ws, testTimeout)
			for i, s := range steps {
				got := strings.ReplaceAll(answer(t, eng, s.params), ws, "/ws")
				if !sameJSON(got, s.want) {
					t.Fatalf("step %d %s:\n got %s\nwant %s", i, s.params, got, s.want)
				}
			}
		})
	}
}

// The variant as built in: its timeout is the reference's 120 s, and its text says so; the typed adapter
// answers the ToolResult's fields and raises the reference's errors with their classes.
func TestTypedAdapter(t *testing.T) {
	tool, err := anthropicbash.New(runtime.WithWorkspace(realDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	v := tool.Variant()
	if p := v.Tools[0].Persistent; p.Timeout.D() != 120*time.Second || p.Sentinel != "<<exit>>" {
		t.Fatalf("persistent %+v", p)
	}
	tm, err := spec.ParseTemplate("timeout", v.Tools[0].Results.Cases[spec.OutcomeTimeout].Raise.Message)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := spec.Execute(tm, &spec.Data{TimeoutValue: 120})
	if err != nil || msg != "timed out: bash has not returned in 120.0 seconds and must be restarted" {
		t.Fatalf("timeout text %q %v", msg, err)
	}
	ctx := t.Context()
	cmd := "echo typed; echo e >&2"
	res, err := tool.Bash(ctx, anthropicbash.BashParams{Command: &cmd})
	if err != nil || res.Output == nil || *res.Output != "typed" || res.Error == nil || *res.Error != "e" || res.System != nil {
		t.Fatalf("%+v %v", res, err)
	}
	yes := true
	res, err = tool.Bash(ctx, anthropicbash.BashParams{Restart: &yes})
	if err != nil || res.System == nil || *res.System != "tool has been restarted." {
		t.Fatalf("%+v %v", res, err)
	}
	_, err = tool.Bash(ctx, anthropicbash.BashParams{})
	var te *anthropicbash.ToolError
	if !errors.As(err, &te) || te.Message != "no command provided." {
		t.Fatalf("no command: %v", err)
	}
}

// realDir is a temporary directory with its symlinks resolved (bash's pwd reports the real path).
func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
