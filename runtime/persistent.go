package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/spec"
)

// Persistent shells (spec.Persistent, kind persistent): an engine keeps one shell per such tool, started
// at the tool's first call (or a restart) in the workspace, with the variant's environment, session and
// sandbox, on pipes the runtime reads itself. Each call writes the tool's input (the command and the words
// that write the sentinel) to the shell's stdin and waits until the sentinel appears on its stdout: the
// call's stdout is what came before it, its stderr what stderr had written by then (the stderr pipe is
// drained when the sentinel is read: the shell wrote the command's stderr before it ran the sentinel's
// words). Output written between calls goes to the next call, as the shell's pipes buffer it. The shell is
// a run like any other (its own process group, a cgroup or the marker sweep, the watchdog): a timeout kills
// it, a restart kills it and starts another, Engine.Close kills it, and the engine never holds more than
// the tool's captures of its output (output.truncate, or the runtime's bound).

// errEngineClosed is a start raced by Engine.Close: the host's error, not the tool's.
var errEngineClosed = errors.New("agentbash: engine is closed")

// persistents are an engine's persistent shells, by tool name.
type persistents struct {
	mu     sync.Mutex
	shells map[string]*pshell
	closed bool
}

// pshell is one tool's shell: the run now (nil before the first call, after a restart's kill, or when
// the engine closed), and whether a call timed out on it (every call then answers timeout until a
// restart). lock is held by the call using it: one call at a time.
type pshell struct {
	lock     chan struct{}
	run      *prun
	timedOut bool
}

// prun is one started shell and the readers of its output.
type prun struct {
	p       *proc.Process
	out     *pout
	readers sync.WaitGroup
	files   []*os.File // the read ends, closed once the readers are done or the grace is over
	reaped  chan struct{}
}

func (ps *persistents) get(name string) (*pshell, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		return nil, errEngineClosed
	}
	if ps.shells == nil {
		ps.shells = map[string]*pshell{}
	}
	s := ps.shells[name]
	if s == nil {
		s = &pshell{lock: make(chan struct{}, 1)}
		ps.shells[name] = s
	}
	return s, nil
}

// set records the shell's run (nil: none), unless the engine closed: then the run is ended.
func (ps *persistents) set(s *pshell, r *prun) error {
	ps.mu.Lock()
	if ps.closed {
		ps.mu.Unlock()
		if r != nil {
			r.end()
		}
		return errEngineClosed
	}
	s.run = r
	ps.mu.Unlock()
	return nil
}

// running counts the shells that run (Engine.Held).
func (ps *persistents) running() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	n := 0
	for _, s := range ps.shells {
		if s.run != nil && !s.run.exited() {
			n++
		}
	}
	return n
}

// close ends every shell and waits until each is reaped and its readers are done.
func (ps *persistents) close() {
	ps.mu.Lock()
	ps.closed = true
	var runs []*prun
	for _, s := range ps.shells {
		if s.run != nil {
			runs = append(runs, s.run)
		}
	}
	ps.mu.Unlock()
	for _, r := range runs {
		r.end()
	}
}

func (s *pshell) acquire(ctx context.Context) error {
	select {
	case s.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *pshell) release() { <-s.lock }

func (r *prun) exited() bool {
	select {
	case <-r.p.Done():
		return true
	default:
		return false
	}
}

// end kills the shell's process group and waits until it is reaped and its output readers are done.
func (r *prun) end() {
	r.p.Kill()
	<-r.p.Done()
	<-r.reaped
}

// reap waits for the shell's exit, then for its readers (the pipes' writers are gone with the run's
// processes) at most the grace period, and closes the read ends.
func (r *prun) reap(grace time.Duration) {
	defer close(r.reaped)
	<-r.p.Done()
	done := make(chan struct{})
	go func() { r.readers.Wait(); close(done) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	for _, f := range r.files {
		_ = f.Close()
	}
	<-done
}

// restarts reports a call of a persistent tool whose restart parameter is true (as the source's language
// reads a value's truth, with coerce python).
func (c *call) restarts() bool {
	if c.t.spec.Kind != spec.KindPersistent {
		return false
	}
	p := c.t.spec.Param(spec.RoleRestart)
	if p == nil {
		return false
	}
	v, ok := c.params[p.Name]
	if !ok {
		return false
	}
	if c.t.spec.Coerce == spec.CoercePython {
		return pyTruthy(v)
	}
	b, _ := v.(bool)
	return b
}

// pyTruthy is Python's truth of a JSON value as json.loads made it.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// restartPersistent ends the tool's shell, if any, starts another and answers restarted.
func (c *call) restartPersistent() (json.RawMessage, error) {
	s, err := c.e.persist.get(c.t.spec.Name)
	if err != nil {
		return nil, err
	}
	if err := s.acquire(c.ctx); err != nil {
		return nil, err
	}
	defer s.release()
	if err := c.applyWorkdir(); err != nil {
		return nil, err
	}
	if s.run != nil {
		s.run.end()
		if err := c.e.persist.set(s, nil); err != nil {
			return nil, err
		}
	}
	s.timedOut = false
	if _, err := c.startShell(s); err != nil {
		if errors.Is(err, errEngineClosed) {
			return nil, err
		}
		return c.spawnError(err)
	}
	return c.render(spec.OutcomeRestarted)
}

// startShell starts the tool's shell on pipes of its own and records it.
func (c *call) startShell(s *pshell) (*prun, error) {
	pt := c.t.spec.Persistent
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeFiles(outR, outW)
		return nil, err
	}
	argv := pt.Argv
	if c.e.cfg.shellSet {
		argv = c.e.cfg.argv // WithShell
	}
	c.data.Shell = argv[0]
	grace := c.e.v.Shell.GraceDuration()
	p, err := c.e.start(proc.Spec{Argv: argv, Dir: c.cwd, Env: c.env(), Stdout: outW, Stderr: errW,
		OpenStdin: true, Grace: grace, Session: c.e.v.Shell.Session, Sandbox: c.e.sandbox})
	closeFiles(outW, errW) // the shell holds its own
	if err != nil {
		closeFiles(outR, errR)
		return nil, err
	}
	t := c.t
	r := &prun{p: p, files: []*os.File{outR, errR}, reaped: make(chan struct{})}
	r.out = &pout{sentinel: []byte(pt.Sentinel), status: pt.Status, errFile: errR,
		newCall: func() *pcapture { return &pcapture{st: newStreams(t)} }, done: make(chan *pcapture, 1)}
	r.out.cur = r.out.newCall()
	r.readers.Add(2)
	go r.out.read(&r.readers, outR, true)
	go r.out.read(&r.readers, errR, false)
	go r.reap(grace)
	if err := c.e.persist.set(s, r); err != nil {
		return nil, err
	}
	return r, nil
}

// pipe makes a pipe whose read end the runtime polls and whose write end, the shell's, blocks.
func pipe() (r, w *os.File, err error) {
	r, w, err = os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	rc, err := w.SyscallConn()
	if err == nil {
		err = rc.Control(func(fd uintptr) { err = syscall.SetNonblock(int(fd), false) })
	}
	if err != nil {
		closeFiles(r, w)
		return nil, nil, err
	}
	return r, w, nil
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// persistent runs a call of a persistent tool: the command typed into the tool's shell.
func (c *call) persistent() (json.RawMessage, error) {
	pt := c.t.spec.Persistent
	s, err := c.e.persist.get(c.t.spec.Name)
	if err != nil {
		return nil, err
	}
	if err := s.acquire(c.ctx); err != nil {
		return nil, err
	}
	defer s.release()
	timeout := pt.TimeoutDuration()
	c.data.TimeoutValue = timeout.Seconds()
	c.data.Timeout = json.Number(strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64))
	if s.timedOut {
		c.data.TimedOut = true
		return c.render(spec.OutcomeTimeout)
	}
	if s.run == nil {
		if _, err := c.startShell(s); err != nil {
			if errors.Is(err, errEngineClosed) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, err
			}
			return c.spawnError(err)
		}
	}
	r := s.run
	c.data.Pid = r.p.Pid()
	if r.exited() {
		return c.shellExited(r)
	}
	input, err := c.t.tmpl.render(pt.Input, &spec.Data{Command: c.data.Command})
	if err != nil {
		return nil, fmt.Errorf("agentbash: rendering persistent.input: %w", err)
	}
	r.out.dropStale()
	deadline := time.Now().Add(timeout)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	expire := func() (json.RawMessage, error) {
		r.end()
		s.timedOut = true
		c.data.TimedOut = true
		c.data.WallTime = time.Since(c.started).Seconds()
		return c.render(spec.OutcomeTimeout)
	}
	if _, err := r.p.WriteStdin([]byte(input), deadline); err != nil {
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return expire() // the shell did not take its input within the timeout
		case r.waitExit(c.ctx):
			return c.exitedUnder(r) // the shell has exited: its stdin is closed
		default:
			return nil, err
		}
	}
	select {
	case st := <-r.out.done:
		return c.completed(st)
	case <-r.p.Done():
		// The shell exited: what it wrote before is read, and a sentinel among it completes the call.
		<-r.reaped
		select {
		case st := <-r.out.done:
			return c.completed(st)
		default:
		}
		return c.exitedUnder(r)
	case <-timer.C:
		select {
		case st := <-r.out.done: // completed in the same instant
			return c.completed(st)
		default:
		}
		return expire()
	case <-c.ctx.Done():
		r.end() // the shell is left in an unknown state: the next call answers exited
		return nil, c.ctx.Err()
	}
}

// waitExit reports whether the shell has exited, waiting a little for the exit that a write on a closed
// stdin announces.
func (r *prun) waitExit(ctx context.Context) bool {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-r.p.Done():
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// exitedUnder answers a call whose shell exited before it wrote the sentinel (persistent.on_exit).
func (c *call) exitedUnder(r *prun) (json.RawMessage, error) {
	if c.t.spec.Persistent.OnExit != spec.OnExitTimeout {
		return c.shellExited(r)
	}
	<-r.p.Done()
	c.data.TimedOut = true
	c.data.WallTime = time.Since(c.started).Seconds()
	return c.render(spec.OutcomeTimeout)
}

// shellExited answers exited with the shell's exit status.
func (c *call) shellExited(r *prun) (json.RawMessage, error) {
	<-r.p.Done()
	c.fillExit(r.p.Exit())
	c.data.WallTime = time.Since(c.started).Seconds()
	return c.render(spec.OutcomeExited)
}

// pcapture is what one call of a persistent shell read: its streams, and the status after the sentinel.
type pcapture struct {
	st     *streams
	status int
}

// completed shapes a call whose sentinel was read: its streams, and with persistent.status its exit status.
func (c *call) completed(pc *pcapture) (json.RawMessage, error) {
	pt := c.t.spec.Persistent
	st := pc.st
	st.close()
	c.data.WallTime = time.Since(c.started).Seconds()
	c.data.ExitCode = 0
	if pt.Status {
		c.data.ExitCode = pc.status
	}
	code := c.data.ExitCode
	c.sawExit = &code
	snaps := st.snapshots()
	if err := c.decodeFailure(snaps); err != nil {
		return nil, err
	}
	c.fillStreams(snaps)
	if pt.TrimNewline {
		c.data.Stdout = trimOneNewline(c.data.Stdout)
		c.data.Stderr = trimOneNewline(c.data.Stderr)
	}
	if !pt.Status {
		return c.render(spec.OutcomeExit)
	}
	if c.data.ExitCode == 0 {
		c.data.Success = true
		return c.render(spec.OutcomeSuccess)
	}
	return c.render(spec.OutcomeFailure)
}

func trimOneNewline(s string) string {
	if len(s) > 0 && s[len(s)-1] == '\n' {
		return s[:len(s)-1]
	}
	return s
}

// pout reads a shell's stdout and stderr into the captures of the call now (cur), and completes the call
// when the sentinel is read.
type pout struct {
	mu       sync.Mutex
	sentinel []byte
	status   bool
	errFile  *os.File
	newCall  func() *pcapture
	cur      *pcapture
	done     chan *pcapture

	pending  []byte // the end of stdout that may begin the sentinel, held back
	scratch  []byte
	inStatus bool   // reading the status after the sentinel
	digits   []byte // the status read so far
	drainBuf []byte
}

// read reads one pipe until its end (or until reap closes it), delivering under the lock: a read and the
// delivery of what it read are one step, so that a completion's drain of stderr sees every byte the
// stderr reader has not delivered yet.
func (o *pout) read(wg *sync.WaitGroup, f *os.File, stdout bool) {
	defer wg.Done()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 32<<10)
	for {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			o.mu.Lock()
			defer o.mu.Unlock()
			for {
				n, rerr = syscall.Read(int(fd), buf)
				if rerr != syscall.EINTR {
					break
				}
			}
			if rerr == syscall.EAGAIN {
				return false
			}
			if n > 0 {
				if stdout {
					o.scan(buf[:n])
				} else {
					_, _ = o.cur.st.stderr.Write(buf[:n])
				}
			}
			return true
		})
		if err != nil || rerr != nil || n <= 0 {
			return
		}
	}
}

// scan reads stdout for the sentinel (under the lock).
func (o *pout) scan(b []byte) {
	if o.inStatus {
		o.readStatus(b)
		return
	}
	data := b
	if len(o.pending) > 0 {
		o.scratch = append(append(o.scratch[:0], o.pending...), b...)
		data = o.scratch
	}
	out := o.cur.st.stdout
	if i := bytes.Index(data, o.sentinel); i >= 0 {
		_, _ = out.Write(data[:i])
		o.pending = o.pending[:0]
		rest := data[i+len(o.sentinel):]
		if o.status {
			o.inStatus, o.digits = true, o.digits[:0]
			o.readStatus(rest)
			return
		}
		o.complete(0) // what follows the sentinel in this read is dropped
		return
	}
	k := sentinelPrefix(data, o.sentinel)
	_, _ = out.Write(data[:len(data)-k])
	o.pending = append(o.pending[:0], data[len(data)-k:]...)
}

// readStatus reads the exit status after the sentinel: digits (and a sign) up to anything else.
func (o *pout) readStatus(b []byte) {
	for _, ch := range b {
		if (ch >= '0' && ch <= '9' || ch == '-') && len(o.digits) < 20 {
			o.digits = append(o.digits, ch)
			continue
		}
		code, err := strconv.Atoi(string(o.digits))
		if err != nil {
			code = -1
		}
		o.inStatus = false
		o.complete(code)
		return
	}
}

// complete ends the call now: stderr's pipe is drained into its captures, which go to the waiting call,
// and new captures take what follows.
func (o *pout) complete(status int) {
	o.drainStderr()
	fin := o.cur
	fin.status = status
	o.cur = o.newCall()
	select {
	case o.done <- fin:
	default: // a completion nobody took (a sentinel between calls): dropStale discards it
	}
}

// drainStderr delivers what stderr's pipe holds now, without waiting, bounded by the pipe's capacity (a
// writer that keeps writing cannot hold the call).
func (o *pout) drainStderr() {
	rc, err := o.errFile.SyscallConn()
	if err != nil {
		return
	}
	if o.drainBuf == nil {
		o.drainBuf = make([]byte, 32<<10)
	}
	for total := 0; total < 1<<20; {
		var n int
		var rerr error
		if err := rc.Control(func(fd uintptr) { n, rerr = syscall.Read(int(fd), o.drainBuf) }); err != nil {
			return
		}
		if rerr == syscall.EINTR {
			continue
		}
		if rerr != nil || n <= 0 {
			return
		}
		_, _ = o.cur.st.stderr.Write(o.drainBuf[:n])
		total += n
	}
}

// dropStale discards a completion no call was waiting for.
func (o *pout) dropStale() {
	select {
	case pc := <-o.done:
		pc.st.close()
	default:
	}
}

// sentinelPrefix is the length of the longest end of data that begins the sentinel (shorter than it).
func sentinelPrefix(data, sentinel []byte) int {
	for k := min(len(sentinel)-1, len(data)); k > 0; k-- {
		if bytes.HasPrefix(sentinel, data[len(data)-k:]) {
			return k
		}
	}
	return 0
}
