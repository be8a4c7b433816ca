//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package confine

import (
	"syscall"
	"unsafe"
)

// What the helper does inside the namespaces, before Landlock (a Landlock domain may not change mounts).

// bindReadOnly binds path onto itself read-only, in the helper's mount namespace: writes beneath it fail
// with EROFS, and it cannot be renamed or removed (a mount point is busy). The remount keeps the flags of
// the mount it comes from, which a mount namespace owned by a user namespace may not drop (locked flags).
func bindReadOnly(path string) error {
	if err := syscall.Mount(path, path, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return err
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return err
	}
	flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY)
	for _, f := range [...]struct{ st, ms uintptr }{
		{stNoSUID, syscall.MS_NOSUID},
		{stNoDev, syscall.MS_NODEV},
		{stNoExec, syscall.MS_NOEXEC},
		{stNoAtime, syscall.MS_NOATIME},
		{stNoDirAtime, syscall.MS_NODIRATIME},
		{stRelAtime, syscall.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	return syscall.Mount("", path, "", flags, "")
}

// The statfs f_flags (ST_*), which differ from the MS_* flags for relatime.
const (
	stNoSUID     = 0x2
	stNoDev      = 0x4
	stNoExec     = 0x8
	stNoAtime    = 0x400
	stNoDirAtime = 0x800
	stRelAtime   = 0x1000
)

// mountProc mounts a /proc of the helper's PID namespace over /proc, so that the run sees its own
// processes only. It fails where the kernel refuses a new proc mount (a /proc with masked paths, as in
// some containers); the run then sees the host's /proc (see the package documentation).
func mountProc() error {
	return syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "")
}

// loopbackUp brings up the loopback interface of the helper's network namespace (it starts down), as
// bubblewrap does: a run can talk to itself on 127.0.0.1 and nowhere else.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	// struct ifreq: the name in 16 bytes, then a union whose first member is the short flags.
	var ifr [40]byte
	copy(ifr[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	flags := *(*uint16)(unsafe.Pointer(&ifr[16]))
	*(*uint16)(unsafe.Pointer(&ifr[16])) = flags | syscall.IFF_UP | syscall.IFF_RUNNING
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	return nil
}

// The new mount API (Linux 5.2 and 5.12), the same system call numbers on every architecture.
const (
	sysOpenTree      = 428
	sysMoveMount     = 429
	sysMountSetattr  = 442
	openTreeClone    = 1
	atRecursive      = 0x8000
	atEmptyPath      = 0x1000
	moveMountFEmpty  = 0x4  // MOVE_MOUNT_F_EMPTY_PATH
	moveMountTFollow = 0x40 // MOVE_MOUNT_T_SYMLINKS: the path is followed as open_tree followed it
	mountAttrRdonly  = 0x1
	mountAttrSizeVer = 32 // MOUNT_ATTR_SIZE_VER0
)

// readOnlyRoot makes the whole filesystem read-only in the helper's mount namespace, but for writable,
// the writable roots and files, which stay as they were: a copy of each (with what is mounted beneath
// it) is taken first, the root made read-only recursively, and each copy mounted back on its path.
// Landlock already refuses writes outside them, but not a change of metadata (chmod, chown, utimes,
// extended attributes, file capabilities), which a read-only mount refuses (EROFS). Devices stay usable:
// a read-only mount refuses writes to regular files, directories and links only. The namespace's mounts
// are made private first, so that none of this reaches the host's (as it would from a namespace made
// without a user namespace, as root), and none of the host's mounts made later appears writable in it.
func readOnlyRoot(writable []string) (string, error) {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return "/", err
	}
	trees := make([]int, 0, len(writable))
	defer func() {
		for _, fd := range trees {
			syscall.Close(fd)
		}
	}()
	for _, p := range writable {
		fd, err := openTree(p)
		if err != nil {
			return p, err
		}
		trees = append(trees, fd)
	}
	attr := [4]uint64{mountAttrRdonly} // struct mount_attr: attr_set, attr_clr, propagation, userns_fd
	root := []byte("/\x00")
	if _, _, e := syscall.RawSyscall6(sysMountSetattr, atFdcwdU, uintptr(unsafe.Pointer(&root[0])), atRecursive,
		uintptr(unsafe.Pointer(&attr[0])), mountAttrSizeVer, 0); e != 0 {
		return "/", e
	}
	empty := []byte{0}
	for i, p := range writable {
		to, err := syscall.BytePtrFromString(p)
		if err != nil {
			return p, err
		}
		if _, _, e := syscall.RawSyscall6(sysMoveMount, uintptr(trees[i]), uintptr(unsafe.Pointer(&empty[0])), atFdcwdU,
			uintptr(unsafe.Pointer(to)), moveMountFEmpty|moveMountTFollow, 0); e != 0 {
			return p, e
		}
	}
	return "", nil
}

// openTree returns a detached copy of the mount tree at path (open_tree with OPEN_TREE_CLONE).
func openTree(path string) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	fd, _, e := syscall.RawSyscall(sysOpenTree, atFdcwdU, uintptr(unsafe.Pointer(p)), openTreeClone|atRecursive|syscall.O_CLOEXEC)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// atFdcwdU is AT_FDCWD (-100) as a system call argument.
const atFdcwdU = ^uintptr(99)
