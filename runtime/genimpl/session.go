package genimpl

import (
	"context"

	"github.com/agentbash/agentbash/runtime"
)

// Sessions lists the sessions the adapter's tools started that the engine holds (running, or exited and
// not yet reported), oldest first.
func (g *Generated) Sessions() []runtime.SessionInfo { return g.eng.Sessions() }

// KillSession kills a session's process group, waits for it and forgets the session.
func (g *Generated) KillSession(id string) error { return g.eng.KillSession(id) }

// WaitSession waits until a session's command has exited (its output drained) or ctx ends.
func (g *Generated) WaitSession(ctx context.Context, id string) (runtime.SessionInfo, error) {
	return g.eng.WaitSession(ctx, id)
}
