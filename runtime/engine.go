// Package runtime executes any agentbash spec: it validates parameters, runs the ordered checks, starts
// the shell (through runtime/proc, the only code that starts processes), captures and decodes output
// (runtime/textcap), applies policies (runtime/policy) and shapes each outcome into the value the host
// receives. It knows no variant by name: everything variant-specific comes from the spec. It is the API
// users call (New, Engine.Call, Close, the options, ToolError); what generated adapters share is in
// runtime/genimpl, and the registry of the processes that outlive their call (background shells and
// sessions) in runtime/internal/live.
//
// Where the tools it reproduces differ among themselves in how they treat processes, the runtime answers
// one way for every spec, and specs do not list these as deviations:
//   - stdin is closed (/dev/null), so a command that reads it sees end of file instead of hanging;
//   - every run starts the shell in its own process group; a timeout with expiry kill, a cancelled call and
//     the shell's own exit kill what is left of the group, so no background child holds a call or outlives
//     it, and the processes of the run that left the group (setsid, a double fork) are found by their
//     environment marker and killed (runtime/proc);
//   - captures keep only what truncation needs, so memory is bounded by the spec's limits, not the output;
//   - background shells, runs moved to the background on timeout, and sessions are killed and reaped by
//     Close.
package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentbash/agentbash/runtime/internal/live"
	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/sandbox"
	"github.com/agentbash/agentbash/spec"
)

// ToolError is an error the tool raises to its host, in the source's own terms: Type is the error class
// (ValueError, ModelRetry, FileNotFoundError, ToolError, ...), Message its exact text.
type ToolError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func (e *ToolError) Error() string { return e.Type + ": " + e.Message }

// Option configures an Engine.
type Option func(*config)

type config struct {
	workspace string
	named     []Workspace // WithWorkspaces
	env       []string
	envSet    bool
	argv      []string
	shellSet  bool // WithShell: argv also replaces a persistent shell and goes before a program's argv
	terminal  io.Writer
	policy    []policy.Option
	sandbox   *sandbox.Config // WithSandbox; nil: the spec's sandbox block, if any
	approver  Approver        // WithApprover
	observer  CallObserver    // WithCallObserver
	executor  proc.Executor   // WithExecutor; nil: proc.Local
}

// WithWorkspace sets the workspace root: the default working directory and the confinement root.
// Default: the process's working directory.
func WithWorkspace(dir string) Option { return func(c *config) { c.workspace = dir } }

// Workspace is a named workspace root, for a tool whose workspace parameter picks one (WithWorkspaces).
type Workspace struct {
	Name, Dir string
}

// WithWorkspaces configures several named workspaces; the first is the default (the workspace of a call
// that names none, and of tools without a workspace parameter). Without it the one workspace
// (WithWorkspace) is named after its directory's base name.
func WithWorkspaces(ws ...Workspace) Option {
	return func(c *config) {
		c.named = append([]Workspace(nil), ws...)
		if len(ws) > 0 {
			c.workspace = ws[0].Dir
		}
	}
}

// WithEnv sets the environment commands inherit (default os.Environ()).
func WithEnv(env []string) Option {
	return func(c *config) { c.env, c.envSet = append([]string(nil), env...), true }
}

// WithShell overrides the spec's shell argv (the command is appended). It also replaces a persistent
// tool's shell, and goes before the program and arguments of a parameter with role argv.
func WithShell(argv ...string) Option {
	return func(c *config) { c.argv, c.shellSet = append([]string(nil), argv...), true }
}

// WithTerminal is where output goes when a call asks not to capture it (default: discarded).
func WithTerminal(w io.Writer) Option { return func(c *config) { c.terminal = w } }

// WithPolicyOptions passes host settings to the spec's policies (for example a permission rule set).
func WithPolicyOptions(opts ...policy.Option) Option {
	return func(c *config) { c.policy = append(c.policy, opts...) }
}

// WithSandbox confines every command the engine runs (runtime/sandbox: on Linux, Landlock for the
// filesystem, and a user, PID, network and mount namespace per run), overriding the spec's sandbox block;
// sandbox.Config{} (mode Off) turns a spec's sandbox off. In workspace-write mode the writable roots are
// the engine's workspaces. Where the machine lacks a mechanism the configuration needs, each call fails
// with the tool's spawn error naming it, unless BestEffort. The embedded shell cannot be sandboxed: New
// fails.
func WithSandbox(c sandbox.Config) Option { return func(cfg *config) { cfg.sandbox = &c } }

// Engine runs the tools of one variant. It is safe for concurrent use. Close ends every process it left
// running.
type Engine struct {
	v        *spec.Variant
	cfg      config
	tools    map[string]*tool
	policies map[string]policy.Checker
	bg       *live.Registry[*bgShell]
	sess     *live.Registry[*session]
	redact   *redactor
	sandbox  *sandbox.Sandbox // nil: commands run unconfined
	starter  proc.Starter     // WithExecutor's (executor.go); nil: proc.Start
	// resolved maps a workspace root to its physical path (symlinks resolved), which the calls report as
	// their default working directory: resolved once per engine, whose roots are fixed for its life.
	resolved sync.Map
	// carry holds the shell state that carries across calls (spec Tool.Carry).
	carry carrier
	// persist holds the persistent shells (persistent.go).
	persist persistents

	mu     sync.Mutex
	closed bool

	// Spilled output (spill.go): the engine's id and temporary directory, the calls' count, the files whose
	// lifetime is the engine's.
	id      string
	tempDir string
	seq     atomic.Int64
	spillMu sync.Mutex
	spills  map[string]bool
}

// New compiles a variant for execution: templates, policies (with their examples), limits.
func New(v *spec.Variant, opts ...Option) (*Engine, error) {
	if err := v.Complete(); err != nil {
		return nil, err
	}
	e := &Engine{v: v, tools: map[string]*tool{}, id: newUUID()}
	for _, o := range opts {
		o(&e.cfg)
	}
	if e.cfg.workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		e.cfg.workspace = wd
	}
	abs, err := filepath.Abs(e.cfg.workspace)
	if err != nil {
		return nil, err
	}
	e.cfg.workspace = abs
	if len(e.cfg.named) == 0 {
		e.cfg.named = []Workspace{{Name: filepath.Base(abs), Dir: abs}}
	}
	seen := make(map[string]bool, len(e.cfg.named))
	for i, w := range e.cfg.named {
		switch {
		case w.Name == "":
			return nil, fmt.Errorf("workspace %d has no name", i+1)
		case seen[w.Name]:
			return nil, fmt.Errorf("workspace %q is named twice", w.Name)
		case w.Dir == "":
			return nil, fmt.Errorf("workspace %q has no directory", w.Name)
		}
		seen[w.Name] = true
	}
	for i := range e.cfg.named {
		if e.cfg.named[i].Dir, err = filepath.Abs(e.cfg.named[i].Dir); err != nil {
			return nil, err
		}
	}
	if !e.cfg.envSet {
		e.cfg.env = os.Environ()
	}
	if e.cfg.terminal == nil {
		e.cfg.terminal = io.Discard
	}
	if len(e.cfg.argv) == 0 {
		e.cfg.argv = userShell(v.Shell, e.cfg.env)
	}
	if e.policies, err = policy.CompileVariant(v, e.cfg.policy...); err != nil {
		return nil, err
	}
	for i := range v.Tools {
		e.tools[v.Tools[i].Name] = compileTool(v, &v.Tools[i])
	}
	if e.sandbox, err = e.newSandbox(); err != nil {
		return nil, err
	}
	if spills(v) {
		if e.tempDir, err = os.MkdirTemp("", "agentbash-engine-"); err != nil {
			if e.sandbox != nil {
				e.sandbox.Close()
			}
			return nil, err
		}
	}
	if err := e.openExecutor(); err != nil {
		if e.sandbox != nil {
			e.sandbox.Close()
		}
		if e.tempDir != "" {
			os.RemoveAll(e.tempDir)
		}
		return nil, err
	}
	e.bg = live.New[*bgShell](backgroundPolicy(v.Background))
	e.sess = live.New[*session](sessionPolicy(v.Sessions))
	if e.redact, err = newRedactor(v.Redact); err != nil {
		return nil, fmt.Errorf("%s: redact: %w", v.File, err)
	}
	return e, nil
}

// newSandbox returns the engine's sandbox: WithSandbox's, else the spec's block; nil for none.
func (e *Engine) newSandbox() (*sandbox.Sandbox, error) {
	c := e.cfg.sandbox
	if c == nil {
		sb := e.v.Sandbox
		if sb == nil {
			return nil, nil
		}
		mode, err := sandbox.ParseMode(string(sb.Mode))
		if err != nil {
			return nil, e.v.ErrorAt("/sandbox/mode", "%v", err)
		}
		for i, p := range sb.UnixSockets {
			if !filepath.IsAbs(p) {
				return nil, e.v.ErrorAt(fmt.Sprintf("/sandbox/unix_sockets/%d", i), "unix socket %q: not an absolute path", p)
			}
		}
		c = &sandbox.Config{Mode: mode, Network: sb.Network, BestEffort: sb.BestEffort, UnixSockets: sb.UnixSockets}
	}
	if c.Mode == sandbox.Off {
		return nil, nil
	}
	if e.v.Shell.Embedded {
		return nil, fmt.Errorf("%s: the embedded shell runs inside this process and cannot be sandboxed (sandbox %s)", e.v.File, c.Mode)
	}
	roots := make([]string, len(e.cfg.named))
	for i, w := range e.cfg.named {
		roots[i] = w.Dir
	}
	return sandbox.New(*c, roots...)
}

// Sandbox returns the configuration the engine confines its commands with (mode Off: none).
func (e *Engine) Sandbox() sandbox.Config {
	if e.sandbox == nil {
		return sandbox.Config{}
	}
	return e.sandbox.Config()
}

// Variant returns the spec the engine runs.
func (e *Engine) Variant() *spec.Variant { return e.v }

// Workspace returns the absolute workspace root.
func (e *Engine) Workspace() string { return e.cfg.workspace }

// Policy returns the compiled policy with this name.
func (e *Engine) Policy(name string) (policy.Checker, bool) {
	c, ok := e.policies[name]
	return c, ok
}

// Call runs one tool call with the parameters a model sent and returns the tool's result as the host
// receives it: a JSON object, or a JSON string for text tools. A raised error is a *ToolError; any other
// error (a cancelled context, a closed engine, an unknown tool) is the caller's.
func (e *Engine) Call(ctx context.Context, toolName string, params json.RawMessage) (json.RawMessage, error) {
	if e.cfg.observer == nil {
		res, _, err := e.call(ctx, toolName, params)
		return res, err
	}
	res, c, err := e.call(ctx, toolName, params)
	e.observe(ctx, c, toolName, params, res, err)
	return res, err
}

// call runs one call; c is nil when the call did not start (a closed engine, an unknown tool).
func (e *Engine) call(ctx context.Context, toolName string, params json.RawMessage) (json.RawMessage, *call, error) {
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return nil, nil, fmt.Errorf("agentbash: engine is closed")
	}
	t, ok := e.tools[toolName]
	if !ok {
		if f := e.v.UnknownTool; f != nil {
			msg, err := spec.ParseTemplate("unknown_tool", f.Message)
			if err == nil {
				var text string
				if text, err = spec.Execute(msg, &spec.Data{Tool: toolName}); err == nil {
					if f.RPC() {
						return nil, nil, &RPCError{Code: f.Code, Message: text}
					}
					return nil, nil, &ToolError{Type: f.Type, Message: text}
				}
			}
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("agentbash: variant %s has no tool %q", e.v.ID, toolName)
	}
	c := &call{e: e, t: t, ctx: ctx, started: time.Now()}
	res, err := c.run(params)
	return res, c, err
}

// Close kills and reaps every process the engine left running (background shells) and waits for them.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	e.bg.Close()
	e.sess.Close()
	e.persist.close()
	e.carry.close()
	e.closeSpills()
	e.closeExecutor()
	if e.sandbox != nil {
		e.sandbox.Close()
	}
	proc.ReleaseIdle() // the runs' cgroup directory, if no run of any engine needs it now
	return nil
}
