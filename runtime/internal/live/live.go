// Package live is the registry of an engine's live processes: the commands that outlive the call that
// started them (background shells, runs a timeout moved to the background, and sessions). One Registry
// type holds each kind; what differs between the kinds is data (Policy), not code:
//
//   - Max bounds the registry, counting the running entries and the starts in progress (CountRunning:
//     background shells, whose finished ones are retained apart) or every entry held, running or finished
//     (CountHeld: sessions, held until their exit is reported);
//   - past Max a start is refused (Refuse), or the least recently used entry outside the ProtectRecent most
//     recently used is pruned (PruneLRU), a finished one first with PruneFinishedFirst, and killed;
//   - finished entries are held until they are forgotten, or only the Retain most recent;
//   - ids are uuids, pids, or numbers drawn in sequence or at random from a range.
//
// Close kills every process and waits until each is reaped and finished; a closed registry refuses to
// reserve and to add. The package knows no spec: the runtime turns a spec's background and sessions
// blocks into Policies.
package live

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Process is a started command the registry holds (a *proc.Process).
type Process interface {
	Pid() int
	Kill()
	// Done closes once the process is reaped.
	Done() <-chan struct{}
}

// Count says which entries count toward a registry's Max.
type Count uint8

const (
	// CountRunning counts the starts in progress and the running entries; a finished entry does not count.
	CountRunning Count = iota
	// CountHeld counts the starts in progress and every entry held, running or finished.
	CountHeld
)

// Full is what a start does when the registry is full.
type Full uint8

const (
	// Refuse fails the start (ErrFull).
	Refuse Full = iota
	// PruneLRU forgets and kills the least recently used entry outside the ProtectRecent most recently used
	// (a finished one first with PruneFinishedFirst), or refuses when every entry is protected.
	PruneLRU
)

// IDs is how a registry names its entries.
type IDs uint8

const (
	// UUID names each entry with a random uuid.
	UUID IDs = iota
	// PID names an entry with its process id in decimal (a uuid for a process without one).
	PID
	// Sequential numbers the entries FirstID, FirstID+1, ..., WrapID, then FirstID again, never one in use;
	// GiveBack returns the last one given.
	Sequential
	// Random draws numbers uniformly from FirstID..LastID, never one in use.
	Random
)

// Policy is what distinguishes one kind of live process from another.
type Policy struct {
	// Max bounds the entries that Count counts.
	Max   int
	Count Count
	// OnFull is what a start does past Max; ProtectRecent and PruneFinishedFirst refine PruneLRU.
	OnFull             Full
	ProtectRecent      int
	PruneFinishedFirst bool
	// Retain, when positive, is how many finished entries are held, the oldest forgotten first; zero holds
	// them until they are forgotten.
	Retain int
	// IDs is how entries are named; FirstID, LastID and WrapID bound the numbered ones.
	IDs                     IDs
	FirstID, LastID, WrapID int
}

var (
	// ErrFull refuses a start past the registry's Max.
	ErrFull = errors.New("live: the registry is full")
	// ErrClosed refuses a start on a closed registry.
	ErrClosed = errors.New("agentbash: engine is closed")
)

// Entry is what the registry keeps of a process. The types a Registry holds embed it; Add fills it.
type Entry struct {
	id      string
	p       Process
	started time.Time
	used    int64 // the registry's clock at the last Get (or Add), under the registry's lock
	done    chan struct{}
}

func (e *Entry) entry() *Entry { return e }

// ID is the entry's id, given by Add.
func (e *Entry) ID() string { return e.id }

// Started is when the call that started the entry's process began.
func (e *Entry) Started() time.Time { return e.started }

// Done closes once the entry's process is reaped, its finish function (Add) has returned and the registry
// has retained or forgotten it as its policy says.
func (e *Entry) Done() <-chan struct{} { return e.done }

// Finished reports that Done is closed.
func (e *Entry) Finished() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// Kill kills the entry's process (its process group).
func (e *Entry) Kill() { e.p.Kill() }

// Holder is a type that embeds Entry (as a value, held by pointer).
type Holder interface {
	entry() *Entry
	ID() string
	Started() time.Time
	Done() <-chan struct{}
	Finished() bool
	Kill()
}

// Registry holds the live processes of one kind. It is safe for concurrent use.
type Registry[E Holder] struct {
	pol Policy

	mu       sync.Mutex
	byID     map[string]E
	finished []string // the ids of the finished entries held, oldest first (with Retain)
	reserved int      // starts in progress that took a slot
	running  int      // entries added whose process has not finished
	next     int      // the next Sequential id
	clock    int64    // orders uses
	closed   bool
	watchers sync.WaitGroup
}

// New returns an empty registry with the policy.
func New[E Holder](pol Policy) *Registry[E] {
	return &Registry[E]{pol: pol, byID: map[string]E{}, next: pol.FirstID}
}

// Policy returns the registry's policy.
func (r *Registry[E]) Policy() Policy { return r.pol }

// Reserve takes a slot for a start, so that Max holds under concurrency: past Max it refuses (ErrFull) or
// prunes an entry, which it kills. Add or Unreserve gives the slot back.
func (r *Registry[E]) Reserve() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	var pruned *Entry
	if r.fullLocked() {
		if r.pol.OnFull == PruneLRU {
			pruned = r.pruneLocked()
		}
		if pruned == nil {
			r.mu.Unlock()
			return ErrFull
		}
	}
	r.reserved++
	r.mu.Unlock()
	if pruned != nil {
		pruned.p.Kill()
	}
	return nil
}

func (r *Registry[E]) fullLocked() bool {
	n := r.running
	if r.pol.Count == CountHeld {
		n = len(r.byID)
	}
	return r.reserved+n >= r.pol.Max
}

// pruneLocked forgets the entry to prune and returns it, or nil when every entry is protected.
func (r *Registry[E]) pruneLocked() *Entry {
	all := make([]*Entry, 0, len(r.byID))
	for _, e := range r.byID {
		all = append(all, e.entry())
	}
	// Most recently used first.
	slices.SortFunc(all, func(a, b *Entry) int { return int(b.used - a.used) })
	candidates := all[min(r.pol.ProtectRecent, len(all)):]
	var victim *Entry
	if r.pol.PruneFinishedFirst {
		for i := len(candidates) - 1; i >= 0; i-- {
			if exited(candidates[i].p) {
				victim = candidates[i]
				break
			}
		}
	}
	if victim == nil && len(candidates) > 0 {
		victim = candidates[len(candidates)-1]
	}
	if victim != nil {
		r.forgetLocked(victim)
	}
	return victim
}

func exited(p Process) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}

// Unreserve gives back the slot of a start that started nothing.
func (r *Registry[E]) Unreserve() {
	r.mu.Lock()
	r.reserved--
	r.mu.Unlock()
}

// Add registers a started process in its reserved slot, as e (which embeds the Entry Add fills), and names
// it. When the process is reaped, finish (if not nil) runs, then e's Done closes. A closed registry refuses
// it (ErrClosed): the caller ends the process.
func (r *Registry[E]) Add(e E, p Process, started time.Time, finish func()) error {
	h := e.entry()
	h.p, h.started, h.done = p, started, make(chan struct{})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reserved--
	if r.closed {
		return ErrClosed
	}
	h.id = r.newIDLocked(p)
	r.clock++
	h.used = r.clock
	r.byID[h.id] = e
	r.running++
	r.watchers.Add(1)
	go r.watch(e, finish)
	return nil
}

// watch waits for an entry's process, finishes it, retains it as the policy says, and then closes its
// Done: one who sees it finished sees all it left (a background shell's output, drained) and the
// registry as it is after it.
func (r *Registry[E]) watch(e E, finish func()) {
	defer r.watchers.Done()
	h := e.entry()
	<-h.p.Done()
	if finish != nil {
		finish()
	}
	r.mu.Lock()
	r.running--
	if cur, ok := r.byID[h.id]; ok && cur.entry() == h && r.pol.Retain > 0 {
		// Not forgotten already (killed, pruned, reported), and not held until forgotten.
		r.finished = append(r.finished, h.id)
		for len(r.finished) > r.pol.Retain {
			delete(r.byID, r.finished[0])
			r.finished = r.finished[1:]
		}
	}
	r.mu.Unlock()
	close(h.done)
}

// newIDLocked names an entry as the policy says.
func (r *Registry[E]) newIDLocked(p Process) string {
	switch r.pol.IDs {
	case PID:
		if p.Pid() > 0 {
			return strconv.Itoa(p.Pid())
		}
	case Random:
		span := int64(r.pol.LastID) - int64(r.pol.FirstID) + 1
		for {
			id := strconv.FormatInt(int64(r.pol.FirstID)+rand.Int64N(span), 10)
			if _, used := r.byID[id]; !used {
				return id
			}
		}
	case Sequential:
		for {
			id := strconv.Itoa(r.next)
			if r.next < r.pol.WrapID {
				r.next++
			} else {
				r.next = r.pol.FirstID
			}
			if _, used := r.byID[id]; !used {
				return id
			}
		}
	}
	return uuid.NewString()
}

// Get finds an entry by id and marks it used.
func (r *Registry[E]) Get(id string) (E, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.byID[id]
	if ok {
		r.clock++
		e.entry().used = r.clock
	}
	return e, ok
}

// Forget removes an entry (its exit was reported, or it was killed); false if it was not held. The caller
// ends the process of an entry it forgets: Close ends only the entries held.
func (r *Registry[E]) Forget(e E) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.forgetLocked(e.entry())
}

func (r *Registry[E]) forgetLocked(h *Entry) bool {
	if cur, ok := r.byID[h.id]; !ok || cur.entry() != h {
		return false
	}
	delete(r.byID, h.id)
	if i := slices.Index(r.finished, h.id); i >= 0 {
		r.finished = slices.Delete(r.finished, i, i+1)
	}
	return true
}

// GiveBack forgets an entry whose id no one was told (a session whose command exited within the window of
// the call that started it): a Sequential id that is the last one given is given again.
func (r *Registry[E]) GiveBack(e E) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := e.entry()
	if r.forgetLocked(h) && r.pol.IDs == Sequential && strconv.Itoa(r.next-1) == h.id {
		r.next--
	}
}

// All returns the entries held, oldest first (by Started, then id).
func (r *Registry[E]) All() []E {
	r.mu.Lock()
	all := make([]E, 0, len(r.byID))
	for _, e := range r.byID {
		all = append(all, e)
	}
	r.mu.Unlock()
	slices.SortFunc(all, func(a, b E) int {
		x, y := a.entry(), b.entry()
		if c := x.started.Compare(y.started); c != 0 {
			return c
		}
		return strings.Compare(x.id, y.id)
	})
	return all
}

// Held returns the ids of the entries held and how many of them have not finished.
func (r *Registry[E]) Held() (ids []string, running int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, e := range r.byID {
		ids = append(ids, id)
		if !e.entry().Finished() {
			running++
		}
	}
	return ids, running
}

// Close forgets every entry, kills every process and waits until each is reaped and finished.
func (r *Registry[E]) Close() {
	r.mu.Lock()
	r.closed = true
	all := make([]*Entry, 0, len(r.byID))
	for _, e := range r.byID {
		all = append(all, e.entry())
	}
	r.byID = map[string]E{}
	r.finished = nil
	r.mu.Unlock()
	for _, h := range all {
		h.p.Kill()
	}
	r.watchers.Wait()
}
