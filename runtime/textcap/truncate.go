package textcap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Keep says which part of a text longer than a Limit is kept.
type Keep int

const (
	// Head keeps the start of the text and appends the marker.
	Head Keep = iota
	// Tail keeps the end of the text and puts the marker before it.
	Tail
	// HeadTail keeps the start and the end with the marker between them.
	HeadTail
)

// String returns the spec spelling of k: head, tail or head_tail.
func (k Keep) String() string {
	switch k {
	case Head:
		return "head"
	case Tail:
		return "tail"
	case HeadTail:
		return "head_tail"
	}
	return "Keep(" + strconv.Itoa(int(k)) + ")"
}

// Limit is a truncation rule.
type Limit struct {
	// Unit is the unit of Limit, Head, Tail and TailThreshold. A value other than Chars is Bytes.
	Unit Unit
	// Limit: a text longer than Limit units is truncated; one of at most Limit units is returned whole.
	Limit int
	// Keep says which parts are kept.
	Keep Keep
	// Head is the number of units kept at the start (Keep Head: 0 means Limit); Tail the number kept at the
	// end (Keep Tail: 0 means Limit). A part longer than the text is the whole text.
	Head, Tail int
	// TailThreshold (HeadTail): the tail is kept only if the total is greater than TailThreshold; otherwise
	// everything after the head follows the marker (for example text[:2500] + marker + (text[-1000:] if
	// len(text) > 3500 else text[2500:])). 0 means the tail is always kept.
	TailThreshold int
	// CutDecode is how each kept part is decoded, as Python's part.decode(errors=...) does: with Unit Bytes a
	// cut may split a UTF-8 sequence, which Replace turns into one U+FFFD and Ignore drops. Raw leaves the
	// bytes. Strict (the zero value) makes Truncate fail with the *DecodeError if a kept part is not valid
	// UTF-8. Valid parts are never changed.
	CutDecode Decode
	// Marker returns the text put where the text was cut, given the total units, the units kept (head plus
	// tail, before CutDecode) and the units elided (total minus kept, never negative). Nil means no marker.
	Marker func(total, kept, elided int64) string
}

// ErrNotKept is wrapped by the error Truncate and String return when a capture did not keep a part of the
// text they need (its Head or Tail capacity was too small).
var ErrNotKept = errors.New("textcap: the capture did not keep the text needed")

// Truncate applies l to the text the snapshot holds. The capture must have kept enough (Head at least the
// head needed, Tail at least the tail needed, or everything when the text is within the limit); otherwise the
// error wraps ErrNotKept. truncated reports whether the limit cut the text.
func (s Snapshot) Truncate(l Limit) (text string, truncated bool, err error) {
	return Rope{{Snap: &s}}.Truncate(l)
}

// Piece is a part of a Rope: a literal Text, or, when Snap is not nil, the text of a captured stream.
type Piece struct {
	// Text is the literal text (used when Snap is nil).
	Text string
	// Snap is a captured stream.
	Snap *Snapshot
}

// Rope is a text made of literal pieces and captured streams, so that a whole rendered result (a template
// around stdout and stderr) can be measured and truncated without holding the streams whole. Characters of
// literal text are counted as Go's range over a string counts them.
type Rope []Piece

// Len returns the length of the whole text in unit u.
func (r Rope) Len(u Unit) int64 {
	var n int64
	for _, p := range r {
		n += p.total(u)
	}
	return n
}

// String returns the whole text. A captured piece must be whole in the snapshot (Complete, or a Tail
// holding all of it); otherwise the error wraps ErrNotKept.
func (r Rope) String() (string, error) {
	var b strings.Builder
	for i, p := range r {
		s, err := p.whole()
		if err != nil {
			return "", fmt.Errorf("piece %d: %w", i, err)
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// Truncate applies l to the concatenation of the pieces, with the same semantics as Snapshot.Truncate.
// Counts of l above MaxKeep bytes' worth (MaxKeep/4 characters) are that much, as a Capture's capacities
// are: a limit that large cuts the text at what a capture can keep, with the marker's counts still those
// of the whole text.
func (r Rope) Truncate(l Limit) (string, bool, error) {
	if l.Limit < 0 || l.Head < 0 || l.Tail < 0 || l.TailThreshold < 0 {
		return "", false, errors.New("textcap: negative limit")
	}
	u := l.Unit
	if u != Chars {
		u = Bytes
	}
	l.Limit, l.Head, l.Tail = clampCap(l.Limit, u), clampCap(l.Head, u), clampCap(l.Tail, u)
	l.TailThreshold = clampCap(l.TailThreshold, u)
	total := r.Len(u)
	// mutate: textcap-limit
	if total <= int64(l.Limit) {
		s, err := r.String()
		return s, false, err
	}
	var hk, tk int64
	switch l.Keep {
	case Head:
		hk = int64(l.Head)
		if hk == 0 {
			// mutate: textcap-keep-head
			hk = int64(l.Limit)
		}
	case Tail:
		tk = int64(l.Tail)
		if tk == 0 {
			tk = int64(l.Limit)
		}
	case HeadTail:
		hk = int64(l.Head)
		tk = int64(l.Tail)
		// mutate: textcap-tail-threshold
		if total <= int64(l.TailThreshold) {
			tk = max(total-hk, 0)
		}
	default:
		return "", false, fmt.Errorf("textcap: unknown Keep %d", int(l.Keep))
	}
	hk, tk = min(hk, total), min(tk, total)
	head, err := r.prefix(u, hk)
	if err != nil {
		return "", false, err
	}
	tail, err := r.suffix(u, tk)
	if err != nil {
		return "", false, err
	}
	if head, err = cutDecode(head, l.CutDecode); err != nil {
		return "", false, err
	}
	if tail, err = cutDecode(tail, l.CutDecode); err != nil {
		return "", false, err
	}
	var marker string
	if l.Marker != nil {
		// mutate: textcap-kept
		kept := hk + tk
		marker = l.Marker(total, kept, max(total-kept, 0))
	}
	return head + marker + tail, true, nil
}

// cutDecode decodes a kept part as Python's part.decode(errors=...) would.
func cutDecode(s string, d Decode) (string, error) {
	if d == Raw || utf8.ValidString(s) {
		return s, nil
	}
	t, derr := DecodeBytes([]byte(s), d)
	if derr != nil {
		return "", derr
	}
	return t, nil
}

// prefix returns the first n units of the rope.
func (r Rope) prefix(u Unit, n int64) (string, error) {
	var b strings.Builder
	for i := 0; i < len(r) && n > 0; i++ {
		take := min(n, r[i].total(u))
		s, ok := r[i].prefix(u, take)
		if !ok {
			return "", fmt.Errorf("%w: the first %d %s of piece %d", ErrNotKept, take, u, i)
		}
		b.WriteString(s)
		n -= take
	}
	return b.String(), nil
}

// suffix returns the last n units of the rope.
func (r Rope) suffix(u Unit, n int64) (string, error) {
	var parts []string
	for i := len(r) - 1; i >= 0 && n > 0; i-- {
		take := min(n, r[i].total(u))
		s, ok := r[i].suffix(u, take)
		if !ok {
			return "", fmt.Errorf("%w: the last %d %s of piece %d", ErrNotKept, take, u, i)
		}
		parts = append(parts, s)
		n -= take
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i])
	}
	return b.String(), nil
}

func (p Piece) total(u Unit) int64 {
	if p.Snap == nil {
		if u == Chars {
			return runeCount(p.Text)
		}
		return int64(len(p.Text))
	}
	if u == Chars {
		return p.Snap.Chars
	}
	return p.Snap.Bytes
}

func (p Piece) whole() (string, error) {
	s := p.Snap
	switch {
	case s == nil:
		return p.Text, nil
	case s.Complete:
		return s.Head, nil
	case int64(len(s.Tail)) == s.Bytes:
		return s.Tail, nil
	}
	return "", fmt.Errorf("%w: %d bytes, %d in Head, %d in Tail", ErrNotKept, s.Bytes, len(s.Head), len(s.Tail))
}

// prefix returns the first n units of the piece, or false if they were not kept.
func (p Piece) prefix(u Unit, n int64) (string, bool) {
	s := p.Snap
	if s == nil {
		return prefixUnits(p.Text, u, n)
	}
	if n <= 0 {
		return "", true
	}
	h := s.Head
	if u == Chars && s.Unit != Chars && !s.Complete {
		// A byte-capped head may end inside a character: only its whole characters are known.
		h = trimPartialEnd(h)
	}
	return prefixUnits(h, u, n)
}

// suffix returns the last n units of the piece, or false if they were not kept.
func (p Piece) suffix(u Unit, n int64) (string, bool) {
	s := p.Snap
	if s == nil {
		return suffixUnits(p.Text, u, n)
	}
	if n <= 0 {
		return "", true
	}
	if s.Complete {
		return suffixUnits(s.Head, u, n)
	}
	t := s.Tail
	if u == Chars && s.Unit != Chars && int64(len(t)) < s.Bytes {
		// A byte-capped tail may start inside a character.
		t = trimPartialStart(t)
	}
	return suffixUnits(t, u, n)
}

// prefixUnits returns the first n units of s, or false if s is shorter.
func prefixUnits(s string, u Unit, n int64) (string, bool) {
	if n <= 0 {
		return "", true
	}
	if u != Chars {
		if int64(len(s)) < n {
			return "", false
		}
		return s[:n], true
	}
	i := 0
	for c := int64(0); c < n; c++ {
		if i >= len(s) {
			return "", false
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i], true
}

// suffixUnits returns the last n units of s, or false if s is shorter.
func suffixUnits(s string, u Unit, n int64) (string, bool) {
	if n <= 0 {
		return "", true
	}
	if u != Chars {
		if int64(len(s)) < n {
			return "", false
		}
		return s[int64(len(s))-n:], true
	}
	m := runeCount(s)
	if m < n {
		return "", false
	}
	i := 0
	for skip := m - n; skip > 0; skip-- {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[i:], true
}

// trimPartialEnd drops an incomplete UTF-8 sequence at the end of s.
func trimPartialEnd(s string) string {
	for j := len(s) - 1; j >= 0 && j >= len(s)-3; j-- {
		if s[j]&0xC0 != 0x80 {
			if !utf8.FullRuneInString(s[j:]) {
				return s[:j]
			}
			break
		}
	}
	return s
}

// trimPartialStart drops continuation bytes (at most 3) at the start of s.
func trimPartialStart(s string) string {
	for i := 0; i < 3 && len(s) > 0 && s[0]&0xC0 == 0x80; i++ {
		s = s[1:]
	}
	return s
}
