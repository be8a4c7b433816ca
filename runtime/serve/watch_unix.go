//go:build unix

package serve

import (
	"context"
	"os"

	"golang.org/x/sys/unix"
)

// watchClosed calls closed once the reading end of f (a pipe or a socket) is closed, which a server would
// otherwise learn only at its next write, maybe never (a call that runs for ever). It checks once a
// second until ctx ends; a file that is neither (a regular file, a terminal) never reports closed.
func watchClosed(ctx context.Context, f *os.File, closed func()) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	go func() {
		for ctx.Err() == nil {
			var revents int16
			var perr error
			if err := rc.Control(func(fd uintptr) {
				fds := []unix.PollFd{{Fd: int32(fd)}}
				_, perr = unix.Poll(fds, 1000)
				revents = fds[0].Revents
			}); err != nil {
				return
			}
			if perr != nil && perr != unix.EINTR {
				return
			}
			if revents&(unix.POLLERR|unix.POLLHUP) != 0 {
				closed()
				return
			}
			if revents&unix.POLLNVAL != 0 {
				return
			}
		}
	}()
}
