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
	// MaxEngines bounds the engines kept open (default 64). Past it the least recently used engine with no
	// call in flight is closed (one with no background process running first); closing an engine kills
	// what it left running, so its shell ids are forgotten.
	MaxEngines int
	// IdleTimeout closes an engine that had no call for this long and runs no background process
	// (default 10 minutes; negative: never).
	IdleTimeout time.Duration
}

// Pool runs a variant with one engine per workspace, created on first use and closed when idle: the
// least recently used beyond a bound, and any unused for a while that runs nothing. It is safe for
// concurrent use. Close cancels the calls in flight and closes every engine.
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
	stopGC chan struct{}
}

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
	p := &Pool{o: o, byDir: map[string]*entry{}, lru: list.New(), stopGC: make(chan struct{})}
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
	e, err := p.acquire(filepath.Clean(workspace))
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
	return e.eng.Call(ctx, tool, params)
}

func (p *Pool) acquire(dir string) (*entry, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	e, ok := p.byDir[dir]
	if !ok {
		eng, err := p.o.New(dir)
		if err != nil {
			return nil, err
		}
		e = &entry{dir: dir, eng: eng}
		e.el = p.lru.PushFront(e)
		p.byDir[dir] = e
	} else {
		p.lru.MoveToFront(e.el)
	}
	e.busy++
	p.calls.Add(1)
	p.evictLocked()
	return e, nil
}

func (p *Pool) release(e *entry) {
	p.mu.Lock()
	e.busy--
	e.last = time.Now()
	p.mu.Unlock()
	p.calls.Done()
}

// evictLocked closes least recently used engines while there are more than the bound: first those that
// run no background process, then any with no call in flight.
func (p *Pool) evictLocked() {
	for len(p.byDir) > p.o.MaxEngines {
		var victim *entry
		for _, quiet := range []bool{true, false} {
			for el := p.lru.Back(); el != nil && victim == nil; el = el.Prev() {
				e := el.Value.(*entry)
				if e.busy == 0 && (!quiet || !running(e.eng)) {
					victim = e
				}
			}
			if victim != nil {
				break
			}
		}
		if victim == nil {
			return // every engine has a call in flight
		}
		p.dropLocked(victim)
	}
}

// dropLocked forgets an entry and closes its engine in the background (Close waits for what it kills).
func (p *Pool) dropLocked(e *entry) {
	delete(p.byDir, e.dir)
	p.lru.Remove(e.el)
	p.closes.Add(1)
	go func() {
		defer p.closes.Done()
		_ = e.eng.Close()
	}()
}

// running reports whether an engine runs a background process.
func running(eng *runtime.Engine) bool {
	for _, sh := range eng.Shells() {
		if sh.Running {
			return true
		}
	}
	return false
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
			if e.busy == 0 && e.last.Before(cutoff) && !running(e.eng) {
				p.dropLocked(e)
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
