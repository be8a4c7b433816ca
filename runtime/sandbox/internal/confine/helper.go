//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package confine

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

const (
	// Env marks a helper; its value says which (Run or Probe). The helper removes it from the
	// environment the command gets, so a command that runs this binary again is not a helper.
	Env   = "AGENTBASH_SANDBOX_HELPER"
	Run   = "run"
	Probe = "probe"
	// Name and ProbeName are the helpers' argv[0], as ps shows them: the helper is one only if both its
	// argv[0] and Env say so.
	Name      = "agentbash-sandbox"
	ProbeName = "agentbash-sandbox-probe"
	// StatusFD is the helper's end of the status pipe to the host, which carries lines:
	//
	//	ok                        the command started
	//	err ERRNO STEP PATH       a step failed (STEP exec: executing the command); the command did not run
	//	exit WAITSTATUS           the command ended (its raw wait status)
	//	probe STEP ERRNO          a probe's step and its result (ERRNO 0: it worked)
	//
	// PATH is the rest of the line, with newlines replaced by spaces (it is only shown).
	StatusFD = 3
)

func init() {
	// The common case, a process that is no helper, is one getenv: keep it so.
	v, ok := syscall.Getenv(Env)
	if !ok || len(os.Args) < 1 {
		return
	}
	switch {
	case v == Run && os.Args[0] == Name && len(os.Args) == 2:
		os.Exit(runHelper(os.Args[1]))
	case v == Probe && os.Args[0] == ProbeName && len(os.Args) == 2:
		os.Exit(runProbe(os.Args[1]))
	case v == Spawner && os.Args[0] == SpawnerName:
		os.Exit(runSpawner())
	}
}

// Plan is what a helper does: the Landlock ABI version to use (0: no Landlock), the namespaces it was
// created in (User, PID, Net, Mnt), TCP: deny TCP with Landlock (no network namespace), and Unix: filter
// the command's sockets with seccomp, connecting its unix sockets on its behalf (without the network). A
// Warm helper is started ahead of its run: it waits for the run's descriptors (WarmFDs), sent on its
// descriptor 3.
type Plan struct {
	ABI                      int
	User, PID, Net, Mnt, TCP bool
	Unix                     bool
	Warm                     bool
}

// WarmFDs is how many descriptors a warm helper receives: stdin, stdout, stderr, the status pipe and the
// config, which become its descriptors 0 to 4.
const WarmFDs = 5

// String encodes the plan as comma-separated tokens ("ll=7,user,pid,net,mnt").
func (p Plan) String() string {
	s := "ll=" + itoa(p.ABI)
	for _, f := range [...]struct {
		on  bool
		tok string
	}{{p.User, "user"}, {p.PID, "pid"}, {p.Net, "net"}, {p.Mnt, "mnt"}, {p.TCP, "tcp"}, {p.Unix, "unix"}, {p.Warm, "warm"}} {
		if f.on {
			s += "," + f.tok
		}
	}
	return s
}

// parsePlan decodes Plan.String.
func parsePlan(s string) (Plan, bool) {
	var p Plan
	for len(s) > 0 {
		tok := s
		for i := 0; i < len(s); i++ {
			if s[i] == ',' {
				tok, s = s[:i], s[i:]
				break
			}
		}
		if tok == s {
			s = ""
		} else {
			s = s[1:]
		}
		switch tok {
		case "user":
			p.User = true
		case "pid":
			p.PID = true
		case "net":
			p.Net = true
		case "mnt":
			p.Mnt = true
		case "tcp":
			p.TCP = true
		case "unix":
			p.Unix = true
		case "warm":
			p.Warm = true
		default:
			if len(tok) < 4 || tok[:3] != "ll=" {
				return p, false
			}
			n, ok := atoi(tok[3:])
			if !ok {
				return p, false
			}
			p.ABI = n
		}
	}
	return p, true
}

// ProbeArgs is the probe helper's argv.
func ProbeArgs(p Plan) []string { return []string{ProbeName, p.String()} }

// Config is what a helper runs: the command (Path, Argv, Env, Dir), the roots it may write, the files it
// may write (and only write: not remove or rename) whatever the mode, the unix sockets (or directories of
// them) outside the roots it may connect to without the network (Sockets), and whether its stdin is a
// terminal to make its controlling terminal (Ctty). The host hands it over in a memfd (EncodeConfig), not
// in the helper's argv, so that a command too long for execve fails as the command's own spawn error,
// E2BIG, like the unsandboxed command would.
type Config struct {
	Dir, Path string
	Roots     []string
	Argv, Env []string
	Files     []string
	Sockets   []string
	Ctty      bool
}

// EncodeConfig encodes c: NUL-terminated strings (the counts in decimal).
func EncodeConfig(c Config) []byte {
	n := 64
	for _, l := range [][]string{c.Roots, c.Argv, c.Env, c.Files, c.Sockets} {
		for _, s := range l {
			n += len(s) + 1
		}
	}
	b := make([]byte, 0, n+len(c.Dir)+len(c.Path))
	add := func(s string) { b = append(append(b, s...), 0) }
	add(c.Dir)
	add(c.Path)
	for _, l := range [][]string{c.Roots, c.Argv, c.Env, c.Files, c.Sockets} {
		add(itoa(len(l)))
		for _, s := range l {
			add(s)
		}
	}
	if c.Ctty {
		add("ctty")
	} else {
		add("")
	}
	return b
}

// decodeConfig decodes EncodeConfig.
func decodeConfig(b []byte) (Config, bool) {
	next := func() (string, bool) {
		for i, c := range b {
			if c == 0 {
				s := string(b[:i])
				b = b[i+1:]
				return s, true
			}
		}
		return "", false
	}
	list := func() ([]string, bool) {
		s, ok := next()
		n, nok := atoi(s)
		if !ok || !nok || n > len(b) {
			return nil, false
		}
		out := make([]string, n)
		for i := range out {
			if out[i], ok = next(); !ok {
				return nil, false
			}
		}
		return out, true
	}
	var c Config
	var ok1, ok2, ok3, ok4, ok5, ok6, ok7, ok8 bool
	var ctty string
	c.Dir, ok1 = next()
	c.Path, ok2 = next()
	c.Roots, ok3 = list()
	c.Argv, ok4 = list()
	c.Env, ok5 = list()
	c.Files, ok6 = list()
	c.Sockets, ok7 = list()
	ctty, ok8 = next()
	c.Ctty = ctty == "ctty"
	return c, ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8 && (ctty == "" || c.Ctty) && len(b) == 0
}

// readConfig reads the config from its memfd.
func readConfig() (Config, bool) {
	var st syscall.Stat_t
	if syscall.Fstat(ConfigFD, &st) != nil || st.Size < 0 || st.Size > 1<<30 {
		return Config{}, false
	}
	b := make([]byte, st.Size)
	for off := 0; off < len(b); {
		n, err := syscall.Pread(ConfigFD, b[off:], int64(off))
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return Config{}, false
		}
		off += n
	}
	syscall.Close(ConfigFD)
	return decodeConfig(b)
}

// receiveFiles waits, in a warm helper, for its run's descriptors on descriptor 3, and makes them its
// descriptors 0 to 4 (descriptor 3, the socket, included). It reports false when the host closed the
// socket instead (or sent something else).
func receiveFiles() bool {
	var buf [8]byte
	oob := make([]byte, syscall.CmsgSpace(WarmFDs*4))
	for {
		_, oobn, _, _, err := syscall.Recvmsg(3, buf[:], oob, syscall.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || oobn == 0 {
			return false
		}
		fds := rights(oob[:oobn])
		if len(fds) != WarmFDs {
			for _, fd := range fds {
				syscall.Close(fd)
			}
			return false
		}
		// The descriptors received are above 4 (0 to 4 were open), so none is overwritten before it is
		// duplicated.
		for i, fd := range fds {
			if err := syscall.Dup3(fd, i, 0); err != nil {
				return false
			}
			syscall.Close(fd)
		}
		return true
	}
}

// status writes one line to the host. Nothing else of the helper's may be written anywhere: its stdout
// and stderr are the command's.
func status(line string) {
	b := []byte(line + "\n")
	for len(b) > 0 {
		n, err := syscall.Write(StatusFD, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return
		}
		b = b[n:]
	}
}

// fail reports a failed step and returns the helper's exit status.
func fail(step, path string, err error) int {
	errno, ok := err.(syscall.Errno)
	if !ok {
		errno = syscall.EINVAL
	}
	line := []byte("err " + itoa(int(errno)) + " " + step + " " + path)
	for i, c := range line {
		if c == '\n' {
			line[i] = ' '
		}
	}
	status(string(line))
	if step == "exec" {
		return 127
	}
	return 126
}

// runHelper confines itself as its plan says, starts the command and waits for it (as the PID
// namespace's init, it also reaps the orphans), then reports the command's wait status.
func runHelper(plan string) int {
	// Dies with the host, even of SIGKILL: its parent is the host's thread that started the spawner.
	pdeathsig()
	// Landlock, no_new_privs, the capabilities and the seccomp filter are per thread: this one confines
	// itself and forks the command. (Package init runs on the main thread, locked; keep it locked for what
	// follows: no other goroutine runs on it, and the Go runtime makes its other threads from a template
	// thread made now, before any of it.)
	runtime.LockOSThread()
	// Out of the command's reach from the start: /proc/1/fd, ptrace and pidfd_getfd on the helper need a
	// capability the command will not have.
	if err := notDumpable(); err != nil {
		return fail("setup", "dumpable", err)
	}
	p, ok := parsePlan(plan)
	var supervise chan *supervisor
	if ok && p.Unix {
		// The seccomp supervisor's goroutine, started now: the thread the Go runtime makes to run it is
		// made while a warm helper waits for its run, not while the run waits for the command.
		supervise = make(chan *supervisor, 1)
		go func() { (<-supervise).serve() }()
	}
	if ok && p.Warm && !receiveFiles() {
		return 0 // the host let it go unused
	}
	syscall.CloseOnExec(StatusFD)
	c, cok := readConfig()
	if !ok || !cok {
		return fail("setup", "", syscall.EINVAL)
	}
	ownProc := false
	if p.Mnt {
		// Read-only everywhere, metadata included, but the roots and the files it may write.
		writable := append(append(make([]string, 0, len(c.Roots)+len(c.Files)), c.Roots...), c.Files...)
		if at, err := readOnlyRoot(writable); err != nil {
			return fail("rdonly", at, err)
		}
		for _, r := range c.Roots {
			g, ok := gitDir(r, c.Roots)
			if !ok {
				continue
			}
			if err := bindReadOnly(g); err != nil {
				return fail("git", g, err)
			}
		}
		if p.PID {
			// Else the run sees the host's /proc: see runtime/sandbox's documentation.
			ownProc = mountProc() == nil
		}
	}
	// After the mounts: a working directory inside .git must be the read-only one, one in a root the
	// writable copy.
	if c.Dir != "" {
		if err := syscall.Chdir(c.Dir); err != nil {
			return fail("chdir", c.Dir, err)
		}
	}
	if err := noNewPrivs(); err != nil {
		return fail("no_new_privs", "", err)
	}
	if p.ABI > 0 {
		if at, err := landlockRestrict(p.ABI, c.Roots, c.Files, p.TCP); err != nil {
			return fail("landlock", at, err)
		}
	}
	if err := dropCapabilities(); err != nil {
		return fail("capabilities", "", err)
	}
	if p.Unix {
		listener, err := installUnixFilter()
		if err != nil {
			return fail("seccomp", "", err)
		}
		supervise <- &supervisor{listener: listener, roots: c.Roots, allowed: c.Sockets, denyTCP: p.TCP, pidNS: p.PID, ownProc: ownProc}
	}
	if p.PID {
		absorbSignals()
	}
	// The command gets descriptors 0, 1 and 2, and nothing else this process holds.
	if err := closeOnExecFrom(3); err != nil {
		return fail("descriptors", "", err)
	}
	// In a PID namespace the command gets a session of its own (no controlling terminal to read or to
	// push input into, but the terminal of its own it was given: Ctty); without one it stays in the
	// helper's process group, which the host kills, and the helper, which leads its session, makes the
	// terminal the session's before it starts the command.
	sys := &syscall.SysProcAttr{Setsid: p.PID, Setctty: p.PID && c.Ctty, Ctty: 0}
	if c.Ctty && !p.PID {
		if _, _, e := syscall.RawSyscall(syscall.SYS_IOCTL, 0, syscall.TIOCSCTTY, 0); e != 0 {
			return fail("terminal", "", e)
		}
	}
	pid, err := syscall.ForkExec(c.Path, c.Argv, &syscall.ProcAttr{
		Env:   c.Env,
		Files: []uintptr{0, 1, 2},
		Sys:   sys,
	})
	if err != nil {
		return fail("exec", c.Path, err)
	}
	status("ok")
	ws := reap(pid)
	status("exit " + itoa(int(ws)))
	switch {
	case ws.Exited():
		return ws.ExitStatus()
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return 1
}

// gitDir returns the .git at the top of root, if there is one, resolved: a .git that is a symbolic link
// is bound where it points if that is beneath a root (elsewhere Landlock keeps it read-only already).
func gitDir(root string, roots []string) (string, bool) {
	g := root + "/.git"
	var st syscall.Stat_t
	if syscall.Lstat(g, &st) != nil {
		return "", false
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFLNK {
		return g, true
	}
	fd, err := syscall.Open(g, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer syscall.Close(fd)
	var buf [4096]byte
	n, err := syscall.Readlink("/proc/self/fd/"+itoa(fd), buf[:])
	if err != nil {
		return "", false
	}
	target := string(buf[:n])
	for _, r := range roots {
		if target == r || len(target) > len(r) && target[:len(r)] == r && target[len(r)] == '/' {
			return target, true
		}
	}
	return "", false
}

// reap waits for the command, reaping every other child on the way (orphans of the namespace).
func reap(cmd int) syscall.WaitStatus {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return syscall.WaitStatus(127 << 8) // cannot happen (ECHILD): report "exited 127"
		case pid == cmd:
			return ws
		}
	}
}

// absorbSignals keeps the helper, the namespace's init, alive when a command signals it (kill 1): the
// kernel delivers a signal to an init from inside its namespace only if the init handles it, and Go's
// handling of the signals it handles would end the helper, and with it the run. So those become ignored,
// before the command is started (it could signal at once). The command does not inherit it: in the child
// Go resets every signal it handles to its default. A signal Go does not handle (ignored when the helper
// started, or one whose default Go keeps) is left as it is, as it would be for an unsandboxed command.
func absorbSignals() {
	// struct sigaction: sa_handler first; with SIG_IGN (1) and every other field zero, the layout of the
	// rest does not matter. The old action is read into a buffer larger than any architecture's.
	var act, old [8]uint64
	act[0] = 1
	for _, sig := range [...]syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
		syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGPIPE, syscall.SIGVTALRM, syscall.SIGPROF} {
		old[0] = 0
		if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), 0, uintptr(unsafe.Pointer(&old[0])), 8, 0, 0); e != 0 || old[0] <= 1 {
			continue // SIG_DFL (0): an init drops it anyway; SIG_IGN (1): nothing to do
		}
		_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act[0])), 0, 8, 0, 0)
	}
}

// noNewPrivs sets no_new_privs on the calling thread: what it executes cannot gain privileges (set-user-ID
// programs, file capabilities), as Landlock requires of a process without CAP_SYS_ADMIN.
func noNewPrivs() error {
	const prSetNoNewPrivs = 38
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// runProbe is the helper of sandbox.Check: in the namespaces its host created, it tries each step the
// helper takes, reports each result, and exits.
func runProbe(arg string) int {
	runtime.LockOSThread()
	syscall.CloseOnExec(StatusFD)
	p, ok := parsePlan(arg)
	if !ok {
		return 2
	}
	report := func(step string, err error) {
		errno, ok := err.(syscall.Errno)
		if err != nil && !ok {
			errno = syscall.EINVAL
		}
		status("probe " + step + " " + itoa(int(errno)))
	}
	if p.PID {
		var err error
		if os.Getpid() != 1 {
			err = syscall.EINVAL
		}
		report("pid", err)
	}
	if p.Mnt {
		report("mnt", bindReadOnly("/dev/null"))
		if p.PID {
			report("proc", mountProc())
		}
	}
	if p.Net {
		report("net", loopbackUp())
	}
	if p.Mnt {
		_, err := readOnlyRoot([]string{"/dev"})
		report("rdonly", err)
	}
	if p.ABI > 0 {
		err := noNewPrivs()
		if err == nil {
			_, err = landlockRestrict(p.ABI, nil, nil, false)
		}
		report("landlock", err)
	}
	if p.Unix {
		report("seccomp", probeUnixFilter())
	}
	return 0
}

// probeUnixFilter tries what the helper does for Plan.Unix: the seccomp filter with its listener, and
// taking a descriptor of a process (pidfd_getfd, Linux 5.6; here its own).
func probeUnixFilter() error {
	if err := noNewPrivs(); err != nil {
		return err
	}
	listener, err := installUnixFilter()
	if err != nil {
		return err
	}
	syscall.Close(listener)
	pidfd, e := openPidfd(os.Getpid(), false)
	if e != 0 {
		return e
	}
	defer syscall.Close(pidfd)
	fd, _, e := syscall.RawSyscall(sysPidfdGetfd, uintptr(pidfd), 0, 0)
	if e != 0 {
		return e
	}
	syscall.Close(int(fd))
	return nil
}

// itoa formats a non-negative n (negative numbers keep their sign).
func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// atoi parses a non-negative decimal number.
func atoi(s string) (int, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
