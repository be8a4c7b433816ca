//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package sandbox_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime/sandbox"
	"github.com/agentbash/agentbash/runtime/sandbox/sandboxtest"
)

// requireSandbox skips the test, saying why, on a machine that cannot sandbox c.
func requireSandbox(t testing.TB, c sandbox.Config) {
	t.Helper()
	if why := sandbox.Unavailable(c); why != "" {
		t.Skipf("this machine cannot sandbox %s: missing %s", c, why)
	}
}

// result is what a run through Start gave.
type result struct {
	stdout, stderr string
	ws             syscall.WaitStatus
}

// start runs argv through sb in dir and waits for it.
func start(t *testing.T, sb *sandbox.Sandbox, dir string, env []string, argv ...string) (result, error) {
	t.Helper()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	l, err := sb.Start(sandbox.Command{Path: argv[0], Argv: argv, Env: env, Dir: dir, Stdin: null, Stdout: outW, Stderr: errW})
	outW.Close()
	errW.Close()
	var out, errb bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _, _ = io.Copy(&out, outR) }()
	go func() { defer wg.Done(); _, _ = io.Copy(&errb, errR) }()
	if err != nil {
		wg.Wait()
		return result{}, err
	}
	defer l.Close()
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(l.Pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if w, ok := l.Exit(); ok {
		ws = w
	} else {
		t.Errorf("the helper reported no status (its own: %v)", ws)
	}
	return result{out.String(), errb.String(), ws}, nil
}

func newSandbox(t testing.TB, c sandbox.Config, roots ...string) *sandbox.Sandbox {
	t.Helper()
	requireSandbox(t, c)
	sb, err := sandbox.New(c, roots...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	return sb
}

// The command's exit status and output come through the helper as they are.
func TestStartStatus(t *testing.T) {
	ws := t.TempDir()
	sb := newSandbox(t, sandbox.Config{Mode: sandbox.WorkspaceWrite}, ws)
	for _, tc := range []struct {
		script         string
		exited         bool
		code           int
		signal         syscall.Signal
		stdout, stderr string
	}{
		{script: "echo out; echo err >&2", exited: true, stdout: "out\n", stderr: "err\n"},
		{script: "exit 3", exited: true, code: 3},
		{script: "exit 137", exited: true, code: 137},
		{script: "kill -9 $$", signal: syscall.SIGKILL},
		{script: "kill -TERM $$", signal: syscall.SIGTERM},
		{script: "kill -TERM 1; echo survived", exited: true, stdout: "survived\n"}, // the helper ignores it
	} {
		t.Run(tc.script, func(t *testing.T) {
			r, err := start(t, sb, ws, nil, "/bin/sh", "-c", tc.script)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.exited && (!r.ws.Exited() || r.ws.ExitStatus() != tc.code):
				t.Errorf("status %v, want exit %d", r.ws, tc.code)
			case !tc.exited && (!r.ws.Signaled() || r.ws.Signal() != tc.signal):
				t.Errorf("status %v, want signal %v", r.ws, tc.signal)
			}
			if r.stdout != tc.stdout || r.stderr != tc.stderr {
				t.Errorf("stdout %q stderr %q, want %q %q", r.stdout, r.stderr, tc.stdout, tc.stderr)
			}
		})
	}
}

// The command's signal dispositions are those an unsandboxed command gets: the helper's own (it ignores
// signals as the namespace's init) are not inherited.
func TestStartSignalDispositions(t *testing.T) {
	ws := t.TempDir()
	sb := newSandbox(t, sandbox.Config{Mode: sandbox.WorkspaceWrite}, ws)
	const script = "grep -E '^Sig(Ign|Blk):' /proc/self/status"
	r, err := start(t, sb, ws, nil, "/bin/sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command("/bin/sh", "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	if r.stdout != string(want) || r.stdout == "" {
		t.Errorf("sandboxed:\n%sunsandboxed:\n%s", r.stdout, want)
	}
}

// A command that cannot be started fails as os.StartProcess fails for it: the same operation and errno.
func TestStartSpawnErrors(t *testing.T) {
	ws := t.TempDir()
	sb := newSandbox(t, sandbox.Config{Mode: sandbox.WorkspaceWrite}, ws)
	notExec := filepath.Join(ws, "script")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dir  string
		argv []string
	}{
		{"missing program", ws, []string{filepath.Join(ws, "nope")}},
		{"not executable", ws, []string{notExec}},
		{"missing directory", filepath.Join(ws, "gone"), []string{"/bin/true"}},
		{"argument too long", ws, []string{"/bin/echo", strings.Repeat("x", 200<<10)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := start(t, sb, tc.dir, nil, tc.argv...)
			p, want := os.StartProcess(tc.argv[0], tc.argv, &os.ProcAttr{Dir: tc.dir})
			if want == nil {
				_, _ = p.Wait()
				t.Fatalf("os.StartProcess started %v", tc.argv[:1])
			}
			var g, w *fs.PathError
			if !errors.As(got, &g) || !errors.As(want, &w) {
				t.Fatalf("got %v, want an *fs.PathError like %v", got, want)
			}
			if g.Op != w.Op || !errors.Is(g.Err, w.Err) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// A workspace-write run gets a private TMPDIR, writable, the same for the sandbox's runs, removed when
// the sandbox is closed.
func TestStartTmpdir(t *testing.T) {
	ws := t.TempDir()
	c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	requireSandbox(t, c)
	sb, err := sandbox.New(c, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	env := []string{"TMPDIR=/elsewhere", "PATH=/usr/bin:/bin"}
	r, err := start(t, sb, ws, env, "/bin/sh", "-c", `echo "$TMPDIR"; echo x > "$TMPDIR/f" && cat "$TMPDIR/f"`)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(r.stdout, "\n")
	if len(lines) < 2 || lines[1] != "x" || !strings.Contains(lines[0], "agentbash-sandbox-") {
		t.Fatalf("stdout %q stderr %q", r.stdout, r.stderr)
	}
	r, err = start(t, sb, ws, env, "/bin/sh", "-c", `cat "$TMPDIR/f"`)
	if err != nil || r.stdout != "x\n" {
		t.Errorf("the next run's TMPDIR: %q %q %v", r.stdout, r.stderr, err)
	}
	sb.Close()
	if _, err := os.Stat(lines[0]); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("TMPDIR %s still there after Close: %v", lines[0], err)
	}
}

// A mechanism that is missing fails the run, naming it; best effort runs without it.
func TestStartMissingMechanism(t *testing.T) {
	ws := t.TempDir()
	c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	requireSandbox(t, c)
	defer sandboxtest.Simulate(sandbox.Landlock, "disabled by TestStartMissingMechanism")()
	for _, bestEffort := range []bool{false, true} {
		c.BestEffort = bestEffort
		sb, err := sandbox.New(c, ws)
		if err != nil {
			t.Fatal(err)
		}
		r, err := start(t, sb, ws, nil, "/bin/sh", "-c", "echo ran")
		sb.Close()
		var se *sandbox.Error
		switch {
		case !bestEffort && !errors.As(err, &se):
			t.Errorf("without best effort: %v, want a *sandbox.Error", err)
		case !bestEffort && (len(se.Missing) != 1 || se.Missing[0].Mechanism != sandbox.Landlock ||
			!strings.Contains(se.Error(), "disabled by TestStartMissingMechanism")):
			t.Errorf("error %q does not name the missing Landlock", se)
		case bestEffort && (err != nil || r.stdout != "ran\n"):
			t.Errorf("best effort: %q, %v", r.stdout, err)
		}
	}
}

func TestNewOff(t *testing.T) {
	if _, err := sandbox.New(sandbox.Config{}); err == nil {
		t.Error("New(mode off) succeeded")
	}
}

// helpers lists this process's children that are sandbox helpers (argv[0] agentbash-sandbox), zombies
// included (a zombie's cmdline is empty: its name in status says).
func helpers(t *testing.T) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		status, _ := os.ReadFile("/proc/" + e.Name() + "/status")
		zombie := bytes.Contains(status, []byte("\nState:\tZ"))
		if (bytes.HasPrefix(cmd, []byte("agentbash-sandbox\x00")) || zombie) &&
			bytes.Contains(status, []byte("\nPPid:\t"+strconv.Itoa(os.Getpid())+"\n")) {
			out = append(out, pid)
		}
	}
	return out
}

// After a run a helper is started ahead of the next one (which uses it), and Close ends and reaps it: no
// helper of this process is left, running or zombie.
func TestStartWarmHelper(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	requireSandbox(t, c)
	if left := helpers(t); len(left) > 0 {
		t.Fatalf("helpers before the test: %v", left)
	}
	ws := t.TempDir()
	sb, err := sandbox.New(c, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for i := range 3 {
		r, err := start(t, sb, ws, nil, "/bin/sh", "-c", "echo ok")
		if err != nil || r.stdout != "ok\n" {
			t.Fatalf("run %d: %q %q %v", i, r.stdout, r.stderr, err)
		}
		var ready []int
		for range 500 { // a bounded poll: the next helper starts in the background
			if ready = helpers(t); len(ready) == 1 {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		if len(ready) != 1 {
			t.Fatalf("after run %d: helpers %v, want one started ahead", i, ready)
		}
	}
	sb.Close()
	if left := helpers(t); len(left) > 0 {
		t.Errorf("helpers after Close (running or zombie): %v", left)
	}
}
