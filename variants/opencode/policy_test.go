package opencode_test

// permission.bash: the spec's policy (the library's opencode_bash) with OpenCode's default table, and a
// downstream table appended as a spec's `use: opencode_bash` with its own rules appends it. Verdicts are
// checked without running anything: a refused call never starts its command, and the allowed commands
// are only given to the policy.

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

// withTable is the opencode spec with rules appended to its permission.bash table.
func withTable(t *testing.T, rules ...spec.WildcardRule) *spec.Variant {
	t.Helper()
	v, err := variants.Spec("opencode")
	if err != nil {
		t.Fatal(err)
	}
	c := *v
	c.Policies = append([]spec.Policy(nil), v.Policies...)
	for i, p := range c.Policies {
		if p.Kind == spec.PolicyWildcard {
			wp := *p.Wildcard
			wp.Rules = append(append([]spec.WildcardRule(nil), wp.Rules...), rules...)
			c.Policies[i].Wildcard = &wp
			c.Policies[i].Examples = nil // the default table's examples
			return &c
		}
	}
	t.Fatal("the opencode spec has no wildcard policy")
	return nil
}

func TestPermissionBash(t *testing.T) {
	def, err := variants.Spec("opencode")
	if err != nil {
		t.Fatal(err)
	}
	own := withTable(t, spec.WildcardRule{Pattern: "*", Decision: spec.DecisionAsk},
		spec.WildcardRule{Pattern: "git *", Decision: spec.DecisionAllow},
		spec.WildcardRule{Pattern: "rm *", Decision: spec.DecisionDeny})
	const denied = `The user has specified a rule which prevents you from using this specific tool call. Here are some of the relevant rules [{"permission":"*","action":"allow","pattern":"*"},{"permission":"bash","pattern":"*","action":"ask"},{"permission":"bash","pattern":"git *","action":"allow"},{"permission":"bash","pattern":"rm *","action":"deny"}]`
	const rejected = "The user rejected permission to use this specific tool call."
	for _, tc := range []struct {
		name     string
		v        *spec.Variant
		command  string
		decision spec.Decision
		message  string
	}{
		{"default allows", def, "rm -rf ./no-such-dir-here", spec.DecisionAllow, ""},
		{"default allows a list", def, "make && make install", spec.DecisionAllow, ""},
		{"table allows", own, "git status && git diff", spec.DecisionAllow, ""},
		{"cd is not asked for", own, "cd sub && git log", spec.DecisionAllow, ""},
		{"deny in a pipeline", own, "git diff | rm -rf ./no-such-dir-here", spec.DecisionDeny, denied},
		{"ask rejected by opencode run", own, "git add . && npm test", spec.DecisionAsk, rejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs, err := policy.CheckVariantAll(tc.v, "bash", tc.command)
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
	for _, tc := range []struct{ command, message string }{
		{"rm -rf ./no-such-dir-here", denied},
		{"npm test", rejected},
	} {
		params, _ := json.Marshal(map[string]string{"command": tc.command})
		_, err := e.Call(context.Background(), "bash", params)
		var te *runtime.ToolError
		if !errors.As(err, &te) || te.Type != "Error" || te.Message != tc.message {
			t.Errorf("%q: %v, want the Error %q", tc.command, err, tc.message)
		}
	}
}
