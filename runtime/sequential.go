package runtime

import (
	"bytes"

	"github.com/agentbash/agentbash/runtime/textcap"
)

// A sequential capture (output.capture: sequential) reads stdout and stderr, captured apart, as one text
// with stdout first, as a host that joins the two streams at the end does (an aggregated
// output). Each stream keeps what the text's cut needs, its head and its tail; the text is their
// concatenation, computed from the two (concatSnapshots), and its lines are counted as the streams pass.

// seqCapture counts each stream's lines while its capture keeps it; head and tail are the units each
// capture keeps at its start and its end.
type seqCapture struct {
	out, err   *lineCounter
	head, tail int
}

// lineCounter is a writer that counts the newlines and remembers the last byte written, in front of a
// capture.
type lineCounter struct {
	capture  *textcap.Capture
	newlines int64
	last     byte
	wrote    bool
}

func (l *lineCounter) Write(b []byte) (int, error) {
	if len(b) > 0 {
		l.newlines += int64(bytes.Count(b, []byte{'\n'}))
		l.last, l.wrote = b[len(b)-1], true
	}
	return l.capture.Write(b)
}

func newSeqCapture(stdout, stderr *textcap.Capture, head, tail int) *seqCapture {
	return &seqCapture{out: &lineCounter{capture: stdout}, err: &lineCounter{capture: stderr}, head: head, tail: tail}
}

// budgetedSequential sizes the two captures for a budget: each keeps the budget's head and tail, which is
// what the concatenation's head and tail need. The window the budget reads (s.window) counts the joined
// text's lines once the run ended (snapshot).
func (s *streams) budgetedSequential(unit textcap.Unit, head, tail int) {
	cfg := textcap.Config{Decode: textcap.Replace, Unit: unit, Head: head, Tail: tail}
	s.stdout, s.stderr = textcap.New(cfg), textcap.New(cfg)
	s.seq = newSeqCapture(s.stdout, s.stderr, head, tail)
	s.window = &window{}
	s.combined = false
}

// snapshot joins the two streams' snapshots, and fills the budget's window with the joined text's line
// count (w may be nil: no budget).
func (q *seqCapture) snapshot(out, err *textcap.Snapshot, w *window) *textcap.Snapshot {
	if out == nil || err == nil {
		return nil
	}
	j := concatSnapshots(*out, *err, q.head, q.tail)
	if w != nil {
		w.newlines = q.out.newlines + q.err.newlines
		switch {
		case q.err.wrote:
			w.last = q.err.last
		case q.out.wrote:
			w.last = q.out.last
		}
	}
	return &j
}

// concatSnapshots is the snapshot of a's text followed by b's, for captures that keep head units at the
// start and tail at the end (in a's unit): the joined head is a's head and then b's, the joined tail b's
// tail after a's, each cut to its size.
func concatSnapshots(a, b textcap.Snapshot, head, tail int) textcap.Snapshot {
	chars := a.Unit == textcap.Chars
	j := textcap.Snapshot{Bytes: a.Bytes + b.Bytes, Chars: a.Chars + b.Chars, RawBytes: a.RawBytes + b.RawBytes,
		Unit: a.Unit, Err: a.Err}
	if j.Err == nil {
		j.Err = b.Err
	}
	if a.Complete {
		j.Head = firstUnits(a.Head+b.Head, head, chars)
	} else {
		j.Head = a.Head
	}
	bTotal := b.Bytes
	if chars {
		bTotal = b.Chars
	}
	if bTotal >= int64(tail) {
		j.Tail = b.Tail
	} else {
		j.Tail = lastUnits(a.Tail+b.Tail, tail, chars)
	}
	total := j.Bytes
	if chars {
		total = j.Chars
	}
	j.Complete = a.Complete && b.Complete && total <= int64(head)
	if j.Complete {
		j.Head = a.Head + b.Head
	}
	return j
}

func firstUnits(s string, n int, chars bool) string {
	if !chars {
		return s[:min(n, len(s))]
	}
	return firstChars(s, n)
}

func lastUnits(s string, n int, chars bool) string {
	if !chars {
		return s[max(0, len(s)-n):]
	}
	return lastChars(s, n)
}
