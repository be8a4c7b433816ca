//go:build linux

package proc

import (
	"io"
	"testing"
)

func benchmarkRun(b *testing.B, s Spec) {
	s.Env = testEnv
	s.Stdout, s.Stderr = io.Discard, io.Discard
	b.ReportAllocs()
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
