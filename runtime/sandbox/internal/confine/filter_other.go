//go:build linux && !amd64 && !arm64 && !riscv64 && !loong64 && !mips && !mipsle && !mips64 && !mips64le

package confine

// The seccomp filter is not built for this architecture: installUnixFilter fails with ENOSYS, and the
// sandbox reports the mechanism missing.
var filterABIs []abi

const (
	x32Bit            = 0
	sysSeccomp        = 0
	sysConnect        = 0
	sysProcessVMReadv = 0
)
