package passthrough_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentbash/agentbash/gen/testdata/golden/passthrough"
	"github.com/agentbash/agentbash/runtime"
)

func open(t *testing.T) *passthrough.Tool {
	t.Helper()
	tool, err := passthrough.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tool.Close() })
	return tool
}

// The typed API: omit_zero makes code a pointer, left out for 0; redaction reaches the result.
func TestTyped(t *testing.T) {
	tool := open(t)
	ctx := context.Background()
	cases := []struct {
		cmd  string
		ok   bool
		out  string
		code *int
	}{
		{"echo hi", true, "hi\n", nil},
		{"echo no; exit 3", false, "no\n", new(3)},
		{"echo key tok_abcdefgh12", true, "key [REDACTED:token]\n", nil},
	}
	for _, c := range cases {
		res, err := tool.Run(ctx, passthrough.RunParams{Command: c.cmd})
		if err != nil {
			t.Fatalf("%s: %v", c.cmd, err)
		}
		if res.Ok != c.ok || res.Out != c.out || (res.Code == nil) != (c.code == nil) || (c.code != nil && *res.Code != *c.code) {
			t.Errorf("%s: got %+v", c.cmd, res)
		}
	}
}

// The model's JSON, passed through unchecked: each answer is the spec's.
func TestPassThrough(t *testing.T) {
	tool := open(t)
	ctx := context.Background()
	cases := []struct {
		name, params, result string
		err                  any // a pointer to the error type expected
		msg                  string
	}{
		{"a command as a list", `{"command": ["printf %s \"$0\"", "x"]}`, `{"ok":true,"out":"x"}`, nil, ""},
		{"a fraction of a second", `{"command": "sleep 2", "timeout": 0.5}`, `{"ok":false,"out":"timed out after 0.5s"}`, nil, ""},
		{"a timeout as a string", `{"command": "echo x", "timeout": "3"}`, `{"ok":false,"out":"timeout \"3\" is not a number"}`, nil, ""},
		{"env entries that are not strings", `{"command": "echo \"$A ${B-unset}\"", "env": {"A": "a", "B": 1}}`, `{"ok":true,"out":"a unset\n"}`, nil, ""},
		{"a null command", `{"command": null}`, "", new(*passthrough.BadCommand), "a command of type NoneType"},
		{"an unknown parameter", `{"command": "echo x", "cwd": "src"}`, "", new(*passthrough.BadArgument), "unexpected argument cwd"},
		{"an unknown parameter, scrubbed", `{"command": "echo x", "tok_abcdefgh12": 1}`, "", new(*passthrough.BadArgument), "unexpected argument [REDACTED:token]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := tool.Call(ctx, json.RawMessage(c.params))
			if c.err != nil {
				var te *runtime.ToolError
				if !errors.As(err, c.err) || !errors.As(err, &te) || te.Message != c.msg {
					t.Fatalf("got %s, %v; want %T %q", res, err, c.err, c.msg)
				}
				return
			}
			if err != nil || string(res) != c.result {
				t.Fatalf("got %s, %v; want %s", res, err, c.result)
			}
		})
	}
	_, err := tool.CallTool(ctx, "nope", json.RawMessage(`{}`))
	var nst *passthrough.NoSuchTool
	if !errors.As(err, &nst) || nst.Message != "no tool named nope" {
		t.Errorf("unknown tool: %v", err)
	}
}
