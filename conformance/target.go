package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/serve"
	"github.com/agentbash/agentbash/spec"
)

// Target is an implementation under test.
type Target interface {
	// Name describes the target in reports.
	Name() string
	// Open starts the target for one run of the suite (a process, for Wire and MCP).
	Open(ctx context.Context) (Conn, error)
}

// Conn is an open target. The suite calls it from one goroutine at a time, unless the run is Parallel:
// then it must be safe for concurrent use (the built-in targets are).
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

// caseEnder is implemented by conns that hold something per workspace (an MCP stdio server) to release once
// the case is judged.
type caseEnder interface{ endCase(workspace string) }

// fixedWorkspacer is implemented by conns whose target serves one workspace for the whole run (an MCP server
// at a URL): the suite empties and sets it up before each case, and runs the cases one at a time.
type fixedWorkspacer interface{ fixedWorkspace() string }

// Warner is implemented by conns that tolerate what a target did but report it (a log line on stdout).
type Warner interface{ Warnings() []string }

// Request is one call, as the wire protocol sends it (without the id).
type Request struct {
	Tool      string          `json:"tool"`
	Params    json.RawMessage `json:"params"`
	Workspace string          `json:"workspace"`
	// Format is the tool's result format (json or text), for targets whose answers do not say (MCP's
	// text content). It is not sent on the wire.
	Format string `json:"-"`
	// Case is the name of the case the call belongs to, for a target's records. It is not sent either.
	Case string `json:"-"`
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
	return &inProcessConn{pool: serve.NewPool(p.v, serve.PoolOptions{Runtime: p.opts, MaxEngines: math.MaxInt, IdleTimeout: -1})}, nil
}

type inProcessConn struct{ pool *serve.Pool }

func (c *inProcessConn) Call(ctx context.Context, req Request) (Answer, error) {
	return answerOf(c.pool.Call(ctx, req.Workspace, req.Tool, req.Params))
}
func (c *inProcessConn) Close() error { return c.pool.Close() }
