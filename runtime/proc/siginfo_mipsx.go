//go:build linux && (mips || mipsle || mips64 || mips64le)

package proc

// On MIPS, si_code comes before si_errno.
type siErrnoCode struct {
	Code  int32
	Errno int32
}
