package runtime

import (
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
	"github.com/google/uuid"
)

// registry holds the processes that outlive their call: shells started in the background and foreground
// runs whose timeout moved them there. Output stays bounded; Close kills and reaps everything.
type registry struct {
	cfg *spec.Background

	mu       sync.Mutex
	shells   map[string]*bgShell
	live     int // running, reserved included
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

	mu     sync.Mutex
	polled [2]int // bytes of stdout and stderr already returned, for poll: new
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
	if r.cfg != nil && r.cfg.MaxLive > 0 && r.live >= r.cfg.MaxLive {
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
	if r.cfg != nil && r.cfg.IDs == "pid" {
		return strconv.Itoa(p.Pid())
	}
	return uuid.NewString()
}

// add registers a shell started in the background (its slot was reserved).
func (r *registry) add(p *proc.Process, st *streams, command string, started time.Time) *bgShell {
	return r.register(p, st, command, started, false)
}

// adopt registers a foreground run whose timeout moved it to the background.
func (r *registry) adopt(p *proc.Process, st *streams, command string, started time.Time) *bgShell {
	return r.register(p, st, command, started, true)
}

func (r *registry) register(p *proc.Process, st *streams, command string, started time.Time, count bool) *bgShell {
	sh := &bgShell{id: r.newID(p), p: p, st: st, command: command, started: started}
	r.mu.Lock()
	if count {
		r.live++
	}
	r.shells[sh.id] = sh
	closed := r.closed
	r.watchers.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.watchers.Done()
		<-p.Done()
		st.close()
		r.mu.Lock()
		r.live--
		r.mu.Unlock()
	}()
	if closed {
		p.Kill()
	}
	return sh
}

func (r *registry) get(id string) (*bgShell, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sh, ok := r.shells[id]
	return sh, ok
}

func (r *registry) remove(id string) {
	r.mu.Lock()
	delete(r.shells, id)
	r.mu.Unlock()
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
	cfg := c.e.bg.cfg
	if errors.Is(err, errLimit) && cfg != nil && cfg.LimitError != nil {
		c.data.Max = float64(cfg.MaxLive)
		return c.fail(cfg.LimitError)
	}
	return &failed{err: &ToolError{Type: "ToolError", Message: err.Error()}}
}

// shellFor finds the shell the shell_id parameter names, or renders the unknown-id failure.
func (c *call) shellFor() (*bgShell, error) {
	p := c.t.roles["shell_id"]
	id := c.str(p.Name)
	c.data.ID = id
	sh, ok := c.e.bg.get(id)
	if !ok {
		f := &spec.Failure{Type: "ToolError", Message: "unknown shell_id: {{.ID}}"}
		if c.e.bg.cfg != nil && c.e.bg.cfg.UnknownID != nil {
			f = c.e.bg.cfg.UnknownID
		}
		return nil, c.fail(f)
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
	case <-sh.p.Done():
		c.fillExit(sh.p.Exit())
	default:
		c.data.Running = true
	}
	snaps := sh.st.snapshots()
	sh.mu.Lock()
	out, errText := snaps.stdout.Head, snaps.stderr.Head
	if c.e.bg.cfg != nil && c.e.bg.cfg.Poll == "new" {
		out, errText = out[min(sh.polled[0], len(out)):], errText[min(sh.polled[1], len(errText)):]
		sh.polled = [2]int{len(snaps.stdout.Head), len(snaps.stderr.Head)}
	}
	sh.mu.Unlock()
	c.data.Stdout = textcap.Sanitize(out, true)
	c.data.Stderr = textcap.Sanitize(errText, true)
	c.data.StdoutBytes, c.data.StderrBytes = snaps.stdout.Bytes, snaps.stderr.Bytes
	c.data.StdoutKept, c.data.StderrKept = int64(len(snaps.stdout.Head)), int64(len(snaps.stderr.Head))
	c.data.StdoutTruncated = !snaps.stdout.Complete
	c.data.StderrTruncated = !snaps.stderr.Complete
	c.data.Truncated = c.data.StdoutTruncated || c.data.StderrTruncated
	return c.render("ok")
}

// kill ends a background shell's process group and waits for it.
func (c *call) kill() (json.RawMessage, error) {
	sh, err := c.shellFor()
	if err != nil {
		return nil, err
	}
	sh.p.Kill()
	<-sh.p.Done()
	c.fillExit(sh.p.Exit())
	c.e.bg.remove(sh.id)
	return c.render("ok")
}
