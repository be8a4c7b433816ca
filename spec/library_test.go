package spec_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// Every library file decodes strictly, is named after its policy, and uses no other.
func TestLibrary(t *testing.T) {
	lib := spec.Library()
	names := map[string]bool{}
	for _, e := range lib {
		names[e.Name] = true
		p, ok := spec.LibraryPolicy(e.Name)
		if !ok || p.Name != e.Name || p.Kind != e.Kind || p.Summary == "" || e.Summary != p.Summary {
			t.Errorf("%s: %+v %v", e.Name, p, ok)
		}
	}
	for _, want := range []string{"shell_guard", "toolregistry_deny", "tunacode_destructive", "tunacode_security", "agentrail_dangerous", "codegensandbox_deny"} {
		if !names[want] {
			t.Errorf("the library has no %s", want)
		}
	}
	// A copy is the caller's own.
	a, _ := spec.LibraryPolicy("shell_guard")
	a.Shell.Wrappers[0].Names[0] = "changed"
	if b, _ := spec.LibraryPolicy("shell_guard"); b.Shell.Wrappers[0].Names[0] == "changed" {
		t.Error("LibraryPolicy returns shared memory")
	}
}

const useBase = `id: u
title: uses a library policy
source: {seed: none, repo: example/none, path: none.py}
shell: {argv: [/bin/sh, -c]}
policies:
%s
tools:
  - name: bash
    description: Run a command.
    params:
      - {name: command, type: string, required: true, role: command}
    checks:
      - policy: %s
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}"}
`

func useSpec(policies, check string) []byte {
	return []byte(strings.Replace(strings.Replace(useBase, "%s", policies, 1), "%s", check, 1))
}

func TestUse(t *testing.T) {
	lib, _ := spec.LibraryPolicy("shell_guard")
	// Without anything else: the library policy, under its own name.
	v, err := spec.Parse("u.yaml", useSpec("  - use: shell_guard", "shell_guard"))
	if err != nil {
		t.Fatal(err)
	}
	got := v.Policies[0]
	got.Fail = lib.Fail // the loader fills the default failure's message
	if !reflect.DeepEqual(got, lib) {
		t.Errorf("use alone: %+v", v.Policies[0])
	}
	// Values replace, lists are added, a wrapper replaces the library's description of its names.
	v, err = spec.Parse("u.yaml", useSpec(`  - use: shell_guard
    name: guard
    summary: mine
    shell:
      dynamic: allow
      max_depth: 3
      wrappers:
        - {names: [sudo], runs: none}
      rules:
        - {name: mine, commands: [npm], reason: r}
    examples:
      allowed: [ls]
    quirks: [q]`, "guard"))
	if err != nil {
		t.Fatal(err)
	}
	p := v.Policies[0]
	if p.Name != "guard" || p.Summary != "mine" || p.Use != "" || p.Kind != "shell" || p.Message != lib.Message {
		t.Errorf("values: %+v", p)
	}
	if p.Shell.Dynamic != "allow" || p.Shell.MaxDepth != 3 || !p.Shell.ForkBombs || p.Shell.Reasons != lib.Shell.Reasons {
		t.Errorf("shell values: %+v", p.Shell)
	}
	if n := len(p.Shell.Rules); n != len(lib.Shell.Rules)+1 || p.Shell.Rules[n-1].Name != "mine" {
		t.Errorf("rules: %d, last %+v", n, p.Shell.Rules[n-1])
	}
	if len(p.Examples.Allowed) != len(lib.Examples.Allowed)+1 || len(p.Quirks) != len(lib.Quirks)+1 {
		t.Errorf("examples %d, quirks %d", len(p.Examples.Allowed), len(p.Quirks))
	}
	sudo := 0
	for _, w := range p.Shell.Wrappers {
		for _, n := range w.Names {
			if n == "sudo" {
				sudo++
				if w.Runs != "none" {
					t.Errorf("sudo is still the library's wrapper: %+v", w)
				}
			}
		}
	}
	if sudo != 1 {
		t.Errorf("sudo described %d times", sudo)
	}
	// The library itself is unchanged by a use.
	if again, _ := spec.LibraryPolicy("shell_guard"); !reflect.DeepEqual(again, lib) {
		t.Error("a use changed the library")
	}
}

func TestUseErrors(t *testing.T) {
	for _, tc := range []struct{ policies, check, want string }{
		{"  - use: shell_gaurd", "shell_gaurd", `u.yaml:6:10: policies[0].use: no library policy "shell_gaurd" (did you mean "shell_guard"?)`},
		{"  - use: nothing_like_it_at_all", "x", `u.yaml:6:10: policies[0].use: no library policy "nothing_like_it_at_all"; the library has `},
		{"  - {use: shell_guard, kind: regex}", "shell_guard", `u.yaml:6:30: policies[0].kind: library policy shell_guard is of kind shell, not regex`},
		{"  - {name: p, message: m, rules: [{pattern: x}]}", "p", `u.yaml:6:5: policies[0]: a policy needs a kind (or use, to take a library policy's)`},
		{"  - {kind: regex, message: m, rules: [{pattern: x}]}", "p", `u.yaml:6:5: policies[0]: a policy needs a name (or use, to take a library policy's)`},
		{"  - use: shell_guard\n  - use: shell_guard", "shell_guard", `policy "shell_guard" is declared twice`},
	} {
		_, err := spec.Parse("u.yaml", useSpec(tc.policies, tc.check))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got  %v\n want %s", tc.policies, err, tc.want)
		}
	}
}

func TestResolvePolicy(t *testing.T) {
	p, err := spec.ResolvePolicy(spec.Policy{Use: "toolregistry_deny", Name: "deny"})
	if err != nil || p.Name != "deny" || p.Kind != "regex" || len(p.Rules) == 0 {
		t.Errorf("%+v %v", p, err)
	}
	if _, err := spec.ResolvePolicy(spec.Policy{Use: "nope"}); err == nil {
		t.Error("unknown policy resolved")
	}
	q := spec.Policy{Name: "x", Kind: "regex"}
	if r, err := spec.ResolvePolicy(q); err != nil || !reflect.DeepEqual(r, q) {
		t.Errorf("a policy without use changed: %+v %v", r, err)
	}
}
