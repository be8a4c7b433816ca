package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// gibCommand writes 1 GiB of text (lines of "y").
const gibCommand = "yes | head -c 1073741824"

// BenchmarkGiBThroughRye pipes 1 GiB of output through the rye spec (50 KB kept per stream) in a child
// `agentbash run` process, and measures in the same run `bash -c 'CMD >/dev/null'` (the baseline the issue
// names: nobody reads a pipe) and `bash -c 'CMD | cat >/dev/null'` (the floor for any program that reads
// the output through a pipe). It reports the child's peak RSS and both wall-time ratios, and fails past
// 64 MiB of RSS or 1.5x the pipe-reader floor.
//
//	go test -run '^$' -bench GiB -benchtime 3x ./cmd/agentbash/
func BenchmarkGiBThroughRye(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "agentbash")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	var ours, base, reader time.Duration
	var rss int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, r := runMeasured(b, bin, "run", "rye", "-workspace", os.TempDir(), "--", gibCommand)
		ours += d
		rss = max(rss, r)
		d, _ = runMeasured(b, "bash", "-c", gibCommand+" >/dev/null")
		base += d
		d, _ = runMeasured(b, "bash", "-c", gibCommand+" | cat >/dev/null")
		reader += d
	}
	b.StopTimer()
	ratio := float64(ours) / float64(reader)
	b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(ours.Seconds()/float64(b.N), "agentbash-s/op")
	b.ReportMetric(base.Seconds()/float64(b.N), "baseline-s/op")
	b.ReportMetric(reader.Seconds()/float64(b.N), "cat-floor-s/op")
	b.ReportMetric(float64(ours)/float64(base), "ratio-vs-devnull")
	b.ReportMetric(ratio, "ratio-vs-cat")
	if rss > 64<<20 {
		b.Errorf("peak RSS %d MiB exceeds 64 MiB", rss>>20)
	}
	if ratio > 1.5 {
		b.Errorf("wall time %.2fx the pipe-reader floor exceeds 1.5x", ratio)
	}
}

// runMeasured runs a command to completion and returns its wall time and peak RSS in bytes.
func runMeasured(b *testing.B, name string, args ...string) (time.Duration, int64) {
	cmd := exec.Command(name, args...)
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	if err != nil {
		b.Fatalf("%s %v: %v", name, args, err)
	}
	if len(out) > 200<<10 {
		b.Fatalf("%s printed %d bytes: truncation did not apply", name, len(out))
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return d, 0
	}
	return d, ru.Maxrss * 1024
}
