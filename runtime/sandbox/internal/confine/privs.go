//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package confine

import (
	"syscall"
	"unsafe"
)

// What the helper gives up before it starts the command: its own process becomes unreachable to the
// command (not dumpable), the thread that starts the command holds no capability it could pass on, and
// the command gets no descriptor but its standard files.

// notDumpable makes the helper not dumpable: its /proc/PID files (fd, mem, environ, ...) are root's, and
// neither they, ptrace, nor pidfd_getfd are open to a process without CAP_SYS_PTRACE in the helper's user
// namespace, which the command does not have (dropCapabilities). So the command, in the same Landlock
// domain and as the same user, cannot reach the helper's descriptors: its status pipe to the host above
// all (/proc/1/fd/3). The command's own executable makes it dumpable again at its execve.
func notDumpable() error {
	const prSetDumpable = 4
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); e != 0 {
		return e
	}
	return nil
}

// capHeader and capData are struct __user_cap_header_struct and __user_cap_data_struct (version 3: two
// of the latter, the low and the high 32 capabilities).
type capHeader struct {
	version uint32
	pid     int32
}

type capData struct{ effective, permitted, inheritable uint32 }

const linuxCapabilityVersion3 = 0x20080522

// dropCapabilities leaves the calling thread, and what it executes, no capability to gain: it empties
// the bounding set (an executable run as root, or with file capabilities, then gets none), the inheritable
// and the ambient sets (no capability crosses execve). The thread keeps its effective ones, which
// it no longer needs once Landlock is applied, until it executes the command, which starts with none in
// every set whoever the host is: a root host's command is uid 0 in the run's user namespace, whose
// capabilities would otherwise reach every file of root's (chmod, setcap). It needs CAP_SETPCAP, which
// the spawner gives the helper; a thread with no capability at all (a host that is not root, without a
// user namespace) has nothing to drop.
func dropCapabilities() error {
	hdr := capHeader{version: linuxCapabilityVersion3}
	var data [2]capData
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return e
	}
	const capSetpcap = 8
	if data[0].effective&(1<<capSetpcap) != 0 {
		const prCapbsetDrop = 24
		for c := uintptr(0); c < 64; c++ {
			if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetDrop, c, 0); e == syscall.EINVAL {
				break // past the kernel's last capability
			} else if e != 0 {
				return e
			}
		}
	} else if data[0].permitted|data[1].permitted|data[0].inheritable|data[1].inheritable != 0 || syscall.Geteuid() == 0 {
		return syscall.EPERM // capabilities it cannot keep from the command
	}
	data[0].inheritable, data[1].inheritable = 0, 0
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return e
	}
	return clearAmbientCaps()
}

// clearAmbientCaps drops the ambient capabilities the host gave the helper for its setup (mounts, the
// loopback), so that the command, executed as the host's user, starts with none.
func clearAmbientCaps() error {
	const prCapAmbient, prCapAmbientClearAll = 47, 4
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0, 0, 0, 0); e != 0 && e != syscall.EINVAL {
		return e // EINVAL: a kernel without ambient capabilities (before 4.3), so there are none
	}
	return nil
}

// closeOnExecFrom marks every descriptor from fd up close-on-exec, so that what the helper holds beyond
// the command's standard files (descriptors its host inherited and passed on, its status pipe, the
// seccomp listener) stays out of the command, whatever Go's ForkExec leaves open. close_range (Linux
// 5.11) does it in one call; before it, each descriptor up to the limit is marked.
func closeOnExecFrom(fd int) error {
	const sysCloseRange, closeRangeCloexec = 436, 1 << 2
	_, _, e := syscall.RawSyscall(sysCloseRange, uintptr(fd), ^uintptr(0)>>1, closeRangeCloexec)
	if e == 0 {
		return nil
	}
	if e != syscall.ENOSYS && e != syscall.EINVAL {
		return e
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	for i := uint64(fd); i < lim.Cur && i < 1<<20; i++ {
		_, _, _ = syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(i), syscall.F_SETFD, syscall.FD_CLOEXEC)
	}
	return nil
}
