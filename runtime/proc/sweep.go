//go:build linux

package proc

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The survivor sweep, where a run has no cgroup: every process a run starts carries a marker in its
// environment, an entry AGENTBASH_RUN_<host key>=<run number>, inherited by everything it forks or executes.
// When the run ends (the shell exited or was killed, its process group was killed), this process's
// descendants are looked up in /proc and those whose environment holds the marker are SIGKILLed, in rounds,
// until a round finds nothing and reads the same tree as the round before. The watchdog, once its host is
// gone, sweeps every process of the machine for the host's key instead (once), by pid: the whole of /proc,
// then the pids allocated since. See the package documentation for what this catches and what it cannot.

// markerPrefix starts the name of every marker variable.
const markerPrefix = "AGENTBASH_RUN_"

// hostKey is markerPrefix and a random key of this host process: the name of the marker variable of every
// run it starts (the watchdog looks for it), so that a run started by a nested agentbash keeps both markers.
var hostKey = sync.OnceValue(func() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		// Not reached on Linux (getrandom); still unique enough per host process.
		binaryPut(b[:], uint64(os.Getpid())<<32^uint64(time.Now().UnixNano()))
	}
	return markerPrefix + hex.EncodeToString(b[:])
})

func binaryPut(b []byte, v uint64) {
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
}

var runSeq atomic.Uint64

// newMarker returns the environment entry that marks the processes of one run.
func newMarker() string {
	return hostKey() + "=" + strconv.FormatUint(runSeq.Add(1), 10)
}

// IsMarker reports whether the environment entry kv is the marker of a run this host process started
// (an environment read back from a run, to start another with, must not carry that run's marker; the
// markers of the hosts above this one stay).
func IsMarker(kv string) bool { return strings.HasPrefix(kv, hostKey()+"=") }

// withMarker returns env with the marker entry appended (a new slice: env may be the caller's).
func withMarker(env []string, marker string) []string {
	out := make([]string, 0, len(env)+1)
	return append(append(out, env...), marker)
}

// The pid cursor (the watchdog's sweep). Pids are allocated cyclically in a pid namespace: every process
// created after a round started has a pid in the cyclic interval (the cursor then, the last pid allocated
// now], unless the cursor went all the way round in between, which takes pidMax allocations.

// pidCursor is an open file that holds the last pid allocated in our pid namespace: ns_last_pid
// (CONFIG_CHECKPOINT_RESTORE), else /proc/loadavg (its last field); nil if neither can be read. It is
// opened once, at init (so that it is there before any descriptor count a host or a test makes), and read
// with pread.
var pidCursor = func() *os.File {
	for _, name := range []string{"/proc/sys/kernel/ns_last_pid", "/proc/loadavg"} {
		f, err := openFile(name, syscall.O_RDONLY)
		if err != nil {
			continue
		}
		if readLastPid(f) > 0 {
			return f
		}
		f.Close()
	}
	return nil
}()

// lastPid returns the pid most recently allocated in this pid namespace, or -1 if /proc cannot tell.
func lastPid() int {
	if pidCursor == nil {
		return -1
	}
	return readLastPid(pidCursor)
}

func readLastPid(f *os.File) int {
	var buf [128]byte
	n, err := f.ReadAt(buf[:], 0)
	if n <= 0 || (err != nil && err != io.EOF) {
		return -1
	}
	b := bytes.TrimSpace(buf[:n])
	if i := bytes.LastIndexByte(b, ' '); i >= 0 { // loadavg: "0.00 0.01 0.05 1/80 12345"
		b = b[i+1:]
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		return -1
	}
	return pid
}

// pidMax is the pid limit of our namespace (pids are below it).
var pidMax = sync.OnceValue(func() int {
	if b, err := os.ReadFile("/proc/sys/kernel/pid_max"); err == nil {
		if n, err := strconv.Atoi(string(bytes.TrimSpace(b))); err == nil && n > 0 {
			return n
		}
	}
	return 1 << 22 // PID_MAX_LIMIT on 64-bit
})

// inRange reports whether pid is in the cyclic range (lo, hi].
func inRange(pid, lo, hi int) bool {
	if lo <= hi {
		return pid > lo && pid <= hi
	}
	return pid > lo || pid <= hi
}

// rangeLen is the number of pids in the cyclic range (lo, hi].
func rangeLen(lo, hi int) int {
	if lo <= hi {
		return hi - lo
	}
	return pidMax() - lo - 1 + hi
}

const (
	// sweepLimit bounds one sweep: a process that does not die of SIGKILL (uninterruptible sleep) or a
	// machine that never stops creating processes ends it there.
	sweepLimit = 2 * time.Second
	// probeMax: up to this many pids in a range are probed one by one; more and /proc is listed.
	probeMax = 64
)

// sweep SIGKILLs every descendant of this process holding marker in its environment, in rounds until a
// round finds none, and reaps those this process adopted (see becomeSubreaper). It returns how many it
// killed.
func sweep(marker string) int {
	s := newSweeper("\x00" + marker + "\x00")
	defer s.release()
	s.descendantRounds(os.Getpid())
	return s.killed
}

// sweepKey SIGKILLs every process holding a marker of the host key in its environment (every run of
// that host), wherever its pid is: the watchdog's sweep once its host is gone.
func sweepKey(key string) int {
	s := newSweeper("\x00" + key + "=")
	defer s.release()
	s.rounds(-1, lastPid(), true)
	return s.killed
}

// rounds sweeps the pids in (lo, hi], or every pid first if full, then, round after round, the pids
// allocated during the previous round, until a round finds nothing and no pid was allocated during it.
// After a round that killed a process, the next one looks at the whole range again (listing /proc again if
// full): a child the victim forked before it died may have a pid that the round had passed before the child
// was visible, the scan order not being the order of allocation (a /proc listing, once the pids wrapped).
// Without a pid cursor every round lists all of /proc, until one finds nothing.
func (s *sweeper) rounds(lo, hi int, full bool) {
	deadline := time.Now().Add(sweepLimit)
	first, firstFull := lo, full
	for delay := 20 * time.Microsecond; ; {
		found := s.recheck()
		if full || hi < 0 {
			found += s.scan(func(int) bool { return true })
			full = false
		} else {
			found += s.scanRange(lo, hi)
		}
		if found > 0 {
			s.waitVictims(deadline)
		}
		next := lastPid()
		quiet := found == 0 && next == hi && len(s.unsure) == 0
		if quiet || time.Now().After(deadline) {
			return
		}
		if found > 0 {
			lo, hi, full = first, next, firstFull
			continue
		}
		if next == hi {
			// Only processes in execve are left to look at: give them a moment.
			time.Sleep(delay)
			delay = min(2*delay, time.Millisecond)
		}
		lo, hi = hi, next
	}
}

// descendantRounds kills the marked descendants of root, round after round: after a round that killed a
// process, the next looks again (what the victims forked before they died is root's now: see
// becomeSubreaper), until a round finds none, no process in execve is left to look at again, and the
// round saw the same descendants as the one before: a process that exits while a round reads the tree
// hands its children up to root, which the round may have read already.
func (s *sweeper) descendantRounds(root int) {
	deadline := time.Now().Add(sweepLimit)
	var prev, seen []int
	for delay := 20 * time.Microsecond; ; {
		found := s.recheck()
		seen = seen[:0]
		walkDescendants(root, func(pid int) {
			seen = append(seen, pid)
			found += s.check(pid)
		})
		if found > 0 {
			s.waitVictims(deadline)
		}
		slices.Sort(seen)
		stable := slices.Equal(seen, prev)
		prev, seen = seen, prev
		if (found == 0 && len(s.unsure) == 0 && stable) || time.Now().After(deadline) {
			return
		}
		if found == 0 && stable {
			// Only processes in execve are left to look at: give them a moment.
			time.Sleep(delay)
			delay = min(2*delay, time.Millisecond)
		}
	}
}

// walkDescendants calls fn for every descendant of root (not root itself), from the children lists of
// every thread (/proc/PID/task/TID/children): it reads the processes below root, never the machine's.
// Without those lists (a kernel without CONFIG_PROC_CHILDREN) it builds the tree from every process's
// parent in /proc.
func walkDescendants(root int, fn func(pid int)) {
	queue, ok := childrenOf(root, nil)
	if !ok {
		for _, pid := range descendantsByParent(root) {
			fn(pid)
		}
		return
	}
	seen := map[int]bool{}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] || pid == root {
			continue
		}
		seen[pid] = true
		fn(pid)
		queue, _ = childrenOf(pid, queue)
	}
}

// childrenOf appends the children of pid (those of each of its threads) to out; false when the kernel has
// no children lists.
func childrenOf(pid int, out []int) ([]int, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	d, err := os.Open(dir)
	if err != nil {
		return out, !errors.Is(err, os.ErrNotExist) || pid != os.Getpid()
	}
	tids, _ := d.Readdirnames(-1)
	d.Close()
	for _, tid := range tids {
		b, err := os.ReadFile(dir + "/" + tid + "/children")
		if errors.Is(err, os.ErrNotExist) && pid == os.Getpid() {
			if _, serr := os.Stat(dir + "/" + tid); serr == nil {
				return out, false // the thread is there, its list is not: no CONFIG_PROC_CHILDREN
			}
		}
		for _, f := range bytes.Fields(b) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, c)
			}
		}
	}
	return out, true
}

// descendantsByParent lists the descendants of root from the parent of every process in /proc.
func descendantsByParent(root int) []int {
	kids := map[int][]int{}
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if f := statFieldsOf(pid); len(f) > 1 {
			if ppid, err := strconv.Atoi(f[1]); err == nil {
				kids[ppid] = append(kids[ppid], pid)
			}
		}
	}
	var out []int
	queue := kids[root]
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		out = append(out, pid)
		queue = append(queue, kids[pid]...)
	}
	return out
}

// becomeSubreaper makes this process a child subreaper (PR_SET_CHILD_SUBREAPER), once, the first time a
// run is started without a cgroup: a run's process whose parent dies (a daemon's double fork, `setsid
// cmd &` once the shell has exited) is re-parented to this process rather than to init, so that the
// sweep finds it among this process's descendants. The sweep reaps those it kills.
var becomeSubreaper = sync.OnceFunc(func() {
	if unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil {
		subreaper.Store(true)
	}
})

// subreaper says that this process is a child subreaper (becomeSubreaper).
var subreaper atomic.Bool

// sweeper finds and kills the processes whose environment contains needle.
type sweeper struct {
	needle  []byte
	buf     []byte
	victims []int // pidfds of killed processes, to wait for
	unsure  []int // pids whose environment was not set up yet (in execve), to probe again
	killed  int
}

var sweepBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// newSweeper returns a sweeper for needle: "\x00NAME=VALUE\x00" for one entry, "\x00PREFIX" for any entry
// starting with PREFIX. An environment is read as if it started with a NUL.
func newSweeper(needle string) *sweeper {
	return &sweeper{needle: []byte(needle), buf: *sweepBufs.Get().(*[]byte)}
}

func (s *sweeper) release() {
	for _, fd := range s.victims {
		_ = syscall.Close(fd)
	}
	s.victims = nil
	b := s.buf
	s.buf = nil
	sweepBufs.Put(&b)
}

// scanRange kills the marked processes with a pid in (lo, hi]: each pid is probed when there are few,
// otherwise /proc is listed.
func (s *sweeper) scanRange(lo, hi int) int {
	n := rangeLen(lo, hi)
	if n <= 0 {
		return 0
	}
	if n > probeMax {
		return s.scan(func(pid int) bool { return inRange(pid, lo, hi) })
	}
	found := 0
	max := pidMax()
	for i, pid := 0, lo; i < n; i++ {
		if pid++; pid >= max {
			pid = 1
		}
		found += s.check(pid)
	}
	return found
}

// check probes pid, kills it if it is marked (1 if it did), and remembers it if unsure.
func (s *sweeper) check(pid int) int {
	marked, unsure := s.probe(pid)
	switch {
	case marked:
		if s.kill(pid) {
			return 1
		}
	case unsure:
		s.unsure = append(s.unsure, pid)
	}
	return 0
}

// recheck probes again the pids found unsure; those still unsure stay.
func (s *sweeper) recheck() int {
	pids := s.unsure
	s.unsure = nil
	found := 0
	for _, pid := range pids {
		found += s.check(pid)
	}
	return found
}

// scan lists /proc and kills the marked processes whose pid want accepts.
func (s *sweeper) scan(want func(int) bool) int {
	d, err := os.Open("/proc")
	if err != nil {
		return 0
	}
	defer d.Close()
	found := 0
	for {
		names, err := d.Readdirnames(256)
		for _, name := range names {
			pid, perr := strconv.Atoi(name)
			if perr != nil || !want(pid) {
				continue
			}
			found += s.check(pid)
		}
		if err != nil || len(names) == 0 {
			return found
		}
	}
}

// probe reads the environment of pid: marked if it holds the needle. An empty read is looked at in stat
// (statEnv): unsure if the process is in the middle of execve (its new environment is not laid out yet) or
// exiting, or read again if it has an environment (the read caught the memory execve was replacing). A
// process that is gone, a zombie (its memory is gone), a kernel thread, one whose environment is empty, one
// of another user or one that is not dumpable reads as unmarked.
func (s *sweeper) probe(pid int) (marked, unsure bool) {
	for range 3 {
		marked, empty := s.readEnv(pid)
		if !empty {
			return marked, false
		}
		switch s.envState(pid) {
		case envNone:
			return false, false
		case envPending:
			return false, true
		}
	}
	return false, true
}

// readEnv reports whether the environment of pid holds the needle, or that it read nothing.
func (s *sweeper) readEnv(pid int) (marked, empty bool) {
	fd, err := openProc(pid, "/environ")
	if err != nil {
		return false, false
	}
	defer syscall.Close(fd)
	buf := s.buf
	buf[0] = 0 // the environment is read as if it started with a NUL
	carry := 1
	for total := 0; ; {
		n, err := syscall.Read(fd, buf[carry:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return false, false
		}
		if n <= 0 {
			return false, total == 0
		}
		total += n
		data := buf[:carry+n]
		if bytes.Contains(data, s.needle) {
			return true, false
		}
		if n < len(buf)-carry {
			return false, false // a short read of environ is its end
		}
		keep := min(len(s.needle)-1, len(data))
		copy(buf, data[len(data)-keep:])
		carry = keep
	}
}

// marked is probe without the doubt.
func (s *sweeper) marked(pid int) bool {
	m, _ := s.probe(pid)
	return m
}

type envKind int

const (
	envNone    envKind = iota // gone, a zombie, a kernel thread, unreadable, or an empty environment
	envPending                // in execve: the new memory's environment is not set up yet
	envSet                    // has a non-empty environment
)

// envState tells, from /proc/PID/stat, what an empty read of the environment of pid means.
func (s *sweeper) envState(pid int) envKind {
	fd, err := openProc(pid, "/stat")
	if err != nil {
		return envNone
	}
	n, err := syscall.Read(fd, s.buf)
	_ = syscall.Close(fd)
	if err != nil || n <= 0 {
		return envNone
	}
	return statEnv(s.buf[:n])
}

// statEnv classifies a /proc/PID/stat line for envState.
//
// execve gives the process a new memory whose environment bounds (env_start, env_end) are 0 until the
// binary loader lays out the new stack; there (create_elf_tables) it sets both to the same address, copies
// the pointers, and only then sets env_end. The loader then sets the code bounds (start_code, end_code),
// which are 0 in a new memory until that point. So equal bounds are an empty environment only once
// end_code is set; before, the process is still in execve and its environment is still to come.
func statEnv(st []byte) envKind {
	i := bytes.LastIndexByte(st, ')')
	if i < 0 {
		return envNone
	}
	// From field 3, state: flags is field 9, end_code 27, env_start and env_end 50 and 51.
	const fState, fFlags, fEndCode, fEnvStart, fEnvEnd = 3, 9, 27, 50, 51
	f := bytes.Fields(st[i+1:])
	if len(f) <= fEnvEnd-fState || f[0][0] == 'Z' || f[0][0] == 'X' {
		return envNone
	}
	field := func(n int) []byte { return f[n-fState] }
	const pfKthread = 0x00200000
	if flags, err := strconv.ParseUint(string(field(fFlags)), 10, 64); err != nil || flags&pfKthread != 0 {
		return envNone
	}
	start, end := field(fEnvStart), field(fEnvEnd)
	switch {
	case string(start) == "0" && string(end) == "0":
		return envPending // in execve before the stack is laid out, or exiting (its memory is gone)
	case bytes.Equal(start, end) && string(field(fEndCode)) == "0":
		return envPending // in execve, laying out the environment
	case bytes.Equal(start, end):
		return envNone
	}
	return envSet
}

// openProc opens /proc/PID/<file> read-only without allocating.
func openProc(pid int, file string) (int, error) {
	var pathBuf [48]byte
	path := append(append(append(append(pathBuf[:0], "/proc/"...), strconv.Itoa(pid)...), file...), 0)
	return openBytes(path)
}

// openBytes opens a NUL-terminated path read-only without allocating.
func openBytes(path []byte) (int, error) {
	dirfd := unix.AT_FDCWD
	for {
		fd, _, e := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(&path[0])),
			uintptr(syscall.O_RDONLY|syscall.O_CLOEXEC), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return -1, e
		}
		return int(fd), nil
	}
}

// kill SIGKILLs pid if it is still the marked process: the pid is pinned with a pidfd first and the
// environment checked again through it, so a pid recycled since the probe is never hit. A thread id (probed
// through its hidden /proc entry) is skipped: its process is found by its own pid.
func (s *sweeper) kill(pid int) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, syscall.ENOSYS) {
		// Before Linux 5.3: no way to pin the pid; the window is the few microseconds since the check.
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			s.killed++
			return true
		}
		return false
	}
	if err != nil {
		return false
	}
	if marked, unsure := s.probe(pid); !marked {
		// Recycled since the probe, or in execve again (then probed again with the next round).
		if unsure {
			s.unsure = append(s.unsure, pid)
		}
		_ = syscall.Close(fd)
		return false
	}
	if unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) != nil {
		_ = syscall.Close(fd)
		return false
	}
	s.victims = append(s.victims, fd)
	s.killed++
	return true
}

// waitVictims waits (at most until deadline) for the killed processes to exit, so that whatever they
// forked before dying exists by the next round.
func (s *sweeper) waitVictims(deadline time.Time) {
	fds := make([]unix.PollFd, 0, len(s.victims))
	for _, fd := range s.victims {
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	for len(fds) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		n, err := unix.Poll(fds, int(min(left, time.Second)/time.Millisecond)+1)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break
		}
		if n == 0 {
			continue
		}
		out := fds[:0]
		for _, p := range fds {
			if p.Revents == 0 {
				out = append(out, p)
			}
		}
		fds = out
	}
	for _, fd := range s.victims {
		_ = syscall.Close(fd)
	}
	s.victims = s.victims[:0]
}
