package proctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// A sleep started by the test is found by its command line and its marker, as a session leader when it
// was started with setsid, and no longer once it is dead and reaped.
func TestFindsWhatItStarted(t *testing.T) {
	for _, setsid := range []bool{false, true} {
		t.Run(fmt.Sprintf("setsid=%v", setsid), func(t *testing.T) {
			d := UniqueSleep()
			marker := "AGENTBASH_PROCTEST=" + d
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "sleep", d)
			cmd.Env = append(os.Environ(), marker)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			// The command line is the sleep's once execve is done: poll until it is.
			Poll(10*time.Second, func() bool { return len(WithCmdline(d)) > 0 })
			if got := WithCmdline(d); !slices.Equal(got, []int{pid}) {
				t.Errorf("WithCmdline = %v, want [%d]", got, pid)
			}
			if got := Escaped(d); setsid != slices.Equal(got, []int{pid}) || !setsid && len(got) > 0 {
				t.Errorf("Escaped = %v with setsid %v", got, setsid)
			}
			// The environment is laid out once execve is done: poll until it is.
			if !Poll(10*time.Second, func() bool { return len(WithEnv(marker)) == 1 }) {
				t.Fatalf("WithEnv = %v, want the sleep", WithEnv(marker))
			}
			if got := WithEnv(marker)[0]; got != strconv.Itoa(pid)+" sleep "+d+" " {
				t.Errorf("WithEnv = %q", got)
			}
			cmd.Process.Kill()
			cmd.Wait()
			if got := WithCmdline(d); len(got) > 0 {
				t.Errorf("a reaped process is listed: %v", got)
			}
			if got := WithEnv(marker); len(got) > 0 {
				t.Errorf("a reaped process is listed: %v", got)
			}
		})
	}
}

// A zombie (dead, not yet reaped) is not listed by its marker.
func TestZombieNotListed(t *testing.T) {
	d := UniqueSleep()
	marker := "AGENTBASH_PROCTEST=" + d
	cmd := exec.Command("sleep", d)
	cmd.Env = append(os.Environ(), marker)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	if !Poll(10*time.Second, func() bool { return len(WithEnv(marker)) == 1 }) {
		t.Fatal("the sleep is not found")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	if !Poll(10*time.Second, func() bool { f := statFields(cmd.Process.Pid); return len(f) > 0 && f[0] == "Z" }) {
		t.Fatal("the killed sleep did not become a zombie")
	}
	if got := WithEnv(marker); len(got) > 0 {
		t.Errorf("a zombie is listed: %v", got)
	}
}

func TestPoll(t *testing.T) {
	n := 0
	if !Poll(10*time.Second, func() bool { n++; return n == 3 }) || n != 3 {
		t.Errorf("Poll stopped after %d calls", n)
	}
	if Poll(time.Millisecond, func() bool { return false }) {
		t.Error("Poll of a condition never true returned true")
	}
}

// Each hidden escape leaves a process that leads a session of its own, outlives its shell and does not
// hold the shell's marker entry; KillWithCmdline ends it.
func TestHiddenEscapes(t *testing.T) {
	const marker = "AGENTBASH_RUN_00ff=7"
	for _, e := range HiddenEscapes(UniqueSleep()) {
		t.Run(e.Name, func(t *testing.T) {
			if e.Needs != "" {
				if _, err := exec.LookPath(e.Needs); err != nil {
					t.Skipf("no %s", e.Needs)
				}
			}
			mark := UniqueSleep()
			e := HiddenEscapes(mark)[slices.IndexFunc(HiddenEscapes(mark), func(x Escape) bool { return x.Name == e.Name })]
			t.Cleanup(func() { KillWithCmdline(mark) })
			cmd := exec.Command("/bin/sh", "-c", e.Script)
			cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", marker}
			// No pipes: the escaped process would hold them.
			if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
			// The escape hides the marker some time after the process is found: a forked child carries
			// the mark (in its parent's script) and the marker before it rewrites its environment. Wait
			// for the hidden state, and fail if it never comes.
			var left []int
			holds := false
			hidden := func() bool {
				if left = Escaped(mark); len(left) != 1 {
					return false
				}
				env, err := os.ReadFile("/proc/" + strconv.Itoa(left[0]) + "/environ")
				if e.NotRoot && os.Geteuid() == 0 {
					err, env = nil, nil // root reads it; the process still made itself not dumpable
				}
				holds = err == nil && bytes.Contains(env, []byte(marker+"\x00"))
				return !holds
			}
			if !Poll(10*time.Second, hidden) {
				if holds {
					t.Fatalf("the escaped process %v holds the marker", left)
				}
				t.Fatalf("escaped: %v, want one (all: %v)", left, WithCmdline(mark))
			}
			KillWithCmdline(mark)
			if !Poll(10*time.Second, func() bool { return len(WithCmdline(mark)) == 0 }) {
				t.Errorf("left after KillWithCmdline: %v", WithCmdline(mark))
			}
		})
	}
}
