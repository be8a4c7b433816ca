package runtime_test

import (
	"encoding/json"
	goruntime "runtime"
	"strconv"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// TestHugeLimitKeepsMemoryBounded is issue 14's case: a truncation limit of 1e18 let 300 MB of output take
// 4.9 GB (and 1 GB crashed). The spec now bounds a limit (spec.MaxSize, 256 MiB), and the captures keep at
// most textcap.MaxKeep whatever the limit: with the largest limit a spec may have, the call allocates a
// bounded amount and answers with the text cut at MaxKeep, its marker counting all the output.
func TestHugeLimitKeepsMemoryBounded(t *testing.T) {
	eng, _ := newEngine(t, `
id: huge
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    timeout: {unit: s, default: 60, expiry: kill}
    output:
      decode: replace
      truncate: {unit: bytes, limit: 268435456, keep: head, marker: "[{{.Total}} {{.Kept}} {{.Elided}}]"}
    results:
      format: json
      cases:
        exit: {fields: [{name: n, type: integer, value: "{{len .Stdout}}"}, {name: total, type: integer, value: "{{.StdoutBytes}}"}]}
        timeout: {fields: [{name: n, type: integer, value: "-1"}]}
`)
	if spec.MaxSize != 268435456 {
		t.Fatalf("the spec's maximum is %d: update the limit above", spec.MaxSize)
	}
	sizes := []int{300_000_000, 1 << 30}
	if raceEnabled {
		sizes = []int{3 * textcap.MaxKeep} // the decoding is instrumented: 40 times slower
	}
	for _, size := range sizes {
		t.Run(strconv.Itoa(size), func(t *testing.T) { hugeOutput(t, eng, size) })
	}
}

func hugeOutput(t *testing.T, eng *runtime.Engine, size int) {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	res, err := eng.Call(bounded(t), "bash", json.RawMessage(`{"command":"head -c `+strconv.Itoa(size)+` /dev/zero"}`))
	goruntime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ N, Total int }
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatal(err)
	}
	marker := "[" + strconv.Itoa(size) + " " + strconv.Itoa(textcap.MaxKeep) + " " + strconv.Itoa(size-textcap.MaxKeep) + "]"
	if out.Total != size || out.N != textcap.MaxKeep+len(marker) {
		t.Errorf("got %d bytes of text for %d bytes of output; want %d and the marker %s", out.N, out.Total, textcap.MaxKeep, marker)
	}
	// The capture (a head grown to MaxKeep), its snapshot, the truncated text, the rendered JSON and its
	// copies: a fixed number of MaxKeep, nothing that grows with the output.
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d MB of output, %d MB allocated", size>>20, allocated>>20)
	if allocated > 16*textcap.MaxKeep {
		t.Errorf("allocated %d MB for %d MB of output", allocated>>20, size>>20)
	}
}
