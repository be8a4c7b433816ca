//go:build linux

package proc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
)

// watchdogChild is the environment variable that makes TestWatchdogHostKilled
// run as the host to be killed; its value is the marker of its processes.
const watchdogChild = "AGENTBASH_TEST_WATCHDOG_CHILD"

// TestWatchdogHostKilled: a host (this test binary run again) enables the
// watchdog and starts runs of every kind: a plain one, one whose child left
// the group, one with a group member that dropped the marker (env -i), an
// embedded shell, and one started before its first watchdog was killed (so
// a second watchdog was handed its group). The test SIGKILLs the host:
// nothing with the runs' marker is alive afterwards, and the watchdog is gone.
func TestWatchdogHostKilled(t *testing.T) {
	if v := os.Getenv(watchdogChild); v != "" {
		mode, mark, _ := strings.Cut(v, " ")
		cgroupsOff.Store(mode == "sweep")
		hostForWatchdog(mark)
		return
	}
	for _, mode := range containments(t) {
		t.Run(mode, func(t *testing.T) { testWatchdogHostKilled(t, mode) })
	}
}

func testWatchdogHostKilled(t *testing.T, mode string) {
	leakCheck(t)
	mark := proctest.UniqueSleep()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchdogHostKilled$", "-test.count=1")
	cmd.Env = append(os.Environ(), watchdogChild+"="+mode+" "+mark)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	killHost := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	watchdog := 0
	for watchdog == 0 {
		select {
		case line, ok := <-lines:
			if !ok {
				killHost()
				t.Fatal("the host ended before it was ready")
			}
			if w, ok := strings.CutPrefix(line, "ready "); ok {
				watchdog, _ = strconv.Atoi(w)
			} else if strings.HasPrefix(line, "error ") {
				killHost()
				requireNoneAlive(t, mark)
				t.Fatal(line)
			}
		case <-time.After(3 * failsafe):
			killHost()
			requireNoneAlive(t, mark)
			t.Fatal("the host never got ready")
		}
	}
	if n := len(sleepsWith(mark)); n != 6 {
		t.Errorf("%d sleeps before the kill, want 6", n)
	}
	killHost() // SIGKILL: no deferred function, no signal handler runs in the host
	requireNoneAlive(t, mark)
	requireWatchdogGone(t, watchdog)
	// A child subreaper (this process, once a test ran without a cgroup) adopted what the host left.
	if !poll(func() bool { reapOrphans(); return len(childrenLeft()) == 0 }) {
		t.Errorf("children left: %v", childrenLeft())
	}
}

// requireWatchdogGone waits for the watchdog of a killed host to exit: it is gone, or, when this process
// is a child subreaper (a test ran without a cgroup), it is our zombie, reaped here.
func requireWatchdogGone(t *testing.T, watchdog int) {
	t.Helper()
	if !poll(func() bool { st, ok := readStat(watchdog); return !ok || !ours(st) || st.state == 'Z' }) {
		t.Errorf("the watchdog %d is still there", watchdog)
	}
	if st, ok := readStat(watchdog); ok && st.state == 'Z' && st.ppid == os.Getpid() {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(watchdog, &ws, 0, nil)
	}
}

// hostForWatchdog is the host of TestWatchdogHostKilled: it prints "ready
// <watchdog pid>" once its runs are started, or "error ...", and waits to be
// killed.
func hostForWatchdog(mark string) {
	fail := func(format string, args ...any) {
		fmt.Printf("error "+format+"\n", args...)
		time.Sleep(failsafe) // the test kills us
		os.Exit(1)
	}
	start := func(s Spec) *Process {
		s.Env = testEnv
		p, err := Start(s)
		if err != nil {
			fail("start: %v", err)
		}
		return p
	}
	if err := EnableWatchdog(); err != nil {
		fail("%v", err)
	}
	first := WatchdogPid()
	// Started under the first watchdog: the second must be handed its group.
	// Its env -i sleep has no marker; its other sleep keeps the group known.
	start(Spec{Argv: []string{"/bin/sh", "-c", "env -i /bin/sh -c 'exec sleep " + mark + "' & sleep " + mark}})
	if !poll(func() bool { return len(sleepsWith(mark)) == 2 }) {
		fail("the first run did not start")
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		fail("kill the first watchdog: %v", err)
	}
	if !poll(func() bool { return WatchdogPid() == 0 }) {
		fail("the first watchdog's death went unnoticed")
	}

	// Short runs: the watchdog forgets their groups (its descriptors go back
	// to what they were after the first).
	short := func() {
		p := start(Spec{Argv: []string{"/bin/true"}})
		<-p.Done()
	}
	short()
	second := WatchdogPid()
	if second == 0 || second == first {
		fail("no second watchdog (%d, first %d)", second, first)
	}
	pidfds := func() (n int) {
		dir := "/proc/" + strconv.Itoa(second) + "/fd/"
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if l, _ := os.Readlink(dir + e.Name()); l == "anon_inode:[pidfd]" {
				n++
			}
		}
		return n
	}
	for range 20 {
		short()
	}
	// The first run's group is the only one left.
	if !poll(func() bool { return pidfds() <= 1 }) {
		fail("the watchdog holds %d pidfds after 20 short runs", pidfds())
	}

	start(Spec{Argv: []string{"/bin/sh", "-c", "exec sleep " + mark}})
	start(Spec{Argv: []string{"/bin/sh", "-c", "setsid sleep " + mark + " & sleep " + mark}})
	start(Spec{Embedded: "sleep " + mark})
	if !poll(func() bool { return len(sleepsWith(mark)) == 6 }) {
		fail("the runs did not start: %v", proctest.WithCmdline(mark))
	}
	if !poll(func() bool { return len(proctest.Escaped(mark)) > 0 }) {
		fail("the setsid sleep did not escape")
	}
	fmt.Printf("ready %d\n", second)
	time.Sleep(failsafe) // the test kills us
	os.Exit(1)
}

// sleepsWith lists the live processes whose command line is `sleep s`.
func sleepsWith(s string) []int {
	var out []int
	for _, pid := range proctest.WithCmdline(s) {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && string(b) == "sleep\x00"+s+"\x00" {
			out = append(out, pid)
		}
	}
	return out
}
