package spec_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// Complete fills a policy's defaults; CheckPolicy does the same for a policy given alone, without changing
// the policy given.
func TestPolicyDefaults(t *testing.T) {
	v, err := spec.Parse("p.yaml", useSpec(`  - name: perm
    kind: permission
    message: m
    permission: {tool: Bash, deny: [Bash]}
    examples: {blocked: [{command: ls}]}`, "perm"))
	if err != nil {
		t.Fatal(err)
	}
	pp := v.Policies[0].Permission
	if pp.Match != spec.MatchPath || pp.Normalize != spec.NormalizeNone || pp.Mode != spec.ModeDefault ||
		!reflect.DeepEqual(pp.EditTools, []string{"Write", "Edit"}) || v.Policies[0].Examples.Blocked[0].Decision != spec.DecisionDeny {
		t.Errorf("permission defaults: %+v %+v", pp, v.Policies[0].Examples)
	}

	given := spec.Policy{Name: "s", Kind: spec.PolicyShell, Message: "m", Shell: &spec.ShellPolicy{
		Wrappers: []spec.ShellWrapper{{Names: []string{"sudo"}}},
		Rules:    []spec.ShellRule{{Commands: []string{"rm"}, Reason: "r"}},
	}}
	got, err := spec.CheckPolicy(given)
	if err != nil {
		t.Fatal(err)
	}
	sp := got.Shell
	if sp.Dialect != spec.ShellBash || sp.Dynamic != spec.DynamicDeny || sp.MaxDepth != spec.DefaultShellMaxDepth ||
		sp.Reasons.Unparsable != spec.DefaultReasonUnparsable || sp.Wrappers[0].Runs != spec.RunsCommand || got.Dialect != spec.DialectRE2 {
		t.Errorf("shell defaults: %+v", sp)
	}
	if given.Shell.Dialect != "" || given.Shell.Wrappers[0].Runs != "" || given.Dialect != "" {
		t.Errorf("CheckPolicy changed the policy given: %+v", given.Shell)
	}

	rules, err := spec.CheckPolicy(spec.Policy{Name: "r", Kind: spec.PolicyRegex, Message: "m",
		Split: &spec.PolicySplit{Pattern: ";"},
		Rules: []spec.PolicyRule{{Pattern: "a"}, {Pattern: "b", Scope: spec.ScopeCommand}}})
	if err != nil {
		t.Fatal(err)
	}
	if rules.Rules[0].Scope != spec.ScopeSegments || rules.Rules[1].Scope != spec.ScopeCommand {
		t.Errorf("scopes: %+v", rules.Rules)
	}
}

// CheckPolicy reports a policy's problems as *spec.PolicyError, in the engine's words.
func TestCheckPolicyErrors(t *testing.T) {
	for _, tc := range []struct {
		p    spec.Policy
		want string
	}{
		{spec.Policy{Name: "p", Kind: "nope"}, `policy "p": kind: unknown kind "nope"`},
		{spec.Policy{Name: "p", Kind: spec.PolicyShell, Message: "m"}, `policy "p": shell: a shell policy needs a shell block`},
		{spec.Policy{Name: "p", Kind: spec.PolicyRegex, Message: "m", Dialect: "perl", Rules: []spec.PolicyRule{{Pattern: "a"}}}, `policy "p": dialect: unknown dialect "perl"`},
		{spec.Policy{Name: "p", Kind: spec.PolicyPermission, Message: "m", Permission: &spec.PermissionPolicy{Tool: "Bash", Mode: "yolo"}}, `policy "p": permission.mode: unknown mode "yolo"`},
		{spec.Policy{Use: "nothing_like_it"}, `policy "nothing_like_it": use: no library policy`},
	} {
		_, err := spec.CheckPolicy(tc.p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %s", tc.p, err, tc.want)
		}
	}
}

// A variant built in Go whose policy has a value outside an enumeration gets one error for it, not the
// enumeration's and the policy check's both.
func TestPolicyEnumErrorOnce(t *testing.T) {
	v, err := spec.Parse("p.yaml", useSpec(`  - {name: p, kind: regex, message: m, rules: [{pattern: a}]}`, "p"))
	if err != nil {
		t.Fatal(err)
	}
	built := spec.Variant{ID: v.ID, Title: v.Title, Shell: v.Shell, Tools: v.Tools,
		Policies: []spec.Policy{{Name: "p", Kind: spec.PolicyRegex, Message: "m", Dialect: "perl", Rules: []spec.PolicyRule{{Pattern: "a"}}}}}
	err = built.Complete()
	if err == nil || strings.Count(err.Error(), "perl") != 1 {
		t.Errorf("want one error naming perl, got %v", err)
	}
}
