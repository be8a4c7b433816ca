// Package proctest finds the processes a test started, in /proc, so that a test can check that none is
// left alive. Tests name their processes in one of two ways: a command line no other process has (a sleep
// of a unique duration, UniqueSleep), or an environment variable set for the run (a marker, WithEnv).
// HiddenEscapes are the commands whose processes outlive their call and hide from agentbash's run marker;
// KillWithCmdline ends what a failed test left. CPUPerOp reports a benchmark's CPU time per operation, its
// own and its children's. It is for tests only (it imports package testing) and imports nothing of
// agentbash.
package proctest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// UniqueSleep returns a sleep duration that names one run uniquely in a command line: `sleep
// 1000.<random>` sleeps about 17 minutes, and its argument is found by WithCmdline.
func UniqueSleep() string { return fmt.Sprintf("1000.%09d", rand.IntN(1e9)) }

// WithCmdline lists the live processes, other than this one, whose command line (arguments separated by
// NUL) contains s. A zombie's command line is empty, so zombies are not listed.
func WithCmdline(s string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.Contains(b, []byte(s)) {
			out = append(out, pid)
		}
	}
	return out
}

// Escaped lists the processes of WithCmdline(s) that lead a session of their own (setsid).
func Escaped(s string) []int {
	var out []int
	for _, pid := range WithCmdline(s) {
		if f := statFields(pid); len(f) > 3 && f[3] == strconv.Itoa(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// WithEnv lists the live processes (not zombies) whose environment holds the entry marker ("KEY=VALUE"),
// each as "PID COMMAND LINE".
func WithEnv(marker string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte(marker+"\x00")) {
			continue
		}
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(pid); len(f) > 0 && f[0] == "Z" {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
}

// Poll calls cond, with growing pauses up to 20 ms, until it returns true (Poll returns true) or d has
// passed (false). It is for what the kernel gives no event for, such as a pid leaving /proc.
func Poll(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 20*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}

// statFields returns the fields of /proc/PID/stat after the command name: state, ppid, pgrp, session, ...
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// An Escape is a command that leaves a process behind it when its shell exits: in a session of its own,
// re-parented to init, and hidden from the run marker (runtime/proc's survivor sweep).
type Escape struct {
	Name, Script string
	// Needs is a program the script needs besides a POSIX shell, env and setsid ("" for none).
	Needs string
	// NotRoot says that the process hides from a host that is not root only (one without
	// CAP_SYS_PTRACE): root reads a process's environment whatever it does.
	NotRoot bool
}

// HiddenEscapes returns the escapes that the marker sweep cannot see, each leaving a process whose command
// line holds mark (UniqueSleep): the marker's value changed, a daemon that overwrites its environment (and
// its argument) block as setproctitle does, a process that made itself not dumpable (its environment is
// unreadable to a host that is not root), and a cleared environment.
func HiddenEscapes(mark string) []Escape {
	prctl := strconv.Itoa(syscall.SYS_PRCTL)
	return []Escape{
		{Name: "marker value changed", Script: `k=$(env | sed -n 's/^\(AGENTBASH_RUN_[0-9a-f]*\)=.*/\1/p' | tail -n 1); ` +
			`env "$k=x" setsid -f sleep ` + mark},
		{Name: "daemon overwriting its environment", Needs: "perl",
			Script: `perl -e 'use POSIX; if (!fork) { setsid(); $0 = "` + mark + ` " . ("t" x 4000); sleep 900 }'`},
		{Name: "not dumpable", Needs: "perl", NotRoot: true,
			Script: `perl -e 'use POSIX; if (!fork) { setsid(); syscall(` + prctl + `, 4, 0, 0, 0, 0) == 0 or die "prctl: $!"; sleep 900 }' ` + mark},
		{Name: "cleared environment", Script: `env -i setsid -f sleep ` + mark},
	}
}

// KillWithCmdline SIGKILLs, until none is left, the processes whose command line holds s (a mark only
// the test's processes carry: after a failure, so that the test leaves nothing behind). Each is pinned
// with a pidfd and its command line checked again before the signal, so a recycled pid is never hit.
func KillWithCmdline(s string) {
	for range 1000 {
		left := WithCmdline(s)
		if len(left) == 0 {
			return
		}
		for _, pid := range left {
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue
			}
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && bytes.Contains(b, []byte(s)) {
				_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
			_ = unix.Close(fd)
		}
		time.Sleep(time.Millisecond)
	}
}

// CPUPerOp reports the CPU time per operation of this process (host-us/op) and of its children
// (child-us/op): on a shared machine, figures less noisy than the wall time. Call the function it returns
// when the benchmark's loop is done.
func CPUPerOp(b *testing.B) func() {
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
