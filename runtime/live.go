package runtime

import (
	"context"
	"fmt"

	"github.com/agentbash/agentbash/runtime/internal/live"
)

// The engine's live processes, background shells and sessions, are held in registries of one type
// (runtime/internal/live), each under the policy its spec block gives (backgroundPolicy, sessionPolicy);
// the Engine API reads them alike.

// Held lists what closing the engine would end or lose: the ids of its background shells and of its
// sessions (running, or finished and not yet reported), and how many of them still run.
func (e *Engine) Held() (shells, sessions []string, running int) {
	shells, n := e.bg.Held()
	sessions, m := e.sess.Held()
	return shells, sessions, n + m + e.persist.running()
}

// describeAll describes the entries of a registry, oldest first.
func describeAll[E live.Holder, I any](r *live.Registry[E], describe func(E) I) []I {
	all := r.All()
	out := make([]I, len(all))
	for i, x := range all {
		out[i] = describe(x)
	}
	return out
}

// waitLive waits until the entry named id has finished (its process reaped, its output drained) or ctx
// ends, and describes it.
func waitLive[E live.Holder, I any](ctx context.Context, r *live.Registry[E], kind, id string, describe func(E) I) (I, error) {
	x, ok := r.Get(id)
	if !ok {
		var zero I
		return zero, fmt.Errorf("agentbash: unknown %s %q", kind, id)
	}
	select {
	case <-x.Done():
		return describe(x), nil
	case <-ctx.Done():
		return describe(x), ctx.Err()
	}
}

// killLive kills the process group of the entry named id, waits until it has finished and forgets it.
func killLive[E live.Holder](r *live.Registry[E], kind, id string) error {
	x, ok := r.Get(id)
	if !ok {
		return fmt.Errorf("agentbash: unknown %s %q", kind, id)
	}
	x.Kill()
	<-x.Done()
	r.Forget(x)
	return nil
}
