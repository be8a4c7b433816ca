//go:build linux

package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Reaping what a child subreaper adopts. A host that started a run without a cgroup is a child subreaper
// (becomeSubreaper): the run's processes whose parent dies are re-parented to it, and when they die they
// are its zombies. Nothing else in the host waits for them, so proc reaps them: every zombie child of this
// process that no pidfd in this process refers to. Whatever waits for a child holds a pidfd for it until it
// has reaped it: proc for the runs (child), os/exec for its commands (Go 1.23 on Linux 5.4); a process
// started with syscall.ForkExec and waited for by pid is the exception, and is then reaped by proc (its
// wait fails with ECHILD). Without pidfds (before Linux 5.4) nothing is reaped.

// spawning is held (read) from a fork to the pidfd of its child, so that reapOrphans (write) never sees
// a child of proc's without its pidfd.
var spawning sync.RWMutex

// reapOrphans reaps the zombie children of this process that no pidfd of this process refers to, when it
// is a child subreaper.
func reapOrphans() {
	if !subreaper.Load() || !pidfdWorks() {
		return
	}
	kids, _ := childrenOf(os.Getpid(), nil)
	var zombies []int
	for _, pid := range kids {
		if f := statFieldsOf(pid); len(f) > 0 && f[0] == "Z" {
			zombies = append(zombies, pid)
		}
	}
	if len(zombies) == 0 {
		return
	}
	spawning.Lock()
	defer spawning.Unlock()
	held := pidfdPids()
	for _, pid := range zombies {
		if !held[pid] {
			_, _ = waitidRaw(unix.P_PID, pid, unix.WEXITED|unix.WNOHANG)
		}
	}
}

// pidfdPids returns the pids that the pidfds open in this process refer to.
func pidfdPids() map[int]bool {
	held := map[int]bool{}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return held
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, name := range names {
		if link, err := os.Readlink("/proc/self/fd/" + name); err != nil || link != "anon_inode:[pidfd]" {
			continue
		}
		b, err := os.ReadFile("/proc/self/fdinfo/" + name)
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("Pid:")); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(v))); err == nil {
					held[pid] = true
				}
			}
		}
	}
	return held
}

// reapGroup waits (at most sweepLimit) until no process of group pgid other than its leader is a live
// child of this process, reaping the orphans: the shell's `cmd &` that a child subreaper adopted when the
// shell exited, ended by the group kill, or those of its children that come up as their parents die.
func reapGroup(pgid int) {
	if !subreaper.Load() {
		return
	}
	deadline := time.Now().Add(sweepLimit)
	want := strconv.Itoa(pgid)
	for delay := 20 * time.Microsecond; ; delay = min(2*delay, time.Millisecond) {
		kids, _ := childrenOf(os.Getpid(), nil)
		alive := 0
		for _, pid := range kids {
			if f := statFieldsOf(pid); pid != pgid && len(f) > 2 && f[2] == want && f[0] != "Z" {
				alive++
			}
		}
		reapOrphans()
		if alive == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(delay) // killed: dying now
	}
}
