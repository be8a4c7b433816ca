package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/agentbash/agentbash/runtime/internal/live"
	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// Background shells: shells started in the background and foreground runs whose timeout moved them there,
// held in the engine's registry of live processes (runtime/internal/live) under the spec's background
// block: at most max_live running, the retain most recent finished ones kept, named by uuid or pid.
// Output stays bounded; Close kills and reaps everything.

// bgShell is one background process and its captured output.
type bgShell struct {
	live.Entry
	p       *proc.Process
	st      *streams
	command string

	mu     sync.Mutex
	polled [2]int // bytes of stdout and stderr already returned, for poll: new
	// carry is the end of the stdout and stderr the last poll: new returned, which redaction reads the
	// next poll's after.
	carry [2]string
	// log is the merged log (background.log; nil without one); logRead is where the last poll: new
	// stopped in it, logCarry the end of what it returned (both under mu).
	log      *bgLog
	logRead  int64
	logCarry string
	logSeen  int64 // the log's size at the last poll (either poll mode): read.until's "new output"
}

// backgroundPolicy is the registry policy of a spec's background block.
func backgroundPolicy(b *spec.Background) live.Policy {
	if b == nil {
		return live.Policy{}
	}
	pol := live.Policy{Max: b.MaxLive, Count: live.CountRunning, OnFull: live.Refuse, Retain: b.Retain, IDs: live.UUID}
	switch b.IDs {
	case spec.IDsPID:
		pol.IDs = live.PID
	case spec.IDsSequential:
		pol.IDs, pol.FirstID, pol.WrapID = live.Sequential, 1, spec.MaxSessionID
	}
	return pol
}

// addShell registers a process in the background (its slot reserved): a shell started there, or a
// foreground run whose timeout moved it there. It is done once its output is drained and closed. On a
// closed engine the process is killed and reaped, and the error returned.
func (e *Engine) addShell(p *proc.Process, st *streams, lg *bgLog, command string, started time.Time) (*bgShell, error) {
	sh := &bgShell{p: p, st: st, command: command, log: lg}
	if err := e.bg.Add(sh, p, started, st.close); err != nil {
		p.Kill()
		<-p.Done()
		st.close()
		return nil, err
	}
	return sh, nil
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
	if errors.Is(err, live.ErrFull) {
		c.data.Max = float64(c.e.v.Background.MaxLive)
		return c.fail(c.e.v.Background.LimitError)
	}
	return err // the engine closed during the call: the host's error, not the tool's
}

// shellFor finds the shell the shell_id parameter names, or renders the unknown-id failure.
func (c *call) shellFor() (*bgShell, error) {
	id := sessionIDText(c.params[c.t.spec.Param(spec.RoleShellID).Name]) // a pid may be sent as a number
	c.data.ID = id
	sh, ok := c.e.bg.Get(id)
	if !ok {
		return nil, c.fail(c.e.v.Background.UnknownID)
	}
	c.data.ShellID = sh.ID()
	c.data.Command = sh.command
	c.data.Pid = sh.p.Pid()
	c.data.Started = sh.Started().UTC().Format(time.RFC3339)
	return sh, nil
}

// poll reports a background shell's status and output, after the tool's wait.
func (c *call) poll() (json.RawMessage, error) {
	lines, err := c.logLines()
	if err != nil {
		return nil, err
	}
	sh, err := c.shellFor()
	if err != nil {
		return nil, err
	}
	if err := c.readWait(sh); err != nil {
		return nil, err
	}
	if sh.Finished() {
		c.fillExit(sh.p.Exit())
	} else {
		c.data.Running = true
	}
	so, se := sh.streams()
	out, errText := so.Head, se.Head
	// Redaction reads each stream knowing where it stops (a running shell, or its buffer's limit) and, for
	// poll: new, what the last poll ended in.
	outPiece := piece{open: c.data.Running || !so.Complete}
	errPiece := piece{open: c.data.Running || !se.Complete}
	pollNew := c.e.v.Background.Poll == spec.PollNew
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
	c.readLog(sh, lines)
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
	<-sh.Done()
	c.fillExit(sh.p.Exit())
	c.e.bg.Forget(sh)
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
	s := Shell{ID: sh.ID(), Pid: sh.p.Pid(), Command: sh.command, Started: sh.Started(), Running: true}
	if sh.Finished() {
		x := sh.p.Exit()
		s.Running, s.ExitCode, s.Signal = false, x.Code, int(x.Signal)
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
func (e *Engine) Shells() []Shell { return describeAll(e.bg, (*bgShell).describe) }

// Shell reports one background shell by id (a uuid, or the pid as a decimal string, as the spec says).
func (e *Engine) Shell(id string) (Shell, bool) {
	sh, ok := e.bg.Get(id)
	if !ok {
		return Shell{}, false
	}
	return sh.describe(), true
}

// WaitShell waits until a background shell has completed (output drained) or ctx ends.
func (e *Engine) WaitShell(ctx context.Context, id string) (Shell, error) {
	return waitLive(ctx, e.bg, "shell", id, (*bgShell).describe)
}

// KillShell kills a background shell's process group, waits for it, and removes it from the registry.
func (e *Engine) KillShell(id string) error { return killLive(e.bg, "shell", id) }
