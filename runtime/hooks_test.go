package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agentbash/agentbash/runtime"
)

// askSpec is a JSON tool with a permission policy that asks about rm and denies sudo, and a redaction rule.
const askSpec = `
id: t
title: test
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c], grace: 300ms}
redact:
  tools: [other]
  rules:
    - {name: key, pattern: 'sk-[a-z0-9]{8,}'}
policies:
  - name: perms
    kind: permission
    fail: {type: PermissionError, message: "{{.Message}}"}
    message: 'Permission denied for tool "{{.Tool}}"'
    permission:
      tool: Bash
      match: command
      normalize: first_space
      ask: ["Bash(rm:*)"]
      deny: ["Bash(sudo:*)"]
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    checks:
      - {policy: perms}
    results:
      format: json
      cases:
        exit:
          fields:
            - {name: out, type: string, value: "{{.Stdout}}"}
            - {name: code, type: integer, value: "{{.ExitCode}}"}
  - name: other
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}"}
`

// A policy's ask verdict goes to the Approver: yes runs the command, no (or no approver) refuses it with
// the policy's failure; deny and allow verdicts never reach it.
func TestApprover(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		approver      bool // an approver is configured
		answer        bool
		asked         bool
		err           string // the error's type, "" for a result
	}{
		{name: "no approver", command: "rm -f nothing-here", err: "PermissionError"},
		{name: "approved", command: "rm -f nothing-here", approver: true, answer: true, asked: true},
		{name: "refused", command: "rm -f nothing-here", approver: true, asked: true, err: "PermissionError"},
		{name: "deny is not asked", command: "sudo -n true", approver: true, answer: true, err: "PermissionError"},
		{name: "allow is not asked", command: "echo hi", approver: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []runtime.Approval
			var opts []runtime.Option
			type key struct{}
			if tc.approver {
				opts = append(opts, runtime.WithApprover(func(ctx context.Context, a runtime.Approval) bool {
					if ctx.Value(key{}) != "the call's" {
						t.Error("the approver did not get the call's context")
					}
					got = append(got, a)
					return tc.answer
				}))
			}
			eng, _ := newEngine(t, askSpec, opts...)
			ctx := context.WithValue(context.Background(), key{}, "the call's")
			params, _ := json.Marshal(map[string]string{"command": tc.command})
			res, err := eng.Call(ctx, "bash", params)
			var te *runtime.ToolError
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v, want a result", err)
			case tc.err != "" && (!errors.As(err, &te) || te.Type != tc.err):
				t.Fatalf("result %s, error %v; want a %s", res, err, tc.err)
			case tc.err != "" && te.Message != `Permission denied for tool "Bash"`:
				t.Errorf("the refusal is %q, not the policy's", te.Message)
			}
			if tc.asked != (len(got) == 1) {
				t.Fatalf("asked %d times", len(got))
			}
			if tc.asked {
				want := runtime.Approval{Tool: "bash", Command: tc.command, Policy: "perms", Rule: "Bash(rm:*)", Message: `Permission denied for tool "Bash"`}
				if got[0] != want {
					t.Errorf("asked %+v, want %+v", got[0], want)
				}
			}
		})
	}
}

// The observer is told about every call: outcome, exit code, error, approval, size, and the parameters
// and command with every redaction rule applied.
func TestCallObserver(t *testing.T) {
	var mu sync.Mutex
	var infos []runtime.CallInfo
	eng, _ := newEngine(t, askSpec,
		runtime.WithApprover(func(context.Context, runtime.Approval) bool { return true }),
		runtime.WithCallObserver(func(_ context.Context, i runtime.CallInfo) {
			mu.Lock()
			defer mu.Unlock()
			infos = append(infos, i)
		}))
	ctx := context.Background()
	calls := []struct{ tool, params string }{
		{"bash", `{"command":"echo sk-abcdefgh123; exit 3","n":12345678901234567890}`},
		{"bash", `{"command":"sudo -n true"}`},
		{"bash", `{"command":"rm -f nothing-here"}`},
		{"nope", `{}`},
	}
	var sizes []int
	for _, c := range calls {
		res, err := eng.Call(ctx, c.tool, json.RawMessage(c.params))
		var te *runtime.ToolError
		if errors.As(err, &te) {
			sizes = append(sizes, len(te.Message))
		} else {
			sizes = append(sizes, len(res))
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, _ = eng.Call(cancelled, "bash", json.RawMessage(`{"command":"sleep 5"}`))
	if len(infos) != 5 {
		t.Fatalf("%d calls observed, want 5", len(infos))
	}
	one := infos[0]
	if one.Tool != "bash" || one.Outcome != "failure" || one.ExitCode == nil || *one.ExitCode != 3 || one.Bytes != sizes[0] {
		t.Errorf("a failed command: %+v", one)
	}
	if string(one.Params) != `{"command":"echo [REDACTED:key]; exit 3","n":12345678901234567890}` || one.Command != "echo [REDACTED:key]; exit 3" {
		t.Errorf("not redacted: params %s, command %q", one.Params, one.Command)
	}
	if one.Duration <= 0 || one.Started.IsZero() {
		t.Errorf("no time: %+v", one)
	}
	if d := infos[1]; d.Outcome != "error" || d.ErrorType != "PermissionError" || d.Asked || d.ExitCode != nil || d.Bytes != sizes[1] {
		t.Errorf("a denied command: %+v", d)
	}
	if a := infos[2]; a.Outcome != "success" || !a.Asked || !a.Approved || a.ExitCode == nil || *a.ExitCode != 0 {
		t.Errorf("an approved command: %+v", a)
	}
	if u := infos[3]; u.Tool != "nope" || u.Outcome != "host_error" || u.Err == nil || !strings.Contains(u.Err.Error(), "no tool") {
		t.Errorf("an unknown tool: %+v", u)
	}
	if c := infos[4]; c.Outcome != "cancelled" || c.Err == nil {
		t.Errorf("a cancelled call: %+v", c)
	}
}
