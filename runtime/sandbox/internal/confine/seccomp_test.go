//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package confine

import (
	"encoding/binary"
	"syscall"
	"testing"
)

// run interprets the filter (the few classic BPF instructions it is made of) on a system call.
func run(t *testing.T, prog []sockFilter, arch uint32, nr int32, args ...uint64) uint32 {
	t.Helper()
	var data [64]byte
	binary.LittleEndian.PutUint32(data[0:], uint32(nr))
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.code {
		case bpfLdWAbs:
			acc = binary.LittleEndian.Uint32(data[in.k:])
		case bpfAndK:
			acc &= in.k
		case bpfJeqK:
			if acc == in.k {
				pc += int(in.jt)
			}
		case bpfJgeK:
			if acc >= in.k {
				pc += int(in.jt)
			}
		case bpfRetK:
			return in.k
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, in.code)
		}
	}
	t.Fatal("the filter ran off its end")
	return 0
}

// The filter, for every table it is built for: connect goes to the supervisor; a unix socket only as a
// stream or a seqpacket socket; the socket families the network namespace confines only; no io_uring,
// no socketcall; a process of another ABI killed; everything else allowed.
func TestUnixFilter(t *testing.T) {
	const (
		sockDgram, sockRaw = 2, 3
		sockNonblock       = syscall.SOCK_NONBLOCK
		sockCloexec        = syscall.SOCK_CLOEXEC
		afVsock            = 40
	)
	abis := []abi{
		{arch: 0xc000003e, socket: 41, socketpair: 53, connect: 42},
		{arch: 0x40000003, socket: 359, socketpair: 360, connect: 362, socketcall: 102},
	}
	prog := unixFilter(abis, 0x40000000)
	eacces, eperm, enosys, eafnosupport := errnoRet(syscall.EACCES), errnoRet(syscall.EPERM), errnoRet(syscall.ENOSYS), errnoRet(syscall.EAFNOSUPPORT)
	for _, a := range abis {
		for _, tc := range []struct {
			name string
			nr   uint32
			args []uint64
			want uint32
		}{
			{"connect", a.connect, []uint64{3, 0x1000, 110}, seccompRetUserNotif},
			{"unix stream", a.socket, []uint64{afUnix, sockStream | sockCloexec}, seccompRetAllow},
			{"unix seqpacket", a.socket, []uint64{afUnix, sockSeqpacket | sockNonblock}, seccompRetAllow},
			{"unix dgram", a.socket, []uint64{afUnix, sockDgram | sockCloexec}, eacces},
			{"unix raw (a dgram)", a.socket, []uint64{afUnix, sockRaw}, eacces},
			{"unix dgram pair", a.socketpair, []uint64{afUnix, sockDgram, 0, 0x1000}, eacces},
			{"unix stream pair", a.socketpair, []uint64{afUnix, sockStream, 0, 0x1000}, seccompRetAllow},
			{"inet", a.socket, []uint64{afInet, sockStream}, seccompRetAllow},
			{"inet6", a.socket, []uint64{afInet6, sockDgram}, seccompRetAllow},
			{"netlink", a.socket, []uint64{afNetlink, sockRaw}, seccompRetAllow},
			{"vsock", a.socket, []uint64{afVsock, sockStream}, eafnosupport},
			{"high bits of the family", a.socket, []uint64{1<<32 | afVsock, sockStream}, eafnosupport},
			{"io_uring_setup", sysIoUringSetup, []uint64{4, 0x1000}, eperm},
			{"anything else", 1000, nil, seccompRetAllow},
		} {
			if got := run(t, prog, a.arch, int32(tc.nr), tc.args...); got != tc.want {
				t.Errorf("arch %#x, %s: %#x, want %#x", a.arch, tc.name, got, tc.want)
			}
		}
	}
	if got := run(t, prog, abis[1].arch, 102); got != enosys {
		t.Errorf("i386 socketcall: %#x, want ENOSYS", got)
	}
	if got := run(t, prog, abis[0].arch, 0x40000000|41, afUnix, sockDgram); got != seccompRetKillProcess {
		t.Errorf("an x32 socket: %#x, want the process killed", got)
	}
	if got := run(t, prog, 0x40000028, 281, afUnix, sockDgram); got != seccompRetKillProcess {
		t.Errorf("another architecture: %#x, want the process killed", got)
	}
	if len(filterABIs) > 0 {
		if got := run(t, unixFilter(filterABIs, x32Bit), filterABIs[0].arch, int32(filterABIs[0].socket), afUnix, sockDgram); got != eacces {
			t.Errorf("this architecture's filter, a unix dgram socket: %#x, want EACCES", got)
		}
	}
}

// beneath tells a path beneath a directory from one that only shares its prefix.
func TestBeneath(t *testing.T) {
	for _, tc := range []struct {
		path, dir string
		want      bool
	}{
		{"/ws", "/ws", true},
		{"/ws/a.sock", "/ws", true},
		{"/ws2/a.sock", "/ws", false},
		{"/w", "/ws", false},
		{"/run/a.sock", "/", true},
		{"/tmp/x/run.sock (deleted)", "/tmp/x", true},
	} {
		if got := beneath(tc.path, tc.dir); got != tc.want {
			t.Errorf("beneath(%q, %q) = %v", tc.path, tc.dir, got)
		}
	}
}
