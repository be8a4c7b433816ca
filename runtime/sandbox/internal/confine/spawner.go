//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package confine

import (
	"runtime"
	"syscall"
)

// The spawner: one process per host, started once (this same binary, with Env=Spawner), in a user
// namespace of its own. For each run the host sends it, on the socket that is its fd 3, one message:
//
//	run KEY PLAN g|s          with the run's descriptors: stdin, stdout, stderr, the status pipe, the config
//	drop KEY                  forget KEY's network namespace
//
// and it starts the helper with CLONE_PARENT, so that the helper is the host's child (the host waits for
// it, kills its process group, as for any command), in a new PID and mount namespace, and (network off)
// in KEY's network namespace, made at KEY's first run, brought up with its loopback and kept until
// KEY is dropped. Its answer is "pid N" or "err ERRNO".
//
// It exists for speed: a clone with CLONE_NEWUSER cannot use vfork, so a host that created the
// namespaces itself would copy its page tables at each run (a millisecond for a 30 MB host, 15 for
// 400 MB); and a network namespace takes half a millisecond to make. The spawner is small, so its
// clones are cheap, and it makes each network namespace once.

// Spawner is the Env value of the spawner; SpawnerName its argv[0].
const (
	Spawner     = "spawner"
	SpawnerName = "agentbash-sandbox-spawner"
	// SpawnerFD is the spawner's end of its socket to the host.
	SpawnerFD = 3
)

// The descriptors of a run, in the order of the run message's rights: the helper's fds 0 to 4.
const (
	ConfigFD = 4 // the helper's config (EncodeConfig), a memfd
	RunFDs   = 5
)

// The capabilities the helper is given as ambient ones in the spawner's user namespace: for its mounts
// (CAP_SYS_ADMIN), to empty the command's bounding set (CAP_SETPCAP), and for its seccomp supervisor's
// pidfd_getfd on a process that is not dumpable (CAP_SYS_PTRACE). The thread that starts the command drops
// them all (dropCapabilities).
const (
	capSetpcap   = 8
	capSysPtrace = 19
	capSysAdmin  = 21
)

// runSpawner serves the host until its socket closes.
func runSpawner() int {
	// Nothing the host holds (a descriptor it inherited without close-on-exec) reaches a helper.
	_ = closeOnExecFrom(SpawnerFD)
	// The network-allowed runs are started from a thread that stays in the host's network namespace; the
	// others from this one, which enters each key's namespace (setns) before it starts a run.
	runtime.LockOSThread()
	host := newThread()
	nets := map[string]int{} // key -> descriptor of its network namespace
	buf := make([]byte, 512)
	oob := make([]byte, syscall.CmsgSpace(RunFDs*4))
	for {
		n, oobn, _, _, err := syscall.Recvmsg(SpawnerFD, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return 0 // the host is gone
		}
		fds := rights(oob[:oobn])
		f := fields(string(buf[:n]))
		switch {
		case len(f) == 2 && f[0] == "drop":
			if fd, ok := nets[f[1]]; ok {
				syscall.Close(fd)
				delete(nets, f[1])
			}
		case len(f) == 4 && f[0] == "run" && len(fds) == RunFDs:
			p, ok := parsePlan(f[2])
			if !ok {
				reply(-int(syscall.EINVAL))
				break
			}
			session := f[3] == "s"
			var pid int
			var err error
			if p.Net {
				fd, ok := nets[f[1]]
				if !ok {
					if fd, err = newNetNS(); err == nil {
						nets[f[1]] = fd
					}
				} else {
					err = setns(fd)
				}
				if err == nil {
					pid, err = startHelper(p, session, fds)
				}
			} else {
				host.run(func() { pid, err = startHelper(p, session, fds) })
			}
			// The run's descriptors are the helper's alone before the host hears of it: the end of its
			// status pipe is the helper's exit.
			for _, fd := range fds {
				syscall.Close(fd)
			}
			fds = nil
			if err != nil {
				errno, ok := err.(syscall.Errno)
				if !ok {
					errno = syscall.EINVAL
				}
				reply(-int(errno))
			} else {
				reply(pid)
			}
		}
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}
}

// newNetNS moves the calling thread to a new network namespace, brings its loopback up, and returns a
// descriptor of it.
func newNetNS() (int, error) {
	if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
		return -1, err
	}
	if err := loopbackUp(); err != nil {
		return -1, err
	}
	return syscall.Open("/proc/thread-self/ns/net", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
}

// setns moves the calling thread to the network namespace of fd.
func setns(fd int) error {
	if _, _, e := syscall.RawSyscall(setnsTrap, uintptr(fd), syscall.CLONE_NEWNET, 0); e != 0 {
		return e
	}
	return nil
}

// startHelper starts the helper of a run: the host's child, leading a process group (or a session) of
// its own, in a new PID and mount namespace as the plan says, on the calling thread's network namespace.
func startHelper(p Plan, session bool, fds []int) (int, error) {
	sys := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_PARENT, Setpgid: !session, Setsid: session}
	if p.PID {
		sys.Cloneflags |= syscall.CLONE_NEWPID
	}
	if p.Mnt {
		sys.Cloneflags |= syscall.CLONE_NEWNS
	}
	if p.User {
		sys.AmbientCaps = []uintptr{capSysAdmin, capSetpcap, capSysPtrace}
	}
	files := make([]uintptr, len(fds))
	for i, fd := range fds {
		files[i] = uintptr(fd)
	}
	return syscall.ForkExec("/proc/self/exe", []string{Name, p.String()}, &syscall.ProcAttr{
		Dir:   "/",
		Env:   []string{Env + "=" + Run, "GOMAXPROCS=1", "GOGC=off"},
		Files: files,
		Sys:   sys,
	})
}

func reply(n int) {
	msg := "pid " + itoa(n)
	if n < 0 {
		msg = "err " + itoa(-n)
	}
	for {
		_, err := syscall.Write(SpawnerFD, []byte(msg))
		if err != syscall.EINTR {
			return
		}
	}
}

// thread is an OS thread that runs jobs, locked to its goroutine for good.
type thread struct {
	jobs chan func()
}

func newThread() *thread {
	t := &thread{jobs: make(chan func())}
	go func() {
		runtime.LockOSThread()
		for job := range t.jobs {
			job()
		}
	}()
	return t
}

// run runs job on the thread and waits for it.
func (t *thread) run(job func()) {
	done := make(chan struct{})
	t.jobs <- func() { job(); close(done) }
	<-done
}

// rights returns the descriptors of a message's SCM_RIGHTS.
func rights(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for i := range msgs {
		if f, err := syscall.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, f...)
		}
	}
	return fds
}

// fields splits s at spaces.
func fields(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

// pdeathsig makes the calling process get SIGKILL when its parent thread ends: for a helper, the host's
// thread that started the spawner, which lives as long as the host.
func pdeathsig() {
	const prSetPdeathsig = 1
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetPdeathsig, uintptr(syscall.SIGKILL), 0)
}
