//go:build linux && (arm64 || riscv64 || loong64)

package confine

// The system call table the seccomp filter handles on the architectures of the generic table (a process
// of another ABI, a 32-bit ARM program on arm64, is killed).
var filterABIs = []abi{{arch: auditArch, socket: 198, socketpair: 199, connect: 203}}

const (
	x32Bit            = 0
	sysSeccomp        = 277
	sysConnect        = 203
	sysProcessVMReadv = 270
)
