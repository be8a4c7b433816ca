//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package proc

type siErrnoCode struct {
	Errno int32
	Code  int32
}
