package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
	"github.com/google/uuid"
)

// registry holds the processes that outlive their call: shells started in the background and foreground
// runs whose timeout moved them there. Output stays bounded; completed shells are retained up to a limit;
// close kills and reaps everything.
type registry struct {
	cfg *spec.Background

	mu       sync.Mutex
	shells   map[string]*bgShell
	finished []string // ids of completed shells, oldest first
	live     int      // running, reserved included
	closed   bool
	watchers sync.WaitGroup
}

// bgShell is one background process and its captured output.
type bgShell struct {
	id      string
	p       *proc.Process
	st      *streams
	command string
	started time.Time
	// done closes once the process is reaped and its output drained and closed: status completed.
	done chan struct{}

	mu     sync.Mutex
	polled [2]int // bytes of stdout and stderr already returned, for poll: new
	// carry is the end of the stdout and stderr the last poll: new returned, which redaction reads the
	// next poll's after.
	carry [2]string
}

var errLimit = errors.New("background limit reached")

func newRegistry(cfg *spec.Background) *registry {
	return &registry{cfg: cfg, shells: map[string]*bgShell{}}
}

// reserve takes a live slot before a background start, so the limit holds under concurrency.
func (r *registry) reserve(want bool) error {
	if !want {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errors.New("engine is closed")
	}
	if r.live >= r.cfg.MaxLive {
		return errLimit
	}
	r.live++
	return nil
}

func (r *registry) unreserve(want bool) {
	if want {
		r.mu.Lock()
		r.live--
		r.mu.Unlock()
	}
}

func (r *registry) newID(p *proc.Process) string {
	if r.cfg != nil && r.cfg.IDs == spec.IDsPID && p.Pid() > 0 {
		return strconv.Itoa(p.Pid())
	}
	return uuid.NewString()
}

// add registers a process in the background: a shell started there, or a foreground run whose timeout
// moved it there. Its live slot was reserved.
func (r *registry) add(p *proc.Process, st *streams, command string, started time.Time) *bgShell {
	sh := &bgShell{id: r.newID(p), p: p, st: st, command: command, started: started, done: make(chan struct{})}
	r.mu.Lock()
	r.shells[sh.id] = sh
	closed := r.closed
	r.watchers.Add(1)
	r.mu.Unlock()
	go r.watch(sh)
	if closed {
		p.Kill()
	}
	return sh
}

// watch waits for a shell to end, then marks it completed: only after its pipes are drained, so a poll
// that sees "completed" sees all the output.
func (r *registry) watch(sh *bgShell) {
	defer r.watchers.Done()
	<-sh.p.Done()
	sh.st.close()
	close(sh.done)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.live--
	if _, ok := r.shells[sh.id]; !ok {
		return // removed (killed) already
	}
	r.finished = append(r.finished, sh.id)
	for len(r.finished) > r.cfg.Retain {
		delete(r.shells, r.finished[0])
		r.finished = r.finished[1:]
	}
}

func (r *registry) get(id string) (*bgShell, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sh, ok := r.shells[id]
	return sh, ok
}

func (r *registry) remove(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.shells, id)
	for i, f := range r.finished {
		if f == id {
			r.finished = append(r.finished[:i], r.finished[i+1:]...)
			break
		}
	}
}

// close kills every process and waits until each is reaped and drained.
func (r *registry) close() {
	r.mu.Lock()
	r.closed = true
	shells := make([]*bgShell, 0, len(r.shells))
	for _, sh := range r.shells {
		shells = append(shells, sh)
	}
	r.mu.Unlock()
	for _, sh := range shells {
		sh.p.Kill()
	}
	r.watchers.Wait()
}

// newBackgroundStreams captures a background shell's stdout and stderr, raw, each up to the limit.
func newBackgroundStreams(cfg *spec.Background) *streams {
	limit := safetyCap
	if cfg != nil && cfg.StreamLimit > 0 {
		limit = cfg.StreamLimit
	}
	c := textcap.Config{Decode: textcap.Raw, Unit: textcap.Bytes, Head: limit}
	return &streams{out: &spec.Output{Decode: "raw"}, stdout: textcap.New(c), stderr: textcap.New(c)}
}

func (c *call) failBackground(err error) error {
	if errors.Is(err, errLimit) {
		c.data.Max = float64(c.e.bg.cfg.MaxLive)
		return c.fail(c.e.bg.cfg.LimitError)
	}
	return err // the engine closed during the call: the host's error, not the tool's
}

// shellFor finds the shell the shell_id parameter names, or renders the unknown-id failure.
func (c *call) shellFor() (*bgShell, error) {
	id := c.str(c.t.spec.Param(spec.RoleShellID).Name)
	c.data.ID = id
	sh, ok := c.e.bg.get(id)
	if !ok {
		return nil, c.fail(c.e.bg.cfg.UnknownID)
	}
	c.data.ShellID = sh.id
	c.data.Command = sh.command
	c.data.Pid = sh.p.Pid()
	c.data.Started = sh.started.UTC().Format(time.RFC3339)
	return sh, nil
}

// poll reports a background shell's status and output.
func (c *call) poll() (json.RawMessage, error) {
	sh, err := c.shellFor()
	if err != nil {
		return nil, err
	}
	select {
	case <-sh.done:
		c.fillExit(sh.p.Exit())
	default:
		c.data.Running = true
	}
	so, se := sh.streams()
	out, errText := so.Head, se.Head
	// Redaction reads each stream knowing where it stops (a running shell, or its buffer's limit) and, for
	// poll: new, what the last poll ended in.
	outPiece := piece{open: c.data.Running || !so.Complete}
	errPiece := piece{open: c.data.Running || !se.Complete}
	pollNew := c.e.bg.cfg.Poll == spec.PollNew
	if pollNew {
		sh.mu.Lock() // until the carry is updated: polls of a shell read its output in turn
		out, errText = out[min(sh.polled[0], len(out)):], errText[min(sh.polled[1], len(errText)):]
		sh.polled = [2]int{len(so.Head), len(se.Head)}
		outPiece.carry, errPiece.carry = sh.carry[0], sh.carry[1]
	}
	outPiece.text, errPiece.text = textcap.Sanitize(out, true), textcap.Sanitize(errText, true)
	var carry [2]string
	c.data.Stdout, carry[0] = c.redactPiece(outPiece)
	c.data.Stderr, carry[1] = c.redactPiece(errPiece)
	if pollNew {
		sh.carry = carry
		sh.mu.Unlock()
	}
	c.data.StdoutBytes, c.data.StderrBytes = so.Bytes, se.Bytes
	c.data.StdoutKept, c.data.StderrKept = int64(len(so.Head)), int64(len(se.Head))
	c.data.StdoutTruncated = !so.Complete
	c.data.StderrTruncated = !se.Complete
	c.data.Truncated = c.data.StdoutTruncated || c.data.StderrTruncated
	return c.render(spec.OutcomeOK)
}

// kill ends a background shell's process group, waits for it and removes it from the registry.
func (c *call) kill() (json.RawMessage, error) {
	sh, err := c.shellFor()
	if err != nil {
		return nil, err
	}
	sh.p.Kill()
	<-sh.done
	c.fillExit(sh.p.Exit())
	c.e.bg.remove(sh.id)
	return c.render(spec.OutcomeOK)
}

// Shell describes a process in the background registry.
type Shell struct {
	ID      string
	Pid     int
	Command string
	Started time.Time
	// Running is false once the process has exited and its output is drained.
	Running bool
	// ExitCode and Signal are set once Running is false (Signal 0 for a normal exit).
	ExitCode int
	Signal   int
	// Stdout and Stderr are the output kept so far (each bounded by the spec's limits; for a combined
	// capture, Stdout holds both).
	Stdout, Stderr string
	// StdoutBytes and StderrBytes count all output seen; Truncated reports that not all of it was kept.
	StdoutBytes, StderrBytes         int64
	StdoutTruncated, StderrTruncated bool
}

func (sh *bgShell) describe() Shell {
	s := Shell{ID: sh.id, Pid: sh.p.Pid(), Command: sh.command, Started: sh.started, Running: true}
	select {
	case <-sh.done:
		x := sh.p.Exit()
		s.Running, s.ExitCode, s.Signal = false, x.Code, int(x.Signal)
	default:
	}
	out, errs := sh.streams()
	s.Stdout, s.StdoutBytes, s.StdoutTruncated = out.Head, out.Bytes, !out.Complete
	s.Stderr, s.StderrBytes, s.StderrTruncated = errs.Head, errs.Bytes, !errs.Complete
	return s
}

// streams are the shell's stdout and stderr so far. A run adopted from the foreground with a combined
// capture has one stream: it reads as stdout, with an empty stderr.
func (sh *bgShell) streams() (stdout, stderr *textcap.Snapshot) {
	snaps := sh.st.snapshots()
	if snaps.output != nil {
		return snaps.output, &textcap.Snapshot{Complete: true}
	}
	return snaps.stdout, snaps.stderr
}

// Shells lists the background registry, oldest first.
func (e *Engine) Shells() []Shell {
	e.bg.mu.Lock()
	all := make([]*bgShell, 0, len(e.bg.shells))
	for _, sh := range e.bg.shells {
		all = append(all, sh)
	}
	e.bg.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].started.Before(all[j].started) })
	out := make([]Shell, len(all))
	for i, sh := range all {
		out[i] = sh.describe()
	}
	return out
}

// Shell reports one background shell by id (a uuid, or the pid as a decimal string, as the spec says).
func (e *Engine) Shell(id string) (Shell, bool) {
	sh, ok := e.bg.get(id)
	if !ok {
		return Shell{}, false
	}
	return sh.describe(), true
}

// WaitShell waits until a background shell has completed (output drained) or ctx ends.
func (e *Engine) WaitShell(ctx context.Context, id string) (Shell, error) {
	sh, ok := e.bg.get(id)
	if !ok {
		return Shell{}, fmt.Errorf("agentbash: unknown shell %q", id)
	}
	select {
	case <-sh.done:
		return sh.describe(), nil
	case <-ctx.Done():
		return sh.describe(), ctx.Err()
	}
}

// KillShell kills a background shell's process group, waits for it, and removes it from the registry.
func (e *Engine) KillShell(id string) error {
	sh, ok := e.bg.get(id)
	if !ok {
		return fmt.Errorf("agentbash: unknown shell %q", id)
	}
	sh.p.Kill()
	<-sh.done
	e.bg.remove(id)
	return nil
}
