//go:build linux

package confine

// The system call tables the seccomp filter handles on amd64: x86-64, and i386 (a 32-bit program); an
// x32 system call (its number has bit 30 set) is killed.
var filterABIs = []abi{
	{arch: 0xc000003e, socket: 41, socketpair: 53, connect: 42},                     // AUDIT_ARCH_X86_64
	{arch: 0x40000003, socket: 359, socketpair: 360, connect: 362, socketcall: 102}, // AUDIT_ARCH_I386
}

const (
	x32Bit            = 0x40000000
	sysSeccomp        = 317
	sysConnect        = 42
	sysProcessVMReadv = 310
)
