package runtime_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"testing"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// BenchmarkCallTrue is one trivial call (`true`) through a long-lived engine of each built-in variant
// whose shell is /bin/sh or /bin/bash; BenchmarkExecTrue, in the same binary, is its baseline: Go's own
// exec.Command("/bin/sh", "-c", "true").Run(). Issue 13's target: CallTrue/rye <= 1.1x ExecTrue.
func BenchmarkCallTrue(b *testing.B) {
	for _, id := range []string{"rye", "codegensandbox", "toolregistry"} {
		b.Run(id, func(b *testing.B) {
			v, err := variants.Spec(id)
			if err != nil {
				b.Fatal(err)
			}
			eng, err := runtime.New(v, runtime.WithWorkspace(b.TempDir()))
			if err != nil {
				b.Fatal(err)
			}
			defer eng.Close()
			tool := v.Tools[0].Name
			params := json.RawMessage(`{"command":"true"}`)
			if slices.ContainsFunc(v.Tools[0].Params, func(p spec.Param) bool { return p.Name == "description" }) {
				params = json.RawMessage(`{"command":"true","description":"d"}`)
			}
			ctx := context.Background()
			b.ReportAllocs()
			defer proctest.CPUPerOp(b)()
			for b.Loop() {
				if _, err := eng.Call(ctx, tool, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExecTrue is the baseline of BenchmarkCallTrue.
func BenchmarkExecTrue(b *testing.B) {
	b.ReportAllocs()
	defer proctest.CPUPerOp(b)()
	for b.Loop() {
		if err := exec.Command("/bin/sh", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
