//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbash/agentbash/runtime/internal/osx"
	"github.com/agentbash/agentbash/runtime/sandbox/internal/confine"
)

// Check reports what this machine offers the sandbox: the Landlock ABI version, and whether this process
// can create each namespace, found by starting the helper once in each (the first call takes a few
// milliseconds; later calls return the same answer).
func Check() Support { return withSimulated(checkOnce()) }

var checkOnce = sync.OnceValue(probeMachine)

// The capabilities the spawner holds in its user namespace and hands the helper as ambient ones: for its
// setup (mounts: CAP_SYS_ADMIN; the loopback: CAP_NET_ADMIN, the spawner's only), to empty the command's
// bounding set (CAP_SETPCAP), and to take a descriptor of a command's process that made itself not
// dumpable (CAP_SYS_PTRACE, for the seccomp supervisor's pidfd_getfd). The thread that starts the command
// drops them all before it does.
const (
	capSetpcap   = 8
	capNetAdmin  = 12
	capSysPtrace = 19
	capSysAdmin  = 21
)

// probeMachine finds what the machine supports. The namespaces are created as Start creates them: inside
// a new user namespace, or without one when that is missing and the host is root.
func probeMachine() Support {
	s := Support{}
	abi, err := confine.LandlockABI()
	ll := Status{Mechanism: Landlock, Available: err == nil && abi > 0}
	if ll.Available {
		s.LandlockABI = abi
		ll.Detail = "ABI " + strconv.Itoa(abi)
	} else {
		ll.Detail = confine.LandlockMissing(err)
	}
	userErr := probeStart(confine.Plan{User: true})
	user := Status{Mechanism: UserNS, Available: userErr == nil}
	if userErr != nil {
		user.Detail = userNSMissing(userErr)
	}
	root := os.Geteuid() == 0
	base := confine.Plan{User: user.Available}
	if !user.Available && !root {
		return fill(s, ll, user, "needs the user namespace")
	}
	// One probe with everything; each namespace on its own only if that one fails to start.
	all := base
	all.PID, all.Net, all.Mnt, all.ABI, all.Unix = true, true, true, abi, true
	results, err := probe(all)
	status := map[Mechanism]Status{}
	var rdonly error // making the root read-only in the mount namespace
	for _, m := range []Mechanism{PIDNS, NetNS, MountNS} {
		st := Status{Mechanism: m}
		var merr error
		if err != nil {
			one := base
			switch m {
			case PIDNS:
				one.PID = true
			case NetNS:
				one.Net = true
			case MountNS:
				one.Mnt = true
			}
			var rs map[string]error
			rs, merr = probe(one)
			if merr == nil {
				merr = rs[probeToken(m)]
				if m == MountNS && merr == nil {
					rdonly = rs["rdonly"]
				}
			}
		} else {
			merr = results[probeToken(m)]
			if m == MountNS && merr == nil {
				rdonly = results["rdonly"]
			}
		}
		st.Available = merr == nil && (m != MountNS || rdonly == nil)
		if merr != nil {
			st.Detail = nsMissing(m, merr)
		} else if m == MountNS && rdonly != nil {
			st.Detail = "cannot make the root read-only (mount_setattr, open_tree, move_mount: Linux 5.12): " + rdonly.Error()
		} else if m == MountNS && results != nil && results["proc"] != nil {
			st.Detail = "no /proc of the run's own (" + results["proc"].Error() + "): the run sees the host's processes"
		}
		status[m] = st
	}
	if err == nil && results["landlock"] != nil && ll.Available {
		ll = Status{Mechanism: Landlock, Detail: "landlock_restrict_self: " + results["landlock"].Error()}
		s.LandlockABI = 0
	}
	var sc Status
	if err == nil {
		sc = seccompStatus(results, nil)
	} else {
		sc = probeSeccomp()
	}
	s.Mechanisms = []Status{ll, user, status[PIDNS], status[NetNS], status[MountNS], sc}
	return s
}

// probeSeccomp probes the seccomp filter alone: it needs no namespace.
func probeSeccomp() Status {
	rs, err := probe(confine.Plan{Unix: true})
	return seccompStatus(rs, err)
}

// seccompStatus says whether the seccomp filter and its supervisor work, from a probe's results.
func seccompStatus(results map[string]error, err error) Status {
	st := Status{Mechanism: Seccomp}
	if err == nil {
		var ok bool
		if err, ok = results["seccomp"]; !ok {
			err = errors.New("not probed")
		}
	}
	switch {
	case err == nil:
		st.Available = true
		st.Detail = "user notification"
	case errors.Is(err, syscall.ENOSYS) && runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" && runtime.GOARCH != "riscv64" && runtime.GOARCH != "loong64":
		st.Detail = "not implemented on " + runtime.GOARCH + " (amd64, arm64, riscv64 and loong64 only)"
	case errors.Is(err, syscall.ENOSYS), errors.Is(err, syscall.EINVAL):
		st.Detail = "the kernel lacks seccomp user notification or pidfd_getfd (Linux 5.6): " + err.Error()
	default:
		st.Detail = "seccomp: " + err.Error()
	}
	return st
}

func fill(s Support, ll, user Status, detail string) Support {
	s.Mechanisms = []Status{ll, user}
	for _, m := range []Mechanism{PIDNS, NetNS, MountNS} {
		s.Mechanisms = append(s.Mechanisms, Status{Mechanism: m, Detail: detail})
	}
	s.Mechanisms = append(s.Mechanisms, probeSeccomp())
	return s
}

func probeToken(m Mechanism) string {
	switch m {
	case PIDNS:
		return "pid"
	case NetNS:
		return "net"
	case MountNS:
		return "mnt"
	}
	return "landlock"
}

// probeStart starts the probe helper with plan p and reports only whether it could be started.
func probeStart(p confine.Plan) error {
	_, err := probe(p)
	return err
}

// probe runs the probe helper with plan p: the error is its failure to start (the namespaces could not be
// created), the map each step's result.
func probe(p confine.Plan) (map[string]error, error) {
	r, w, err := statusPipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		w.Close()
		return nil, err
	}
	defer null.Close()
	proc, err := os.StartProcess("/proc/self/exe", confine.ProbeArgs(p), &os.ProcAttr{
		Dir:   "/",
		Env:   []string{confine.Env + "=" + confine.Probe},
		Files: []*os.File{null, null, null, w},
		Sys:   probeAttr(p),
	})
	w.Close()
	if err != nil {
		return nil, err
	}
	_ = r.SetReadDeadline(time.Now().Add(10 * time.Second))
	out, rerr := io.ReadAll(r)
	if rerr != nil {
		_ = proc.Kill()
	}
	st, werr := proc.Wait()
	if rerr != nil {
		return nil, rerr
	}
	if werr == nil && !st.Success() {
		werr = fmt.Errorf("probe helper: %s", st)
	}
	if werr != nil {
		return nil, werr
	}
	results := map[string]error{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "probe" {
			continue
		}
		n, _ := strconv.Atoi(f[2])
		if n != 0 {
			results[f[1]] = syscall.Errno(n)
		} else {
			results[f[1]] = nil
		}
	}
	return results, nil
}

// userNSMissing says why a user namespace could not be created.
func userNSMissing(err error) string {
	read := func(p string) string {
		b, _ := os.ReadFile(p)
		return string(bytes.TrimSpace(b))
	}
	switch {
	case read("/proc/sys/user/max_user_namespaces") == "0":
		return "user.max_user_namespaces is 0"
	case read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
		return "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)"
	case read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
		return "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)"
	case errors.Is(err, syscall.EINVAL):
		return "the kernel has no user namespaces (CONFIG_USER_NS)"
	case errors.Is(err, syscall.EPERM):
		return "clone(CLONE_NEWUSER): operation not permitted (a seccomp filter or an LSM forbids it)"
	}
	return "clone(CLONE_NEWUSER): " + err.Error()
}

// nsMissing says why a namespace could not be created or set up.
func nsMissing(m Mechanism, err error) string {
	name := map[Mechanism]string{PIDNS: "CLONE_NEWPID", NetNS: "CLONE_NEWNET", MountNS: "CLONE_NEWNS"}[m]
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, syscall.EINVAL) {
		return name + ": the kernel does not support it"
	}
	return name + ": " + err.Error()
}

// idMaps maps the host's own uid and gid to themselves, the one mapping an unprivileged process may write.
func idMaps() (uid, gid []syscall.SysProcIDMap) {
	u, g := os.Geteuid(), os.Getegid()
	return []syscall.SysProcIDMap{{ContainerID: u, HostID: u, Size: 1}}, []syscall.SysProcIDMap{{ContainerID: g, HostID: g, Size: 1}}
}

// probeAttr returns the clone flags, ID mappings and ambient capabilities of a probe helper with plan p:
// the namespaces made at once, as the spawner and the helpers make them one after the other.
func probeAttr(p confine.Plan) *syscall.SysProcAttr {
	sys := &syscall.SysProcAttr{}
	if p.User {
		sys.Cloneflags |= syscall.CLONE_NEWUSER
		sys.UidMappings, sys.GidMappings = idMaps()
		if p.Net || p.Mnt {
			sys.AmbientCaps = []uintptr{capSysAdmin, capNetAdmin, capSetpcap, capSysPtrace}
		}
	}
	if p.PID {
		sys.Cloneflags |= syscall.CLONE_NEWPID
	}
	if p.Net {
		sys.Cloneflags |= syscall.CLONE_NEWNET
	}
	if p.Mnt {
		sys.Cloneflags |= syscall.CLONE_NEWNS
	}
	return sys
}

// statusPipe returns the pipe of a helper's status: the read end ours, with deadlines; the write end the
// helper's, blocking.
func statusPipe() (r, w *os.File, err error) {
	return osx.ReadPipe("|sandbox-status", "|sandbox-status")
}

// Sandbox is a Config bound to the roots its commands may write: what runtime/proc starts a command
// through (proc.Spec.Sandbox). It is safe for concurrent use.
type Sandbox struct {
	cfg     Config
	roots   []string
	sockets []string // the unix sockets allowed outside the roots, cleaned
	key     string   // names the sandbox's network namespace in the spawner

	mu      sync.Mutex
	tmp     string        // the runs' TMPDIR (workspace-write), made by the first run, removed by Close
	ready   *warm         // a helper started ahead of the next run, if any
	filling chan struct{} // non-nil while a helper is being started ahead: closed when it is ready (or failed)
	closed  bool          // Close was called: no more helpers started ahead
	fills   sync.WaitGroup
}

// warm is a helper started ahead of a run (confine.Plan.Warm): a child of this process, in namespaces of
// its own, waiting on sock for its run's descriptors. Starting the helper (an exec of this binary and the
// Go runtime's start) is most of what the sandbox adds to a call; a run that finds a warm helper skips it,
// and the next one is started while the run goes on.
type warm struct {
	pid     int
	sock    *os.File
	plan    confine.Plan
	session bool
}

// take returns the warm helper for plan p and session, if there is one, waiting for the one being started
// (it is ready sooner than a helper started now); a helper for another plan is discarded.
func (s *Sandbox) take(p confine.Plan, session bool) *warm {
	s.mu.Lock()
	if ch := s.filling; ch != nil && s.ready == nil {
		s.mu.Unlock()
		<-ch
		s.mu.Lock()
	}
	w := s.ready
	s.ready = nil
	s.mu.Unlock()
	if w != nil && (w.plan != p || w.session != session) {
		w.discard()
		return nil
	}
	return w
}

// refill starts a helper for plan p ahead of the next run, in the background, unless one is ready or
// starting, or the sandbox is closed.
func (s *Sandbox) refill(p confine.Plan, session bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.filling != nil || s.ready != nil {
		return
	}
	ch := make(chan struct{})
	s.filling = ch
	s.fills.Add(1)
	go func() {
		defer s.fills.Done()
		w, err := startWarm(s.key, p, session)
		s.mu.Lock()
		s.filling = nil
		if err == nil && !s.closed {
			s.ready, w = w, nil
		}
		close(ch)
		s.mu.Unlock()
		if w != nil {
			w.discard()
		}
	}()
}

// startWarm starts a helper that waits for its run.
func startWarm(key string, p confine.Plan, session bool) (*warm, error) {
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	sock, child := os.NewFile(uintptr(pair[0]), "|sandbox-warm"), os.NewFile(uintptr(pair[1]), "|sandbox-warm")
	defer child.Close()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		sock.Close()
		return nil, err
	}
	defer null.Close()
	wp := p
	wp.Warm = true
	n, c := int(null.Fd()), int(child.Fd())
	pid, err := spawn(key, wp, session, []int{n, n, n, c, n})
	if err != nil {
		sock.Close()
		return nil, err
	}
	return &warm{pid: pid, sock: sock, plan: p, session: session}, nil
}

// hand gives the warm helper its run's descriptors (stdin, stdout, stderr, status, config).
func (w *warm) hand(fds []int) error {
	defer w.sock.Close()
	for {
		err := syscall.Sendmsg(int(w.sock.Fd()), []byte{1}, syscall.UnixRights(fds...), nil, syscall.MSG_NOSIGNAL)
		if err != syscall.EINTR {
			return err
		}
	}
}

// discard ends an unused warm helper and reaps it.
func (w *warm) discard() {
	w.sock.Close()
	_ = syscall.Kill(w.pid, syscall.SIGKILL) // our unreaped child: the pid is still its own
	reapChild(w.pid)
}

// reapChild waits for a child of this process.
func reapChild(pid int) {
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			return
		}
	}
}

var keys atomic.Uint64

// New returns the sandbox of c whose commands may write beneath roots (in workspace-write mode; read-only
// ignores them). Each root is resolved to its physical path. It fails for Mode Off, and for a unix socket
// that is not an absolute path.
func New(c Config, roots ...string) (*Sandbox, error) {
	if c.Mode != ReadOnly && c.Mode != WorkspaceWrite {
		return nil, fmt.Errorf("sandbox: mode %s confines nothing", c.Mode)
	}
	s := &Sandbox{cfg: c, key: strconv.FormatUint(keys.Add(1), 10)}
	s.cfg.UnixSockets = append([]string(nil), c.UnixSockets...)
	for _, p := range c.UnixSockets {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("sandbox: unix socket %q: not an absolute path", p)
		}
		s.sockets = append(s.sockets, filepath.Clean(p))
	}
	if c.Mode == WorkspaceWrite {
		for _, r := range roots {
			abs, err := filepath.Abs(r)
			if err != nil {
				return nil, err
			}
			if p, err := filepath.EvalSymlinks(abs); err == nil {
				abs = p
			}
			s.roots = append(s.roots, abs)
		}
	}
	return s, nil
}

// Config returns the sandbox's configuration.
func (s *Sandbox) Config() Config {
	c := s.cfg
	c.UnixSockets = append([]string(nil), c.UnixSockets...)
	return c
}

// Close releases what the sandbox holds beyond its runs: its network namespace, shared by its runs
// (processes still in it keep it alive), and its runs' temporary directory with what they left in it.
// Call it once its runs have ended; runs started after Close get a new namespace and directory.
func (s *Sandbox) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.fills.Wait()
	if w := s.take(confine.Plan{}, false); w != nil {
		w.discard()
	}
	dropKey(s.key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tmp != "" {
		_ = os.RemoveAll(s.tmp)
		s.tmp = ""
	}
}

// tmpDir returns the runs' private temporary directory, made on first use. It is one per sandbox (an
// engine), not one per run: making and removing a directory costs a call most of a millisecond on some
// filesystems.
func (s *Sandbox) tmpDir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tmp == "" {
		staleOnce.Do(func() { removeStale(os.TempDir()) })
		dir, err := os.MkdirTemp("", tmpPrefix+strconv.Itoa(os.Getpid())+"-")
		if err != nil {
			return "", err
		}
		s.tmp = dir
	}
	return s.tmp, nil
}

// tmpPrefix starts the name of every sandbox's temporary directory, followed by the pid of the host that
// made it: agentbash-sandbox-PID-RANDOM.
const tmpPrefix = "agentbash-sandbox-"

var staleOnce sync.Once

// removeStale removes the temporary directories in dir that hosts left behind when they were killed before
// Close (a SIGKILL), with what their runs wrote in them: those whose host pid is no longer alive. A
// directory of a live process is never touched, even if that pid was reused by another program (it is
// then removed once that one ends); one of another user stays where the system does not let us remove it.
func removeStale(dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), tmpPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
			continue // alive (or not ours to signal): not stale
		}
		if os.RemoveAll(filepath.Join(dir, e.Name())) == nil {
			removed++
		}
	}
	return removed
}

// Roots returns the roots its commands may write (none in read-only mode), besides each run's TMPDIR.
func (s *Sandbox) Roots() []string { return append([]string(nil), s.roots...) }

// plan decides what a run does with what the machine supports: the namespaces and Landlock, or the
// *Error naming what is missing (unless best effort).
func (s *Sandbox) plan() (confine.Plan, error) {
	sup := Check()
	root := os.Geteuid() == 0
	if missing := sup.Missing(s.cfg, root); len(missing) > 0 && !s.cfg.BestEffort {
		return confine.Plan{}, &Error{Missing: missing}
	}
	u := sup.usable(root)
	p := confine.Plan{User: u.Has(UserNS), PID: u.Has(PIDNS), Mnt: u.Has(MountNS)}
	if u.Has(Landlock) {
		p.ABI = u.LandlockABI
	}
	if !s.cfg.Network {
		p.Net = u.Has(NetNS)
		p.TCP = !p.Net // best effort without a network namespace: Landlock denies TCP (ABI 4)
		p.Unix = u.Has(Seccomp)
	}
	return p, nil
}

// Launch is a command started through the helper: Pid is the helper's, a child of this process and the
// leader of its own process group (or session); killing the group kills the helper, and with it, through
// its PID namespace, everything the command started. When the helper has exited, Exit gives the
// command's own wait status; then Close releases the run.
type Launch struct {
	Pid int

	contained bool     // the run has a PID namespace of its own
	r         *os.File // our end of the status pipe
	buf       []byte
	once      sync.Once
}

// Start starts c through the helper and returns once the command runs, or fails: with an *Error when the
// machine lacks what the configuration needs (unless best effort) or a step of the confinement failed,
// else with the command's own spawn error, as os.StartProcess reports it (*fs.PathError, "chdir" or
// "fork/exec"). In workspace-write mode the run gets the sandbox's private temporary directory as its TMPDIR.
func (s *Sandbox) Start(c Command) (*Launch, error) {
	p, err := s.plan()
	if err != nil {
		return nil, err
	}
	l := &Launch{}
	roots := s.roots
	env := withoutVar(c.Env, confine.Env)
	if s.cfg.Mode == WorkspaceWrite {
		tmp, err := s.tmpDir()
		if err != nil {
			return nil, &Error{Step: "temporary directory", Err: err}
		}
		roots = append(append([]string(nil), roots...), tmp)
		env = append(withoutVar(env, "TMPDIR"), "TMPDIR="+tmp)
	}
	config, err := memfd(confine.EncodeConfig(confine.Config{Dir: c.Dir, Path: c.Path, Roots: roots, Argv: c.Argv, Env: env,
		Files: c.Writable, Sockets: s.sockets, Ctty: c.Ctty}))
	if err != nil {
		return nil, &Error{Step: "config", Err: err}
	}
	defer config.Close()
	r, w, err := statusPipe()
	if err != nil {
		return nil, err
	}
	l.r = r
	files := []*os.File{c.Stdin, c.Stdout, c.Stderr, w, config}
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	l.contained = p.PID
	session := c.Session || c.Ctty
	if wh := s.take(p, session); wh != nil {
		if err = wh.hand(fds); err == nil {
			l.Pid = wh.pid
		} else {
			wh.discard()
		}
	}
	if l.Pid == 0 {
		l.Pid, err = spawn(s.key, p, session, fds)
	}
	runtime.KeepAlive(files)
	w.Close()
	if err == nil {
		s.refill(p, session)
	}
	if err != nil {
		l.Close()
		var errno syscall.Errno
		if errors.As(err, &errno) {
			// The spawner could not fork (a process limit): the command's own spawn error.
			return nil, &fs.PathError{Op: "fork/exec", Path: c.Path, Err: errno}
		}
		return nil, &Error{Step: "spawner", Err: err}
	}
	if err := l.started(c); err != nil {
		// The helper exits by itself (or hangs: kill it); it is our child, reap it.
		_ = syscall.Kill(l.Pid, syscall.SIGKILL)
		reapChild(l.Pid)
		l.Close()
		return nil, err
	}
	return l, nil
}

// memfd returns a sealed-size memory file holding b, to hand a helper.
func memfd(b []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("agentbash-sandbox-config", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("memfd_create", err)
	}
	f := os.NewFile(uintptr(fd), "agentbash-sandbox-config")
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// withoutVar returns env without the entries of key (a new slice).
func withoutVar(env []string, key string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// startTimeout bounds how long Start waits for the helper: it takes milliseconds.
const startTimeout = 30 * time.Second

// The status pipe carries exactly what the helper writes (confine.StatusFD): one line when the command
// has started ("ok") or could not be ("err ..."), then, once it has ended, "exit WAITSTATUS" and the end
// of the pipe. Only the helper holds its end, which the command cannot reach (the helper is not
// dumpable): the reader still takes nothing else, and waits for nothing longer than its deadlines, so
// that no line could change a result, or make a run hang or look as if it did not run.
const maxStatusLine = 16 << 10 // an err line holds a path (PATH_MAX, 4096 bytes)

// started waits until the helper has started the command (nil) or failed to (its error).
func (l *Launch) started(c Command) error {
	_ = l.r.SetReadDeadline(time.Now().Add(startTimeout))
	line, err := l.line()
	_ = l.r.SetReadDeadline(time.Time{})
	if err != nil {
		return &Error{Step: "start", Err: fmt.Errorf("the sandbox helper did not start the command: %w", err)}
	}
	if line == "ok" {
		return nil
	}
	f := strings.SplitN(line, " ", 4)
	if len(f) == 4 && f[0] == "err" {
		n, err := strconv.Atoi(f[1])
		if err == nil && n > 0 && n < 4096 {
			errno := syscall.Errno(n)
			switch f[2] {
			case "exec":
				return &fs.PathError{Op: "fork/exec", Path: c.Path, Err: errno}
			case "chdir":
				return &fs.PathError{Op: "chdir", Path: c.Dir, Err: errno}
			}
			return &Error{Step: stepName(f[2]), Path: f[3], Err: errno}
		}
	}
	return &Error{Step: "start", Err: fmt.Errorf("unexpected helper status %q", line)}
}

func stepName(tok string) string {
	switch tok {
	case "git":
		return "binding .git read-only"
	case "rdonly":
		return "making the filesystem read-only, at"
	case "landlock":
		return "Landlock"
	case "seccomp":
		return "the seccomp filter"
	case "terminal":
		return "making the terminal the controlling one"
	}
	return tok
}

// Contained reports that the run has a PID namespace of its own: once the helper has exited, no process
// of the run is left (the kernel kills them when the namespace's init ends).
func (l *Launch) Contained() bool { return l.contained }

// Exit returns the command's wait status once the helper has exited, if the helper reported it: the rest
// of the status pipe is exactly "exit WAITSTATUS\n", then its end. Anything else (a helper that was
// killed before it wrote it, or a pipe that holds something the helper did not write) is no status: the
// helper's own is the run's.
func (l *Launch) Exit() (syscall.WaitStatus, bool) {
	_ = l.r.SetReadDeadline(time.Now().Add(time.Second)) // the helper has exited: what it wrote is there
	line, err := l.line()
	if err != nil || !strings.HasPrefix(line, "exit ") {
		return 0, false
	}
	n, err := strconv.ParseUint(line[len("exit "):], 10, 32)
	if err != nil || strconv.FormatUint(n, 10) != line[len("exit "):] {
		return 0, false
	}
	// Nothing may follow: the end of the pipe (the helper has exited, and nothing else holds its end).
	var b [1]byte
	if k, err := l.r.Read(b[:]); k != 0 || len(l.buf) != 0 || err != io.EOF {
		return 0, false
	}
	return syscall.WaitStatus(n), true
}

// line reads one line from the status pipe: an error for a line longer than maxStatusLine, or a pipe
// that ends (or passes its deadline) before its newline.
func (l *Launch) line() (string, error) {
	for {
		if i := bytes.IndexByte(l.buf, '\n'); i >= 0 {
			line := string(l.buf[:i])
			l.buf = l.buf[i+1:]
			return line, nil
		}
		if len(l.buf) > maxStatusLine {
			return "", errors.New("a status line too long")
		}
		var b [128]byte
		n, err := l.r.Read(b[:])
		l.buf = append(l.buf, b[:n]...)
		if err != nil {
			return "", err
		}
	}
}

// Close releases the run: its status pipe. Call it once the helper has exited.
func (l *Launch) Close() {
	l.once.Do(func() {
		if l.r != nil {
			l.r.Close()
		}
	})
}
