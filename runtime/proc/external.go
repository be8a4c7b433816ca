//go:build linux

package proc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/agentbash/agentbash/runtime/sandbox"
)

// attrs are the options of startExternal that the public Spec does not offer;
// the embedded shell's exec handler uses them to pass its own files through.
type attrs struct {
	path   string   // resolved program; "" means look up Argv[0]
	stdin  *os.File // nil means /dev/null
	stdout *os.File // non-nil: the child's fd 1 as is (Spec.Stdout ignored)
	stderr *os.File // non-nil: the child's fd 2 as is (Spec.Stderr ignored)
	marker string   // non-empty: the marker of the run this child belongs to, swept at that run's end
}

// defaultPath is used when Env has no PATH, as by execvp and Python.
const defaultPath = "/bin:/usr/bin"

func startExternal(s Spec, a attrs) (*Process, error) {
	if len(s.Argv) == 0 {
		return nil, errors.New("proc: empty Argv")
	}
	path := a.path
	if path == "" {
		var err error
		if path, err = lookPath(s.Argv[0], s.Env, s.Dir); err != nil {
			return nil, err
		}
	}

	var files ioSetup
	stdin, stdout, stderr, writer, interactive, err := files.interactive(s)
	if err != nil {
		files.abort()
		return nil, err
	}
	if !interactive {
		stdin = a.stdin
		if stdin == nil {
			f, err := files.null()
			if err != nil {
				return nil, err
			}
			stdin = f
		}
		stdout, stderr, err = files.outputs(s, a.stdout, a.stderr)
		if err != nil {
			files.abort()
			return nil, err
		}
	}

	p := &Process{grace: graceOf(s), done: make(chan struct{}), marker: a.marker}
	if p.marker == "" {
		p.marker, p.sweepOwn = newMarker(), true
	}
	started := time.Now()
	attr := &os.ProcAttr{
		Dir:   s.Dir,
		Env:   withMarker(s.Env, p.marker),
		Files: []*os.File{stdin, stdout, stderr},
		Sys:   &syscall.SysProcAttr{Setpgid: !s.Session, Setsid: s.Session},
	}
	if s.PTY {
		// A session of its own, with the terminal (its fd 0) as its controlling terminal.
		attr.Sys = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	}
	var proc *os.Process
	switch {
	case s.Sandbox != nil:
		// Started by the sandbox's helper, our child, which leads the group: see runtime/sandbox. It sets
		// its own parent-death signal.
		p.sandbox, err = s.Sandbox.Start(sandbox.Command{Path: path, Argv: s.Argv, Env: attr.Env, Dir: s.Dir,
			Session: s.Session || s.PTY, Ctty: s.PTY, Stdin: stdin, Stdout: stdout, Stderr: stderr, Writable: s.Writable})
		if err == nil {
			proc, err = os.FindProcess(p.sandbox.Pid)
		}
	case watchdogEnabled():
		// Dies with the host: see EnableWatchdog.
		attr.Sys.Pdeathsig = syscall.SIGKILL
		onSpawnThread(func() { proc, err = os.StartProcess(path, s.Argv, attr) })
	default:
		proc, err = os.StartProcess(path, s.Argv, attr)
	}
	if err != nil {
		files.abort()
		return nil, err
	}
	watchGroup(proc.Pid)
	// The child has its copies; ours must go, or we would never see EOF.
	files.closeChildEnds()
	p.pid = proc.Pid
	p.stdin = writer

	readers := files.startPumps()
	go p.supervise(proc, started, files.pumps, readers)
	return p, nil
}

// supervise waits for the shell to exit, kills its group, reaps it, and
// finishes the run.
func (p *Process) supervise(proc *os.Process, started time.Time, pumps []*pump, readers *sync.WaitGroup) {
	werr := waitExited(p.pid)

	p.mu.Lock()
	p.exited = true
	killReq := p.killReq
	if werr == nil {
		// The leader is a zombie, not reaped: its pid (the group id) cannot
		// have been recycled. Kill what is left of the group, before the
		// pipes are drained: a background `sleep 30 &` must not hold them.
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
	p.mu.Unlock()
	ex := Exit{Started: started, Ended: time.Now()}
	if werr == nil && p.sweepOwn && (p.sandbox == nil || !p.sandbox.Contained()) {
		// The processes that left the group: the leader is still unreaped, so no pid created after it
		// can be its own. (A sandbox's PID namespace left none: the kernel killed them with the helper.)
		ex.Swept = sweep(p.marker, p.pid, started)
	}

	st, err := proc.Wait() // reap
	unwatchGroup(p.pid)
	switch {
	case err != nil:
		ex.Err = err
		ex.Code = -1
	default:
		ws, _ := st.Sys().(syscall.WaitStatus)
		if p.sandbox != nil {
			// The program's own status, as the helper saw it; a helper that was killed reported none.
			if w, ok := p.sandbox.Exit(); ok {
				ws = w
			}
		}
		switch {
		case ws.Signaled():
			ex.Code = -1
			ex.Signal = ws.Signal()
			ex.Killed = killReq && ws.Signal() == syscall.SIGKILL
		default:
			ex.Code = ws.ExitStatus()
		}
	}
	if ex.Err == nil && werr != nil {
		ex.Err = werr
	}
	if p.sandbox != nil {
		p.sandbox.Close()
	}
	p.finish(ex, pumps, readers)
}

// waitExited blocks until the process pid has exited, without reaping it
// (waitid with WNOWAIT), so it can still be signalled safely by group.
func waitExited(pid int) error {
	const (
		pPID    = 1         // P_PID
		wExited = 0x4       // WEXITED
		wNoWait = 0x1000000 // WNOWAIT
	)
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		switch e {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		default:
			return os.NewSyscallError("waitid", e)
		}
	}
}

// lookPath finds file in the PATH of env, like execvp: names with a slash are
// used as they are; relative PATH entries are resolved against dir.
func lookPath(file string, env []string, dir string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	pathEnv, ok := getenv(env, "PATH")
	if !ok {
		pathEnv = defaultPath
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, file)
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			// The child resolves a relative path after its chdir to dir:
			// hand it an absolute one.
			return filepath.Abs(p)
		}
	}
	return "", &exec.Error{Name: file, Err: exec.ErrNotFound}
}

// getenv returns the last value of key in env, as execve's consumers see it.
func getenv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}
