//go:build linux

package proc

import (
	"errors"
	"os"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Interactive runs: a shell whose stdin the host writes to, a pipe (Spec.OpenStdin) or a pseudo-terminal
// (Spec.PTY). They follow the lifecycle of every run (process group, marker, sweep, watchdog, grace); only
// the child's files differ.

// TerminalRows and TerminalCols are the size of the terminal a PTY run gets.
const (
	TerminalRows = 24
	TerminalCols = 80
)

// ErrNoStdin is the error of WriteStdin for a run started without OpenStdin or PTY.
var ErrNoStdin = errors.New("proc: the run has no stdin to write to")

// openTerminal opens a pseudo-terminal (github.com/creack/pty): the slave is the child's stdin, stdout and
// stderr; the master is ours twice, as a read end pumped into Spec.Stdout and as a write end for
// WriteStdin, both non-blocking in the netpoller so reads and writes take deadlines (pty.Open's files
// are blocking once their Fd is taken, so the master is duplicated close-on-exec), and each closed on its
// own (the pump closes its end at EOF while a write may still be in flight on the other).
func openTerminal() (read, write, slave *os.File, err error) {
	master, tty, err := pty.Open()
	if err != nil {
		return nil, nil, nil, err
	}
	defer master.Close()
	if err := pty.Setsize(master, &pty.Winsize{Rows: TerminalRows, Cols: TerminalCols}); err != nil {
		tty.Close()
		return nil, nil, nil, err
	}
	fd := int(master.Fd())
	r, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		tty.Close()
		return nil, nil, nil, os.NewSyscallError("fcntl", err)
	}
	w, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		syscall.Close(r)
		tty.Close()
		return nil, nil, nil, os.NewSyscallError("fcntl", err)
	}
	// O_NONBLOCK belongs to the open file description, which the duplicates share.
	if err := syscall.SetNonblock(r, true); err != nil {
		syscall.Close(r)
		syscall.Close(w)
		tty.Close()
		return nil, nil, nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(r), "ptmx"), os.NewFile(uintptr(w), "ptmx"), tty, nil
}

// stdinPipe returns a stdin pipe: the read end the child's (blocking, never in the netpoller), the write
// end ours (non-blocking in the netpoller, so writes take deadlines); pipe does the reverse for outputs.
func stdinPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	if err := syscall.SetNonblock(p[1], true); err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(p[0]), "|stdin"), os.NewFile(uintptr(p[1]), "|stdin"), nil
}

// interactive sets up the child's files of a PTY or OpenStdin run. For a PTY, stdout and stderr are the
// terminal too, and its master is pumped into s.Stdout; ok is false for a run that is neither.
func (files *ioSetup) interactive(s Spec) (stdin, stdout, stderr, writer *os.File, ok bool, err error) {
	switch {
	case s.PTY:
		r, w, tty, err := openTerminal()
		if err != nil {
			return nil, nil, nil, nil, true, err
		}
		files.childEnds = append(files.childEnds, tty)
		files.readEnds = append(files.readEnds, r)
		files.pumps = append(files.pumps, &pump{f: r, w: s.Stdout, tty: true})
		files.writers = append(files.writers, w)
		return tty, tty, tty, w, true, nil
	case s.OpenStdin:
		r, w, err := stdinPipe()
		if err != nil {
			return nil, nil, nil, nil, true, err
		}
		files.childEnds = append(files.childEnds, r)
		files.writers = append(files.writers, w)
		out, errOut, err := files.outputs(s, nil, nil)
		if err != nil {
			return nil, nil, nil, nil, true, err
		}
		return r, out, errOut, w, true, nil
	}
	return nil, nil, nil, nil, false, nil
}

// WriteStdin writes b to the run's stdin (the pipe of Spec.OpenStdin, or the terminal of Spec.PTY),
// waiting at most until deadline (zero: no deadline) for the child to take it. It fails with ErrNoStdin
// for a run that has none, and once the run is over (Done), after CloseStdin, or when the child has gone
// (a broken pipe, a terminal with no process left).
func (p *Process) WriteStdin(b []byte, deadline time.Time) (int, error) {
	if p.remote != nil && p.remoteStdin {
		return p.remote.WriteStdin(b, deadline)
	}
	if p.stdin == nil {
		return 0, ErrNoStdin
	}
	if err := p.stdin.SetWriteDeadline(deadline); err != nil {
		return 0, err
	}
	return p.stdin.Write(b)
}

// CloseStdin closes the run's stdin: the child reads end of file from a pipe. Closing the master side of
// a terminal hangs it up, so for a PTY run only the write end the host holds is closed. Idempotent.
func (p *Process) CloseStdin() error {
	if p.remote != nil && p.remoteStdin {
		return p.remote.CloseStdin()
	}
	if p.stdin == nil {
		return ErrNoStdin
	}
	if err := p.stdin.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}

// HasStdin reports whether the run was started with a stdin the host writes to.
func (p *Process) HasStdin() bool { return p.stdin != nil || p.remoteStdin }
