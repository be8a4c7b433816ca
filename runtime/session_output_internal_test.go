package runtime

import "testing"

// TestSessionOutputLogFirst: output a paged read has seen in the session's log is already where a write
// with since: write drops it (skip). The log is written with the window or pending buffer, under one lock;
// written beside it, a write right after the read could answer the read's line again (seen in CI:
// TestSessionPagedRead's write answered "l5\n").
func TestSessionOutputLogFirst(t *testing.T) {
	for i := range 5000 {
		lg := newBgLog(1 << 10)
		out := &sessionOutput{pending: newHeadTail(1 << 10), log: lg}
		seen := lg.changed()
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = out.Write([]byte("l5\n"))
		}()
		<-seen     // a paged read finds l5 in the log
		out.skip() // the next call is a write that answers only what follows it
		<-done
		if b := out.pending.drain(); len(b) > 0 {
			t.Fatalf("round %d: %q waits for the write's window after a read saw it in the log", i, b)
		}
	}
}
