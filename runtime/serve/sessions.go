package serve

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of the HTTP transports' sessions.
const (
	DefaultSessionIdle = 30 * time.Minute
	DefaultMaxSessions = 256
)

// sessionIDHeader is streamable HTTP's session header.
const sessionIDHeader = "Mcp-Session-Id"

// A connection is what the server knows of one MCP session of the HTTP transports (or of ServeStdio): how it
// came, and a context whose end cancels every call the session has in flight. It travels in the context
// the SDK connects the session with, whose values its handlers' contexts keep.
type connection struct {
	ctx       context.Context
	cancel    context.CancelFunc
	transport string
	remote    string // the address of the client that opened the session

	// Streamable HTTP only, under sessionTable.mu: the session's id, the requests in flight that name it
	// (an open event stream is one), and when the last one ended.
	id       string
	requests int
	last     time.Time
	released bool
}

type connKey struct{}

func withConnection(ctx context.Context, c *connection) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

func connectionFrom(ctx context.Context) *connection {
	c, _ := ctx.Value(connKey{}).(*connection)
	return c
}

// sessionTable bounds and expires the sessions of the HTTP transports. A session of streamable HTTP is
// idle when no request names it (an open GET event stream does) and none has for SessionIdle: the sweep
// then cancels its calls and closes it. An HTTP+SSE session lives as long as its event stream: when the
// stream ends, its calls are cancelled. Ending a session any way (DELETE, idle, the stream's end) first
// cancels its calls, so that the SDK's close, which waits for them, returns at once. Past MaxSessions a
// new session is refused with 503.
type sessionTable struct {
	srv  *mcp.Server
	idle time.Duration
	max  int

	mu   sync.Mutex
	live int                    // sessions admitted and not released
	byID map[string]*connection // streamable HTTP sessions by id

	sweepOnce sync.Once
	stop      chan struct{}
	stopOnce  sync.Once
}

func newSessionTable(srv *mcp.Server, idle time.Duration, max int) *sessionTable {
	if idle == 0 {
		idle = DefaultSessionIdle
	}
	if max <= 0 {
		max = DefaultMaxSessions
	}
	return &sessionTable{srv: srv, idle: idle, max: max, byID: map[string]*connection{}, stop: make(chan struct{})}
}

// errTooManySessions is the refusal of a session past the bound.
type errTooManySessions struct{ max int }

func (e errTooManySessions) Error() string {
	return fmt.Sprintf("too many MCP sessions: %d are open, the limit; end one (DELETE) or wait until an idle one expires", e.max)
}

// admit makes the connection of a new session, or refuses it past the bound.
func (t *sessionTable) admit(transport string, r *http.Request) (*connection, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.live >= t.max {
		return nil, errTooManySessions{t.max}
	}
	t.live++
	c := &connection{transport: transport, remote: r.RemoteAddr, last: time.Now()}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// release ends a connection: its calls are cancelled, and it no longer counts.
func (t *sessionTable) release(c *connection) {
	t.mu.Lock()
	if !c.released {
		c.released = true
		t.live--
		if c.id != "" && t.byID[c.id] == c {
			delete(t.byID, c.id)
		}
	}
	t.mu.Unlock()
	c.cancel()
}

// Len reports the sessions open.
func (t *sessionTable) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.live
}

// session returns the SDK's session of a streamable HTTP id, or nil.
func (t *sessionTable) session(id string) *mcp.ServerSession {
	for ss := range t.srv.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// streamable wraps the SDK's streamable HTTP handler with the table.
func (t *sessionTable) streamable(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(sessionIDHeader)
		if id == "" {
			if r.Method != http.MethodPost {
				h.ServeHTTP(w, r) // the SDK's answer (400, 405)
				return
			}
			t.startSweep()
			c, err := t.admit(HTTP, r)
			if err != nil {
				w.Header().Set("Retry-After", "60")
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
			cw := &idCapture{ResponseWriter: w, t: t, c: c}
			h.ServeHTTP(cw, r.WithContext(withConnection(r.Context(), c)))
			t.mu.Lock()
			cw.done = true
			made := c.id != ""
			if made {
				c.requests--
				c.last = time.Now()
			}
			t.mu.Unlock()
			// No session was made, or the SDK closed it at once (a failed initialize).
			if !made || t.session(c.id) == nil {
				t.release(c)
			}
			return
		}
		t.mu.Lock()
		c := t.byID[id]
		if c != nil {
			c.requests++
		}
		t.mu.Unlock()
		if c == nil {
			h.ServeHTTP(w, r) // the SDK's 404
			return
		}
		if r.Method == http.MethodDelete {
			// The SDK's close waits for the session's calls: cancel them first.
			c.cancel()
		}
		h.ServeHTTP(w, r)
		t.mu.Lock()
		c.requests--
		c.last = time.Now()
		t.mu.Unlock()
		if r.Method == http.MethodDelete {
			t.release(c)
		}
	})
}

// sse wraps the SDK's HTTP+SSE handler with the table: a GET opens a session, which lasts as long as it.
func (t *sessionTable) sse(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		c, err := t.admit(SSE, r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		defer t.release(c)
		// The end of the stream ends the session: its calls are cancelled before the SDK closes it.
		stop := context.AfterFunc(r.Context(), c.cancel)
		defer stop()
		h.ServeHTTP(w, r.WithContext(withConnection(r.Context(), c)))
	})
}

// idCapture learns the id the SDK gives a new streamable HTTP session from its response's header.
type idCapture struct {
	http.ResponseWriter
	t    *sessionTable
	c    *connection
	done bool
}

func (w *idCapture) WriteHeader(code int) {
	w.capture()
	w.ResponseWriter.WriteHeader(code)
}

func (w *idCapture) Write(b []byte) (int, error) {
	w.capture()
	return w.ResponseWriter.Write(b)
}

// Flush and Unwrap let the SDK stream its events and set deadlines through the wrapper.
func (w *idCapture) Flush() {
	w.capture()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *idCapture) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *idCapture) capture() {
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	if w.done {
		return
	}
	w.done = true
	if id := w.Header().Get(sessionIDHeader); id != "" {
		w.c.id = id
		w.c.requests = 1 // this request, until it ends
		w.t.byID[id] = w.c
		return
	}
	// An answer with no session id (server/discover, a refused initialize) made no session: it stops
	// counting before the client has it, so the client's next request (its initialize) finds the room.
	// The handler's context lives until it returns (the release after ServeHTTP cancels it).
	if !w.c.released {
		w.c.released = true
		w.t.live--
	}
}

// startSweep starts the idle sweep once (not at all when sessions never expire).
func (t *sessionTable) startSweep() {
	if t.idle < 0 {
		return
	}
	t.sweepOnce.Do(func() { go t.sweep() })
}

func (t *sessionTable) sweep() {
	tick := time.NewTicker(max(t.idle/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
		}
		t.expire(time.Now())
	}
}

// expire closes the streamable HTTP sessions idle since before now-idle, and forgets those the SDK
// closed itself.
func (t *sessionTable) expire(now time.Time) {
	var idle []*connection
	t.mu.Lock()
	for _, c := range t.byID {
		if c.requests == 0 && now.Sub(c.last) > t.idle {
			idle = append(idle, c)
		}
	}
	t.mu.Unlock()
	for _, c := range idle {
		ss := t.session(c.id)
		t.release(c) // cancels its calls first
		if ss != nil {
			go ss.Close()
		}
	}
	// A session the SDK ended on its own (a keep-alive failure) is no longer counted.
	open := map[string]bool{}
	for ss := range t.srv.Sessions() {
		open[ss.ID()] = true
	}
	var gone []*connection
	t.mu.Lock()
	for id, c := range t.byID {
		if !open[id] && c.requests == 0 {
			gone = append(gone, c)
		}
	}
	t.mu.Unlock()
	for _, c := range gone {
		t.release(c)
	}
}

// close stops the sweep and ends every session's calls.
func (t *sessionTable) close() {
	t.stopOnce.Do(func() { close(t.stop) })
	t.mu.Lock()
	all := make([]*connection, 0, len(t.byID))
	for _, c := range t.byID {
		all = append(all, c)
	}
	t.mu.Unlock()
	for _, c := range all {
		t.release(c)
	}
}
