package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

const carrySpec = `
id: carry
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    carry: [cwd, env]
    params:
      - {name: command, type: string, required: true, role: command}
    timeout: {unit: s, default: 10, expiry: kill}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}{{.Stderr}}[{{.ExitCode}}]"}
        timeout: {text: "timeout"}
`

// TestCarryCase: a spec that carries state gets a conversation case; the runtime passes it, and a target
// that keeps no state (the same contract without carry), or keeps the directory but not the environment,
// is caught.
func TestCarryCase(t *testing.T) {
	v, err := spec.Parse("carry.yaml", []byte(carrySpec))
	if err != nil {
		t.Fatal(err)
	}
	only := Filter(func(c Case) bool { return c.Group == "carry" })
	for _, c := range []struct {
		name   string
		target string
		ok     bool
	}{
		{"the contract", carrySpec, true},
		{"no state kept", strings.Replace(carrySpec, "    carry: [cwd, env]\n", "", 1), false},
		{"the directory only", strings.Replace(carrySpec, "carry: [cwd, env]", "carry: [cwd]", 1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			target, err := spec.Parse("target.yaml", []byte(c.target))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Check(context.Background(), v, InProcess(target), only)
			if err != nil {
				t.Fatal(err)
			}
			if r.Ran() != 1 || r.OK() != c.ok {
				t.Errorf("ran %d, ok %v, want 1 case, ok %v:\n%s", r.Ran(), r.OK(), c.ok, r.Summary())
			}
		})
	}
}
