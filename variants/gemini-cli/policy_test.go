package geminicli_test

// The policy engine: the spec's policy (the library's gemini_cli_policy) as the headless --yolo run has
// it, and with a user's rules and the legacy lists added as a downstream spec adds them. Verdicts are
// checked without running anything: a refused call never starts its command, and the allowed commands are
// only given to the policy.

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// withRules is the gemini-cli spec with rules and legacy lists added to its policy engine.
func withRules(t *testing.T, core []string, rules ...spec.PriorityRule) *spec.Variant {
	t.Helper()
	v, err := variants.Spec("gemini-cli")
	if err != nil {
		t.Fatal(err)
	}
	c := *v
	c.Policies = append([]spec.Policy(nil), v.Policies...)
	for i, p := range c.Policies {
		if p.Kind == spec.PolicyPriority {
			pp := *p.Priority
			pp.Rules = append(append([]spec.PriorityRule(nil), pp.Rules...), rules...)
			pp.Core = core
			c.Policies[i].Priority = &pp
			c.Policies[i].Examples = nil // the default's examples
			return &c
		}
	}
	t.Fatal("the gemini-cli spec has no priority policy")
	return nil
}

func TestPolicyEngine(t *testing.T) {
	def, err := variants.Spec("gemini-cli")
	if err != nil {
		t.Fatal(err)
	}
	rm := spec.PriorityRule{CommandPrefix: []string{"rm"}, Decision: spec.DecisionDeny, Priority: 4.1, DenyMessage: "Deletion is permanent"}
	own := withRules(t, nil, rm)
	core := withRules(t, []string{"run_shell_command(git)", "run_shell_command(ls)"})
	for _, tc := range []struct {
		name     string
		v        *spec.Variant
		command  string
		decision spec.Decision
		message  string
	}{
		{"yolo allows", def, "rm -rf ./no-such-dir-here", spec.DecisionAllow, ""},
		{"user rule denies", own, "ls && rm -rf ./no-such-dir-here", spec.DecisionDeny, "Tool execution denied by policy. Deletion is permanent"},
		{"user rule leaves the rest", own, "ls && rmdir ./no-such-dir-here", spec.DecisionAllow, ""},
		{"core allows its commands", core, "git status | ls", spec.DecisionAllow, ""},
		{"core denies the rest", core, "git status; make", spec.DecisionDeny, "Tool execution denied by policy."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs, err := policy.CheckVariantAll(tc.v, "run_shell_command", tc.command)
			if err != nil {
				t.Fatal(err)
			}
			got := policy.First(vs)
			if got.Decision != tc.decision || got.Message != tc.message {
				t.Errorf("%q: %s %q, want %s %q", tc.command, got.Decision, got.Message, tc.decision, tc.message)
			}
		})
	}

	// Through the engine: the refusal is the tool's error, and nothing runs.
	e, err := runtime.New(own, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	params, _ := json.Marshal(map[string]string{"command": "rm -rf ./no-such-dir-here"})
	_, err = e.Call(context.Background(), "run_shell_command", params)
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Type != "Error" || te.Message != "Tool execution denied by policy. Deletion is permanent" {
		t.Errorf("%v, want the Error of the denial", err)
	}
}
