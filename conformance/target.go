package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// Target is an implementation under test.
type Target interface {
	// Name describes the target in reports.
	Name() string
	// Open starts the target for one run of the suite (a process, for Wire and MCP).
	Open(ctx context.Context) (Conn, error)
}

// Conn is an open target. The suite calls it from one goroutine at a time.
type Conn interface {
	// Call sends one tool call with workspace as the workspace root and returns the target's answer. An
	// error means the target gave no answer (it crashed, hung past ctx's deadline, or broke the protocol);
	// a tool's raised error is an Answer.
	Call(ctx context.Context, req Request) (Answer, error)
	// Close ends the target and waits for it.
	Close() error
}

// Trusting is implemented by targets known to check a spec's policies before anything could run a
// command (InProcess). Cases with a Hazard are sent only to them, or to any target with the Trusted option.
type Trusting interface {
	ChecksPoliciesFirst() bool
}

// ownProcesses is implemented by conns whose own processes run in a case's workspace (an MCP server, started
// there): they are not processes a call left running.
type ownProcesses interface{ ownPIDs() []int }

// Request is one call, as the wire protocol sends it (without the id).
type Request struct {
	Tool      string          `json:"tool"`
	Params    json.RawMessage `json:"params"`
	Workspace string          `json:"workspace"`
	// Format is the tool's result format (json or text), for targets whose answers do not say (MCP's
	// text content). It is not sent on the wire.
	Format string `json:"-"`
}

// Answer is a tool's answer: a result (an object, or a string for text tools) or a raised error.
type Answer struct {
	Result json.RawMessage    `json:"result,omitempty"`
	Error  *runtime.ToolError `json:"error,omitempty"`
}

// answerOf turns an engine call's outcome into an Answer; an error that is not the tool's is returned.
func answerOf(res json.RawMessage, err error) (Answer, error) {
	if err != nil {
		var te *runtime.ToolError
		if errors.As(err, &te) {
			return Answer{Error: &runtime.ToolError{Type: te.Type, Message: te.Message}}, nil
		}
		return Answer{}, err
	}
	return Answer{Result: res}, nil
}

// engines runs a variant with one engine per workspace, created on first use and all closed together.
type engines struct {
	v    *spec.Variant
	opts []runtime.Option

	mu     sync.Mutex
	byDir  map[string]*runtime.Engine
	closed bool
}

func newEngines(v *spec.Variant, opts []runtime.Option) *engines {
	return &engines{v: v, opts: opts, byDir: map[string]*runtime.Engine{}}
}

func (es *engines) get(workspace string) (*runtime.Engine, error) {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.closed {
		return nil, errors.New("conformance: engines are closed")
	}
	if e, ok := es.byDir[workspace]; ok {
		return e, nil
	}
	e, err := runtime.New(es.v, append(slices.Clone(es.opts), runtime.WithWorkspace(workspace))...)
	if err != nil {
		return nil, err
	}
	es.byDir[workspace] = e
	return e, nil
}

func (es *engines) call(ctx context.Context, req Request) (Answer, error) {
	if req.Workspace == "" {
		return Answer{}, errors.New("conformance: request has no workspace")
	}
	e, err := es.get(req.Workspace)
	if err != nil {
		return Answer{}, err
	}
	return answerOf(e.Call(ctx, req.Tool, req.Params))
}

// close closes every engine (killing and reaping what they left running), in a stable order.
func (es *engines) close() error {
	es.mu.Lock()
	es.closed = true
	all := es.byDir
	es.byDir = map[string]*runtime.Engine{}
	es.mu.Unlock()
	var errs []error
	for _, dir := range slices.Sorted(maps.Keys(all)) {
		errs = append(errs, all[dir].Close())
	}
	return errors.Join(errs...)
}

// InProcess is the variant run by this module's runtime in this process: the reference itself, useful to
// check the suite and a spec (and, with runtime options such as WithShell, the runtime on another shell).
func InProcess(v *spec.Variant, opts ...runtime.Option) Target {
	return &inProcess{v: v, opts: opts}
}

type inProcess struct {
	v    *spec.Variant
	opts []runtime.Option
}

func (p *inProcess) Name() string              { return fmt.Sprintf("in-process runtime (%s)", p.v.ID) }
func (p *inProcess) ChecksPoliciesFirst() bool { return true }

func (p *inProcess) Open(context.Context) (Conn, error) {
	return &inProcessConn{es: newEngines(p.v, p.opts)}, nil
}

type inProcessConn struct{ es *engines }

func (c *inProcessConn) Call(ctx context.Context, req Request) (Answer, error) {
	return c.es.call(ctx, req)
}
func (c *inProcessConn) Close() error { return c.es.close() }
