//go:build linux

package proc

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// slowWriter accepts everything, at most rate bytes a second, checks that
// the bytes are those of `seq`-like output (a repeating pattern), and counts.
type slowWriter struct {
	rate int
	n    atomic.Int64
	bad  atomic.Bool
}

var pattern = bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB

func (w *slowWriter) Write(p []byte) (int, error) {
	off := int(w.n.Load() % int64(len(pattern)))
	for i, b := range p {
		if b != pattern[(off+i)%len(pattern)] {
			w.bad.Store(true)
			break
		}
	}
	time.Sleep(time.Duration(len(p)) * time.Second / time.Duration(w.rate))
	w.n.Add(int64(len(p)))
	return len(p), nil
}

// TestSlowWriter: a writer slower than the child. The child waits on the
// full pipe; every byte arrives, in order; Kill while the writer lags ends
// the run once what the pipe holds is delivered.
func TestSlowWriter(t *testing.T) {
	leakCheck(t)
	const size = 8 << 20
	gen := `i=0; while [ $i -lt N ]; do cat p; i=$((i+1)); done`
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/p", pattern, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, embedded := range []bool{false, true} {
		w := &slowWriter{rate: 64 << 20}
		script := bytesReplace(gen, "N", size/len(pattern))
		s := sh(script)
		if embedded {
			s = Spec{Embedded: script, Env: testEnv}
		}
		s.Dir, s.Stdout = dir, w
		_, _, ex, _ := run(t, s)
		if ex.Code != 0 || ex.Err != nil || w.n.Load() != size || w.bad.Load() {
			t.Errorf("embedded=%v: Exit %+v, %d bytes of %d, out of order %v", embedded, ex, w.n.Load(), size, w.bad.Load())
		}
	}

	w := &slowWriter{rate: 8 << 20}
	s := sh(bytesReplace(gen, "N", 1<<30))
	s.Dir, s.Stdout = dir, w
	p, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	if !poll(func() bool { return w.n.Load() > 1<<20 }) {
		t.Fatal("no output")
	}
	p.Kill()
	ex, took := wait(t, p)
	// The pipe holds at most 1 MiB, an eighth of a second at 8 MiB/s; and
	// the writer may be in the middle of a 256 KiB write.
	if !ex.Killed || took > 2*time.Second || w.bad.Load() {
		t.Errorf("Exit %+v after %v, out of order %v", ex, took, w.bad.Load())
	}
}

func bytesReplace(s, old string, n int) string {
	return strings.ReplaceAll(s, old, strconv.Itoa(n))
}

// TestFileWriterIsInherited: an *os.File writer is the child's own fd (no
// pipe, no pump), so a file nobody reads cannot hold Done: Kill ends a child
// blocked writing to it. io.Discard is /dev/null.
func TestFileWriterIsInherited(t *testing.T) {
	leakCheck(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	s := sh("echo ready; cat /dev/zero")
	s.Stdout = w
	s.Stderr = io.Discard
	p, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "ready\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	pid := strconv.Itoa(p.Pid())
	ours, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(w.Fd())))
	if fd1, _ := os.Readlink("/proc/" + pid + "/fd/1"); fd1 != ours || ours == "" {
		t.Errorf("the child's fd 1 is %q, the writer %q", fd1, ours)
	}
	if fd2, _ := os.Readlink("/proc/" + pid + "/fd/2"); fd2 != os.DevNull {
		t.Errorf("the child's fd 2 is %q, want %s", fd2, os.DevNull)
	}
	// The child fills the pipe and blocks; nobody reads any more.
	p.Kill()
	ex, took := wait(t, p)
	if !ex.Killed || took > time.Second {
		t.Errorf("Exit %+v after %v", ex, took)
	}
	if _, err := w.Stat(); err != nil { // (not a write: the child filled the pipe)
		t.Errorf("the writer was closed: %v", err)
	}
}
