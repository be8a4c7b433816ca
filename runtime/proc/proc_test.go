//go:build linux

package proc

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// sh returns a Spec running script with /bin/sh.
func sh(script string) Spec {
	return Spec{Argv: []string{"/bin/sh", "-c", script}, Env: testEnv}
}

// run starts s with fresh buffers (unless s has writers) and waits for it.
func run(t *testing.T, s Spec) (stdout, stderr string, ex Exit, p *Process) {
	t.Helper()
	var o, e syncBuf
	if s.Stdout == nil {
		s.Stdout = &o
	}
	if s.Stderr == nil && !s.Combined {
		s.Stderr = &e
	}
	p, err := Start(s)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ex, _ = wait(t, p)
	return o.String(), e.String(), ex, p
}

func TestExitStatus(t *testing.T) {
	tests := []struct {
		script string
		code   int
		signal syscall.Signal
	}{
		{"true", 0, 0},
		{"exit 1", 1, 0},
		{"exit 42", 42, 0},
		{"kill -TERM $$", -1, syscall.SIGTERM},
		{"kill -KILL $$", -1, syscall.SIGKILL},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			leakCheck(t)
			_, _, ex, p := run(t, sh(tt.script))
			if ex.Code != tt.code || ex.Signal != tt.signal {
				t.Errorf("code %d signal %v, want %d %v", ex.Code, ex.Signal, tt.code, tt.signal)
			}
			if ex.Killed || ex.Err != nil || ex.GraceExpired {
				t.Errorf("Killed %v Err %v GraceExpired %v", ex.Killed, ex.Err, ex.GraceExpired)
			}
			if ex.Started.IsZero() || ex.Ended.Before(ex.Started) {
				t.Errorf("Started %v Ended %v", ex.Started, ex.Ended)
			}
			if p.Pid() <= 0 {
				t.Errorf("Pid %d", p.Pid())
			}
			requirePidGone(t, p.Pid()) // reaped: no zombie
			requireGroupGone(t, p.Pid())
		})
	}
}

func TestStreams(t *testing.T) {
	same := &syncBuf{}
	tests := []struct {
		name     string
		spec     Spec
		out, err string
	}{
		{"separate", sh("echo out; echo err >&2; echo out2"), "out\nout2\n", "err\n"},
		{"combined", func() Spec { s := sh("echo a; echo b >&2; echo c"); s.Combined = true; return s }(), "a\nb\nc\n", ""},
		{"combined ignores Stderr", func() Spec {
			s := sh("echo a >&2; echo b")
			s.Combined, s.Stderr = true, &syncBuf{}
			return s
		}(), "a\nb\n", ""},
		{"large", sh("head -c 1000000 /dev/zero | tr '\\0' x"), strings.Repeat("x", 1000000), ""},
		{"env", func() Spec { s := sh(`echo "$FOO"`); s.Env = append(s.Env, "FOO=bar"); return s }(), "bar\n", ""},
		{"dir", func() Spec { s := sh("pwd"); s.Dir = "/usr"; return s }(), "/usr\n", ""},
		{"PATH lookup", Spec{Argv: []string{"sh", "-c", "echo found"}, Env: testEnv}, "found\n", ""},
		{"default PATH", Spec{Argv: []string{"sh", "-c", "echo default"}}, "default\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leakCheck(t)
			out, errOut, ex, _ := run(t, tt.spec)
			if out != tt.out || errOut != tt.err {
				t.Errorf("stdout %.80q stderr %.80q, want %.80q %.80q", out, errOut, tt.out, tt.err)
			}
			if ex.Code != 0 || ex.Err != nil {
				t.Errorf("Exit %+v", ex)
			}
		})
	}

	t.Run("same writer", func(t *testing.T) {
		leakCheck(t)
		s := sh("for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done")
		s.Stdout, s.Stderr = same, same
		run(t, s)
		for i := 1; i <= 5; i++ {
			for _, w := range []string{"out", "err"} {
				if !strings.Contains(same.String(), w+strconv.Itoa(i)+"\n") {
					t.Errorf("missing %s%d in %q", w, i, same.String())
				}
			}
		}
	})

	t.Run("nil writers", func(t *testing.T) {
		leakCheck(t)
		p, err := Start(sh("echo out; echo err >&2; exit 3"))
		if err != nil {
			t.Fatal(err)
		}
		if ex, _ := wait(t, p); ex.Code != 3 {
			t.Errorf("code %d", ex.Code)
		}
	})

	t.Run("environment not inherited", func(t *testing.T) {
		t.Setenv("AGENTBASH_PROC_LEAK", "leaked")
		leakCheck(t)
		s := sh(`echo "[$AGENTBASH_PROC_LEAK]"`)
		s.Env = nil
		if out, _, _, _ := run(t, s); out != "[]\n" {
			t.Errorf("stdout %q", out)
		}
	})

	t.Run("relative PATH entry resolved against Dir", func(t *testing.T) {
		leakCheck(t)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "prog"), []byte("#!/bin/sh\necho prog ran\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		s := Spec{Argv: []string{"prog"}, Dir: dir, Env: []string{"PATH=."}}
		if out, _, _, _ := run(t, s); out != "prog ran\n" {
			t.Errorf("stdout %q", out)
		}
	})
}

// errWriter fails every write.
type errWriter struct{ n atomic.Int64 }

func (w *errWriter) Write(p []byte) (int, error) {
	w.n.Add(1)
	return 0, errors.New("capture full")
}

func TestWriteErrorKeepsDraining(t *testing.T) {
	leakCheck(t)
	s := sh("head -c 1000000 /dev/zero; echo done >&2")
	w := &errWriter{}
	s.Stdout = w
	_, errOut, ex, _ := run(t, s)
	if ex.Code != 0 || errOut != "done\n" {
		t.Errorf("code %d stderr %q: the child must not block on a full pipe", ex.Code, errOut)
	}
	if ex.Err == nil || !strings.Contains(ex.Err.Error(), "capture full") {
		t.Errorf("Err %v", ex.Err)
	}
	if w.n.Load() != 1 {
		t.Errorf("writer called %d times after failing", w.n.Load())
	}
}

func TestStdinEOF(t *testing.T) {
	tests := []struct {
		name   string
		spec   Spec
		code   int
		output string
	}{
		{"cat", sh("cat; echo after"), 0, "after\n"},
		{"read", sh("read x; echo $?"), 0, "1\n"},
		{"embedded cat", Spec{Embedded: "cat; echo after", Env: testEnv}, 0, "after\n"},
		{"embedded read", Spec{Embedded: "read x; echo $?", Env: testEnv}, 0, "1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leakCheck(t)
			out, _, ex, _ := run(t, tt.spec)
			if ex.Code != tt.code || out != tt.output {
				t.Errorf("code %d stdout %q, want %d %q", ex.Code, out, tt.code, tt.output)
			}
		})
	}
}

func TestBackgroundChildDoesNotHoldPipes(t *testing.T) {
	const grace = 5 * time.Second
	ready := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{
		"sleep 30 & echo pid=$! >&2; echo hi",
		// A child that keeps writing: killed with the group all the same.
		"(while :; do echo x >&2; sleep 1; done) & echo pid=$! >&2; echo hi",
		// A child that clears its environment, and so its marker: the sweep cannot find it, the kill of
		// the process group as the shell ends does. The shell ends only once the child runs with its
		// empty environment (the fifo): before, the sweep could still find the marker in `env` itself.
		"env -i /bin/sh -c 'echo > " + ready + "; exec sleep 30' & echo pid=$! >&2; read x < " + ready + "; echo hi",
	} {
		t.Run(script, func(t *testing.T) {
			leakCheck(t)
			s := sh(script)
			s.Grace = grace
			var o, e syncBuf
			s.Stdout, s.Stderr = &o, &e
			p, err := Start(s)
			if err != nil {
				t.Fatal(err)
			}
			ex, took := wait(t, p)
			if took >= grace/2 {
				t.Errorf("Done took %v: the background child held the pipes", took)
			}
			if o.String() != "hi\n" || ex.Code != 0 || ex.GraceExpired {
				t.Errorf("stdout %q Exit %+v", o.String(), ex)
			}
			_, after, _ := strings.Cut(e.String(), "pid=")
			child, err := strconv.Atoi(strings.SplitN(after, "\n", 2)[0])
			if err != nil {
				t.Fatalf("stderr %q", e.String())
			}
			requirePidGone(t, child)
			requireGroupGone(t, p.Pid())
		})
	}
}

// escapeScript starts a process in its own session that holds the output
// pipes, prints its pid first thing on fd, and waits (through a fifo, no
// sleeps) until it has, then prints more and exits. The escaped process runs
// with a cleared environment (env -i), which hides it from the sweep: only
// the grace bounds it.
func escapeScript(fd int, then string) string {
	return `mkfifo ready
setsid env -i PATH="$PATH" sh -c 'echo $$ >&` + strconv.Itoa(fd) + `; echo > ready; exec sleep 30' &
read _ < ready
` + then
}

func TestEscapedHolderBoundedByGrace(t *testing.T) {
	for _, grace := range []time.Duration{200 * time.Millisecond, DefaultGrace} {
		t.Run(grace.String(), func(t *testing.T) {
			leakCheck(t)
			useContainment(t, "sweep") // a holder hidden from the sweep: only the grace bounds it
			s := sh(escapeScript(1, "echo shell done"))
			s.Dir = t.TempDir()
			if grace != DefaultGrace {
				s.Grace = grace
			}
			out, _, ex, p := run(t, s)
			doneAt := time.Now()
			killEscaped(t, out)
			if !strings.HasSuffix(out, "\nshell done\n") || ex.Code != 0 {
				t.Errorf("stdout %q Exit %+v", out, ex)
			}
			if !ex.GraceExpired {
				t.Error("GraceExpired false")
			}
			if held := doneAt.Sub(ex.Ended); held < grace || held > grace+3*time.Second {
				t.Errorf("Done %v after the exit, want grace %v (+ a margin)", held, grace)
			}
			requireGroupGone(t, p.Pid())
		})
	}
}

func TestOutputBeforeExitSurvivesGrace(t *testing.T) {
	// Negative Grace: stop at once when the shell exits, yet what it wrote
	// before exiting is still in the pipe and must be delivered.
	leakCheck(t)
	useContainment(t, "sweep") // a holder hidden from the sweep: only the grace bounds it
	s := sh(escapeScript(2, "head -c 200000 /dev/zero"))
	s.Dir, s.Grace = t.TempDir(), -1
	out, errOut, ex, _ := run(t, s)
	killEscaped(t, errOut)
	if len(out) != 200000 || ex.Code != 0 {
		t.Errorf("got %d bytes, Exit %+v", len(out), ex)
	}
	if !ex.GraceExpired {
		t.Error("GraceExpired false")
	}
}

func TestKill(t *testing.T) {
	tests := []struct {
		name   string
		script string
	}{
		{"sleep with children", "sleep 30 & sh -c 'sleep 30' & echo ready; sleep 30"},
		{"ignores TERM", "trap '' TERM; echo ready; while :; do :; done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leakCheck(t)
			s := sh(tt.script)
			w := newWatch("ready")
			s.Stdout = w
			p, err := Start(s)
			if err != nil {
				t.Fatal(err)
			}
			await(t, p, w.seen, "ready")
			members := len(groupMembers(p.Pid()))
			p.Kill()
			ex, took := wait(t, p)
			if took > 2*time.Second {
				t.Errorf("Done %v after Kill", took)
			}
			if !ex.Killed || ex.Signal != syscall.SIGKILL || ex.Code != -1 {
				t.Errorf("Exit %+v", ex)
			}
			if members < 1 {
				t.Errorf("group had %d members", members)
			}
			p.Kill() // idempotent, and after Done
			if p.Exit() != ex {
				t.Errorf("Exit changed after a second Kill")
			}
			requireGroupGone(t, p.Pid())
		})
	}
}

func TestKillAfterExit(t *testing.T) {
	leakCheck(t)
	_, _, ex, p := run(t, sh("exit 3"))
	p.Kill()
	p.Kill()
	if got := p.Exit(); got != ex || got.Killed || got.Code != 3 {
		t.Errorf("Exit %+v", got)
	}
	// Kill racing a natural exit: Killed only if the kill took the shell.
	p, err := Start(sh("true"))
	if err != nil {
		t.Fatal(err)
	}
	p.Kill()
	ex, _ = wait(t, p)
	if ex.Killed != (ex.Signal == syscall.SIGKILL) {
		t.Errorf("Exit %+v", ex)
	}
}

func TestExitBeforeDone(t *testing.T) {
	leakCheck(t)
	s := sh("echo ready; sleep 30")
	w := newWatch("ready")
	s.Stdout = w
	p, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	await(t, p, w.seen, "ready")
	if (p.Exit() != Exit{}) {
		t.Errorf("Exit before Done: %+v", p.Exit())
	}
	p.Kill()
	if ex := p.Wait(); !ex.Killed {
		t.Errorf("Wait: %+v", ex)
	}
}

// countWriter discards, counting bytes; reached is closed past limit.
type countWriter struct {
	n       atomic.Int64
	limit   int64
	reached chan struct{}
}

func (w *countWriter) Write(p []byte) (int, error) {
	if n := w.n.Add(int64(len(p))); n >= w.limit && n-int64(len(p)) < w.limit {
		close(w.reached)
	}
	return len(p), nil
}

func TestKillYes(t *testing.T) {
	leakCheck(t)
	s := Spec{Argv: []string{"yes"}, Env: testEnv}
	w := &countWriter{limit: 4 << 20, reached: make(chan struct{})}
	s.Stdout = w
	p, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	await(t, p, w.reached, "4 MiB of output")
	p.Kill()
	ex, took := wait(t, p)
	if !ex.Killed || took > 2*time.Second {
		t.Errorf("Exit %+v after %v", ex, took)
	}
	requireGroupGone(t, p.Pid())
}

func TestStartErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		spec  Spec
		check func(error) bool
	}{
		{"missing program path", Spec{Argv: []string{"/nonexistent/prog"}}, func(err error) bool {
			var pe *fs.PathError
			return errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist)
		}},
		{"missing program in PATH", Spec{Argv: []string{"agentbash-no-such-program"}, Env: testEnv}, func(err error) bool {
			var ee *exec.Error
			return errors.As(err, &ee) && errors.Is(err, exec.ErrNotFound) && ee.Name == "agentbash-no-such-program"
		}},
		{"not executable", Spec{Argv: []string{file}}, func(err error) bool {
			return errors.Is(err, fs.ErrPermission)
		}},
		{"missing dir", Spec{Argv: []string{"/bin/sh", "-c", "true"}, Dir: "/nonexistent/dir"}, isChdir(syscall.ENOENT)},
		{"dir is a file", Spec{Argv: []string{"/bin/sh", "-c", "true"}, Dir: file}, isChdir(syscall.ENOTDIR)},
		{"missing dir embedded", Spec{Embedded: "true", Dir: "/nonexistent/dir"}, isChdir(syscall.ENOENT)},
		{"empty Argv", Spec{}, func(err error) bool { return err != nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leakCheck(t)
			p, err := Start(tt.spec)
			if p != nil || !tt.check(err) {
				t.Errorf("Start = %v, %v (%T)", p, err, err)
			}
		})
	}
}

func isChdir(errno syscall.Errno) func(error) bool {
	return func(err error) bool {
		var pe *fs.PathError
		return errors.As(err, &pe) && pe.Op == "chdir" && errors.Is(err, errno)
	}
}

func TestNoGoroutineOrProcessLeftAcrossMany(t *testing.T) {
	leakCheck(t)
	for i := range 20 {
		s := sh("sleep 30 & echo " + strconv.Itoa(i))
		s.Stdout, s.Stderr = io.Discard, io.Discard
		p, err := Start(s)
		if err != nil {
			t.Fatal(err)
		}
		wait(t, p)
		requireGroupGone(t, p.Pid())
	}
	requireNoChildren(t)
}

// TestNoGoroutineSurvivesDone checks the goroutine count right at Done, not
// after a poll: only the run's supervising goroutine may still be counted,
// between its close(done) and its return.
func TestNoGoroutineSurvivesDone(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		kill bool
	}{
		{"sh", sh("echo out; echo err >&2"), false},
		{"sh combined", Spec{Argv: []string{"/bin/sh", "-c", "echo a"}, Combined: true}, false},
		{"sh background child", sh("sleep 30 & echo hi"), false},
		{"sh killed", sh("sleep 30 & sleep 30"), true},
		{"embedded", Spec{Embedded: "echo out; /bin/echo err >&2; echo x | cat"}, false},
		{"embedded background jobs", Spec{Embedded: "sleep 30 & (sleep 30; echo never) & echo x | tr x y & echo hi"}, false},
		{"embedded killed", Spec{Embedded: "sleep 30 & sleep 30 | cat"}, true},
		{"embedded process substitution", Spec{Embedded: "cat <(echo x); x=<(true)"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leakCheck(t)
			base := runtime.NumGoroutine()
			s := tt.spec
			s.Env = testEnv
			s.Stdout, s.Stderr = &syncBuf{}, &syncBuf{}
			p, err := Start(s)
			if err != nil {
				t.Fatal(err)
			}
			if tt.kill {
				p.Kill()
			}
			wait(t, p)
			if n := runtime.NumGoroutine(); n > base+1 {
				var b strings.Builder
				_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
				t.Errorf("goroutines at Done: %d, base %d\n%s", n, base, b.String())
			}
			requireNoChildren(t)
		})
	}
}
