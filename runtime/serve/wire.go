package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/runtime"
)

// DefaultMaxConcurrent bounds the calls the wire protocol runs at once; past it, reading waits.
const DefaultMaxConcurrent = 128

// WireOptions configure ServeWire.
type WireOptions struct {
	// MaxLine bounds a request line (default DefaultMaxLine). A longer line is read through and dropped,
	// and answered with a ProtocolError (with the request's id when the line starts with it).
	MaxLine int
	// MaxConcurrent bounds the calls running at once (default DefaultMaxConcurrent).
	MaxConcurrent int
}

// wireRequest is one request line of the wire protocol.
type wireRequest struct {
	ID        json.RawMessage `json:"id"`
	Tool      string          `json:"tool"`
	Params    json.RawMessage `json:"params"`
	Workspace string          `json:"workspace"`
}

// wireAnswer is one answer line of the wire protocol.
type wireAnswer struct {
	ID     json.RawMessage    `json:"id"`
	Result json.RawMessage    `json:"result,omitempty"`
	Error  *runtime.ToolError `json:"error,omitempty"`
}

// Error types of the wire protocol that are not a tool's.
const (
	// ProtocolError answers a line that is not a request (not JSON, or over the length limit).
	ProtocolError = "ProtocolError"
	// CallError answers a request the server could not run (an unknown tool, a missing workspace).
	CallError = "Error"
	// Cancelled answers a call cancelled before it ended (the input ended, the server is stopping).
	Cancelled = "Cancelled"
)

var errInputEnded = errors.New("the input ended")

// ServeWire serves the wire protocol (conformance/PROTOCOL.md) on r and w: one JSON request per line in,
// one JSON answer per line out. Requests run concurrently (up to MaxConcurrent) on b, each answered with its
// id as soon as it is done, so answers may come in any order. A line that is not a request is answered
// with the error type ProtocolError and id null (or the id it starts with), a request b cannot run with
// the type Error; blank lines are skipped.
//
// At the end of r every call still running is cancelled (its process group killed) and answered with the
// type Cancelled, and ServeWire returns nil. When ctx is done it does the same and returns ctx's error;
// when an answer cannot be written (a closed stdout) it cancels every call and returns the write error.
// It returns only once every call it started has returned. It does not close b.
//
// A read of r that blocks cannot be interrupted: when ServeWire returns before the end of r (ctx done, a
// broken w), the goroutine reading r ends at r's next line or at its end.
func ServeWire(ctx context.Context, b Backend, r io.Reader, w io.Writer, o *WireOptions) error {
	var opts WireOptions
	if o != nil {
		opts = *o
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	calls, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	out := &lineWriter{w: w, broken: func(err error) { cancel(err) }}

	type item struct {
		line []byte
		long *overLong
		err  error
	}
	items := make(chan item)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		lr := newLineReader(r, opts.MaxLine)
		for {
			line, long, err := lr.next()
			select {
			case items <- item{line, long, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()

	var wg sync.WaitGroup
	sem := make(chan struct{}, opts.MaxConcurrent)
	var end error
loop:
	for {
		var it item
		select {
		case it = <-items:
		case <-calls.Done():
			break loop
		}
		switch {
		case it.long != nil:
			id := idOf(it.long.head)
			if id == nil {
				id = json.RawMessage("null")
			}
			out.write(wireAnswer{ID: id, Error: &runtime.ToolError{Type: ProtocolError,
				Message: fmt.Sprintf("the request line is %d bytes, over the limit of %d", it.long.size, opts.MaxLine)}})
		case len(trimSpace(it.line)) > 0:
			var req wireRequest
			if err := json.Unmarshal(it.line, &req); err != nil {
				out.write(wireAnswer{ID: json.RawMessage("null"), Error: &runtime.ToolError{Type: ProtocolError,
					Message: "the request is not a JSON object: " + err.Error()}})
				break
			}
			if len(req.ID) == 0 {
				req.ID = json.RawMessage("null")
			}
			select {
			case sem <- struct{}{}:
			case <-calls.Done():
				out.write(cancelled(req.ID, calls))
				break loop
			}
			wg.Go(func() {
				defer func() { <-sem }()
				ctx := withCallMeta(calls, &callMeta{Transport: Wire, ID: string(req.ID)})
				res, err := b.Call(ctx, req.Workspace, req.Tool, req.Params)
				out.write(answer(req.ID, res, err, calls))
			})
		}
		if it.err == io.EOF {
			cancel(errInputEnded)
			break
		}
		if it.err != nil {
			end = fmt.Errorf("serve: reading requests: %w", it.err)
			cancel(end)
			break
		}
	}
	cancel(context.Canceled)
	wg.Wait()
	if err := out.failed(); err != nil {
		return fmt.Errorf("serve: writing an answer: %w", err)
	}
	if end == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return end
}

// answer turns a call's outcome into its answer.
func answer(id, res json.RawMessage, err error, calls context.Context) wireAnswer {
	if err == nil {
		return wireAnswer{ID: id, Result: res}
	}
	var te *runtime.ToolError
	if errors.As(err, &te) {
		return wireAnswer{ID: id, Error: &runtime.ToolError{Type: te.Type, Message: te.Message}}
	}
	if calls.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return cancelled(id, calls)
	}
	return wireAnswer{ID: id, Error: &runtime.ToolError{Type: CallError, Message: err.Error()}}
}

func cancelled(id json.RawMessage, calls context.Context) wireAnswer {
	why := "the server is stopping"
	if c := context.Cause(calls); errors.Is(c, errInputEnded) {
		why = "the input ended"
	}
	return wireAnswer{ID: id, Error: &runtime.ToolError{Type: Cancelled, Message: "the call was cancelled: " + why}}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}

// lineWriter writes JSON lines, each in one Write, from any goroutine. After a failed write it writes
// nothing more and calls broken once.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	err    error
	broken func(error)
}

func (l *lineWriter) write(v any) {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		b, _ = jsonenc.Marshal(wireAnswer{ID: json.RawMessage("null"), Error: &runtime.ToolError{Type: CallError, Message: "serve: encoding an answer: " + err.Error()}})
	}
	l.writeLine(b)
}

func (l *lineWriter) writeLine(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	if _, err := l.w.Write(append(b, '\n')); err != nil {
		l.err = err
		if l.broken != nil {
			l.broken(err)
		}
	}
}

func (l *lineWriter) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
