package runtime

import (
	"fmt"

	"github.com/agentbash/agentbash/runtime/proc"
)

// WithExecutor sets where the engine's commands run: proc.Local (this machine, the default), a
// *proc.Refuser (nowhere: every command fails to start with proc.ErrRefused), or another machine's, such as
// a container per engine (runtime/proc/docker). The contract does not change with it: parameters, checks,
// policies, timeouts, output capture, decoding, truncation and results stay in this engine; only where the
// processes run does (an embedded shell's interpreter included: a remote executor runs it beside the
// commands). The engine opens the executor's starter in New and closes it in Close, after its background
// shells and sessions are ended. An executor other than proc.Local cannot be combined with a sandbox: New
// fails; a Refuser can (it starts nothing, so there is nothing to confine: the conformance suite's cases
// whose command would do harm run on one, a sandboxed target's included).
func WithExecutor(x proc.Executor) Option { return func(c *config) { c.executor = x } }

// ExecutorOf returns the executor that opts set (WithExecutor), or proc.Local: for a host that is given
// an engine's options and needs to reach its executor (the conformance suite, for the executor's copies of
// workspaces).
func ExecutorOf(opts ...Option) proc.Executor {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.executor == nil {
		return proc.Local
	}
	return c.executor
}

// openExecutor opens the engine's starter; none (nil) for the local executor, whose runs start through
// proc.Start directly.
func (e *Engine) openExecutor() error {
	x := e.cfg.executor
	if x == nil || x == proc.Local {
		return nil
	}
	if _, refuses := x.(*proc.Refuser); e.sandbox != nil && !refuses {
		return fmt.Errorf("%s: the sandbox confines commands on this machine, and the engine's executor runs them elsewhere: use one or the other", e.v.File)
	}
	roots := make([]string, len(e.cfg.named))
	for i, w := range e.cfg.named {
		roots[i] = w.Dir
	}
	s, err := x.Open(roots)
	if err != nil {
		return err
	}
	e.starter = s
	return nil
}

// start starts a run where the engine's executor says.
func (e *Engine) start(ps proc.Spec) (*proc.Process, error) {
	if e.starter == nil {
		return proc.Start(ps)
	}
	return e.starter.Start(ps)
}

// closeExecutor closes the engine's starter, after the engine has killed and reaped its runs.
func (e *Engine) closeExecutor() {
	if e.starter != nil {
		_ = e.starter.Close()
	}
}
