//go:build linux

package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime/proc"
)

// pair runs an agent in this process (Serve) and returns the host's end of its stream, and a function
// that waits for the agent to return and returns its code.
func pair(t *testing.T) (*Conn, func() int) {
	t.Helper()
	toAgent, fromHost := io.Pipe()
	fromAgent, toHost := io.Pipe()
	done := make(chan struct{})
	var code int
	go func() {
		code = Serve(toAgent, toHost)
		toHost.Close()
		close(done)
	}()
	served := func() int { <-done; return code }
	c := NewConn(fromAgent, fromHost, closers{fromHost, fromAgent})
	t.Cleanup(func() {
		c.Close()
		served()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	return c, served
}

type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		c.Close()
	}
	return nil
}

// syncBuffer is a bytes.Buffer safe for the reader's writes and the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A run through the agent is a run of proc.Start: the same output, exit and errors, for every kind of run.
func TestAgentRuns(t *testing.T) {
	c, _ := pair(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	sh := func(script string) []string { return []string{"/bin/sh", "-c", script} }
	for _, tc := range []struct {
		name           string
		spec           proc.Spec
		stdout, stderr string
	}{
		{"streams and status", proc.Spec{Argv: sh("echo out; echo err >&2; exit 3")}, "out\n", "err\n"},
		{"combined", proc.Spec{Argv: sh("echo a; echo b >&2; echo c"), Combined: true}, "a\nb\nc\n", ""},
		{"discarded", proc.Spec{Argv: sh("echo gone; echo kept >&2"), Stdout: io.Discard}, "", "kept\n"},
		{"working directory and environment", proc.Spec{Argv: sh("pwd; echo $X"), Dir: dir, Env: []string{"X=y", "PATH=/bin:/usr/bin"}}, dir + "\ny\n", ""},
		{"signal", proc.Spec{Argv: sh("kill -TERM $$")}, "", ""},
		{"terminal", proc.Spec{Argv: sh("echo hi; test -t 0 && echo tty"), PTY: true}, "hi\r\ntty\r\n", ""},
		{"embedded shell", proc.Spec{Embedded: "echo inside; false"}, "inside\n", ""},
		{"large output", proc.Spec{Argv: sh("head -c 300000 /dev/zero | tr '\\0' a")}, strings.Repeat("a", 300000), ""},
		{"missing program", proc.Spec{Argv: []string{"no-such-program-here"}}, "", ""},
		{"missing directory", proc.Spec{Argv: sh("true"), Dir: filepath.Join(dir, "missing")}, "", ""},
		{"directory is a file", proc.Spec{Argv: sh("true"), Dir: filepath.Join(dir, "file")}, "", ""},
		{"not executable", proc.Spec{Argv: []string{filepath.Join(dir, "file")}}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			local, remote := tc.spec, tc.spec
			var lo, le, ro, re syncBuffer
			if local.Stdout == nil {
				local.Stdout, remote.Stdout = &lo, &ro
			}
			local.Stderr, remote.Stderr = &le, &re
			lp, lerr := proc.Start(local)
			rp, rerr := c.Start(remote)
			if fmt.Sprint(lerr) != fmt.Sprint(rerr) || fmt.Sprintf("%T", lerr) != fmt.Sprintf("%T", rerr) {
				t.Fatalf("start: %T %v here, %T %v through the agent", lerr, lerr, rerr, rerr)
			}
			if lerr != nil {
				var le, re syscall.Errno
				if errors.As(lerr, &le) != errors.As(rerr, &re) || le != re || errors.Is(lerr, exec.ErrNotFound) != errors.Is(rerr, exec.ErrNotFound) {
					t.Fatalf("start: errno %v here, %v through the agent", le, re)
				}
				return
			}
			lx, rx := lp.Wait(), rp.Wait()
			if lx.Code != rx.Code || lx.Signal != rx.Signal || lx.Killed != rx.Killed || (lx.Err == nil) != (rx.Err == nil) {
				t.Errorf("exit: %+v here, %+v through the agent", lx, rx)
			}
			if ro.String() != tc.stdout || re.String() != tc.stderr || lo.String() != ro.String() || le.String() != re.String() {
				t.Errorf("output: %q %q through the agent, %q %q here, want %q %q", clip(ro.String()), re.String(), clip(lo.String()), le.String(), clip(tc.stdout), tc.stderr)
			}
		})
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// Kill ends the run and everything it started (its group, and what left it); stdin is written and
// closed as here; Writable files come back.
func TestAgentControl(t *testing.T) {
	c, _ := pair(t)
	t.Run("kill", func(t *testing.T) {
		mark := proctest.UniqueSleep()
		p, err := c.Start(proc.Spec{Argv: []string{"/bin/sh", "-c", "setsid sleep " + mark + " & sleep " + mark}})
		if err != nil {
			t.Fatal(err)
		}
		if !proctest.Poll(5*time.Second, func() bool { return len(proctest.Escaped(mark)) == 1 }) {
			t.Fatalf("the sleeps did not start: %v", proctest.WithCmdline(mark))
		}
		p.Kill()
		x := p.Wait()
		if !x.Killed || x.Signal != syscall.SIGKILL {
			t.Errorf("exit after Kill: %+v", x)
		}
		if left := proctest.WithCmdline(mark); len(left) > 0 {
			t.Errorf("left: %v", left)
		}
	})
	t.Run("stdin", func(t *testing.T) {
		for _, pty := range []bool{false, true} {
			var out syncBuffer
			p, err := c.Start(proc.Spec{Argv: []string{"/bin/sh", "-c", "read line; echo got $line; cat"}, OpenStdin: !pty, PTY: pty, Stdout: &out})
			if err != nil {
				t.Fatal(err)
			}
			if !p.HasStdin() {
				t.Fatal("no stdin")
			}
			if n, err := p.WriteStdin([]byte("abc\n"), time.Now().Add(5*time.Second)); n != 4 || err != nil {
				t.Fatalf("write: %d, %v", n, err)
			}
			if pty {
				p.WriteStdin([]byte{4}, time.Time{}) // ^D: end of file on a terminal
			} else if err := p.CloseStdin(); err != nil {
				t.Fatal(err)
			}
			x := p.Wait()
			if x.Code != 0 || !strings.Contains(out.String(), "got abc") {
				t.Errorf("pty %v: %+v %q", pty, x, out.String())
			}
			if _, err := p.WriteStdin([]byte("late"), time.Time{}); err == nil {
				t.Error("a write after the end succeeded")
			}
		}
		p, err := c.Start(proc.Spec{Argv: []string{"true"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.WriteStdin([]byte("x"), time.Time{}); !errors.Is(err, proc.ErrNoStdin) {
			t.Errorf("a run without stdin: %v", err)
		}
		p.Wait()
	})
	t.Run("writable", func(t *testing.T) {
		dir := t.TempDir()
		f := filepath.Join(dir, "state")
		os.WriteFile(f, []byte("old"), 0o600)
		p, err := c.Start(proc.Spec{Argv: []string{"/bin/sh", "-c", "cat " + f + "; echo new > " + f}, Writable: []string{f}})
		if err != nil {
			t.Fatal(err)
		}
		x := p.Wait()
		if b, _ := os.ReadFile(f); string(b) != "new\n" || x.Code != 0 {
			t.Errorf("the file came back as %q (%+v)", b, x)
		}
	})
}

// Many runs share the one stream: each gets its own output and exit.
func TestAgentMultiplexes(t *testing.T) {
	c, _ := pair(t)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Go(func() {
			var out, errOut syncBuffer
			p, err := c.Start(proc.Spec{Argv: []string{"/bin/sh", "-c", fmt.Sprintf("for j in 1 2 3; do echo %d.$j; echo e%d >&2; done; exit %d", i, i, i%7)}, Stdout: &out, Stderr: &errOut})
			if err != nil {
				errs <- err
				return
			}
			x := p.Wait()
			want := fmt.Sprintf("%d.1\n%d.2\n%d.3\n", i, i, i)
			if x.Code != i%7 || out.String() != want || errOut.String() != strings.Repeat(fmt.Sprintf("e%d\n", i), 3) {
				errs <- fmt.Errorf("run %d: %+v %q %q", i, x, out.String(), errOut.String())
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := c.Running(); n != 0 {
		t.Errorf("%d runs still listed", n)
	}
}

// Closing the stream ends every run (the agent kills them and returns), and a stream that breaks finishes
// the runs as killed, with the reason.
func TestAgentStreamEnds(t *testing.T) {
	c, served := pair(t)
	mark := proctest.UniqueSleep()
	p, err := c.Start(proc.Spec{Argv: []string{"/bin/sh", "-c", "setsid sleep " + mark + " & sleep " + mark}})
	if err != nil {
		t.Fatal(err)
	}
	if !proctest.Poll(5*time.Second, func() bool { return len(proctest.Escaped(mark)) == 1 }) {
		t.Fatal("the sleeps did not start")
	}
	c.Close()
	x := p.Wait()
	if x.Signal != syscall.SIGKILL || x.Err == nil {
		t.Errorf("a run when the stream closed: %+v", x)
	}
	if code := served(); code != 0 {
		t.Errorf("the agent returned %d", code)
	}
	if !proctest.Poll(5*time.Second, func() bool { return len(proctest.WithCmdline(mark)) == 0 }) {
		t.Errorf("left: %v", proctest.WithCmdline(mark))
	}
	if _, err := c.Start(proc.Spec{Argv: []string{"true"}}); err == nil {
		t.Error("a start on a closed stream succeeded")
	}
}

// A peer that is not an agent of this version is refused at once, saying so.
func TestAgentHello(t *testing.T) {
	for _, tc := range []struct {
		name string
		sent []byte
		want string
	}{
		{"not an agent", []byte("Usage: something else\n"), "a frame of"},
		{"another version", appendFrame(nil, tHello, 0, mustJSON(helloMsg{Version: Version + 1})), "version"},
		{"not a hello", appendFrame(nil, tStdout, 0, []byte("x")), "not a hello"},
		{"nothing", nil, "stream ended"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewConn(bytes.NewReader(tc.sent), io.Discard, closers{})
			_, err := c.Ready(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			c.Close()
		})
	}
}

// The protocol's errors cross with their types: what the runtime reads to render a spawn error.
func TestErrorsCross(t *testing.T) {
	for _, err := range []error{
		&exec.Error{Name: "x", Err: exec.ErrNotFound},
		&fs.PathError{Op: "chdir", Path: "/d", Err: syscall.ENOTDIR},
		&fs.PathError{Op: "fork/exec", Path: "/p", Err: syscall.E2BIG},
		syscall.EAGAIN,
		proc.ErrRefused,
		proc.ErrNoStdin,
		os.ErrDeadlineExceeded,
		errors.New("something else"),
	} {
		got := errorOf(err).err()
		if got.Error() != err.Error() || fmt.Sprintf("%T", got) != fmt.Sprintf("%T", err) {
			t.Errorf("%T %v came back as %T %v", err, err, got, got)
		}
		var e1, e2 syscall.Errno
		if errors.As(err, &e1) != errors.As(got, &e2) || e1 != e2 {
			t.Errorf("%v: errno %v came back as %v", err, e1, e2)
		}
	}
}

// A run whose Stdout and Stderr are pipes of the caller's (*os.File) keeps them after the caller closes
// its write ends (the run holds copies until its end, when the reader sees the pipes' end), and is
// ordered: the stderr a command wrote before its stdout is in the stderr pipe by the time the stdout is
// read, as a persistent shell's reader, which takes a marker on stdout as the end of a command's output,
// needs.
func TestAgentOrderedFiles(t *testing.T) {
	c, _ := pair(t)
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer errR.Close()
	p, err := c.Start(proc.Spec{Argv: []string{"/bin/sh", "-c", `while read l; do echo "err $l" >&2; echo "out $l"; done; echo bye`},
		Stdout: outW, Stderr: errW, OpenStdin: true})
	outW.Close() // the run holds its own
	errW.Close()
	if err != nil {
		t.Fatal(err)
	}
	errFd := int(errR.Fd()) // blocking from now on: read with poll below
	if err := syscall.SetNonblock(errFd, true); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 64)
	for i := range 100 {
		if _, err := p.WriteStdin(fmt.Appendf(nil, "%d\n", i), time.Now().Add(10*time.Second)); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("out %d\n", i)
		var got []byte
		for len(got) < len(want) {
			n, err := outR.Read(line[:len(want)-len(got)])
			if err != nil {
				t.Fatalf("call %d: reading stdout: %v (read %q)", i, err, got)
			}
			got = append(got, line[:n]...)
		}
		if string(got) != want {
			t.Fatalf("call %d: stdout %q, want %q", i, got, want)
		}
		n, _ := syscall.Read(errFd, line)
		if wantErr := fmt.Sprintf("err %d\n", i); n <= 0 || string(line[:n]) != wantErr {
			t.Fatalf("call %d: when its stdout was read, the stderr pipe held %q, want %q", i, line[:max(n, 0)], wantErr)
		}
	}
	if err := p.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(outR) // ends: the run's copies are closed at its end
	if err != nil || string(rest) != "bye\n" {
		t.Errorf("the rest of stdout: %q, %v", rest, err)
	}
	if x := p.Wait(); x.Code != 0 || x.Err != nil {
		t.Errorf("exit: %+v", x)
	}
}
