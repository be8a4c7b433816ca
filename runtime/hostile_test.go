package runtime_test

import (
	"encoding/json"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// A result template that would write without bound on the data of one call fails the call at its output
// budget, in bounded memory, and the engine goes on serving.
func TestRunawayTemplateFailsTheCall(t *testing.T) {
	eng, _ := newEngine(t, `
id: runaway
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    output:
      truncate: {unit: bytes, limit: 1024, keep: head, marker: "[cut]"}
    results:
      format: text
      cases:
        exit: {text: '{{range .Params}}{{printf "%4096s" "x"}}{{end}}{{.Stdout}}'}
`)
	params := map[string]string{"command": "echo hi"}
	for i := 0; i < 10000; i++ { // 10,000 keys x 4 KiB: 40 MiB, over the budget of 16 MiB and a little
		params[fmt.Sprintf("k%05d", i)] = ""
	}
	raw, _ := json.Marshal(params)
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	_, err := eng.Call(bounded(t), "bash", raw)
	goruntime.ReadMemStats(&after)
	if !errors.Is(err, spec.ErrTemplateOutput) {
		t.Fatalf("got %v, want the output budget error", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 { // all allocations, garbage included: the budget holds 16 MiB live
		t.Errorf("the failed call allocated %d MiB", alloc>>20)
	}
	res, err := eng.Call(bounded(t), "bash", json.RawMessage(`{"command": "echo hi"}`))
	if err != nil || !strings.HasSuffix(string(res), `hi\n"`) {
		t.Errorf("next call: %s, %v", res, err)
	}
}

// A policy that does not compile is reported at the position of the field at fault.
func TestPolicyErrorsHavePositions(t *testing.T) {
	v, err := spec.Parse("badre.yaml", []byte(`id: badre
title: t
source: {seed: none, repo: x/y, path: z}
shell: {argv: [/bin/sh, -c]}
policies:
  - name: deny
    kind: regex
    message: "no: {{.Reason}}"
    rules:
      - {pattern: 'ok', reason: fine}
      - {pattern: '(unclosed', reason: broken}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    checks:
      - policy: deny
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}"}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = runtime.New(v)
	want := `badre.yaml:11:19: policies[0].rules[1].pattern: policy "deny": pattern "(unclosed" does not compile`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v\nwant %s...", err, want)
	}
}
