//go:build linux

package proc

import (
	"os"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A child is a process this package started (or the sandbox's helper, a child of this process too): its pid
// and, where the kernel has pidfds (Linux 5.4), a pidfd in the netpoller, through which it is waited for
// without an OS thread: an idle background shell costs no thread.
type child struct {
	pid int
	fd  *os.File // the pidfd, non-blocking and in the netpoller; nil without pidfds
}

// pidfdWorks reports whether this kernel has what child needs: pidfd_open (5.3), CLONE_PIDFD (5.2) and
// waitid(P_PIDFD) (5.4).
var pidfdWorks = sync.OnceValue(func() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	// Not our child: ECHILD where P_PIDFD is known, EINVAL where it is not.
	_, err = waitidRaw(unix.P_PIDFD, fd, unix.WEXITED|unix.WNOHANG)
	return err == syscall.ECHILD
})

// forkExec starts path with attr (whose Sys is set), asking the kernel for a pidfd. An error is the
// *os.PathError os.StartProcess returns ("fork/exec PATH: ...").
func forkExec(path string, argv []string, attr *syscall.ProcAttr, files []*os.File) (child, error) {
	pidfd := -1
	if pidfdWorks() {
		attr.Sys.PidFD = &pidfd
	}
	pid, _, err := syscall.StartProcess(path, argv, attr)
	runtime.KeepAlive(files) // their descriptors are attr.Files: not closed by a finalizer before the fork
	if err != nil {
		return child{}, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	return newChild(pid, pidfd), nil
}

// findChild returns the child pid started by someone else (the sandbox's helper).
func findChild(pid int) child {
	fd := -1
	if pidfdWorks() {
		if f, err := unix.PidfdOpen(pid, 0); err == nil {
			fd = f
		}
	}
	return newChild(pid, fd)
}

// newChild wraps pidfd (-1 for none) for the netpoller.
func newChild(pid, pidfd int) child {
	c := child{pid: pid}
	if pidfd < 0 {
		return c
	}
	if err := syscall.SetNonblock(pidfd, true); err != nil {
		_ = syscall.Close(pidfd)
		return c
	}
	c.fd = os.NewFile(uintptr(pidfd), "pidfd")
	return c
}

// waitExited blocks the calling goroutine until the child has exited, without reaping it, so that its
// process group can still be signalled safely: its pid is not free until it is reaped. Through the pidfd,
// the goroutine waits in the netpoller; without one, a thread waits in waitid(WNOWAIT).
func (c child) waitExited() error {
	if c.fd == nil {
		return waitExited(c.pid)
	}
	rc, err := c.fd.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	err = rc.Read(func(fd uintptr) bool {
		// Readable once the process has exited; ask the kernel, which does not block (the pidfd is
		// non-blocking).
		exited, err := waitidRaw(unix.P_PIDFD, int(fd), unix.WEXITED|unix.WNOHANG|unix.WNOWAIT)
		if err == syscall.EAGAIN {
			return false
		}
		werr = err
		return err != nil || exited
	})
	if err != nil {
		return err
	}
	if werr != nil {
		return os.NewSyscallError("waitid", werr)
	}
	return nil
}

// reap reaps the exited child and returns its wait status; the pidfd is closed.
func (c child) reap() (syscall.WaitStatus, error) {
	if c.fd == nil {
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(c.pid, &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				return 0, os.NewSyscallError("wait4", err)
			}
			return ws, nil
		}
	}
	defer c.fd.Close()
	rc, err := c.fd.SyscallConn()
	if err != nil {
		return 0, err
	}
	var ws syscall.WaitStatus
	var werr error
	err = rc.Read(func(fd uintptr) bool {
		ws, werr = waitidStatus(int(fd))
		return werr != syscall.EAGAIN
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return 0, os.NewSyscallError("waitid", err)
	}
	return ws, nil
}

// siginfo is siginfo_t as waitid fills it for a child (the layout of Go's internal/syscall/unix
// SiginfoChild): the common part, then si_pid, si_uid and si_status.
type siginfo struct {
	Signo int32
	siErrnoCode
	_      [is64bit]int32 // the union is pointer-aligned
	Pid    int32
	Uid    uint32
	Status int32
	_      [128 - (6+is64bit)*4]byte
}

const is64bit = ^uint(0) >> 63 // 1 on 64-bit hosts

// waitStatus converts a child's siginfo to the status wait4 would return.
func (s *siginfo) waitStatus() syscall.WaitStatus {
	switch s.Code {
	case 1: // CLD_EXITED
		return syscall.WaitStatus(s.Status << 8)
	case 2: // CLD_KILLED
		return syscall.WaitStatus(s.Status)
	case 3: // CLD_DUMPED
		return syscall.WaitStatus(s.Status) | 0x80
	}
	return 0
}

// waitidRaw calls waitid(idtype, id, options) and reports whether a child was waited for.
func waitidRaw(idtype, id, options int) (bool, error) {
	var info siginfo
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, uintptr(idtype), uintptr(id),
			uintptr(unsafe.Pointer(&info)), uintptr(options), 0, 0)
		switch e {
		case 0:
			return info.Pid != 0, nil
		case syscall.EINTR:
			continue
		}
		return false, e
	}
}

// waitidStatus reaps the exited child of pidfd and returns its status as wait4 would.
func waitidStatus(pidfd int) (syscall.WaitStatus, error) {
	var info siginfo
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, unix.P_PIDFD, uintptr(pidfd),
			uintptr(unsafe.Pointer(&info)), unix.WEXITED, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return info.waitStatus(), nil
	}
}
