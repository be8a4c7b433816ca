package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/proc"
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
	// Capabilities says what else the conn does and how the suite runs cases on it; the suite asks once,
	// after Open. The zero value is a conn that only answers calls.
	Capabilities() Capabilities
	// Close ends the target and waits for it.
	Close() error
}

// Capabilities are what a conn does besides answering calls. Each field is optional.
type Capabilities struct {
	// ChecksPoliciesFirst says that the target checks a spec's policies before anything could run a
	// command (InProcess): cases with a Hazard are sent to it as to any target with the Trusted option.
	ChecksPoliciesFirst bool
	// FixedWorkspace is the one workspace the target serves for the whole run (an MCP server at a URL):
	// the suite empties and sets it up before each case, and runs the cases one at a time.
	FixedWorkspace string
	// BesideWorkspace, with a FixedWorkspace whose directory is the suite's, asks that the reference's
	// workspaces be made beside it (the same parent, names as long), so that a command that shows the
	// parent (pwd in "..") shows the same on both sides.
	BesideWorkspace bool
	// OwnPIDs lists the target's own processes, which run in a case's workspace (an MCP server started
	// there): they are not processes a call left running.
	OwnPIDs func() []int
	// Prepare makes the conn ready for a case's workspace before the case's time starts (an MCP stdio
	// server started and past its initialize handshake; a model target's host started and asking the
	// model): a slow start is bounded by the run's start-up deadline, not by the case's time bound.
	Prepare func(ctx context.Context, workspace string) error
	// EndCase releases what the conn holds for a workspace (an MCP stdio server) once its case is judged:
	// it kills and reaps everything the target started for the case, and returns what went wrong, each
	// process that was still running ("left a process running: pid N (command)") and a server that did
	// not exit at EOF, for the suite to report as problems of the case.
	EndCase func(workspace string) []string
	// CallParallel takes the copies of a repeated step as one request (a model target: parallel tool
	// calls in one answer of the model).
	CallParallel func(ctx context.Context, reqs []Request) ([]Answer, error)
	// View shows an answer as the target's user sees it, when that differs from how the reference's engine
	// answers (a model target: the text and error flag a model sees): both sides' answers are compared as
	// View shows them.
	View func(a Answer, format string) Answer
	// Warnings are what the target did that is tolerated but reported (a log line on stdout), asked for
	// after Close.
	Warnings func() []string
	// ResetWorkspace has the target make its copy of a workspace anew from the directory the suite set up
	// (an in-process runtime whose executor gives containers a volume per workspace); the suite calls it
	// after setting a case's workspace up, and after the case.
	ResetWorkspace func(workspace string) error
}

// WorkspaceName is the base name of the workspaces the suite makes for a target, which a target that
// makes its own workspace gives it too (a model target in batch mode): the reference's are named as long.
const WorkspaceName = "ws-tgt"

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
	// Hazard says that the command would do harm if it ran (a policy's blocked example, as written): an
	// in-process target runs it on an executor that starts nothing. It is not sent either.
	Hazard bool `json:"-"`
}

// Answer is a tool's answer: a result (an object, or a string for text tools) or a raised error.
type Answer struct {
	Result json.RawMessage    `json:"result,omitempty"`
	Error  *runtime.ToolError `json:"error,omitempty"`
}

// AnswerOf turns the outcome of a runtime.Engine call into an Answer: a raised *runtime.ToolError is the
// answer's error; any other error is returned.
func AnswerOf(res json.RawMessage, err error) (Answer, error) {
	if err != nil {
		var te *runtime.ToolError
		if errors.As(err, &te) {
			return Answer{Error: &runtime.ToolError{Type: te.Type, Message: te.Message}}, nil
		}
		// A failure the spec makes a JSON-RPC error (code): an MCP client sees it as one.
		var re *runtime.RPCError
		if errors.As(err, &re) {
			return Answer{Error: toolError("JSONRPCError", re.Message)}, nil
		}
		return Answer{}, err
	}
	return Answer{Result: res}, nil
}

// InProcess is the variant run by this module's runtime in this process: the reference itself, useful to
// check the suite and a spec (and, with runtime options such as WithShell, the runtime on another shell;
// with WithExecutor, in containers). A call whose command would do harm (Request.Hazard) runs on an
// executor that starts nothing: if the spec's policies let it through, the call fails, and nothing ran.
func InProcess(v *spec.Variant, opts ...runtime.Option) Target {
	return &inProcess{v: v, opts: opts}
}

type inProcess struct {
	v    *spec.Variant
	opts []runtime.Option
}

func (p *inProcess) Name() string { return fmt.Sprintf("in-process runtime (%s)", p.v.ID) }

func (p *inProcess) Open(context.Context) (Conn, error) {
	c := &inProcessConn{v: p.v, opts: p.opts, x: runtime.ExecutorOf(p.opts...)}
	if c.x == proc.Local {
		c.pool = c.newPool()
	} else {
		// An engine holds a container: one pool per workspace, closed with its case (EndCase).
		c.pools = map[string]*serve.Pool{}
	}
	return c, nil
}

type inProcessConn struct {
	v     *spec.Variant
	opts  []runtime.Option
	x     proc.Executor
	pool  *serve.Pool // with the local executor: every workspace's engine
	mu    sync.Mutex
	pools map[string]*serve.Pool // with another: each workspace's
}

func (c *inProcessConn) newPool(extra ...runtime.Option) *serve.Pool {
	opts := append(append([]runtime.Option(nil), c.opts...), extra...)
	return serve.NewPool(c.v, serve.PoolOptions{Runtime: opts, MaxEngines: math.MaxInt, IdleTimeout: -1})
}

func (c *inProcessConn) Call(ctx context.Context, req Request) (Answer, error) {
	if req.Hazard {
		r := &proc.Refuser{}
		pool := c.newPool(runtime.WithExecutor(r))
		a, err := AnswerOf(pool.Call(ctx, req.Workspace, req.Tool, req.Params))
		pool.Close()
		if rerr := r.Err(); rerr != nil && err == nil {
			err = fmt.Errorf("a command that would do harm got past the spec's policies: %w", rerr)
		}
		return a, err
	}
	pool := c.pool
	if pool == nil {
		c.mu.Lock()
		if pool = c.pools[req.Workspace]; pool == nil {
			pool = c.newPool()
			c.pools[req.Workspace] = pool
		}
		c.mu.Unlock()
	}
	return AnswerOf(pool.Call(ctx, req.Workspace, req.Tool, req.Params))
}

func (c *inProcessConn) Capabilities() Capabilities {
	caps := Capabilities{ChecksPoliciesFirst: true}
	if c.pools != nil {
		caps.EndCase = func(ws string) []string {
			c.mu.Lock()
			pool := c.pools[ws]
			delete(c.pools, ws)
			c.mu.Unlock()
			if pool != nil {
				pool.Close()
			}
			return nil
		}
	}
	if r, ok := c.x.(interface{ ResetWorkspace(string) error }); ok {
		caps.ResetWorkspace = r.ResetWorkspace
	}
	return caps
}

func (c *inProcessConn) Close() error {
	if c.pool != nil {
		return c.pool.Close()
	}
	c.mu.Lock()
	pools := c.pools
	c.pools = map[string]*serve.Pool{}
	c.mu.Unlock()
	var errs []error
	for _, p := range pools {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

func toolError(typ, msg string) *runtime.ToolError {
	return &runtime.ToolError{Type: typ, Message: msg}
}

// jsonObject reports whether a text is one JSON object (a result a tool whose results are JSON sent as text).
func jsonObject(text string) bool {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return false
	}
	_, obj := v.(map[string]any)
	return obj
}
