//go:build linux

package proc

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInteractive drives runs whose stdin the host writes to, on a pipe and on a terminal: each case
// writes its input once the shell has shown that it is ready, and waits for the answer it expects.
func TestInteractive(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pty    bool
		script string
		ready  string // what the shell prints once it reads
		input  string
		want   string // seen in the output after the input
		close  bool   // close stdin after the input
		code   int
	}{
		{name: "pipe read answered", script: `echo ready; read x; echo "got:$x"`, ready: "ready", input: "hello\n", want: "got:hello", code: 0},
		{name: "pipe cat until end of file", script: `echo ready; cat; echo done`, ready: "ready", input: "line\n", close: true, want: "line\ndone", code: 0},
		{name: "terminal read answered", pty: true, script: `echo ready; read x; echo "got:$x"; exit 3`, ready: "ready", input: "hello\n", want: "got:hello", code: 3},
		{name: "terminal echo and line endings", pty: true, script: `echo ready; cat`, ready: "ready", input: "ping\n", want: "ping\r\nping\r\n", code: -1},
		{name: "terminal is a tty", pty: true, script: `test -t 0 && test -t 1 && echo "tty $(stty size)"; echo ready; read x`, ready: "ready", input: "\n", want: "", code: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakCheck(t)
			out := newWatch(tc.ready)
			p, err := Start(Spec{Argv: []string{"/bin/sh", "-c", tc.script}, Env: testEnv, Stdout: out, Stderr: out,
				Combined: true, OpenStdin: !tc.pty, PTY: tc.pty})
			if err != nil {
				t.Fatal(err)
			}
			defer requireGroupGone(t, p.Pid())
			await(t, p, out.seen, "the shell to be ready")
			if !p.HasStdin() {
				t.Fatal("no stdin")
			}
			if _, err := p.WriteStdin([]byte(tc.input), time.Now().Add(failsafe)); err != nil {
				t.Fatalf("WriteStdin: %v", err)
			}
			if tc.close {
				if err := p.CloseStdin(); err != nil {
					t.Fatal(err)
				}
			}
			if tc.want != "" {
				if !poll(func() bool { return strings.Contains(out.String(), tc.want) }) {
					p.Kill()
					<-p.Done()
					t.Fatalf("output %q does not show %q", out.String(), tc.want)
				}
			}
			if tc.code == -1 {
				p.Kill() // cat runs until killed
			}
			ex, _ := wait(t, p)
			if tc.code >= 0 && ex.Code != tc.code {
				t.Errorf("exit %d, want %d (output %q)", ex.Code, tc.code, out.String())
			}
			if ex.Err != nil {
				t.Errorf("Exit.Err: %v", ex.Err)
			}
			if tc.pty && strings.HasPrefix(tc.name, "terminal is") && !strings.Contains(out.String(), "tty 24 80") {
				t.Errorf("output %q: want a 24x80 terminal", out.String())
			}
			if _, err := p.WriteStdin([]byte("late\n"), time.Time{}); err == nil {
				t.Error("a write after the run is over succeeded")
			}
		})
	}
}

// TestInteractiveKill kills runs blocked on their stdin and on a full terminal: the whole session goes,
// the output so far is delivered, and a write blocked on a child that does not read returns at its
// deadline.
func TestInteractiveKill(t *testing.T) {
	for _, pty := range []bool{false, true} {
		name := "pipe"
		if pty {
			name = "terminal"
		}
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			out := newWatch("ready")
			// sleep never reads: writes fill the pipe or the terminal's buffer.
			p, err := Start(Spec{Argv: []string{"/bin/sh", "-c", "echo ready; sleep 30 & sleep 30"}, Env: testEnv,
				Stdout: out, Stderr: out, Combined: true, OpenStdin: !pty, PTY: pty})
			if err != nil {
				t.Fatal(err)
			}
			await(t, p, out.seen, "ready")
			big := []byte(strings.Repeat("x", 1<<20))
			t0 := time.Now()
			_, err = p.WriteStdin(big, time.Now().Add(200*time.Millisecond))
			if !errors.Is(err, syscall.EAGAIN) && (err == nil || !strings.Contains(err.Error(), "timeout")) {
				t.Errorf("a write nobody reads: err %v, want its deadline", err)
			}
			if d := time.Since(t0); d > 5*time.Second {
				t.Errorf("the blocked write took %v", d)
			}
			p.Kill()
			ex, _ := wait(t, p)
			if !ex.Killed {
				t.Errorf("Exit %+v: want Killed", ex)
			}
			requireGroupGone(t, p.Pid())
		})
	}
}

func TestNoStdin(t *testing.T) {
	p, err := Start(Spec{Argv: []string{"/bin/sh", "-c", "true"}, Env: testEnv})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.WriteStdin([]byte("x"), time.Time{}); !errors.Is(err, ErrNoStdin) {
		t.Errorf("WriteStdin: %v, want ErrNoStdin", err)
	}
	wait(t, p)
	if _, err := Start(Spec{Embedded: "true", PTY: true}); err == nil {
		t.Error("the embedded shell started on a terminal")
	}
}

// TestTerminalHangup: a terminal that no process holds for a while is not the end of a run's output. A
// command that closes every descriptor of its terminal and later opens it again (/dev/tty) is read to
// its end, and a run whose terminal is closed for good ends at its exit, not after the grace (three
// times the test's failsafe here).
func TestTerminalHangup(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		gate   bool // the script waits for the file "gate" in its directory once its terminal is closed
		want   string
	}{
		{name: "opened again", gate: true,
			script: `echo before; exec </dev/null >/dev/null 2>&1; while [ ! -e gate ]; do sleep 0.01; done; exec >/dev/tty; echo late`,
			want:   "before\r\nlate\r\n"},
		{name: "closed at the exit", script: `echo only`, want: "only\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakCheck(t)
			dir := t.TempDir()
			out := newWatch("before")
			p, err := Start(Spec{Argv: []string{"/bin/sh", "-c", tc.script}, Dir: dir, Env: testEnv, Stdout: out,
				Stderr: out, Combined: true, PTY: true, Grace: 3 * failsafe})
			if err != nil {
				t.Fatal(err)
			}
			defer requireGroupGone(t, p.Pid())
			if tc.gate {
				await(t, p, out.seen, "the first line")
				// The terminal is closed once the shell's descriptors 0 to 2 are /dev/null; the pump then
				// reads EIO at once. The kernel gives no event for a descriptor's change: poll.
				closed := func() bool {
					for _, fd := range []string{"0", "1", "2"} {
						if l, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(p.Pid()), "fd", fd)); l != os.DevNull {
							return false
						}
					}
					return true
				}
				if !poll(closed) {
					p.Kill()
					<-p.Done()
					t.Fatal("the shell did not close its terminal")
				}
				if err := os.WriteFile(filepath.Join(dir, "gate"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ex, _ := wait(t, p)
			if got := out.String(); got != tc.want || ex.Code != 0 || ex.GraceExpired || ex.Err != nil {
				t.Errorf("output %q, exit %+v; want %q, exit 0", got, ex, tc.want)
			}
		})
	}
}
