//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package confine

import (
	"sync"
	"syscall"
	"unsafe"
)

// The supervisor answers the filter's notifications (seccomp.go): each is a connect(2) of a process of
// the run, which it does on that process's behalf and whose result it returns as the system call's.
//
// It runs on the helper's other threads, not on the one that installed the filter (the helper's main
// thread, locked to it, which starts the command): those were made before the filter, by the Go runtime's
// template thread, so they are not filtered themselves, nor confined by Landlock, and keep the
// capabilities the helper was given (CAP_SYS_PTRACE among them, for pidfd_getfd on a process that made
// itself not dumpable). None of that reaches the command: the helper is not dumpable.

// struct seccomp_notif, seccomp_notif_resp, and the ioctls of the listener (the generic _IOC encoding of
// every architecture the filter is built for).
type seccompData struct {
	nr   int32
	arch uint32
	ip   uint64
	args [6]uint64
}

type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	data  seccompData
}

type seccompNotifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

const (
	ioctlNotifRecv    = 0xc0502100 // SECCOMP_IOCTL_NOTIF_RECV
	ioctlNotifSend    = 0xc0182101 // SECCOMP_IOCTL_NOTIF_SEND
	ioctlNotifIDValid = 0x40082102 // SECCOMP_IOCTL_NOTIF_ID_VALID

	sysPidfdOpen  = 434
	sysPidfdGetfd = 438
	pidfdThread   = syscall.O_EXCL // PIDFD_THREAD (Linux 6.9): a pidfd of a thread that is not a leader

	soDomain = 39 // SO_DOMAIN
)

// supervisor is what decides a run's connects.
type supervisor struct {
	listener int
	// roots are the writable roots (a socket beneath one is the run's to connect to), allowed the sockets
	// or directories of Config.Sockets; both as given, resolved on first use (canonical).
	roots, allowed []string
	// denyTCP refuses TCP, as Landlock does for the command where there is no network namespace.
	denyTCP bool
	// pidNS: the run has a PID namespace of its own (an abstract socket's listener outside it has pid 0
	// in it); ownProc: /proc is that namespace's (so /proc/PID names the run's process PID).
	pidNS, ownProc bool

	once      sync.Once
	realRoots []string
}

// serve answers the notifications until the listener fails (the helper is ending).
func (s *supervisor) serve() {
	for {
		n := new(seccompNotif)
		_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(s.listener), ioctlNotifRecv, uintptr(unsafe.Pointer(n)))
		switch e {
		case 0:
			go s.answer(n)
		case syscall.EINTR, syscall.ENOENT: // ENOENT: the process was gone before its notification was read
		default:
			return
		}
	}
}

// answer does the connect of n and returns its result as the system call's.
func (s *supervisor) answer(n *seccompNotif) {
	resp := seccompNotifResp{id: n.id, error: -int32(s.connect(n))}
	_, _, _ = syscall.Syscall(syscall.SYS_IOCTL, uintptr(s.listener), ioctlNotifSend, uintptr(unsafe.Pointer(&resp)))
}

// valid reports that the notification's process is still waiting for its answer: a pid read from it
// still names that process.
func (s *supervisor) valid(id uint64) bool {
	_, _, e := syscall.RawSyscall(syscall.SYS_IOCTL, uintptr(s.listener), ioctlNotifIDValid, uintptr(unsafe.Pointer(&id)))
	return e == 0
}

// connect does connect(fd, addr, len) as the process of n asked, and returns its errno (0: connected).
func (s *supervisor) connect(n *seccompNotif) syscall.Errno {
	tid := int(n.pid)
	fd := int(int32(n.data.args[0]))
	ptr := uintptr(n.data.args[1])
	alen := int(int32(n.data.args[2]))
	if alen < 0 || alen > 128 { // sizeof(struct sockaddr_storage): the kernel's own bound
		return syscall.EINVAL
	}
	pidfd, e := openPidfd(tid, s.ownProc)
	if e != 0 {
		return syscall.ESRCH
	}
	defer syscall.Close(pidfd)
	if !s.valid(n.id) {
		return syscall.ESRCH
	}
	r, _, e := syscall.RawSyscall(sysPidfdGetfd, uintptr(pidfd), uintptr(fd), 0)
	if e != 0 {
		if e == syscall.EBADF {
			return e
		}
		return syscall.EACCES
	}
	sock := int(r)
	defer syscall.Close(sock)
	addr := make([]byte, alen)
	if alen > 0 {
		local := syscall.Iovec{Base: &addr[0]}
		local.SetLen(alen)
		remote := struct{ base, len uintptr }{ptr, uintptr(alen)}
		got, _, e := syscall.Syscall6(sysProcessVMReadv, uintptr(tid), uintptr(unsafe.Pointer(&local)), 1, uintptr(unsafe.Pointer(&remote)), 1, 0)
		if e != 0 || int(got) != alen {
			return syscall.EFAULT
		}
	}
	if !s.valid(n.id) {
		return syscall.ESRCH
	}
	domain, err := syscall.GetsockoptInt(sock, syscall.SOL_SOCKET, soDomain)
	if err != nil {
		return errnoOf(err)
	}
	isUnix := domain == afUnix && alen > 2 && *(*uint16)(unsafe.Pointer(&addr[0])) == afUnix
	switch {
	case !isUnix:
		if s.denyTCP && (domain == afInet || domain == afInet6) {
			if t, err := syscall.GetsockoptInt(sock, syscall.SOL_SOCKET, syscall.SO_TYPE); err == nil && t == sockStream {
				return syscall.EACCES
			}
		}
		return rawConnect(sock, addr)
	case addr[2] == 0:
		// An abstract name: in the run's network namespace, which its host's runs share. Only a listener
		// of this run may answer, as Landlock's scope (ABI 6) keeps it for the command itself.
		if e := rawConnect(sock, addr); e != 0 {
			return e
		}
		if s.pidNS {
			if cred, err := syscall.GetsockoptUcred(sock, syscall.SOL_SOCKET, syscall.SO_PEERCRED); err != nil || cred.Pid == 0 {
				_ = syscall.Shutdown(sock, syscall.SHUT_RDWR)
				return syscall.ECONNREFUSED
			}
		}
		return 0
	}
	if alen > 110 { // sizeof(struct sockaddr_un)
		return syscall.EINVAL
	}
	path := addr[2:]
	for i, c := range path {
		if c == 0 {
			path = path[:i]
			break
		}
	}
	pin, e := s.resolve(tid, string(path))
	if e != 0 {
		return e
	}
	defer syscall.Close(pin)
	var st syscall.Stat_t
	if err := syscall.Fstat(pin, &st); err != nil {
		return errnoOf(err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return syscall.ECONNREFUSED // what connect(2) says of a file that is no socket
	}
	real, ok := fdPath(pin)
	if !ok || !s.permitted(real) {
		return syscall.EACCES
	}
	// Connect to the socket resolved and checked, whatever its path names by now.
	via := "/proc/self/fd/" + itoa(pin)
	sun := make([]byte, 2+len(via)+1)
	*(*uint16)(unsafe.Pointer(&sun[0])) = afUnix
	copy(sun[2:], via)
	return rawConnect(sock, sun)
}

// resolve opens path as connect(2) would find it for the process tid (relative to its working
// directory), O_PATH: what it names from now on does not matter.
func (s *supervisor) resolve(tid int, path string) (int, syscall.Errno) {
	if path == "" {
		return -1, syscall.ENOENT
	}
	dirfd := atFdcwd
	for _, self := range [...]string{"/proc/self/", "/proc/thread-self/"} {
		if len(path) >= len(self) && path[:len(self)] == self {
			if !s.ownProc {
				return -1, syscall.EACCES
			}
			path = "/proc/" + itoa(tid) + "/" + path[len(self):] // the process's own, not ours
			break
		}
	}
	if path[0] != '/' {
		if !s.ownProc {
			return -1, syscall.EACCES // its working directory cannot be told from ours
		}
		d, err := syscall.Open("/proc/"+itoa(tid)+"/cwd", oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return -1, syscall.EACCES
		}
		defer syscall.Close(d)
		dirfd = d
	}
	fd, err := syscall.Openat(dirfd, path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, errnoOf(err)
	}
	return fd, 0
}

// permitted reports whether a socket at real (a canonical path) may be connected to: it lies beneath a
// writable root, or is (or lies beneath) an allowed path.
func (s *supervisor) permitted(real string) bool {
	s.once.Do(func() {
		for _, r := range s.roots {
			if c, ok := canonical(r); ok {
				s.realRoots = append(s.realRoots, c)
			}
		}
	})
	for _, r := range s.realRoots {
		if beneath(real, r) {
			return true
		}
	}
	for _, a := range s.allowed { // resolved at each connect: a socket may come and go
		if c, ok := canonical(a); ok && (real == c || beneath(real, c)) {
			return true
		}
	}
	return false
}

// beneath reports whether path is dir or lies beneath it.
func beneath(path, dir string) bool {
	if dir == "/" {
		return len(path) > 0 && path[0] == '/'
	}
	return path == dir || len(path) > len(dir) && path[:len(dir)] == dir && path[len(dir)] == '/'
}

// canonical returns path with its symbolic links resolved, as the kernel names what it opens.
func canonical(path string) (string, bool) {
	fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer syscall.Close(fd)
	return fdPath(fd)
}

// fdPath returns the path of what our descriptor fd is open on.
func fdPath(fd int) (string, bool) {
	var buf [4096]byte
	n, err := syscall.Readlink("/proc/self/fd/"+itoa(fd), buf[:])
	if err != nil || n == len(buf) || n == 0 || buf[0] != '/' {
		return "", false
	}
	return string(buf[:n]), true
}

// openPidfd returns a pidfd of the process whose thread is tid: of the thread itself where the kernel
// has PIDFD_THREAD, else of its thread group leader.
func openPidfd(tid int, ownProc bool) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall(sysPidfdOpen, uintptr(tid), pidfdThread, 0)
	if e == syscall.EINVAL {
		r, _, e = syscall.RawSyscall(sysPidfdOpen, uintptr(tid), 0, 0) // a kernel before 6.9: a leader's
		if e == syscall.EINVAL && ownProc {
			if tgid, ok := threadGroup(tid); ok {
				r, _, e = syscall.RawSyscall(sysPidfdOpen, uintptr(tgid), 0, 0)
			}
		}
	}
	if e != 0 {
		return -1, e
	}
	return int(r), 0
}

// threadGroup returns the thread group (process) id of thread tid, from /proc/TID/status.
func threadGroup(tid int) (int, bool) {
	fd, err := syscall.Open("/proc/"+itoa(tid)+"/status", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	defer syscall.Close(fd)
	var buf [4096]byte
	n, _ := syscall.Read(fd, buf[:])
	if n <= 0 {
		return 0, false
	}
	const key = "\nTgid:\t"
	s := string(buf[:n])
	for i := 0; i+len(key) <= len(s); i++ {
		if s[i:i+len(key)] == key {
			j := i + len(key)
			k := j
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			return atoi(s[j:k])
		}
	}
	return 0, false
}

// rawConnect connects sock to the address addr (the bytes of a struct sockaddr) and returns its errno.
func rawConnect(sock int, addr []byte) syscall.Errno {
	var p unsafe.Pointer
	if len(addr) > 0 {
		p = unsafe.Pointer(&addr[0])
	}
	for {
		_, _, e := syscall.Syscall(sysConnect, uintptr(sock), uintptr(p), uintptr(len(addr)))
		if e != syscall.EINTR {
			return e
		}
	}
}

// errnoOf returns err's errno (EINVAL if it has none).
func errnoOf(err error) syscall.Errno {
	if e, ok := err.(syscall.Errno); ok {
		return e
	}
	return syscall.EINVAL
}

// atFdcwd is AT_FDCWD.
const atFdcwd = -100
