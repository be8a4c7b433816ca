package conformance

import (
	"errors"
	"fmt"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/proc"
)

// referenceOptions are the options of a case's reference engine, in workspace ws: Reference's, and for a
// case whose command would do harm (Hazard: a policy's blocked example, as written), an executor that
// starts nothing. The reference's policies block that command before anything could start it; if they did
// not (a spec missing its rule), refused returns the error that fails the case, and nothing ran.
func (s *Session) referenceOptions(c Case, ws string) (opts []runtime.Option, refused func() error) {
	opts = append([]runtime.Option{runtime.WithWorkspace(ws)}, s.o.refOpts...)
	if c.Hazard == "" {
		return opts, func() error { return nil }
	}
	r := &proc.Refuser{}
	opts = append(opts, runtime.WithExecutor(r))
	return opts, func() error {
		if err := r.Err(); err != nil {
			return fmt.Errorf("a command that would do harm got past the spec's policies: %w", err)
		}
		return nil
	}
}

// workspaceResetter is an executor whose containers see a copy of each workspace (a remote Docker
// Engine's volume per workspace), made from the workspace's directory here when first needed.
type workspaceResetter interface {
	ResetWorkspace(root string) error
}

// resetWorkspaces has the reference's and the target's executors make their copies of the case's
// workspaces anew from the directories the suite set up (and, after the case, drop them).
func (s *Session) resetWorkspaces(ref, tgt string) error {
	var errs []error
	if r, ok := runtime.ExecutorOf(s.o.refOpts...).(workspaceResetter); ok {
		errs = append(errs, r.ResetWorkspace(ref))
	}
	if s.caps.ResetWorkspace != nil && s.fixedWS == "" {
		errs = append(errs, s.caps.ResetWorkspace(tgt))
	}
	return errors.Join(errs...)
}
