package policy

import (
	"regexp"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// TestClassFilter checks that the character-class filter answers as the regexp does, for the patterns it
// applies to, and applies to no other pattern.
func TestClassFilter(t *testing.T) {
	texts := []string{"", "plain ascii", "tab\there", "bell\a", "nul\x00", "del\x7f", "c1 \u0085", "é", "\xff invalid", "K", "k", "ſ", "x"}
	for _, tc := range []struct {
		pattern string
		class   bool
	}{
		{`[\x00-\x08\x0b-\x1f\x7f-\x9f]`, true},
		{`([\x00-\x08])`, true},
		{`[^\x20-\x7e]`, true},
		{`(?i)[k]`, true},
		{`(?i)k`, false},
		{`x`, true},
		{`\x{FFFD}`, true},
		{`[a-z]+`, false},
		{`x|y`, true}, // Simplify makes it [x-y]
		{`^x`, false},
		{`xy`, false},
	} {
		re := regexp.MustCompile(tc.pattern)
		class := classOf(re.String())
		if (class != nil) != tc.class {
			t.Errorf("%s: class %v, want one: %v", tc.pattern, class, tc.class)
		}
		if class == nil {
			continue
		}
		for _, s := range texts {
			if got, want := hasClassChar(s, class), re.MatchString(s); got != want {
				t.Errorf("%s on %q: filter %v, regexp %v", tc.pattern, s, got, want)
			}
		}
	}
}

// TestAllowsAllShortcuts checks that the engines' shortcuts (no parse when every command is allowed)
// give the verdicts the full check gives.
func TestAllowsAllShortcuts(t *testing.T) {
	commands := []string{"", "ls", "rm -rf ./no-such-dir && git push", "echo 'unterminated", "a | b; c &", "cd x"}
	perm := func(mode spec.PermissionMode, allow, deny, ask []string) spec.Policy {
		return spec.Policy{Name: "p", Kind: spec.PolicyPermission, Message: "no", Permission: &spec.PermissionPolicy{
			Tool: "Bash", Match: spec.MatchPrefix, Subcommands: true, Mode: mode, Allow: allow, Deny: deny, Ask: ask}}
	}
	for _, tc := range []struct {
		name      string
		p         spec.Policy
		allowsAll bool
	}{
		{"no rules", perm("", nil, nil, nil), true},
		{"allow rules only", perm("", []string{"Bash(git:*)"}, nil, nil), true},
		{"rules for another tool", perm("", nil, []string{"Write"}, []string{"Edit(x)"}), true},
		{"bypass", perm(spec.ModeBypassPermissions, nil, []string{"Bash(rm:*)"}, nil), true},
		{"strict", perm(spec.ModeStrict, nil, nil, nil), false},
		{"a deny rule", perm("", nil, []string{"Bash(rm:*)"}, nil), false},
		{"an ask rule", perm(spec.ModeDontAsk, nil, nil, []string{"Bash"}), false},
		{"wildcard default", wildcardPolicy("", "", "*=allow"), true},
		{"wildcard all allow", wildcardPolicy("", "allow", "rm *=allow"), true},
		{"wildcard star star last", wildcardPolicy("", "deny", "rm *=deny", "**=allow"), true},
		{"wildcard longest puts the star first", wildcardPolicy("longest", "", "*=allow", "rm *=deny"), false},
		{"wildcard deny after the star", wildcardPolicy("", "", "*=allow", "rm *=deny"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compile(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			var full Checker
			switch e := c.(type) {
			case *permEngine:
				if e.allowsAll != tc.allowsAll {
					t.Fatalf("allowsAll %v, want %v", e.allowsAll, tc.allowsAll)
				}
				f := *e
				f.allowsAll = false
				full = &f
			case *wildcardEngine:
				if e.allowsAll != tc.allowsAll {
					t.Fatalf("allowsAll %v, want %v", e.allowsAll, tc.allowsAll)
				}
				f := *e
				f.allowsAll = false
				full = &f
			}
			for _, cmd := range commands {
				if got, want := c.Check(cmd), full.Check(cmd); got != want && !(got.Allowed && want.Allowed) {
					t.Errorf("%q: %s, the full check says %s", cmd, got, want)
				}
			}
		})
	}
}
