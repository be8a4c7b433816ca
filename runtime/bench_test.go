package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/sandbox"
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

// BenchmarkCallSandboxed measures what the sandbox adds to a call: `true` through rye, alternately on an
// unsandboxed engine and on one with the sandbox on (each mode), in the same loop so that both see the
// same machine load. It reports the mean wall time of each (off-us/call, sandboxed-us/call) and the
// difference (extra-us/call); ns/op is the pair. Issue 17's target: extra-us/call <= 2000.
func BenchmarkCallSandboxed(b *testing.B) {
	for _, c := range []sandbox.Config{
		{Mode: sandbox.WorkspaceWrite},
		{Mode: sandbox.ReadOnly},
		{Mode: sandbox.WorkspaceWrite, Network: true},
	} {
		b.Run(strings.ReplaceAll(c.String(), " ", ""), func(b *testing.B) {
			if why := sandbox.Unavailable(c); why != "" {
				b.Skipf("this machine cannot sandbox %s: missing %s", c, why)
			}
			v, err := variants.Spec("rye")
			if err != nil {
				b.Fatal(err)
			}
			ws := b.TempDir()
			off, err := runtime.New(v, runtime.WithWorkspace(ws))
			if err != nil {
				b.Fatal(err)
			}
			defer off.Close()
			on, err := runtime.New(v, runtime.WithWorkspace(ws), runtime.WithSandbox(c))
			if err != nil {
				b.Fatal(err)
			}
			defer on.Close()
			params := json.RawMessage(`{"command":"true"}`)
			ctx := context.Background()
			call := func(e *runtime.Engine) time.Duration {
				start := time.Now()
				res, err := e.Call(ctx, "bash", params)
				if err != nil || !bytes.Contains(res, []byte(`"success":true`)) {
					b.Fatalf("%s %v", res, err)
				}
				return time.Since(start)
			}
			var tOff, tOn time.Duration
			for b.Loop() {
				tOff += call(off)
				tOn += call(on)
			}
			n := float64(b.N)
			b.ReportMetric(float64(tOff.Microseconds())/n, "off-us/call")
			b.ReportMetric(float64(tOn.Microseconds())/n, "sandboxed-us/call")
			b.ReportMetric(float64((tOn-tOff).Microseconds())/n, "extra-us/call")
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
