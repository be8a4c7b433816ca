//go:build linux

package proc

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbash/agentbash/runtime/internal/osx"
)

// The watchdog: when the host process dies, even of SIGKILL, the processes it started die too. See the
// package documentation ("When the host dies").

// watchdogEnv, set in the environment of a process, makes proc's init run the watchdog loop instead of the
// program; its value is the host key of the host to watch.
const watchdogEnv = "AGENTBASH_PROC_WATCHDOG"

// watchdogName is the watchdog's argv[0], as ps shows it.
const watchdogName = "agentbash-proc-watchdog"

func init() {
	if key := os.Getenv(watchdogEnv); key != "" {
		os.Exit(runWatchdog(os.Stdin, key))
	}
}

// wd is the host side of the watchdog.
var wd struct {
	mu      sync.Mutex
	enabled bool
	w       *os.File         // write end of the pipe to the watchdog; nil when it is not running
	proc    *os.Process      // the watchdog
	groups  map[int]struct{} // process groups started and not yet ended, to hand a new watchdog
	cgroup  string           // this host's cgroup directory, to hand a new watchdog ("" for none)
}

// EnableWatchdog makes the processes proc starts from now on die with this process, however it ends
// (SIGKILL included): each external child gets PR_SET_PDEATHSIG SIGKILL, and a watchdog process, started
// now (this binary run again, see the package documentation), is told each process group; when its pipe
// from this process closes (this process is gone), it kills those groups and every process holding one of
// this process's run markers, then exits. A watchdog that dies is started again at the next Start.
//
// It is for hosts that serve calls (agentbash serve); it costs a process, and a few microseconds per
// Start. It cannot be disabled. The error is the watchdog's failure to start.
func EnableWatchdog() error {
	// The watchdog removes this host's cgroups when the host is gone: keep them between runs.
	keepCgroups()
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.enabled = true
	if wd.groups == nil {
		wd.groups = map[int]struct{}{}
	}
	return startWatchdogLocked()
}

// WatchdogPid returns the pid of the running watchdog, or 0.
func WatchdogPid() int {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.proc == nil {
		return 0
	}
	return wd.proc.Pid
}

// watchdogEnabled reports whether EnableWatchdog was called.
func watchdogEnabled() bool {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	return wd.enabled
}

// startWatchdogLocked starts the watchdog if it is not running and hands it the live groups.
func startWatchdogLocked() error {
	if wd.w != nil {
		return nil
	}
	r, w, err := os.Pipe() // both close-on-exec: only the watchdog gets r, as its stdin
	if err != nil {
		return fmt.Errorf("proc: watchdog: %w", err)
	}
	if devNull == nil {
		r.Close()
		w.Close()
		return fmt.Errorf("proc: watchdog: %w", devNullErr)
	}
	p, err := os.StartProcess("/proc/self/exe", []string{watchdogName}, &os.ProcAttr{
		Dir:   "/",
		Env:   []string{watchdogEnv + "=" + hostKey()},
		Files: []*os.File{r, devNull, devNull},
		// A session of its own: the signals sent to the host's process group or terminal (^C, a hangup,
		// a supervisor killing the group) do not reach it.
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	r.Close()
	if err != nil {
		w.Close()
		return fmt.Errorf("proc: watchdog: %w", err)
	}
	wd.w, wd.proc = w, p
	go func() {
		_, _ = p.Wait()
		wd.mu.Lock()
		defer wd.mu.Unlock()
		if wd.proc == p {
			// It died (someone killed it): the next Start starts another.
			wd.w.Close()
			wd.w, wd.proc = nil, nil
		}
	}()
	if wd.cgroup != "" {
		if err := writeWatchdogLine("c" + wd.cgroup); err != nil {
			return err
		}
	}
	for pgid := range wd.groups {
		if err := writeWatchdog('+', pgid); err != nil {
			return err
		}
	}
	return nil
}

// writeWatchdog sends one message (+pgid: started, -pgid: ended). It is a few bytes, so one atomic pipe
// write; the watchdog reads as they come.
func writeWatchdog(op byte, pgid int) error {
	var b [24]byte
	msg := strconv.AppendInt(append(b[:0], op), int64(pgid), 10)
	_, err := wd.w.Write(append(msg, '\n'))
	return err
}

// writeWatchdogLine sends one line (shorter than PIPE_BUF: one atomic write).
func writeWatchdogLine(line string) error {
	_, err := wd.w.Write([]byte(line + "\n"))
	return err
}

// watchGroup tells the watchdog, if enabled, that process group pgid was started; it reports whether it
// did (the group must then be unwatched when it ends).
func watchGroup(pgid int) bool {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if !wd.enabled {
		return false
	}
	wd.groups[pgid] = struct{}{}
	if wd.w == nil {
		_ = startWatchdogLocked() // hands it the groups, this one included
		return true
	}
	if writeWatchdog('+', pgid) != nil {
		// It died and the waiter has not noticed yet: start another.
		wd.w.Close()
		wd.w, wd.proc = nil, nil
		_ = startWatchdogLocked()
	}
	return true
}

// ensureWatchdog starts the watchdog again, if it is enabled and died.
func ensureWatchdog() {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.enabled && wd.w == nil {
		_ = startWatchdogLocked()
	}
}

// watchCgroup tells the watchdog (now, or when it starts) this host's cgroup directory, which holds the
// cgroup of every run: when the host is gone, it kills what is in it and removes it.
func watchCgroup(dir string) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.cgroup == dir {
		return
	}
	wd.cgroup = dir
	if wd.w != nil && writeWatchdogLine("c"+dir) != nil {
		wd.w.Close()
		wd.w, wd.proc = nil, nil
		_ = startWatchdogLocked()
	}
}

// unwatchGroup tells the watchdog that process group pgid has ended.
func unwatchGroup(pgid int) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if !wd.enabled {
		return
	}
	delete(wd.groups, pgid)
	if wd.w != nil {
		_ = writeWatchdog('-', pgid)
	}
}

// spawnThreads are the OS threads that fork the runs that get PR_SET_PDEATHSIG (those without a cgroup,
// when the watchdog is on): it fires when the thread that forked a child exits, and these live as long as
// the process. There are a few, so that forks do not wait for one another (each blocks its thread until
// the child has executed).
var spawnThreads = sync.OnceValue(func() *osx.Thread { return osx.NewThreads(max(4, runtime.GOMAXPROCS(0))) })

// onSpawnThread runs fn on a spawning thread and waits for it.
func onSpawnThread(fn func()) { spawnThreads().Run(fn) }

// runWatchdog is the watchdog process: it reads +pgid and -pgid lines from in until EOF (its host is
// gone), then kills the groups whose leader is still alive and sweeps every process holding a marker of
// key. Its return value is the exit status.
func runWatchdog(in *os.File, key string) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	leaders := map[int]int{} // pgid -> pidfd of its leader
	cgroup := ""             // the host's cgroup directory
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 2 {
			continue
		}
		if line[0] == 'c' {
			cgroup = string(line[1:])
			continue
		}
		pgid, err := strconv.Atoi(string(line[1:]))
		if err != nil || pgid <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			fd, err := unix.PidfdOpen(pgid, 0)
			if err != nil {
				continue // already gone, or no pidfd (before Linux 5.3): the sweep's alone
			}
			if old, ok := leaders[pgid]; ok {
				unix.Close(old)
			}
			leaders[pgid] = fd
		case '-':
			if fd, ok := leaders[pgid]; ok {
				unix.Close(fd)
				delete(leaders, pgid)
			}
		}
	}
	// The host is gone. Everything in its cgroup (every run that had one) is killed at once, and the
	// cgroup removed.
	if cgroup != "" {
		killTree(cgroup, time.Now().Add(sweepLimit))
	}
	// A group is ours while its leader is alive (its pidfd not readable: the leader's
	// pid, the group's id, cannot have been recycled), or while a process holding one of the host's
	// markers is in it (the leader may already be dead of its PR_SET_PDEATHSIG): kill those groups
	// first, for their members that dropped the marker, then sweep every marked process.
	var gone []int
	for pgid, fd := range leaders {
		if exited(fd) {
			gone = append(gone, pgid)
		} else {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
	if len(gone) > 0 {
		marked := markedGroups(key)
		for _, pgid := range gone {
			if marked[pgid] {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
		}
	}
	sweepKey(key)
	return 0
}

// markedGroups returns the process groups of the processes holding a marker of key.
func markedGroups(key string) map[int]bool {
	s := newSweeper("\x00" + key + "=")
	defer s.release()
	groups := map[int]bool{}
	d, err := os.Open("/proc")
	if err != nil {
		return groups
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || !s.marked(pid) {
			continue
		}
		if b, err := os.ReadFile("/proc/" + name + "/stat"); err == nil {
			if i := bytes.LastIndexByte(b, ')'); i >= 0 {
				if f := bytes.Fields(b[i+1:]); len(f) > 2 {
					if pgid, err := strconv.Atoi(string(f[2])); err == nil {
						groups[pgid] = true
					}
				}
			}
		}
	}
	return groups
}

// exited reports whether the process of pidfd has exited.
func exited(pidfd int) bool {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0
}
