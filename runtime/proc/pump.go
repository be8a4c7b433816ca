//go:build linux

package proc

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

// pump copies the read end of one output pipe to a writer. It stops at EOF,
// or when the read deadline set by finish expires (then it still delivers
// what the pipe already holds). It keeps reading after a write error, so the
// child never blocks on a full pipe.
type pump struct {
	f  *os.File
	w  io.Writer   // nil after a write error
	mu *sync.Mutex // non-nil when another pump writes to the same writer
	// tty marks a terminal's master: its reads fail with EIO, not EOF, while no process holds the terminal.
	// A process of the run may open it again (/dev/tty) and write on, so EIO is its end only once the run
	// is over: hup is set while its reads fail so, over by finish (see waitHangup).
	tty       bool
	hup, over atomic.Bool

	// Set by run, read after it returned.
	err     error // first read or write error
	expired bool  // the deadline expired before EOF
}

const bufSize = 256 << 10

var bufPool = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}

// run pumps until EOF or the deadline, then closes f and calls wg.Done. It holds a buffer only while the
// pipe has data: an idle run (a background shell that prints nothing) waits in the netpoller with none.
func (pm *pump) run(wg *sync.WaitGroup) {
	defer wg.Done()
	defer pm.f.Close()
	rc, err := pm.f.SyscallConn()
	if err != nil {
		pm.setErr(err)
		return
	}
	var bp *[]byte
	defer func() {
		if bp != nil {
			bufPool.Put(bp)
		}
	}()
	grown := false
	for {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			if bp == nil {
				bp = bufPool.Get().(*[]byte)
			}
			for {
				n, rerr = syscall.Read(int(fd), *bp)
				if rerr != syscall.EINTR {
					break
				}
			}
			if rerr == syscall.EAGAIN || pm.tty && rerr == syscall.EIO && pm.waitHangup() {
				// Nothing to read: wait for more without the buffer.
				bufPool.Put(bp)
				bp = nil
				return false
			}
			return true
		})
		if err == nil && rerr == nil && n > 0 {
			if pm.tty {
				pm.hup.Store(false)
			}
			if !grown && n >= growAfter {
				growPipe(pm.f)
				grown = true
			}
			pm.write((*bp)[:n])
			continue
		}
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			if bp == nil {
				bp = bufPool.Get().(*[]byte)
			}
			pm.expired = !pm.drainBuffered(*bp)
		case err != nil:
			pm.setErr(err)
		case pm.tty && rerr == syscall.EIO:
			// The terminal was hung up and the run is over: its end of file.
		case rerr != nil:
			pm.setErr(&os.PathError{Op: "read", Path: pm.f.Name(), Err: rerr})
		}
		// n == 0 with no error: end of file.
		return
	}
}

// waitHangup tells whether a terminal's EIO is to be waited out in the netpoller: the run is not over, so
// a process of it may still open the terminal again. finish sets over, then ends the wait of a pump that
// saw the hangup with a deadline of now; the two flags are set and read in opposite orders, so that one of
// them always sees the other's.
func (pm *pump) waitHangup() bool {
	pm.hup.Store(true)
	return !pm.over.Load()
}

// drainBuffered delivers what the pipe holds right now, without waiting,
// bounded by the pipe's capacity (an escaped writer could otherwise keep it
// going forever). It reports whether EOF was reached.
func (pm *pump) drainBuffered(buf []byte) (eof bool) {
	rc, err := pm.f.SyscallConn()
	if err != nil {
		return false
	}
	limit := 1 << 20 // the maximum pipe size for unprivileged users
	_ = rc.Control(func(fd uintptr) {
		const fGetPipeSz = 1032 // F_GETPIPE_SZ
		if r, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSz, 0); e == 0 && int(r) > 0 {
			limit = int(r)
		}
	})
	for total := 0; total < limit; {
		var n int
		var rerr error
		// Control does not wait for readiness and ignores the deadline; the
		// fd is non-blocking (os.Pipe), so read returns EAGAIN when empty.
		if err := rc.Control(func(fd uintptr) { n, rerr = syscall.Read(int(fd), buf) }); err != nil {
			return false
		}
		if rerr == syscall.EINTR {
			continue
		}
		if rerr == syscall.EIO && pm.tty {
			return true
		}
		if rerr != nil {
			if rerr != syscall.EAGAIN {
				pm.setErr(&os.PathError{Op: "read", Path: pm.f.Name(), Err: rerr})
			}
			return false
		}
		if n == 0 {
			return true
		}
		pm.write(buf[:n])
		total += n
	}
	return false
}

func (pm *pump) write(b []byte) {
	if pm.w == nil {
		return
	}
	if pm.mu != nil {
		pm.mu.Lock()
		defer pm.mu.Unlock()
	}
	n, err := pm.w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		pm.setErr(err)
		pm.w = nil // keep draining, discard the rest
	}
}

func (pm *pump) setErr(err error) {
	if pm.err == nil {
		pm.err = err
	}
}

// sameWriter reports whether a and b are the same writer (as os/exec
// decides it, tolerating non-comparable dynamic types).
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}
