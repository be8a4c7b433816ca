//go:build linux

package proc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Containment by the kernel: where this process may write a cgroup v2 hierarchy, each run gets a cgroup of
// its own, entered at fork (clone3 CLONE_INTO_CGROUP), beneath a parent cgroup of this host:
//
//	<the host's own cgroup>/agentbash/<host>/<run>
//
// A process cannot leave its cgroup (only a process that may write another cgroup's cgroup.procs can move
// it), so when the run ends, cgroup.kill ends everything it started, however it left the process group or
// hid from the marker; the cgroup is empty when cgroup.events says "populated 0" (an inotify event, not a
// poll), then it is removed or kept for the next run. See the package documentation.

// Containment says how this process contains the processes of its runs.
type Containment struct {
	// Cgroup is the cgroup beneath which each run gets a cgroup of its own (the parent of the hosts'
	// cgroups: <the host's cgroup>/agentbash), or "" when runs are not put in cgroups.
	Cgroup string
	// Reason says why not, when Cgroup is "": the runs are then contained by their process group and the
	// marker sweep.
	Reason string
}

// String is one line for a person: which containment is in use, and why.
func (c Containment) String() string {
	if c.Cgroup != "" {
		return "cgroup v2: each run in a cgroup of its own beneath " + c.Cgroup + ", ended with cgroup.kill"
	}
	return "process group and run-marker sweep (no cgroup: " + c.Reason + ")"
}

// ContainmentInUse says how the runs this process starts are contained: a cgroup per run where this
// process may write a cgroup v2 hierarchy, else the process group and the marker sweep (see the package
// documentation). Sandboxed runs are contained by their PID namespace either way.
func ContainmentInUse() Containment {
	h := cgroupHost()
	if h.base == "" {
		return Containment{Reason: h.why}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.off != "" {
		return Containment{Reason: h.off}
	}
	return Containment{Cgroup: h.base}
}

// disableCgroups stops giving runs cgroups: the kernel refused a fork into one with err, and the program
// started without it.
func disableCgroups(err error) {
	h := cgroupHost()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.off == "" {
		h.off = "the kernel refused to fork into a cgroup: " + err.Error()
	}
}

// cgroupsOff, set by tests, makes the runs started meanwhile use the marker sweep.
var cgroupsOff atomic.Bool

// maxFreeCgroups bounds the empty run cgroups a host keeps for reuse.
const maxFreeCgroups = 64

// cgHost is this process's side of the cgroups: where they go, and the empty ones kept for reuse.
type cgHost struct {
	base string // <the host's own cgroup>/agentbash; "" when cgroups are not used
	why  string // why not, when base is ""
	name string // this host's directory in base: <pid>-<start time>-<pid namespace>

	mu      sync.Mutex
	dir     string       // base/name, while it exists
	live    int          // run cgroups handed out and not released
	free    []*runCgroup // empty run cgroups, to reuse
	seq     uint64       // names the run cgroups
	keepDir bool         // keep dir and the free cgroups while no run is live (a watchdog removes them)
	idle    *time.Timer  // the removal of dir scheduled once no run was live
	off     string       // non-empty: the kernel refused a fork into a cgroup; runs get none, for this reason
}

// cgroupHostIfUsed returns the host's cgroups if a run has asked for them, else nil.
func cgroupHostIfUsed() *cgHost {
	if !cgroupsAsked.Load() {
		return nil
	}
	return cgroupHost()
}

// cgroupsAsked says that cgroupHost was called.
var cgroupsAsked atomic.Bool

var cgroupHost = sync.OnceValue(func() *cgHost {
	cgroupsAsked.Store(true)
	h := &cgHost{}
	h.base, h.why = findCgroupBase()
	if h.base != "" {
		h.name = hostName(os.Getpid())
		removeStaleHosts(h.base, h.name)
	}
	return h
})

// findCgroupBase finds the cgroup v2 directory of this process and makes (or finds) its agentbash
// directory; it says why not when it cannot.
func findCgroupBase() (base, why string) {
	own, err := ownCgroupDir()
	if err != nil {
		return "", err.Error()
	}
	if unix.Access(filepath.Join(own, "cgroup.procs"), unix.W_OK) != nil || unix.Access(own, unix.W_OK) != nil {
		return "", "this process's cgroup " + own + " is not writable (not root, and not a delegated subtree)"
	}
	base = filepath.Join(own, "agentbash")
	if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Sprintf("cannot make %s: %v", base, errors.Unwrap(err))
	}
	if _, err := os.Stat(filepath.Join(base, "cgroup.kill")); err != nil {
		return "", "the kernel has no cgroup.kill (Linux 5.14)"
	}
	return base, ""
}

// ownCgroupDir returns the directory of this process's cgroup v2, from /proc/self/cgroup and the cgroup2
// mount in /proc/self/mountinfo.
func ownCgroupDir() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", errors.New("no /proc/self/cgroup")
	}
	path := ""
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path = p
		}
	}
	if path == "" || !strings.HasPrefix(path, "/") || strings.Contains(path, "/..") {
		return "", errors.New("this process is in no cgroup v2 hierarchy it can see")
	}
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", errors.New("no /proc/self/mountinfo")
	}
	defer mi.Close()
	sc := bufio.NewScanner(mi)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 1 || g[0] != "cgroup2" {
			continue
		}
		root, mnt := unescapeMount(f[3]), unescapeMount(f[4])
		rel, ok := strings.CutPrefix(path, strings.TrimSuffix(root, "/"))
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
			continue
		}
		return filepath.Join(mnt, rel), nil
	}
	return "", errors.New("no cgroup2 file system is mounted where this process's cgroup shows")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// hostName names the directory of host pid: its pid, start time and pid namespace, so that a later host
// can tell whether that process is gone (a pid reused by another process has another start time; a host
// of another pid namespace is never judged).
func hostName(pid int) string {
	return fmt.Sprintf("%d-%d-%d", pid, startTime(pid), pidNS())
}

// startTime returns the start time of pid (field 22 of /proc/PID/stat), or 0.
func startTime(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(string(f[19]), 10, 64)
	return n
}

// pidNS returns the inode of this process's pid namespace, or 0.
func pidNS() uint64 {
	var st syscall.Stat_t
	if syscall.Stat("/proc/self/ns/pid", &st) != nil {
		return 0
	}
	return st.Ino
}

// removeStaleHosts ends and removes the directories in base of hosts that are gone (SIGKILLed with
// neither their own cleanup nor a watchdog's): what is left in them is killed first.
func removeStaleHosts(base, self string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	ns := strconv.FormatUint(pidNS(), 10)
	for _, e := range ents {
		f := strings.Split(e.Name(), "-")
		if !e.IsDir() || e.Name() == self || len(f) != 3 || f[2] != ns {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		start, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil || pid <= 0 || startTime(pid) == start {
			continue // alive (or not ours to judge)
		}
		killTree(filepath.Join(base, e.Name()), time.Now().Add(sweepLimit))
	}
}

// killTree kills every process in cgroup dir and its descendants (cgroup.kill), waits until it is empty
// (at most until deadline) and removes it, descendants first. It reports whether dir is gone.
func killTree(dir string, deadline time.Time) bool {
	if err := writeFile(filepath.Join(dir, "cgroup.kill"), "1"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false
	}
	if !waitEmpty(dir, deadline) {
		return false
	}
	return removeTree(dir)
}

// removeTree removes the empty cgroup dir, its descendants first.
func removeTree(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() {
			removeTree(filepath.Join(dir, e.Name()))
		}
	}
	err := syscall.Rmdir(dir)
	return err == nil || err == syscall.ENOENT
}

// writeFile writes s to an existing file (a cgroup's interface file) in one write.
func writeFile(name, s string) error {
	fd, err := syscall.Open(name, syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	if _, err := syscall.Write(fd, []byte(s)); err != nil {
		return &os.PathError{Op: "write", Path: name, Err: err}
	}
	return nil
}

// populated reads cgroup.events of dir: whether a live process is in it or its descendants. A cgroup that
// cannot be read (gone) is not populated.
func populated(dir string) bool {
	var pathBuf [256]byte
	path := append(append(pathBuf[:0], dir...), "/cgroup.events\x00"...)
	fd, err := openBytes(path)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	var buf [128]byte
	n, err := syscall.Read(fd, buf[:])
	if err != nil || n <= 0 {
		return false
	}
	return bytes.Contains(buf[:n], []byte("populated 1"))
}

// waitEmpty waits until cgroup dir has no live process, at most until deadline, and reports whether it
// has none: an inotify watch on its cgroup.events, read through the netpoller (the kernel signals every
// change of the file as a modification).
func waitEmpty(dir string, deadline time.Time) bool {
	if !populated(dir) {
		return true
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return pollEmpty(dir, deadline)
	}
	f := os.NewFile(uintptr(fd), "inotify")
	defer f.Close()
	if _, err := unix.InotifyAddWatch(fd, filepath.Join(dir, "cgroup.events"), unix.IN_MODIFY); err != nil {
		return !populated(dir)
	}
	_ = f.SetReadDeadline(deadline)
	var buf [4 * (unix.SizeofInotifyEvent + 16)]byte
	for populated(dir) {
		if _, err := f.Read(buf[:]); err != nil {
			return !populated(dir)
		}
	}
	return true
}

// pollEmpty is waitEmpty without inotify (it failed: no inotify instance left): read again and again.
func pollEmpty(dir string, deadline time.Time) bool {
	for d := 50 * time.Microsecond; populated(dir); d = min(2*d, 10*time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(d)
	}
	return true
}

// A runCgroup is the cgroup of one run.
type runCgroup struct {
	h    *cgHost
	path string
	// dir and events are its directory (for CLONE_INTO_CGROUP) and its cgroup.events, open for as long
	// as the cgroup is this host's (a pread of an open kernfs file costs a microsecond, an open several).
	dir, events int
	// killed says that cgroup.kill was written: the cgroup is then removed, never reused. Linux (6.18
	// at least) kills every process cloned into a cgroup that was once killed (CLONE_INTO_CGROUP
	// compares the kill count of the cgroup the child enters with that of its parent's own cgroup).
	killed atomic.Bool
}

// newRunCgroup returns an empty cgroup for a run (an empty one kept from an earlier run, or a new one), or
// nil when runs get none (then the reason is in ContainmentInUse).
func newRunCgroup() *runCgroup {
	if cgroupsOff.Load() {
		return nil
	}
	h := cgroupHost()
	if h.base == "" {
		return nil
	}
	h.mu.Lock()
	if h.off != "" {
		h.mu.Unlock()
		return nil
	}
	if h.dir == "" {
		dir := filepath.Join(h.base, h.name)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			h.mu.Unlock()
			return nil
		}
		h.dir = dir
		watchCgroup(dir)
	}
	h.live++
	if h.idle != nil {
		h.idle.Stop()
		h.idle = nil
	}
	if n := len(h.free); n > 0 {
		c := h.free[n-1]
		h.free = h.free[:n-1]
		h.mu.Unlock()
		return c
	}
	h.seq++
	c := &runCgroup{h: h, path: filepath.Join(h.dir, strconv.FormatUint(h.seq, 10)), dir: -1, events: -1}
	h.mu.Unlock()
	err := os.Mkdir(c.path, 0o755)
	if err == nil {
		c.dir, err = syscall.Open(c.path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	}
	if err == nil {
		c.events, err = syscall.Openat(c.dir, "cgroup.events", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	}
	if err != nil {
		c.remove()
		h.release(nil)
		return nil
	}
	return c
}

// remove closes the cgroup's descriptors and removes it (and what a nested host left in it).
func (c *runCgroup) remove() {
	for _, fd := range []int{c.dir, c.events} {
		if fd >= 0 {
			_ = syscall.Close(fd)
		}
	}
	c.dir, c.events = -1, -1
	removeTree(c.path)
}

// populated reads the cgroup's cgroup.events: whether a live process is in it or its descendants.
func (c *runCgroup) populated() bool {
	var buf [128]byte
	n, err := syscall.Pread(c.events, buf[:], 0)
	if err != nil {
		return populated(c.path) // read it by its name
	}
	return bytes.Contains(buf[:max(n, 0)], []byte("populated 1"))
}

// kill SIGKILLs every process in the cgroup (and its descendants), at once.
func (c *runCgroup) kill() {
	c.killed.Store(true)
	_ = writeFile(c.path+"/cgroup.kill", "1")
}

// end ends the run's cgroup: what is left in it is killed (cgroup.kill) and waited for, and the empty
// cgroup is kept for the next run or removed. It returns how many processes were left, other than members
// of process group pgid (0 for none): the ones that had escaped the group kill.
func (c *runCgroup) end(pgid int) int {
	escaped := 0
	empty := true
	if c.populated() {
		escaped = countEscaped(c.path, pgid)
		// mutate: proc-cgroup-kill
		c.kill()
		empty = waitEmpty(c.path, time.Now().Add(sweepLimit))
	}
	if empty {
		reapOrphans() // a child subreaper adopted those of the run's processes whose parent died first
	}
	c.release(empty)
	return escaped
}

// countEscaped counts the processes in cgroup dir (its own, not its descendants') that are not in
// process group pgid.
func countEscaped(dir string, pgid int) int {
	b, err := os.ReadFile(dir + "/cgroup.procs")
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(line)
		if err != nil {
			continue
		}
		if st := statFieldsOf(pid); len(st) > 2 && st[0] != "Z" && st[2] != strconv.Itoa(pgid) {
			n++
		}
	}
	return n
}

// statFieldsOf returns the fields of /proc/PID/stat after the command name (state, ppid, pgrp, ...).
func statFieldsOf(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// release gives back the run's cgroup: kept for the next run if it is empty and was never killed, else
// removed, or left when it cannot be emptied (the watchdog or the next host removes it with this host's
// directory).
func (c *runCgroup) release(empty bool) {
	switch {
	case !empty:
		for _, fd := range []int{c.dir, c.events} {
			_ = syscall.Close(fd)
		}
		c.h.release(nil)
	// mutate: proc-cgroup-reuse
	case c.killed.Load():
		c.remove()
		c.h.release(nil)
	default:
		c.h.release(c)
	}
}

// release takes back a run's cgroup, c (nil for one already removed or left): kept for reuse (a nested
// host's empty directories in it do no harm; they go with it), or removed past maxFreeCgroups.
func (h *cgHost) release(c *runCgroup) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.live--
	switch {
	case c == nil:
	case len(h.free) < maxFreeCgroups:
		h.free = append(h.free, c)
	default:
		c.remove()
	}
	if h.live == 0 && !h.keepDir && h.dir != "" && h.idle == nil {
		// Removed once no run has needed it for a moment (sooner by ReleaseIdle): a host that runs one
		// call after another does not make and remove a directory for each.
		h.idle = time.AfterFunc(idleLinger, h.removeIdle)
	}
}

// idleLinger is how long a host without a watchdog keeps its cgroup directory once no run is live.
const idleLinger = 2 * time.Second

// removeIdle removes the host's directory and its empty cgroups if no run is live and no watchdog will.
func (h *cgHost) removeIdle() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.idle != nil {
		h.idle.Stop()
		h.idle = nil
	}
	if h.live > 0 || h.keepDir || h.dir == "" {
		return
	}
	for _, c := range h.free {
		c.remove()
	}
	h.free = nil
	if syscall.Rmdir(h.dir) == nil {
		h.dir = ""
	}
}

// ReleaseIdle removes, now, the cgroup directory this process keeps for its runs if none is running
// (without a watchdog it is kept for a moment after the last run, for the next one): the engine calls it
// when it closes, so that a host that ends leaves none behind. Harmless at any time.
func ReleaseIdle() {
	if h := cgroupHostIfUsed(); h != nil {
		h.removeIdle()
	}
}

// keepCgroups makes the host keep its directory and its empty run cgroups while no run is live: the
// watchdog removes them when this process is gone.
func keepCgroups() {
	h := cgroupHost()
	h.mu.Lock()
	h.keepDir = true
	h.mu.Unlock()
}

// hostCgroupDir returns this host's cgroup directory while it exists, or "".
func hostCgroupDir() string {
	if cgroupsOff.Load() {
		return ""
	}
	h := cgroupHost()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dir
}
