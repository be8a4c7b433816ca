package runtime

import (
	"bytes"
	"sync"

	"github.com/agentbash/agentbash/runtime/textcap"
)

// headTail is a session's output while no call reads it: the first half and the last half of its
// capacity in bytes; what lies between is dropped and not counted, as the sources' head-and-tail buffers
// drop it.
type headTail struct {
	headCap, tailCap int
	head             []byte
	ring             []byte // the last tailCap bytes after the head, a ring starting at start
	start, size      int
}

func newHeadTail(capacity int) *headTail {
	h := &headTail{headCap: capacity / 2}
	h.tailCap = capacity - h.headCap
	return h
}

func (h *headTail) write(b []byte) {
	if n := min(h.headCap-len(h.head), len(b)); n > 0 {
		h.head = append(h.head, b[:n]...)
		b = b[n:]
	}
	if len(b) == 0 || h.tailCap == 0 {
		return
	}
	if h.ring == nil {
		h.ring = make([]byte, h.tailCap)
	}
	if len(b) >= h.tailCap {
		copy(h.ring, b[len(b)-h.tailCap:])
		h.start, h.size = 0, h.tailCap
		return
	}
	// len(b) < tailCap: its bytes go at (end+i) mod tailCap, over the oldest when the ring is full.
	end := (h.start + h.size) % h.tailCap
	n := copy(h.ring[end:], b)
	copy(h.ring, b[n:])
	h.size += len(b)
	if h.size > h.tailCap {
		h.start = (h.start + h.size - h.tailCap) % h.tailCap
		h.size = h.tailCap
	}
}

// drain returns what is kept, head then tail, and empties the buffer.
func (h *headTail) drain() []byte {
	out := make([]byte, 0, len(h.head)+h.size)
	out = append(out, h.head...)
	if h.size > 0 {
		first := h.ring[h.start:min(h.start+h.size, h.tailCap)]
		out = append(out, first...)
		out = append(out, h.ring[:h.size-len(first)]...)
	}
	h.head, h.ring, h.start, h.size = nil, nil, 0, 0
	return out
}

// window collects the output of one yield window: decoded as the source decodes it (invalid UTF-8 as
// U+FFFD), kept only as far as the call's budget needs (its head and tail), counted whole.
type window struct {
	capture  *textcap.Capture
	newlines int64
	last     byte          // the last byte written
	output   chan struct{} // closed by the first write of some output (session.until: output)
}

func newWindow(unit textcap.Unit, head, tail int) *window {
	return &window{capture: textcap.New(textcap.Config{Decode: textcap.Replace, Unit: unit, Head: head, Tail: tail}),
		output: make(chan struct{})}
}

func (w *window) write(b []byte) {
	if len(b) == 0 {
		return
	}
	select {
	case <-w.output:
	default:
		close(w.output) // writes are serialised by sessionOutput's mutex
	}
	w.newlines += int64(bytes.Count(b, []byte{'\n'}))
	w.last = b[len(b)-1]
	_, _ = w.capture.Write(b)
}

// lines is the number of lines of the window's text, as Rust's str::lines counts them: a last line
// without "\n" counts. (Decoding never makes or takes a "\n", and an incomplete sequence at the end
// becomes U+FFFD, not "\n".)
func (w *window) lines(total int64) int64 {
	n := w.newlines
	if total > 0 && w.last != '\n' {
		n++
	}
	return n
}

// sessionOutput is the writer a session's process writes to: into the active window while a call reads,
// else into the head-and-tail buffer the next call drains first.
type sessionOutput struct {
	mu      sync.Mutex
	pending *headTail
	win     *window
	// log, when the variant pages its sessions' output, keeps all of it. It is written under mu with the
	// window or pending buffer, so that output a paged read has seen in the log is also where skip and
	// open find it: a write with since: write right after that read does not answer it again.
	log *bgLog
}

func (o *sessionOutput) Write(b []byte) (int, error) {
	o.mu.Lock()
	if o.log != nil {
		o.log.write(b)
	}
	if o.win != nil {
		o.win.write(b)
	} else {
		o.pending.write(b)
	}
	o.mu.Unlock()
	return len(b), nil
}

// open makes w the active window, with what arrived since the last one.
func (o *sessionOutput) open(w *window) {
	o.mu.Lock()
	w.write(o.pending.drain())
	o.win = w
	o.mu.Unlock()
}

// close ends the active window: what arrives from now on waits for the next.
func (o *sessionOutput) close() *window {
	o.mu.Lock()
	w := o.win
	o.win = nil
	o.mu.Unlock()
	if w != nil {
		w.capture.Close()
	}
	return w
}

// skip drops what waits for the next window (session.since: write).
func (o *sessionOutput) skip() {
	o.mu.Lock()
	o.pending.drain()
	o.mu.Unlock()
}
