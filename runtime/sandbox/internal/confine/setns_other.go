//go:build linux && !amd64 && !386 && !mips && !mipsle && !mips64 && !mips64le

package confine

import "syscall"

// setnsTrap is setns(2)'s number.
const setnsTrap = syscall.SYS_SETNS
