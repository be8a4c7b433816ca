package runtime_test

import (
	"context"
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
        exit: {text: '{{range .Params}}`+strings.Repeat("x", 4096)+`{{end}}{{.Stdout}}'}
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

// hostileTemplateSpec is a spec whose exit case is text.
func hostileTemplateSpec(text string) string {
	return `
id: hostile
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    output:
      capture: combined
      truncate: {unit: bytes, limit: 1048576, keep: head, marker: "[cut]"}
    results:
      format: text
      cases:
        exit: {text: '` + text + `'}
`
}

// A template whose work grows faster than its data, where only a call's data shows it (8 doublings of the
// output pass validation on 4 KiB texts, and would hold 512 MiB for an output of 1 MiB), fails the call
// at its budget, in bounded memory, and the engine goes on serving; the 16 doublings and the five nested
// ranges of the specs are errors at load, with their positions.
func TestHostileTemplateFailsTheCall(t *testing.T) {
	doubling := "{{$x := .Output}}" + strings.Repeat("{{$x = concat $x $x}}", 8) + "{{len $x}}"
	eng, _ := newEngine(t, hostileTemplateSpec(doubling))
	var err error
	alloc := allocated(func() {
		_, err = eng.Call(bounded(t), "bash", json.RawMessage(`{"command": "head -c 1048576 /dev/zero"}`))
	})
	if !errors.Is(err, spec.ErrTemplateBudget) {
		t.Fatalf("got %v, want the template budget error", err)
	}
	if alloc > 160<<20 { // garbage included: the output (1 MiB, captured and decoded) and a budget of 22 MiB
		t.Errorf("the failed call allocated %d MiB", alloc>>20)
	}
	if res, err := eng.Call(bounded(t), "bash", json.RawMessage(`{"command": "printf hi"}`)); err != nil || string(res) != `"512"` {
		t.Errorf("next call: %s, %v", res, err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"16 doublings", strings.Replace(doubling, ".Output", `printf "%4096s" "x"`, 1) + strings.Repeat("{{$x = concat $x $x}}", 8), "test.yaml:17:16: tools[0].results.cases.exit.text: "},
		{"five nested ranges", strings.Repeat("{{range $.Params}}", 5) + "x" + strings.Repeat("{{end}}", 5), "test.yaml:17:16: tools[0].results.cases.exit.text: template does not parse: range over $.Params inside another range"},
	} {
		_, err := spec.Parse("test.yaml", []byte(hostileTemplateSpec(c.text)))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q...", c.name, err, c.want)
		}
	}
}

// BenchmarkHostileTemplateCall is a call whose result template doubles its 1 MiB output until its budget
// stops it.
func BenchmarkHostileTemplateCall(b *testing.B) {
	v, err := spec.Parse("test.yaml", []byte(hostileTemplateSpec("{{$x := .Output}}"+strings.Repeat("{{$x = concat $x $x}}", 8)+"{{len $x}}")))
	if err != nil {
		b.Fatal(err)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := eng.Call(context.Background(), "bash", json.RawMessage(`{"command": "head -c 1048576 /dev/zero"}`)); !errors.Is(err, spec.ErrTemplateBudget) {
			b.Fatal(err)
		}
	}
}

// allocated runs f and returns the bytes it allocated, garbage included.
func allocated(f func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	f()
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A policy that does not compile is reported at the position of the field at fault: by the loader, which
// checks policies as it checks the rest of a spec (before, by runtime.New, with the same message).
func TestPolicyErrorsHavePositions(t *testing.T) {
	_, err := spec.Parse("badre.yaml", []byte(`id: badre
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
	want := `badre.yaml:11:19: policies[0].rules[1].pattern: policy "deny": pattern "(unclosed" does not compile`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v\nwant %s...", err, want)
	}
}
