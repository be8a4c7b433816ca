package serve

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// Caller runs tool calls on one workspace: *runtime.Engine is one.
type Caller interface {
	Call(ctx context.Context, tool string, params json.RawMessage) (json.RawMessage, error)
}

// Backend runs the calls of the wire protocol, each on the workspace its request names. *Pool is the
// backend of `agentbash serve -transport wire`; BackendFunc adapts a function.
type Backend interface {
	Call(ctx context.Context, workspace, tool string, params json.RawMessage) (json.RawMessage, error)
}

// BackendFunc is a Backend made of a function.
type BackendFunc func(ctx context.Context, workspace, tool string, params json.RawMessage) (json.RawMessage, error)

// Call calls f.
func (f BackendFunc) Call(ctx context.Context, workspace, tool string, params json.RawMessage) (json.RawMessage, error) {
	return f(ctx, workspace, tool, params)
}

// Defaults of a Pool.
const (
	DefaultMaxEngines  = 64
	DefaultIdleTimeout = 10 * time.Minute
)

// PoolOptions configure a Pool.
type PoolOptions struct {
	// New makes the engine of a workspace (default: runtime.New of the pool's variant with the Runtime
	// options and runtime.WithWorkspace). A Go host sets it to configure its engines its own way.
	New func(workspace string) (*runtime.Engine, error)
	// Runtime are options for every engine the default New makes.
	Runtime []runtime.Option
	// Workspace is the workspace of a request that names none (default: none; such a request fails).
	Workspace string
	// MaxEngines bounds the engines kept open (default 64). A new workspace past it takes the place of
	// the least recently used engine that has no call in flight and runs no background shell or session
	// (one that holds nothing first); when there is none, its request waits for an engine whose calls
	// end, and is refused when every engine runs a background shell or session.
	MaxEngines int
	// IdleTimeout closes an engine that had no call for this long and runs no background shell or
	// session (default 10 minutes; negative: never).
	IdleTimeout time.Duration
}

// Pool runs a variant with one engine per workspace, created on first use and closed when it runs
// nothing: the least recently used beyond a bound, and any unused for a while. It never closes an engine
// whose background shell or session is running (only Close does): past the bound, a new workspace
// waits while some engine is busy only with calls (they end by themselves), and is refused when every
// engine runs a background shell or session. An engine closed with finished shells or sessions nobody read yet
// loses them; the tool's unknown-id error then says so when the model names one ("shell X was closed:
// its workspace's engine was reclaimed, ..."). It is safe for concurrent use. Close cancels the calls in
// flight and closes every engine.
type Pool struct {
	o PoolOptions

	base   context.Context
	cancel context.CancelFunc
	calls  sync.WaitGroup // calls in flight
	closes sync.WaitGroup // engines being closed

	mu     sync.Mutex
	byDir  map[string]*entry
	lru    *list.List // of *entry, most recently used first
	closed bool
	freed  chan struct{} // closed (and replaced) when a call ends: an engine may have become free
	stopGC chan struct{}
	notes  map[noteKey]note // what the model is told of a shell or session a reclaimed engine held
	order  []noteRef        // the notes, oldest first (bounded: maxNotes)
	seq    uint64
}

// note says why an engine holding a shell or session was reclaimed.
type note struct {
	why string
	seq uint64
}

type noteRef struct {
	k   noteKey
	seq uint64
}

// noteKey names a shell or a session of a workspace.
type noteKey struct{ dir, kind, id string }

// maxNotes bounds the notes kept of reclaimed shells and sessions.
const maxNotes = 4096

type entry struct {
	dir  string
	eng  *runtime.Engine
	busy int
	last time.Time
	el   *list.Element
}

// NewPool returns a pool running v.
func NewPool(v *spec.Variant, o PoolOptions) *Pool {
	if o.New == nil {
		opts := slices.Clone(o.Runtime)
		o.New = func(ws string) (*runtime.Engine, error) {
			return runtime.New(v, append(slices.Clone(opts), runtime.WithWorkspace(ws))...)
		}
	}
	if o.MaxEngines <= 0 {
		o.MaxEngines = DefaultMaxEngines
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	p := &Pool{o: o, byDir: map[string]*entry{}, lru: list.New(), freed: make(chan struct{}), stopGC: make(chan struct{}), notes: map[noteKey]note{}}
	p.base, p.cancel = context.WithCancel(context.Background())
	if o.IdleTimeout > 0 {
		go p.sweep()
	}
	return p
}

// ErrClosed is returned for a call on a closed pool.
var ErrClosed = errors.New("serve: closed")

// Call runs one call on the workspace's engine. The call is cancelled when ctx is done or the pool is
// closed.
func (p *Pool) Call(ctx context.Context, workspace, tool string, params json.RawMessage) (json.RawMessage, error) {
	if workspace == "" {
		workspace = p.o.Workspace
	}
	if workspace == "" {
		return nil, errors.New("serve: the request names no workspace")
	}
	if !filepath.IsAbs(workspace) {
		return nil, fmt.Errorf("serve: the workspace %q is not an absolute path", workspace)
	}
	e, err := p.acquire(ctx, filepath.Clean(workspace))
	if err != nil {
		return nil, err
	}
	defer p.release(e)
	if m := callMetaFrom(ctx); m != nil {
		mw := *m
		mw.Workspace = e.dir
		ctx = withCallMeta(ctx, &mw)
	}
	ctx, stop := mergeCancel(ctx, p.base)
	defer stop()
	res, err := e.eng.Call(ctx, tool, params)
	var te *runtime.ToolError
	if errors.As(err, &te) {
		err = p.annotate(e, tool, params, te)
	}
	return res, err
}

// annotate adds to a tool's error, when the call names a shell or session that a reclaimed engine of the
// workspace held (and this one does not), what became of it: once.
func (p *Pool) annotate(e *entry, tool string, params json.RawMessage, te *runtime.ToolError) error {
	t := e.eng.Variant().Tool(tool)
	if t == nil {
		return te
	}
	kind, param := "shell", t.Param(spec.RoleShellID)
	if param == nil {
		kind, param = "session", t.Param(spec.RoleSessionID)
	}
	if param == nil {
		return te
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(params, &args) != nil {
		return te
	}
	id := idText(args[param.Name])
	if id == "" {
		return te
	}
	key := noteKey{e.dir, kind, id}
	p.mu.Lock()
	n, ok := p.notes[key]
	if ok {
		delete(p.notes, key)
	}
	p.mu.Unlock()
	if !ok {
		return te
	}
	shells, sessions, _ := e.eng.Held()
	if slices.Contains(shells, id) || slices.Contains(sessions, id) {
		return te // the id is this engine's now
	}
	return &runtime.ToolError{Type: te.Type, Message: fmt.Sprintf("%s (%s %s was closed: its workspace's engine was reclaimed, %s)", te.Message, kind, id, n.why)}
}

// idText is an id as a call sends it: a string as it is, a number in its JSON form.
func idText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// errNoRoom refuses a new workspace when every engine runs a background shell or session.
func (p *Pool) errNoRoom(dir string) error {
	return fmt.Errorf("serve: no engine for the workspace %s: all %d engines (the limit) have a running background shell or session, which the server does not kill to make room; end one, or raise the limit", dir, p.o.MaxEngines)
}

// acquire returns the workspace's engine, made on first use, with one more call in flight. Past the
// bound, a new workspace takes the place of an engine that runs nothing; while every engine is busy but
// some only with calls (which end by themselves), it waits for one of them, as long as ctx allows; when
// every engine runs a background shell or session, it is refused.
func (p *Pool) acquire(ctx context.Context, dir string) (*entry, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.closed {
			return nil, ErrClosed
		}
		e, ok := p.byDir[dir]
		if ok {
			p.lru.MoveToFront(e.el)
		} else {
			if len(p.byDir) >= p.o.MaxEngines && !p.evictLocked() {
				if !p.willFreeLocked() {
					return nil, p.errNoRoom(dir)
				}
				freed := p.freed
				p.mu.Unlock()
				select {
				case <-freed:
				case <-ctx.Done():
				case <-p.base.Done():
				}
				p.mu.Lock()
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("serve: no engine for the workspace %s: all %d engines (the limit) were busy until the call was cancelled: %w", dir, p.o.MaxEngines, err)
				}
				continue
			}
			eng, err := p.o.New(dir)
			if err != nil {
				return nil, err
			}
			e = &entry{dir: dir, eng: eng}
			e.el = p.lru.PushFront(e)
			p.byDir[dir] = e
		}
		e.busy++
		p.calls.Add(1)
		return e, nil
	}
}

// willFreeLocked reports whether an engine that cannot be closed now will become closable by itself: it
// has calls in flight and runs no background shell or session.
func (p *Pool) willFreeLocked() bool {
	for _, e := range p.byDir {
		if e.busy > 0 {
			if _, _, running := e.eng.Held(); running == 0 {
				return true
			}
		}
	}
	return false
}

func (p *Pool) release(e *entry) {
	p.mu.Lock()
	e.busy--
	e.last = time.Now()
	close(p.freed)
	p.freed = make(chan struct{})
	p.mu.Unlock()
	p.calls.Done()
}

// evictLocked closes the least recently used engine with no call in flight and nothing running (one that
// holds nothing first), and reports whether there was one.
func (p *Pool) evictLocked() bool {
	var quiet, finished *entry
	for el := p.lru.Back(); el != nil && quiet == nil; el = el.Prev() {
		e := el.Value.(*entry)
		if e.busy > 0 {
			continue
		}
		shells, sessions, running := e.eng.Held()
		switch {
		case running > 0:
		case len(shells)+len(sessions) == 0:
			quiet = e
		case finished == nil:
			finished = e
		}
	}
	victim := quiet
	if victim == nil {
		victim = finished
	}
	if victim == nil {
		return false
	}
	p.dropLocked(victim, fmt.Sprintf("to make room: more than %d workspaces in use", p.o.MaxEngines))
	return true
}

// dropLocked forgets an entry and closes its engine in the background (Close waits for what it kills),
// noting the shells and sessions it held, with why.
func (p *Pool) dropLocked(e *entry, why string) {
	shells, sessions, _ := e.eng.Held()
	for _, id := range shells {
		p.noteLocked(noteKey{e.dir, "shell", id}, why)
	}
	for _, id := range sessions {
		p.noteLocked(noteKey{e.dir, "session", id}, why)
	}
	delete(p.byDir, e.dir)
	p.lru.Remove(e.el)
	p.closes.Add(1)
	go func() {
		defer p.closes.Done()
		_ = e.eng.Close()
	}()
}

func (p *Pool) noteLocked(k noteKey, why string) {
	p.seq++
	p.notes[k] = note{why, p.seq}
	p.order = append(p.order, noteRef{k, p.seq})
	for len(p.order) > maxNotes {
		old := p.order[0]
		p.order = p.order[1:]
		if n, ok := p.notes[old.k]; ok && n.seq == old.seq {
			delete(p.notes, old.k)
		}
	}
}

// sweep closes engines idle for longer than IdleTimeout that run nothing.
func (p *Pool) sweep() {
	t := time.NewTicker(max(p.o.IdleTimeout/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-p.stopGC:
			return
		case <-t.C:
		}
		p.mu.Lock()
		cutoff := time.Now().Add(-p.o.IdleTimeout)
		for el := p.lru.Back(); el != nil; {
			e := el.Value.(*entry)
			el = el.Prev()
			if e.busy > 0 || !e.last.Before(cutoff) {
				continue
			}
			if _, _, running := e.eng.Held(); running == 0 {
				p.dropLocked(e, fmt.Sprintf("idle for %v", p.o.IdleTimeout))
			}
		}
		p.mu.Unlock()
	}
}

// Len reports the engines open.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byDir)
}

// Close cancels every call in flight, waits for them, and closes every engine (killing and reaping what
// each left running).
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.closes.Wait()
		return nil
	}
	p.closed = true
	close(p.stopGC)
	p.mu.Unlock()
	p.cancel()
	p.calls.Wait()
	p.mu.Lock()
	var errs []error
	all := p.byDir
	p.byDir = map[string]*entry{}
	p.lru.Init()
	p.mu.Unlock()
	for _, e := range all {
		errs = append(errs, e.eng.Close())
	}
	p.closes.Wait()
	return errors.Join(errs...)
}

// mergeCancel returns a context that is ctx, also cancelled when other is done.
func mergeCancel(ctx, other context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(other, func() { cancel(context.Cause(other)) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}
