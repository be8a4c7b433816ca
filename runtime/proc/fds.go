//go:build linux

package proc

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// The descriptors this process inherited reach no command: see "Descriptors" in the package
// documentation.

func init() { closeInheritedOnExec() }

// closeInheritedOnExec marks every descriptor from 3 up close-on-exec: at init, those are the ones this
// process inherited (what Go and the packages initialised before this one opened is close-on-exec
// already). One close_range(2) call (Linux 5.11); before, each descriptor listed in /proc/self/fd.
func closeInheritedOnExec() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	self := int(d.Fd())
	for _, name := range names {
		if fd, err := strconv.Atoi(name); err == nil && fd >= 3 && fd != self {
			syscall.CloseOnExec(fd)
		}
	}
	d.Close()
}
