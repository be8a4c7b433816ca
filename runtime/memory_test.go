package runtime_test

import (
	"encoding/json"
	goruntime "runtime"
	"testing"
)

// `yes` under a 1 s timeout: output flows at full speed into a 50 KB capture; the engine's allocations stay
// bounded however much passes through (a capture that kept everything would allocate all of it).
func TestYesUnderTimeoutKeepsMemoryBounded(t *testing.T) {
	eng, _ := newEngine(t, `
id: yes
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: timeout, type: integer, role: timeout}
    timeout: {unit: s, default: 1, expiry: kill}
    output:
      decode: strict
      newlines: universal
      decode_error: {type: UnicodeDecodeError, message: "{{.Message}}"}
      truncate: {unit: bytes, limit: 51200, keep: head, marker: "[{{.Total}}]"}
    results:
      format: json
      cases:
        exit: {fields: [{name: n, type: integer, value: "{{.StdoutBytes}}"}]}
        timeout: {fields: [{name: n, type: integer, value: "{{.StdoutBytes}}"}, {name: kept, type: integer, value: "{{len .Stdout}}"}]}
`)
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	res, err := eng.Call(bounded(t), "bash", json.RawMessage(`{"command":"yes","timeout":1}`))
	goruntime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ N, Kept int64 }
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatal(err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d MB through, %d bytes kept, %d KB allocated", out.N>>20, out.Kept, allocated>>10)
	if out.N < 16<<20 {
		t.Skipf("only %d bytes flowed in 1 s: too slow a machine to show anything", out.N)
	}
	if out.Kept != int64(51200+len("[]")+len(itoa(out.N))) {
		t.Fatalf("kept %d", out.Kept)
	}
	if allocated > 16<<20 {
		t.Fatalf("allocated %d MB for %d MB of output: capture is not bounded", allocated>>20, out.N>>20)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
