//go:build linux

package proc

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testEnv is the environment the tests give their shells.
var testEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"}

// failsafe bounds every wait in the tests: if it expires, the test fails
// (after killing what it started) instead of hanging.
const failsafe = 10 * time.Second

func TestMain(m *testing.M) {
	// Warm up the runtime (netpoller, signal handling, os/exec state) so the
	// goroutine and file descriptor baselines of the first test are stable.
	p, err := Start(Spec{Argv: []string{"/bin/sh", "-c", "echo"}, Stdout: &syncBuf{}, Stderr: &syncBuf{}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "warm-up:", err)
		os.Exit(1)
	}
	<-p.Done()
	os.Exit(m.Run())
}

// syncBuf is a bytes.Buffer safe for concurrent use.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// watchWriter is a syncBuf that closes seen once its content contains marker.
type watchWriter struct {
	syncBuf
	marker string
	seen   chan struct{}
	once   sync.Once
}

func newWatch(marker string) *watchWriter {
	return &watchWriter{marker: marker, seen: make(chan struct{})}
}

func (w *watchWriter) Write(p []byte) (int, error) {
	n, err := w.syncBuf.Write(p)
	if strings.Contains(w.String(), w.marker) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

// await waits for ch or fails the test after failsafe, killing p.
func await(t *testing.T, p *Process, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(failsafe):
		p.Kill()
		<-p.Done()
		t.Fatalf("timed out waiting for %s", what)
	}
}

// wait waits for p to be done (failsafe bounded) and returns its Exit and
// the time it took from the call.
func wait(t *testing.T, p *Process) (Exit, time.Duration) {
	t.Helper()
	t0 := time.Now()
	await(t, p, p.Done(), "Done")
	return p.Exit(), time.Since(t0)
}

// poll calls cond until it returns true or the failsafe expires; it is for
// the few things the OS gives no event for (a pid leaving /proc, a goroutine
// exiting after closing a channel).
func poll(cond func() bool) bool {
	deadline := time.Now().Add(failsafe)
	for d := 100 * time.Microsecond; ; d = min(2*d, 20*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		runtime.Gosched()
		<-time.After(d)
	}
}

// leakCheck records the goroutine and open file counts, and at cleanup (after
// the test's other cleanups) checks that they are back to that baseline.
func leakCheck(t *testing.T) {
	t.Helper()
	g0, f0 := runtime.NumGoroutine(), openFDs()
	t.Cleanup(func() {
		if !poll(func() bool { return runtime.NumGoroutine() <= g0 }) {
			var b strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Errorf("goroutines: %d before, %d after\n%s", g0, runtime.NumGoroutine(), b.String())
		}
		// The descriptors of the cgroups kept for the next run go with them once no run is live.
		if !poll(func() bool { ReleaseIdle(); return openFDs() <= f0 }) {
			t.Errorf("open files: %d before, %d after", f0, openFDs())
		}
	})
}

func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// procStat is the part of /proc/PID/stat the tests need.
type procStat struct {
	pid, ppid, pgrp, session int
	state                    byte
	comm                     string
}

func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 4 {
		return procStat{}, false
	}
	st := procStat{pid: pid, comm: s[open+1 : end], state: f[0][0]}
	st.ppid, _ = strconv.Atoi(f[1])
	st.pgrp, _ = strconv.Atoi(f[2])
	st.session, _ = strconv.Atoi(f[3])
	return st, true
}

func allProcs() []procStat {
	ents, _ := os.ReadDir("/proc")
	var out []procStat
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			out = append(out, st)
		}
	}
	return out
}

// ours reports whether st still counts as left behind by us: alive, or a
// zombie we failed to reap. A zombie whose parent is someone else (init, once
// it was orphaned) is that parent's to reap.
func ours(st procStat) bool {
	return st.state != 'Z' || st.ppid == os.Getpid()
}

// groupMembers lists the processes left in process group pgid.
func groupMembers(pgid int) []procStat {
	var out []procStat
	for _, st := range allProcs() {
		if st.pgrp == pgid && ours(st) {
			out = append(out, st)
		}
	}
	return out
}

// childrenLeft lists the children of this test process.
func childrenLeft() []procStat {
	var out []procStat
	for _, st := range allProcs() {
		if st.ppid == os.Getpid() {
			out = append(out, st)
		}
	}
	return out
}

func requireGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if !poll(func() bool { return len(groupMembers(pgid)) == 0 }) {
		t.Errorf("process group %d still has %v", pgid, groupMembers(pgid))
	}
}

func requirePidGone(t *testing.T, pid int) {
	t.Helper()
	if !poll(func() bool { st, ok := readStat(pid); return !ok || !ours(st) }) {
		st, _ := readStat(pid)
		t.Errorf("pid %d still there: %+v", pid, st)
	}
}

func requireNoChildren(t *testing.T) {
	t.Helper()
	if !poll(func() bool { return len(childrenLeft()) == 0 }) {
		t.Errorf("children left: %v", childrenLeft())
	}
}

// killEscaped registers a cleanup that SIGKILLs the escaped process whose pid
// is on the first line of out, after checking that it is the `sleep` that
// leads its own session (so a recycled pid is never hit), then waits for it
// to go.
func killEscaped(t *testing.T, out string) int {
	t.Helper()
	line, _, _ := strings.Cut(out, "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 1 {
		t.Fatalf("no escaped pid in output %q", out)
	}
	t.Cleanup(func() {
		st, ok := readStat(pid)
		if !ok || st.state == 'Z' {
			return
		}
		if st.session != pid || (st.comm != "sleep" && st.comm != "sh") {
			t.Errorf("pid %d is not our escaped sleep: %+v", pid, st)
			return
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Errorf("kill escaped %d: %v", pid, err)
		}
		if st.ppid == os.Getpid() {
			// Adopted: this process is a child subreaper once a run had no cgroup.
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
		}
		requirePidGone(t, pid)
	})
	return pid
}

// containments are the ways of containing a run's processes that the tests cover: a cgroup per run, where
// this machine offers one, and the marker sweep.
func containments(t *testing.T) []string {
	if c := ContainmentInUse(); c.Cgroup == "" {
		t.Logf("no cgroup here (%s): the sweep only", c.Reason)
		return []string{"sweep"}
	}
	return []string{"cgroup", "sweep"}
}

// useContainment makes the runs the test starts use mode ("cgroup" or "sweep"), until its end.
func useContainment(t *testing.T, mode string) {
	t.Helper()
	old := cgroupsOff.Load()
	cgroupsOff.Store(mode == "sweep")
	t.Cleanup(func() { cgroupsOff.Store(old) })
}
