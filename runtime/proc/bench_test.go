//go:build linux

package proc

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/agentbash/agentbash/internal/proctest"
)

func benchmarkRun(b *testing.B, s Spec) {
	s.Env = testEnv
	s.Stdout, s.Stderr = nopWriter{}, nopWriter{} // pipes and pumps, as captures have them
	b.ReportAllocs()
	defer proctest.CPUPerOp(b)()
	for b.Loop() {
		p, err := Start(s)
		if err != nil {
			b.Fatal(err)
		}
		<-p.Done()
		if ex := p.Exit(); ex.Code != 0 || ex.Err != nil {
			b.Fatalf("Exit %+v", ex)
		}
	}
}

// BenchmarkShTrue is Start+Done of `/bin/sh -c true`.
func BenchmarkShTrue(b *testing.B) {
	benchmarkRun(b, Spec{Argv: []string{"/bin/sh", "-c", "true"}})
}

// BenchmarkShTrueCombined is the same with one pipe for both outputs.
func BenchmarkShTrueCombined(b *testing.B) {
	benchmarkRun(b, Spec{Argv: []string{"/bin/sh", "-c", "true"}, Combined: true})
}

// BenchmarkEmbeddedTrue is Start+Done of the embedded shell running the
// `true` builtin: no process is started.
func BenchmarkEmbeddedTrue(b *testing.B) {
	benchmarkRun(b, Spec{Embedded: "true"})
}

// BenchmarkEmbeddedExternalTrue is the embedded shell running /bin/true.
func BenchmarkEmbeddedExternalTrue(b *testing.B) {
	benchmarkRun(b, Spec{Embedded: "/bin/true"})
}

// BenchmarkExecTrue is the baseline of BenchmarkShTrue: os/exec running the
// same command, its output discarded.
func BenchmarkExecTrue(b *testing.B) {
	b.ReportAllocs()
	defer proctest.CPUPerOp(b)()
	for b.Loop() {
		cmd := exec.Command("/bin/sh", "-c", "true")
		cmd.Env = testEnv
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecTrueOutput is os/exec capturing both outputs (two pipes), as
// BenchmarkShTrue does.
func BenchmarkExecTrueOutput(b *testing.B) {
	b.ReportAllocs()
	defer proctest.CPUPerOp(b)()
	for b.Loop() {
		cmd := exec.Command("/bin/sh", "-c", "true")
		cmd.Env = testEnv
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// nopWriter discards, but is not io.Discard (which Start turns into /dev/null).
type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
