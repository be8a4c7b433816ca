package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/agentbash/agentbash/runtime/internal/live"
	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// Sessions: commands still running when the yield window of the call that started them closed, held in
// the engine's registry of live processes (runtime/internal/live) under the spec's sessions block. Each
// session's process runs in its own process group like every run (killed as a group, swept, registered
// with the watchdog); its output waits in a bounded head-and-tail buffer for the next call; the registry
// is bounded (sessions.max_live, pruned or refused past it) and Close kills and reaps everything.

// session is one interactive process.
type session struct {
	live.Entry
	p       *proc.Process
	out     *sessionOutput
	command string
	tty     bool

	// calls serialises the calls on the session: one window at a time.
	calls sync.Mutex
	// carry is the end of the output the last call answered, which redaction reads the next one after
	// (under calls).
	carry string
	// log is the session's whole output (its last sessions.buffer bytes), kept when a tool of the variant
	// pages through it (session.page); pagePos is the line a paged read from the read position starts at
	// (under calls).
	log     *bgLog
	pagePos int64
}

// pages reports whether a tool of the variant pages through a session's output.
func pages(v *spec.Variant) bool {
	for i := range v.Tools {
		if st := v.Tools[i].Session; st != nil && st.Page != nil {
			return true
		}
	}
	return false
}

// sessionPolicy is the registry policy of a spec's sessions block: every session held (running, or
// exited and not reported) counts toward max_live; on_full prune prunes the least recently used.
func sessionPolicy(ss *spec.Sessions) live.Policy {
	if ss == nil {
		return live.Policy{}
	}
	pol := live.Policy{Max: ss.MaxLive, Count: live.CountHeld, OnFull: live.Refuse, ProtectRecent: ss.ProtectRecent,
		PruneFinishedFirst: ss.PruneExitedFirst, IDs: live.Sequential, FirstID: ss.FirstID, LastID: ss.LastID,
		WrapID: spec.MaxSessionID}
	if ss.OnFull == spec.OnFullPrune {
		pol.OnFull = live.PruneLRU
	}
	if ss.IDs == spec.SessionIDsRandom {
		pol.IDs = live.Random
	}
	return pol
}

func (s *session) exited() bool {
	select {
	case <-s.p.Done():
		return true
	default:
		return false
	}
}

// session runs a call of a tool of the session family.
func (c *call) session() (json.RawMessage, error) {
	switch c.t.spec.Kind {
	case spec.KindSessionStart:
		return c.startSession()
	case spec.KindSessionList:
		return c.listSessions()
	}
	s, err := c.sessionFor()
	if err != nil {
		return nil, err
	}
	switch c.t.spec.Kind {
	case spec.KindSessionKill:
		// A call waiting on the session ends with the exit.
		s.p.Kill()
		<-s.p.Done()
		if st := c.t.spec.Session; st == nil || !st.Keep {
			c.e.sess.Forget(s)
		}
		c.fillExit(s.p.Exit())
		return c.render(spec.OutcomeOK)
	case spec.KindSessionWrite:
		return c.writeSession(s)
	}
	return c.readSession(s)
}

// sessionFor finds the session the session_id parameter names, or renders the unknown-id failure.
func (c *call) sessionFor() (*session, error) {
	p := c.t.spec.Param(spec.RoleSessionID)
	id := sessionIDText(c.params[p.Name])
	c.data.ID = id
	s, ok := c.e.sess.Get(id)
	st := c.t.spec.Session
	if ok && st != nil && st.RunningOnly && s.exited() {
		ok = false // running_only: an exited session is not this tool's
	}
	if !ok {
		if st != nil && st.UnknownID != nil {
			return nil, c.fail(st.UnknownID)
		}
		return nil, c.fail(c.e.v.Sessions.UnknownID)
	}
	c.data.SessionID = s.ID()
	c.data.Command = s.command
	c.data.Pid = s.p.Pid()
	c.data.Started = s.Started().UTC().Format(time.RFC3339)
	return s, nil
}

// sessionIDText is an id as sent: a string as it is, an integral number in decimal.
func sessionIDText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.FormatInt(int64(f), 10)
		}
		return x.String()
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// yieldWindow is the call's window: the yield parameter as sent (a non-negative number) or the default,
// clamped to the range (the poll range for an empty write).
func (c *call) yieldWindow(empty bool) (time.Duration, error) {
	y := c.t.spec.Session.Yield
	v := y.Default
	if p := c.t.spec.Param(spec.RoleYield); p != nil {
		if n, ok := c.params[p.Name].(json.Number); ok {
			f, err := n.Float64()
			if err != nil || f < 0 || math.IsInf(f, 0) {
				return 0, c.invalid(p.Name, "must be a non-negative number")
			}
			v = f
		}
	}
	return y.Window(v, empty), nil
}

// startSession starts the command and waits its window: the answer is its exit, or a session.
func (c *call) startSession() (json.RawMessage, error) {
	t := c.t
	st := t.spec.Session
	window, err := c.yieldWindow(false)
	if err != nil {
		return nil, err
	}
	budget, err := c.budgetOf()
	if err != nil {
		return nil, err
	}
	tty := st.PTY
	if p := t.spec.Param(spec.RoleTTY); p != nil {
		if b, ok := c.params[p.Name].(bool); ok {
			tty = b
		}
	}
	argv := append(append([]string(nil), c.e.cfg.argv...), c.data.Command)
	if c.argv != nil {
		argv = append(append([]string(nil), c.e.cfg.argv...), c.argv...)
	}
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	err = c.e.sess.Reserve()
	if errors.Is(err, live.ErrFull) {
		c.data.Max = float64(c.e.v.Sessions.MaxLive)
		return nil, c.fail(c.e.v.Sessions.LimitError)
	}
	if err != nil {
		return nil, err
	}
	out := &sessionOutput{pending: newHeadTail(c.e.v.Sessions.Buffer)}
	win := c.newWindow(budget)
	out.open(win)
	// One pipe for both streams, or (pipes: two) one each, written into out as their chunks arrive.
	ps := proc.Spec{Argv: argv, Dir: c.cwd, Env: c.env(), Stdout: out, Stderr: out, Combined: tty || st.Pipes != spec.PipesTwo,
		Grace: c.e.v.Shell.GraceDuration(), Session: c.e.v.Shell.Session, PTY: tty,
		OpenStdin: !tty && st.Stdin == spec.SessionStdinOpen, Sandbox: c.e.sandbox}
	var lg *bgLog
	if pages(c.e.v) {
		lg = newBgLog(c.e.v.Sessions.Buffer)
		out.log = lg // written with the window, not beside it (see sessionOutput.log)
	}
	if c.e.v.Shell.Embedded {
		ps.Argv, ps.Embedded = nil, c.data.Command
	}
	var p *proc.Process
	if c.cwdEmpty {
		err = &fs.PathError{Op: "chdir", Path: "", Err: syscall.ENOENT}
	} else {
		p, err = c.e.start(ps)
	}
	if err != nil {
		c.e.sess.Unreserve()
		return c.spawnError(err)
	}
	// The window opens once the command runs, as a foreground call's timeout does: an executor's first
	// start (a container made for the engine) is not the command's time.
	start := time.Now()
	s := &session{p: p, out: out, command: c.data.Command, tty: tty, log: lg}
	if err := c.e.sess.Add(s, p, c.started, nil); err != nil {
		p.Kill()
		<-p.Done()
		return nil, err
	}
	c.data.Pid = p.Pid()
	c.data.Started = time.Now().UTC().Format(time.RFC3339)
	s.calls.Lock()
	defer s.calls.Unlock()
	res, err := c.collect(s, win, start, start.Add(window), budget)
	if err != nil && c.ctx.Err() != nil {
		// The host gave up on the start: no one was told the session's id.
		p.Kill()
		<-p.Done()
		c.e.sess.Forget(s)
	}
	return res, err
}

// writeSession writes the stdin parameter to the session and waits its window.
func (c *call) writeSession(s *session) (json.RawMessage, error) {
	input := c.str(c.t.spec.Param(spec.RoleStdin).Name)
	c.data.Input = input
	st := c.t.spec.Session
	if st.Newline && (input == "" || input[len(input)-1] != '\n') {
		input += "\n" // .Input stays as sent
	}
	window, err := c.yieldWindow(input == "")
	if err != nil {
		return nil, err
	}
	if input != "" && !s.p.HasStdin() {
		return nil, c.fail(c.e.v.Sessions.StdinClosed)
	}
	s.calls.Lock()
	defer s.calls.Unlock()
	if st.Since == spec.SinceWrite {
		s.out.skip() // the window shows only what arrives after the write
	}
	if input != "" {
		// A write the command does not take within the window is cut there (see the runtime's docs).
		_, _ = s.p.WriteStdin([]byte(input), time.Now().Add(max(window, time.Second)))
		if d := st.Settle.D(); d > 0 {
			select {
			case <-time.After(d):
			case <-s.p.Done():
			case <-c.ctx.Done():
			}
		}
	}
	return c.readLocked(s, window)
}

// readSession waits the window for the session's output.
func (c *call) readSession(s *session) (json.RawMessage, error) {
	window, err := c.yieldWindow(false)
	if err != nil {
		return nil, err
	}
	if c.t.spec.Session.Page != nil {
		return c.pageSession(s, window)
	}
	s.calls.Lock()
	defer s.calls.Unlock()
	return c.readLocked(s, window)
}

func (c *call) readLocked(s *session, window time.Duration) (json.RawMessage, error) {
	budget, err := c.budgetOf()
	if err != nil {
		return nil, err
	}
	win := c.newWindow(budget)
	s.out.open(win)
	start := time.Now()
	return c.collect(s, win, start, start.Add(window), budget)
}

// budgetOf is the call's budget, or -1 for a tool without one.
func (c *call) budgetOf() (int, error) {
	if c.t.spec.Output.Budget == nil {
		return -1, nil
	}
	return c.budgetValue()
}

// newWindow makes the window of a call: sized for its budget, or by the runtime's safety bound.
func (c *call) newWindow(budget int) *window {
	if b := c.t.spec.Output.Budget; b != nil {
		u, h, t := budgetCapacity(b, budget)
		return newWindow(u, h, t)
	}
	return newWindow(textcap.Bytes, safetyCap, 0)
}

// collect waits until the deadline or the command's exit (its output drained), ends the window and
// answers: the exit (the session is forgotten) or running.
func (c *call) collect(s *session, win *window, start, deadline time.Time, budget int) (json.RawMessage, error) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	var output <-chan struct{}
	if st := c.t.spec.Session; st != nil && st.Until == spec.ReadUntilOutput {
		output = win.output // already closed when output waited for this call
	}
	exited := false
	select {
	case <-s.p.Done():
		exited = true
	case <-timer.C:
		exited = s.exited()
	case <-output:
		exited = s.exited()
	case <-c.ctx.Done():
		// The host gave up on the call: the session runs on, its output kept for the next call.
		s.out.close()
		return nil, c.ctx.Err()
	}
	c.data.WallTime = time.Since(start).Seconds()
	s.out.close()
	sn := win.capture.Snapshot()
	total := sn.Bytes
	c.data.Running, c.carry = !exited, s.carry // redaction: where the output goes on, what it continues
	if b := c.t.spec.Output.Budget; b != nil {
		c.data.Output, c.data.OutputTruncated = c.budgetText(b, budget, sn, win.lines(total))
	} else {
		c.data.Output, c.data.OutputTruncated = sn.Head, !sn.Complete
		c.data.Units, c.data.Lines = total, win.lines(total)
		c.data.KeptLines = countLines(sn.Head)
		c.data.Output, c.carry = c.redactPiece(piece{text: sn.Head, carry: c.carry, open: !exited || !sn.Complete})
	}
	s.carry = c.carry
	c.data.OutputBytes = total
	c.data.Stdout, c.data.StdoutBytes, c.data.StdoutTruncated = c.data.Output, total, c.data.OutputTruncated
	c.data.Truncated = c.data.OutputTruncated
	return c.sessionAnswer(s, exited)
}

// sessionAnswer renders a window's answer once its data is filled: the session still running, or its
// exit (success or failure), after which the session is forgotten, given back (a start's) or kept
// (keep_exited).
func (c *call) sessionAnswer(s *session, exited bool) (json.RawMessage, error) {
	c.data.SessionID = s.ID()
	c.data.Pid = s.p.Pid()
	if !exited {
		c.data.Running = true
		return c.render(spec.OutcomeRunning)
	}
	switch {
	case c.e.v.Sessions.KeepExited:
		// keep_exited: the session stays readable (its exit, again) until it is killed or pruned.
	case c.t.spec.Kind == spec.KindSessionStart:
		c.e.sess.GiveBack(s)
		c.data.SessionID = ""
	default:
		c.e.sess.Forget(s)
	}
	c.fillExit(s.p.Exit())
	if c.data.ExitCode == 0 && c.data.Signal == 0 {
		c.data.Success = true
		return c.render(spec.OutcomeSuccess)
	}
	return c.render(spec.OutcomeFailure)
}

// listSessions lists the sessions, oldest first.
func (c *call) listSessions() (json.RawMessage, error) {
	now := time.Now()
	for _, s := range c.e.Sessions() {
		c.data.Sessions = append(c.data.Sessions, spec.SessionInfo{ID: s.ID, Command: s.Command, Pid: s.Pid,
			Running: s.Running, ExitCode: c.exitCode(proc.Exit{Code: s.ExitCode, Signal: syscall.Signal(s.Signal)}),
			Started: s.Started.UTC().Format(time.RFC3339), Age: now.Sub(s.Started).Seconds(), Tty: s.Tty})
	}
	return c.render(spec.OutcomeOK)
}

// SessionInfo describes a session of the registry.
type SessionInfo struct {
	ID      string
	Pid     int
	Command string
	Started time.Time
	// Tty reports a session on a pseudo-terminal.
	Tty bool
	// Running is false once the command has exited and its output is drained; ExitCode and Signal are set
	// then (Signal 0 for a normal exit).
	Running  bool
	ExitCode int
	Signal   int
}

func (s *session) describe() SessionInfo {
	info := SessionInfo{ID: s.ID(), Pid: s.p.Pid(), Command: s.command, Started: s.Started(), Tty: s.tty, Running: true}
	if s.exited() {
		x := s.p.Exit()
		info.Running, info.ExitCode, info.Signal = false, x.Code, int(x.Signal)
	}
	return info
}

// Sessions lists the engine's sessions (running, or exited and not yet reported), oldest first.
func (e *Engine) Sessions() []SessionInfo { return describeAll(e.sess, (*session).describe) }

// KillSession kills a session's process group, waits for it and forgets the session.
func (e *Engine) KillSession(id string) error { return killLive(e.sess, "session", id) }

// WaitSession waits until a session's command has exited (its output drained) or ctx ends.
func (e *Engine) WaitSession(ctx context.Context, id string) (SessionInfo, error) {
	return waitLive(ctx, e.sess, "session", id, (*session).describe)
}
