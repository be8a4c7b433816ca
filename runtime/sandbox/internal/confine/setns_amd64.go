//go:build linux

package confine

// setnsTrap is setns(2)'s number, which package syscall does not name on this architecture.
const setnsTrap = 308
