package runtime_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"syscall"
	"testing"

	"github.com/agentbash/agentbash/runtime"
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
			ctx := context.Background()
			b.ReportAllocs()
			defer cpuPerOp(b)()
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
	defer cpuPerOp(b)()
	for b.Loop() {
		if err := exec.Command("/bin/sh", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuPerOp reports the CPU time per operation of this process (host-us/op) and of its children
// (child-us/op): on a shared machine, figures less noisy than the wall time. Call the result when the loop
// is done.
func cpuPerOp(b *testing.B) func() {
	self, kids := rusage(syscall.RUSAGE_SELF), rusage(syscall.RUSAGE_CHILDREN)
	return func() {
		n := float64(b.N)
		b.ReportMetric(float64(rusage(syscall.RUSAGE_SELF)-self)/n/1e3, "host-us/op")
		b.ReportMetric(float64(rusage(syscall.RUSAGE_CHILDREN)-kids)/n/1e3, "child-us/op")
	}
}

// rusage returns the user and system CPU time of who, in nanoseconds.
func rusage(who int) int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(who, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
