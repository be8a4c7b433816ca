//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package confine

import (
	"syscall"
	"unsafe"
)

// Landlock through its three system calls (Documentation/userspace-api/landlock.rst), with package syscall
// only (see the package documentation: not even golang.org/x/sys/unix). The system call numbers are those
// of the generic table, shared by every architecture this file builds for.
const (
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446

	landlockCreateRulesetVersion = 1 << 0
	landlockRulePathBeneath      = 1
)

// Filesystem access rights, by the ABI version that introduced them.
const (
	accessExecute    = 1 << 0 // ABI 1 ...
	accessWriteFile  = 1 << 1
	accessReadFile   = 1 << 2
	accessReadDir    = 1 << 3
	accessRemoveDir  = 1 << 4
	accessRemoveFile = 1 << 5
	accessMakeChar   = 1 << 6
	accessMakeDir    = 1 << 7
	accessMakeReg    = 1 << 8
	accessMakeSock   = 1 << 9
	accessMakeFifo   = 1 << 10
	accessMakeBlock  = 1 << 11
	accessMakeSym    = 1 << 12
	accessRefer      = 1 << 13 // ABI 2: link or rename a file across directories
	accessTruncate   = 1 << 14 // ABI 3
	accessIoctlDev   = 1 << 15 // ABI 5

	// The rights a rule on a file (not a directory) may carry.
	accessFile = accessExecute | accessWriteFile | accessReadFile | accessTruncate | accessIoctlDev
	// What read-only grants everywhere.
	accessRead = accessExecute | accessReadFile | accessReadDir
)

// Network rights (ABI 4) and scopes (ABI 6).
const (
	accessNetBindTCP    = 1 << 0
	accessNetConnectTCP = 1 << 1

	scopeAbstractUnixSocket = 1 << 0
	scopeSignal             = 1 << 1
)

// rulesetAttr is struct landlock_ruleset_attr. The kernel accepts it whole from every ABI version as long
// as the fields it does not know are zero.
type rulesetAttr struct {
	handledAccessFS  uint64
	handledAccessNet uint64
	scoped           uint64
}

// handledFS returns every filesystem right ABI version abi knows: the ruleset handles (denies unless a
// rule allows) all of them.
func handledFS(abi int) uint64 {
	h := uint64(accessMakeSym<<1 - 1)
	if abi >= 2 {
		h |= accessRefer
	}
	if abi >= 3 {
		h |= accessTruncate
	}
	if abi >= 5 {
		h |= accessIoctlDev
	}
	return h
}

// LandlockABI returns the kernel's Landlock ABI version, or the errno that says why there is none.
func LandlockABI() (int, error) {
	v, _, e := syscall.RawSyscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetVersion)
	if e != 0 {
		return 0, e
	}
	return int(v), nil
}

// LandlockMissing says why Landlock is missing, from the error of LandlockABI.
func LandlockMissing(err error) string {
	switch err {
	case syscall.ENOSYS:
		return "the kernel has no Landlock (before Linux 5.13, or built without CONFIG_SECURITY_LANDLOCK)"
	case syscall.EOPNOTSUPP:
		return "Landlock is built in but not enabled: add landlock to the lsm= boot parameter"
	}
	return "landlock_create_ruleset: " + err.Error()
}

// devices are the files every mode may write: writes to them go nowhere, or (/dev/tty) to the
// command's own controlling terminal, if it has one (a session's terminal).
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// landlockRestrict confines the calling thread, and what it executes or forks from now on: read and
// execute everywhere, write only beneath roots (none in read-only), to devices and to files (each
// written or truncated, not removed or renamed). denyTCP also denies
// every TCP bind and connect (ABI 4), for a run without a network namespace. The thread must have
// no_new_privs set (or CAP_SYS_ADMIN in its user namespace).
func landlockRestrict(abi int, roots, files []string, denyTCP bool) (string, error) {
	handled := handledFS(abi)
	attr := rulesetAttr{handledAccessFS: handled}
	if denyTCP && abi >= 4 {
		attr.handledAccessNet = accessNetBindTCP | accessNetConnectTCP
	}
	if abi >= 6 {
		// A confined process cannot signal a process outside its domain (the host, any other process of
		// the user), nor connect to an abstract unix socket outside it (where the network is allowed).
		attr.scoped = scopeAbstractUnixSocket | scopeSignal
	}
	fd, _, e := syscall.RawSyscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return "", e
	}
	defer syscall.Close(int(fd))
	if err := addPathRule(int(fd), "/", accessRead&handled, false); err != nil {
		return "/", err
	}
	for _, d := range devices {
		if err := addPathRule(int(fd), d, (accessWriteFile|accessReadFile|accessTruncate|accessIoctlDev)&handled, true); err != nil {
			return d, err
		}
	}
	for _, r := range roots {
		if err := addPathRule(int(fd), r, handled, true); err != nil {
			return r, err
		}
	}
	for _, f := range files {
		if err := addPathRule(int(fd), f, (accessWriteFile|accessReadFile|accessTruncate)&handled, false); err != nil {
			return f, err
		}
	}
	if _, _, e := syscall.RawSyscall(sysLandlockRestrictSelf, fd, 0, 0); e != 0 {
		return "", e
	}
	return "", nil
}

// addPathRule allows access beneath path (on path alone for a file, whose rule may only carry file
// rights). A missing path is skipped when optional.
func addPathRule(rulesetFD int, path string, access uint64, optional bool) error {
	fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		if optional && err == syscall.ENOENT {
			return nil
		}
		return err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		access &= accessFile
	}
	// struct landlock_path_beneath_attr is packed: u64 allowed_access, s32 parent_fd (12 bytes, in the
	// machine's byte order); the buffer is 8-aligned.
	var rule struct {
		b [12]byte
		_ [0]uint64
	}
	*(*uint64)(unsafe.Pointer(&rule.b[0])) = access
	*(*int32)(unsafe.Pointer(&rule.b[8])) = int32(fd)
	if _, _, e := syscall.RawSyscall6(sysLandlockAddRule, uintptr(rulesetFD), landlockRulePathBeneath,
		uintptr(unsafe.Pointer(&rule.b[0])), 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// oPath is O_PATH (010000000 in the generic open flags), which package syscall does not name.
const oPath = 0x200000
