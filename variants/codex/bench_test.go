package codex_test

import (
	"context"
	"encoding/json"
	"regexp"
	"runtime"
	"testing"

	agentruntime "github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
)

func benchEngine(b *testing.B) *agentruntime.Engine {
	b.Helper()
	v, err := variants.Spec("codex")
	if err != nil {
		b.Fatal(err)
	}
	eng, err := agentruntime.New(v, agentruntime.WithWorkspace(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	return eng
}

// BenchmarkExecCommandExit: a command that exits within its window (the window closes at the exit).
func BenchmarkExecCommandExit(b *testing.B) {
	eng := benchEngine(b)
	params := json.RawMessage(`{"cmd":"echo hi"}`)
	for b.Loop() {
		if _, err := eng.Call(context.Background(), "exec_command", params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionRoundTrip: a line written to a cat session on a terminal and its echo read back, the
// window closing after 250 ms (the write's minimum) plus the 100 ms settle.
func BenchmarkSessionRoundTrip(b *testing.B) {
	eng := benchEngine(b)
	res, err := eng.Call(context.Background(), "exec_command", json.RawMessage(`{"cmd":"cat","tty":true,"yield_time_ms":250}`))
	if err != nil {
		b.Fatal(err)
	}
	var text string
	_ = json.Unmarshal(res, &text)
	id := regexp.MustCompile(`session ID (\d+)`).FindStringSubmatch(text)[1]
	params := json.RawMessage(`{"session_id":` + id + `,"chars":"ping\n","yield_time_ms":250}`)
	for b.Loop() {
		if _, err := eng.Call(context.Background(), "write_stdin", params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWindowLargeOutput: 64 MiB through one window cut to the default 10000 tokens; the window keeps
// what the cut needs, so the heap after the call stays small (reported as heap-MiB).
func BenchmarkWindowLargeOutput(b *testing.B) {
	eng := benchEngine(b)
	params := json.RawMessage(`{"cmd":"head -c 67108864 /dev/zero | tr '\\0' a"}`)
	var peak uint64
	for b.Loop() {
		if _, err := eng.Call(context.Background(), "exec_command", params); err != nil {
			b.Fatal(err)
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-MiB")
	b.SetBytes(64 << 20)
}
