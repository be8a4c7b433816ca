//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package confine

import (
	"syscall"
	"unsafe"
)

// Unix sockets without the network. Landlock (to ABI 7) does not cover connecting to a pathname unix
// socket, and a network namespace does not either (a pathname socket is reached through the filesystem):
// without more, a command without the network would still reach every daemon on a socket it can name
// (the Docker engine's, an ssh agent's, D-Bus). So a seccomp filter, installed on the thread that starts
// the command (and inherited by everything the command starts), does three things:
//
//   - connect(2) is handed to the helper (SECCOMP_RET_USER_NOTIF), which does it on the command's behalf
//     (supervisor.go): it takes the command's socket (pidfd_getfd) and reads its address once; a pathname
//     unix address is resolved once, to an O_PATH descriptor, and connected to through that descriptor
//     (/proc/self/fd/N) if the socket it names lies beneath a writable root or Config.Sockets allows it,
//     so that what was checked is what is connected to (no time-of-check-to-time-of-use race: the
//     command's memory and descriptor table are read once, and the kernel never looks at them again);
//     any other address (IP on the run's loopback, an abstract unix name) is connected as given. The
//     filter never lets the kernel carry on with the command's own arguments (SECCOMP_USER_NOTIF_FLAG_
//     CONTINUE), which another thread of the command could change after the check.
//   - a unix socket can be created only as a stream or a seqpacket socket (socket(2) and socketpair(2)):
//     a datagram socket names its destination at each sendto or sendmsg, in memory a filter cannot read,
//     while a connected stream or seqpacket socket ignores (or refuses) one. So sendto and sendmsg need no
//     filter. Of the other families only those the network namespace confines are allowed (IP, netlink,
//     packet, the kernel's crypto API): vsock, for one, reaches the hypervisor's host from any namespace.
//   - io_uring is refused: its operations (a connect among them) do not pass through system calls a
//     filter sees.
//
// The filter is the same on every architecture it is built for (filter_*.go): the native system call
// numbers, and on amd64 the i386 ones too (whose socketcall multiplexer, whose arguments a filter cannot
// read, is refused); a process of another ABI (x32, a 32-bit ARM program on arm64) is killed at its first
// system call rather than let through unchecked.

// The seccomp ABI (include/uapi/linux/seccomp.h, filter.h, bpf_common.h, audit.h).
const (
	seccompSetModeFilter         = 1
	seccompFilterFlagNewListener = 1 << 3

	seccompRetKillProcess = 0x80000000
	seccompRetErrno       = 0x00050000
	seccompRetUserNotif   = 0x7fc00000
	seccompRetAllow       = 0x7fff0000

	bpfLdWAbs = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgeK   = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfAndK   = 0x54 // BPF_ALU | BPF_AND | BPF_K
	bpfRetK   = 0x06 // BPF_RET | BPF_K

	// Offsets in struct seccomp_data: the system call number, the architecture, and the low 32 bits of
	// the first two arguments (every architecture the filter is built for is little-endian).
	dataNr   = 0
	dataArch = 4
	dataArg0 = 16
	dataArg1 = 24

	sysIoUringSetup = 425 // the same number on every architecture since Linux 5.1

	afUnix, afInet, afInet6, afNetlink, afPacket, afAlg = 1, 2, 10, 16, 17, 38
	sockStream, sockSeqpacket, sockTypeMask             = 1, 5, 0xf
)

// abi is one system call table the filter handles: its audit architecture and the numbers it looks at;
// socketcall is the multiplexer, if the table has one (refused).
type abi struct {
	arch                        uint32
	socket, socketpair, connect uint32
	socketcall                  uint32 // 0: none
}

// sockFilter is struct sock_filter; sockFprog struct sock_fprog.
type sockFilter struct {
	code uint16
	jt   uint8
	_    uint8 // jf: the program's jumps go on to the next instruction when false
	k    uint32
}

type sockFprog struct {
	len    uint16
	filter *sockFilter
}

// program assembles a classic BPF program with forward jumps to labels.
type program struct {
	ins    []sockFilter
	labels map[string]int
	fixups []fixup
}

type fixup struct {
	at    int
	label string
}

func (p *program) ld(off uint32)           { p.ins = append(p.ins, sockFilter{code: bpfLdWAbs, k: off}) }
func (p *program) and(k uint32)            { p.ins = append(p.ins, sockFilter{code: bpfAndK, k: k}) }
func (p *program) ret(k uint32)            { p.ins = append(p.ins, sockFilter{code: bpfRetK, k: k}) }
func (p *program) label(name string)       { p.labels[name] = len(p.ins) }
func (p *program) jeq(k uint32, to string) { p.jump(bpfJeqK, k, to) }
func (p *program) jge(k uint32, to string) { p.jump(bpfJgeK, k, to) }

// jump jumps to label to if the comparison holds, else goes on.
func (p *program) jump(code uint16, k uint32, to string) {
	p.fixups = append(p.fixups, fixup{len(p.ins), to})
	p.ins = append(p.ins, sockFilter{code: code, k: k})
}

// link resolves the jumps; false if one is too far (a classic BPF jump skips at most 255 instructions).
func (p *program) link() bool {
	for _, f := range p.fixups {
		to, ok := p.labels[f.label]
		d := to - f.at - 1
		if !ok || d < 0 || d > 255 {
			return false
		}
		p.ins[f.at].jt = uint8(d)
	}
	return true
}

// errnoRet is the filter's answer for a system call refused with e.
func errnoRet(e syscall.Errno) uint32 { return seccompRetErrno | uint32(e) }

// unixFilter builds the filter for the tables this architecture has (native first), killing a process
// of any other; x32Bit, when non-zero, marks the system call numbers of an ABI sharing the native
// architecture's (x32), also killed.
func unixFilter(abis []abi, x32Bit uint32) []sockFilter {
	p := &program{labels: map[string]int{}}
	p.ld(dataArch)
	for i, a := range abis {
		p.jeq(a.arch, "abi"+itoa(i))
	}
	p.ret(seccompRetKillProcess)
	for i, a := range abis {
		p.label("abi" + itoa(i))
		p.ld(dataNr)
		if i == 0 && x32Bit != 0 {
			p.jge(x32Bit, "kill")
		}
		p.jeq(a.connect, "notify")
		p.jeq(a.socket, "socket")
		p.jeq(a.socketpair, "socket")
		p.jeq(sysIoUringSetup, "eperm")
		if a.socketcall != 0 {
			p.jeq(a.socketcall, "enosys")
		}
		p.ret(seccompRetAllow)
	}
	p.label("socket")
	p.ld(dataArg0)
	p.jeq(afUnix, "unix")
	for _, af := range []uint32{afInet, afInet6, afNetlink, afPacket, afAlg} {
		p.jeq(af, "allow")
	}
	p.ret(errnoRet(syscall.EAFNOSUPPORT))
	p.label("unix")
	p.ld(dataArg1)
	p.and(sockTypeMask)
	p.jeq(sockStream, "allow")
	p.jeq(sockSeqpacket, "allow")
	p.ret(errnoRet(syscall.EACCES))
	p.label("allow")
	p.ret(seccompRetAllow)
	p.label("notify")
	p.ret(seccompRetUserNotif)
	p.label("eperm")
	p.ret(errnoRet(syscall.EPERM))
	p.label("enosys")
	p.ret(errnoRet(syscall.ENOSYS))
	p.label("kill")
	p.ret(seccompRetKillProcess)
	if !p.link() {
		panic("confine: the seccomp filter's jumps are too long")
	}
	return p.ins
}

// installUnixFilter installs the filter on the calling thread (which must have no_new_privs set), which
// hands on to what it forks, and returns the listener of its notifications (close-on-exec).
func installUnixFilter() (int, error) {
	if len(filterABIs) == 0 {
		return -1, syscall.ENOSYS
	}
	ins := unixFilter(filterABIs, x32Bit)
	prog := sockFprog{len: uint16(len(ins)), filter: &ins[0]}
	fd, _, e := syscall.RawSyscall(sysSeccomp, seccompSetModeFilter, seccompFilterFlagNewListener, uintptr(unsafe.Pointer(&prog)))
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}
