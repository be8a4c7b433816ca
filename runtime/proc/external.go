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
	path   string     // resolved program; "" means look up Argv[0]
	stdin  *os.File   // nil means /dev/null
	stdout *os.File   // non-nil: the child's fd 1 as is (Spec.Stdout ignored)
	stderr *os.File   // non-nil: the child's fd 2 as is (Spec.Stderr ignored)
	marker string     // non-empty: the marker of the run this child belongs to, swept at that run's end
	cg     *runCgroup // non-nil: the cgroup of the run this child belongs to (not this child's to end)
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
		if path, err = LookPath(s.Argv[0], s.Env, s.Dir); err != nil {
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
	env := withMarker(s.Env, p.marker)
	childFiles := []*os.File{stdin, stdout, stderr}
	var c child
	if s.Sandbox != nil {
		// Started by the sandbox's helper, our child, which leads the group: see runtime/sandbox. It sets
		// its own parent-death signal; the run's PID namespace contains what it starts.
		spawning.RLock() // the helper is our child without a pidfd until findChild: not an orphan to reap
		p.sandbox, err = s.Sandbox.Start(sandbox.Command{Path: path, Argv: s.Argv, Env: env, Dir: s.Dir,
			Session: s.Session || s.PTY, Ctty: s.PTY, Stdin: stdin, Stdout: stdout, Stderr: stderr, Writable: s.Writable})
		if err == nil {
			c = findChild(p.sandbox.Pid)
		}
		spawning.RUnlock()
	} else {
		p.cg = a.cg
		if p.cg == nil && a.marker == "" {
			p.cg, p.ownCg = newRunCgroup(), true
		}
		c, err = p.fork(path, s, env, childFiles)
	}
	if err != nil {
		if p.ownCg && p.cg != nil {
			p.cg.release(true)
		}
		files.abort()
		return nil, err
	}
	if p.cg == nil {
		// Without a cgroup, the watchdog kills the group if this process dies.
		p.watched = watchGroup(c.pid)
	} else {
		// With one, it kills this host's cgroups: it must be running.
		ensureWatchdog()
	}
	// The child has its copies; ours must go, or we would never see EOF.
	files.closeChildEnds()
	p.pid = c.pid
	p.stdin = writer

	readers := files.startPumps()
	go p.supervise(c, started, files.pumps, readers)
	return p, nil
}

// fork starts the program: in the run's cgroup if it has one (entered at the fork itself, clone3's
// CLONE_INTO_CGROUP), else with the survivor sweep's marker alone, the host made a child subreaper (see the
// package documentation).
func (p *Process) fork(path string, s Spec, env []string, files []*os.File) (child, error) {
	sys := &syscall.SysProcAttr{Setpgid: !s.Session, Setsid: s.Session}
	if s.PTY {
		// A session of its own, with the terminal (its fd 0) as its controlling terminal.
		sys = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	}
	fds := make([]uintptr, len(files))
	for i, f := range files {
		fds[i] = f.Fd()
	}
	attr := &syscall.ProcAttr{Dir: s.Dir, Env: env, Files: fds, Sys: sys}
	if p.cg != nil {
		sys.UseCgroupFD, sys.CgroupFD = true, p.cg.dir
		c, err := forkExec(path, s.Argv, attr, files)
		if err == nil || !cloneIntoCgroupFailed(err) {
			return c, err
		}
		// The kernel refused the cgroup (or clone3): see whether the program starts without it. If it
		// does, the cgroup was the cause, and no run will get one from now on.
		if p.ownCg {
			p.cg.release(true)
		}
		p.cg, p.ownCg = nil, false
		if c, err2 := p.forkPlain(path, s, attr, files, false); err2 == nil {
			disableCgroups(err)
			becomeSubreaper()
			return c, nil
		}
		return c, err
	}
	return p.forkPlain(path, s, attr, files, true)
}

// forkPlain forks without a cgroup. With subreaper, the host becomes a child subreaper first, so that the
// run's orphans stay its descendants for the sweep. With the watchdog on, the child gets PR_SET_PDEATHSIG.
func (p *Process) forkPlain(path string, s Spec, attr *syscall.ProcAttr, files []*os.File, subreaper bool) (c child, err error) {
	attr.Sys.UseCgroupFD, attr.Sys.CgroupFD = false, 0
	if subreaper {
		becomeSubreaper()
	}
	if !watchdogEnabled() {
		return forkExec(path, s.Argv, attr, files)
	}
	// Dies with the host: see EnableWatchdog.
	attr.Sys.Pdeathsig = syscall.SIGKILL
	onSpawnThread(func() { c, err = forkExec(path, s.Argv, attr, files) })
	return c, err
}

// supervise waits for the shell to exit, kills its group and what the run left (its cgroup, or the
// sweep), reaps it, and finishes the run.
func (p *Process) supervise(c child, started time.Time, pumps []*pump, readers *sync.WaitGroup) {
	werr := c.waitExited()
	if werr == nil {
		p.awaitGroup() // a shell asked to end (Signal): the rest of its group ends as it chooses, within bounds
	}

	p.mu.Lock()
	p.exited = true
	killReq := p.killReq
	if werr == nil {
		// The leader is a zombie, not reaped: its pid (the group id) cannot
		// have been recycled. Kill what is left of the group, before the
		// pipes are drained: a background `sleep 30 &` must not hold them.
		// mutate: proc-group-kill
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
	p.mu.Unlock()
	ex := Exit{Started: started, Ended: time.Now()}
	switch {
	case p.cg != nil && p.ownCg:
		// Everything the run started is in its cgroup, wherever it went.
		ex.Swept = p.cg.end(p.pid)
	// mutate: proc-sweep
	case werr == nil && p.sweepOwn && (p.sandbox == nil || !p.sandbox.Contained()):
		// The processes that left the group. (A sandbox's PID namespace left none: the kernel killed them
		// with the helper.)
		ex.Swept = sweep(p.marker)
	}
	if werr == nil && p.sandbox == nil {
		reapGroup(p.pid)
	}

	ws, err := c.reap()
	if p.watched {
		unwatchGroup(p.pid)
	}
	switch {
	case err != nil:
		ex.Err = err
		ex.Code = -1
	default:
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

// cloneIntoCgroupFailed reports whether err may be the kernel refusing the fork into a cgroup (or clone3
// missing), rather than the program failing to execute.
func cloneIntoCgroupFailed(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case syscall.EACCES, syscall.EPERM, syscall.EBUSY, syscall.EOPNOTSUPP, syscall.ENOSYS, syscall.EINVAL,
		syscall.ENODEV, syscall.ENOENT:
		return true
	}
	return false
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

// LookPath finds file in the PATH of env, like execvp: names with a slash are
// used as they are; relative PATH entries are resolved against dir.
func LookPath(file string, env []string, dir string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	pathEnv, ok := Getenv(env, "PATH")
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

// Getenv returns the last value of key in env, as execve's consumers see it.
func Getenv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}
