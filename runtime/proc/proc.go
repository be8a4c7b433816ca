//go:build linux

package proc

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/agentbash/agentbash/runtime/sandbox"
)

// DefaultGrace is the [Spec.Grace] used when the field is zero.
const DefaultGrace = 500 * time.Millisecond

// Spec describes one run.
type Spec struct {
	// Argv is the program and its arguments; the caller has already
	// appended the command, e.g. {"/bin/sh", "-c", "echo hi"}. A program
	// name without a slash is looked up in the PATH of Env (default
	// "/bin:/usr/bin", like execvp), relative PATH entries against Dir.
	// Ignored when Embedded is set.
	Argv []string

	// Embedded, if non-empty, is a script run by the embedded
	// mvdan.cc/sh/v3/interp shell (bash dialect) instead of Argv.
	Embedded string
	// Session starts the shell in a session of its own (setsid) rather than only a process group of its
	// own (setpgid); it leads its group either way, so the group is killed the same. Ignored when Embedded
	// is set.
	Session bool

	// Dir is the working directory. It must exist, else Start fails.
	// Empty means the current directory of this process.
	Dir string

	// Env is the full environment; the caller merges. Nil means an empty
	// environment: the environment of this process is never inherited
	// implicitly. Start appends one entry, the run's marker
	// (AGENTBASH_RUN_<key>=<n>, see the survivor sweep in the package
	// documentation).
	Env []string

	// Stdout receives the standard output. Its Write must never block for
	// long (a bounded capture): Done waits for the output to reach it. Nil
	// or io.Discard discards the output (the child's fd 1 is /dev/null). An
	// *os.File is the child's fd 1 itself, with no pipe and no copy, as an
	// inherited terminal would be: the child blocks if it blocks, and a Kill
	// still ends the run.
	Stdout io.Writer

	// Stderr receives the standard error, as Stdout does; ignored if
	// Combined. Nil or io.Discard discards.
	// If Stderr is the same writer as Stdout (and not Combined), writes to
	// it are serialised, as with os/exec.
	Stderr io.Writer

	// Combined gives the child one pipe for both fd 1 and fd 2, so Stdout
	// receives both, interleaved in write order (like
	// exec.Cmd.CombinedOutput).
	Combined bool

	// OpenStdin gives the shell a pipe as stdin instead of /dev/null: Process.WriteStdin writes to it,
	// Process.CloseStdin closes it. Not with Embedded.
	OpenStdin bool

	// PTY runs the shell on a pseudo-terminal of its own (TerminalRows x TerminalCols): the terminal is
	// its stdin, stdout and stderr and its controlling terminal, it leads a session of its own (Session is
	// implied), everything it writes goes to Stdout (Stderr and Combined are ignored) with the terminal's
	// line discipline applied ("\n" written is "\r\n" read), and Process.WriteStdin types into it. The
	// session is killed as a group like any run. Not with Embedded.
	PTY bool

	// Grace is how long, after the shell exited or was killed, to keep
	// reading pipes held open by descendants that escaped the process group
	// (`setsid sleep 30 &`) before closing them. Zero means DefaultGrace;
	// negative means not at all. Output already buffered in the pipes when
	// the grace expires is delivered regardless.
	Grace time.Duration

	// Sandbox, if non-nil, confines the run (runtime/sandbox): the program
	// is started through the sandbox's helper, which leads the process
	// group (killing the group kills the sandbox, and with it everything
	// the run started), and the Exit is the program's own. A machine that
	// lacks what the sandbox needs makes Start fail with a
	// *sandbox.Error. Not supported with Embedded. With PTY the terminal
	// is the program's controlling terminal, as without a sandbox.
	Sandbox *sandbox.Sandbox
	// Writable are files, which must exist, that a sandboxed run may
	// write (and truncate, not remove) whatever the sandbox's mode: the
	// caller's own state files. Ignored without Sandbox by Start; an
	// executor that starts the run elsewhere (a container) makes them
	// there, empty, and copies them back here before Done.
	Writable []string
}

// Exit is the outcome of a run, valid once [Process.Done] is closed.
type Exit struct {
	// Code is the exit status if the shell exited normally, and -1 if it
	// was killed by a signal (see Signal).
	Code int

	// Signal is non-zero if the shell was killed by a signal. An embedded
	// shell stopped by Kill reports SIGKILL, like an external one.
	Signal syscall.Signal

	// Killed reports that Kill (timeout or cancel) ended the shell: Kill was
	// called before the shell exited, and the shell died of it.
	Killed bool

	// GraceExpired reports that the output pipes were still held open by
	// escaped descendants when Grace expired, so the read ends were closed
	// without seeing EOF.
	GraceExpired bool

	// Swept is the number of processes that had left the shell's process group (setsid, setpgid) and
	// were killed when the run ended: left in the run's cgroup, or found by their marker by the sweep
	// (see the package documentation). With a cgroup, those Kill ended while the run ran are not counted.
	Swept int

	// Err is the first wait or I/O error (reading a pipe, or writing to
	// Stdout or Stderr), if any. Output keeps being drained after a write
	// error, so the child never blocks on a full pipe.
	Err error

	// Started is when the run was started; Ended is when the shell's exit
	// was observed (before the output was drained).
	Started, Ended time.Time
}

// Process is a started run. Its methods are safe for concurrent use.
type Process struct {
	pid   int
	grace time.Duration
	done  chan struct{}
	exit  Exit // written once before done is closed

	// marker is the environment entry of the run's processes; sweepOwn says that this Process sweeps
	// them when it ends (false for the programs of an embedded shell: the shell sweeps once at its end).
	marker   string
	sweepOwn bool

	// stdin is the write end of the shell's stdin (OpenStdin, PTY), closed when the run is over.
	stdin *os.File

	// cg is the run's cgroup (nil without one); ownCg says that this Process ends it (false for the
	// programs of an embedded shell, which share the shell's). watched says that the watchdog was told
	// of the process group (runs without a cgroup).
	cg      *runCgroup
	ownCg   bool
	watched bool

	mu      sync.Mutex
	exited  bool // the shell's exit was observed; never signal the group after
	killReq bool // Kill was called before exited
	// stopUntil is when a shell that Signal asked to end and that exited leaves the rest of its group to
	// the group kill (zero: at once).
	stopUntil time.Time

	// sandbox is the run's sandbox launch, if any.
	sandbox *sandbox.Launch

	// remote is the run an executor started elsewhere (NewRemote), which Kill and the stdin methods are
	// forwarded to; remoteStdin says that it has a stdin the host writes to.
	remote      Remote
	remoteStdin bool

	// Embedded shell only.
	cancel   func()
	handlers int           // exec handler calls in flight
	closed   bool          // no more exec handler calls accepted
	idle     chan struct{} // closed when handlers drops to zero after closed
}

// Start starts a run in a new process group, with stdin on /dev/null.
// Errors starting it (a missing program, a missing directory) are returned
// as they come (*exec.Error, *fs.PathError), so the caller can render the
// spawn error of the source it emulates; a missing or non-directory Dir is
// reported as a *fs.PathError with Op "chdir".
func Start(s Spec) (*Process, error) {
	if err := checkDir(s.Dir); err != nil {
		return nil, err
	}
	if s.Embedded != "" {
		if s.Sandbox != nil {
			return nil, errors.New("proc: the embedded shell runs in this process and cannot be sandboxed")
		}
		if s.PTY || s.OpenStdin {
			return nil, errors.New("proc: the embedded shell has no stdin to open and no terminal")
		}
		return startEmbedded(s)
	}
	return startExternal(s, attrs{})
}

// Pid is the pid of the shell, which is also its process group id; 0 for the
// embedded shell.
func (p *Process) Pid() int { return p.pid }

// Done is closed when the run is over: the shell exited (and was reaped),
// its process group was killed, and the output was fully drained (or Grace
// expired). All output written before the exit has reached the writers by
// then, and the run's goroutines are done: the supervising one returns right
// after closing Done. (One exception, in the embedded shell: the goroutine of
// a process substitution inside a subshell, which the interpreter does not
// let us wait for, is released before Done and returns just after it.)
func (p *Process) Done() <-chan struct{} { return p.done }

// Exit returns the outcome of the run. Before Done is closed it returns the
// zero Exit.
func (p *Process) Exit() Exit {
	select {
	case <-p.done:
		return p.exit
	default:
		return Exit{}
	}
}

// Wait waits for Done and returns the Exit.
func (p *Process) Wait() Exit {
	<-p.done
	return p.exit
}

// Kill SIGKILLs the whole process group of the shell (for the embedded shell:
// cancels it, which kills the process groups of the programs it runs), and,
// where the run has a cgroup, everything in it (cgroup.kill). The output is
// then drained as after a normal exit. Kill is idempotent and safe at any
// time; once the shell's exit has been observed it does nothing, so it never
// signals a group that could have been recycled, nor a cgroup handed to
// another run.
func (p *Process) Kill() {
	if p.remote != nil {
		p.remote.Kill()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited {
		return
	}
	p.killReq = true
	if p.cancel != nil {
		p.cancel() // first: the embedded shell takes its programs' deaths for the cancel
	}
	if p.cg != nil && p.ownCg {
		// Everything the run started, at once, wherever it went (the cgroup is the run's until its exit
		// has been observed).
		p.cg.kill()
	}
	if p.cancel != nil {
		return
	}
	// The leader is not reaped (exited is set before reaping, under mu), so
	// the pid, and with it the group id, is still ours.
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	_ = syscall.Kill(p.pid, syscall.SIGKILL) // in case the leader left its group
}

// Signal sends sig to the shell's process group (and to the shell, in case it left its group), as a host
// asks a command to end before it kills it: if the shell exits within wait, the rest of its group is
// given what is left of wait to exit (a TERM trap runs to its end) before the group kill that follows
// every exit, which Kill brings forward. It does what Kill does for a run it cannot signal: the embedded
// shell (its programs get no signal of their own) and a run an executor started elsewhere. Like Kill it is
// safe at any time and does nothing once the shell's exit has been observed.
func (p *Process) Signal(sig syscall.Signal, wait time.Duration) {
	if sig == syscall.SIGKILL || p.remote != nil {
		p.Kill()
		return
	}
	p.mu.Lock()
	embedded := p.cancel != nil
	if !embedded && !p.exited {
		p.stopUntil = time.Now().Add(wait)
		_ = syscall.Kill(-p.pid, sig)
		if g, err := syscall.Getpgid(p.pid); err == nil && g != p.pid {
			_ = syscall.Kill(p.pid, sig) // the shell left its group: once, as a trap would run twice
		}
	}
	p.mu.Unlock()
	if embedded {
		p.Kill()
	}
}

// awaitGroup waits, once the shell exited after Signal, until no other process of its group is alive,
// Kill is called or the Signal's wait is over, polling every few milliseconds (up to 100).
func (p *Process) awaitGroup() {
	p.mu.Lock()
	until := p.stopUntil
	p.mu.Unlock()
	for delay := time.Millisecond; time.Now().Before(until); delay = min(2*delay, 100*time.Millisecond) {
		p.mu.Lock()
		killed := p.killReq
		p.mu.Unlock()
		if killed || !groupAlive(p.pid) {
			return
		}
		time.Sleep(min(delay, time.Until(until)))
	}
}

// groupAlive reports whether a process of group pgid other than its leader is alive (not a zombie).
func groupAlive(pgid int) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return false
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	want := strconv.Itoa(pgid)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == pgid {
			continue
		}
		if f := statFieldsOf(pid); len(f) > 2 && f[2] == want && f[0] != "Z" {
			return true
		}
	}
	return false
}

// grace returns the effective grace of s.
func graceOf(s Spec) time.Duration {
	switch {
	case s.Grace == 0:
		return DefaultGrace
	case s.Grace < 0:
		return 0
	}
	return s.Grace
}

// checkDir reports a missing or non-directory working directory the way the
// kernel's chdir would.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		var errno syscall.Errno
		if !errors.As(err, &errno) {
			errno = syscall.ENOENT
		}
		return &fs.PathError{Op: "chdir", Path: dir, Err: errno}
	}
	if !fi.IsDir() {
		return &fs.PathError{Op: "chdir", Path: dir, Err: syscall.ENOTDIR}
	}
	return nil
}

// finish drains the pumps (until EOF, but at most grace after the shell's
// exit, ex.Ended), completes ex and closes done. It must be the last thing
// the run's supervising goroutine does.
func (p *Process) finish(ex Exit, pumps []*pump, readers *sync.WaitGroup) {
	deadline := ex.Ended.Add(p.grace)
	for _, pm := range pumps {
		d := deadline
		if pm.tty {
			// The run is over: no process of it opens the terminal again. A pump waiting out its hangup
			// drains what it holds and ends now; one still held by a process waits for grace, as a pipe.
			pm.over.Store(true)
			if pm.hup.Load() {
				d = time.Now()
			}
		}
		// The pump may have finished and closed its file already: ignore.
		_ = pm.f.SetReadDeadline(d)
	}
	readers.Wait()
	for _, pm := range pumps {
		if pm.expired {
			ex.GraceExpired = true
		}
		if ex.Err == nil && pm.err != nil {
			ex.Err = pm.err
		}
	}
	p.exit = ex
	if p.stdin != nil {
		_ = p.stdin.Close()
	}
	close(p.done)
}

// closeAll closes the non-nil files, once each.
func closeAll(files ...*os.File) {
	for i, f := range files {
		if f == nil {
			continue
		}
		dup := false
		for _, g := range files[:i] {
			if g == f {
				dup = true
				break
			}
		}
		if !dup {
			_ = f.Close()
		}
	}
}
