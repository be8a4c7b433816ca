package textcap

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// sink keeps the first headCap units of a text in a buffer and the last tailCap units in a ring, and counts
// the whole text. Every segment written holds whole characters (see kind).
type sink struct {
	unit Unit

	headCap   int // units
	headMax   int // bytes the head buffer may need (headCap, or 4*headCap for Chars)
	head      []byte
	headUnits int

	tailCap  int // units
	ringSize int // bytes (tailCap, or 4*tailCap+3 for Chars: enough for tailCap characters whatever they are)
	ring     []byte
	ringPos  int // when the ring is full, the index of its oldest byte

	bytes, chars int64
	// newlines counts "\n" in the text when countLines is set.
	newlines   int64
	countLines bool
}

func (s *sink) init(u Unit, head, tail int) {
	s.unit = u
	s.tailCap = tail
	s.ringSize = tail
	if u == Chars && tail > 0 {
		s.ringSize = 4*tail + 3
	}
	s.reset(head)
}

// reset empties s and sets its head capacity, keeping buffers for reuse.
func (s *sink) reset(head int) {
	s.headCap = head
	s.headMax = head
	if s.unit == Chars {
		s.headMax = 4 * head
	}
	s.head = s.head[:0]
	s.headUnits = 0
	s.ring = s.ring[:0]
	s.ringPos = 0
	s.bytes, s.chars, s.newlines = 0, 0, 0
}

// limitHead lowers the head capacity to n units, keeping the first n units held. The head is copied to a
// buffer of its new size: the old one is released, and a Snapshot copying it unlocked still reads bytes
// that never change.
func (s *sink) limitHead(n int) {
	if n >= s.headCap {
		return
	}
	keep := len(s.head)
	if s.headUnits > n {
		keep = n
		if s.unit == Chars {
			keep = runeOffset(s.head, n)
		}
		s.headUnits = n
	}
	s.headCap, s.headMax = n, n
	if s.unit == Chars {
		s.headMax = 4 * n
	}
	s.head = append(make([]byte, 0, keep), s.head[:keep]...)
}

// runeOffset is the byte length of the first n runes of b, as Go's range over a string counts them (how a
// Chars head counts its units: a valid sequence or an invalid byte kept by Raw is one).
func runeOffset(b []byte, n int) int {
	i := 0
	for ; n > 0 && i < len(b); n-- {
		_, w := utf8.DecodeRune(b[i:])
		i += w
	}
	return i
}

func (s *sink) clone() sink {
	t := *s
	t.head = append([]byte(nil), s.head...)
	t.ring = append([]byte(nil), s.ring...)
	return t
}

func (s *sink) total() int64 {
	if s.unit == Chars {
		return s.chars
	}
	return s.bytes
}

func (s *sink) headRoom() int { return s.headCap - s.headUnits }

// write appends a segment of whole characters.
func (s *sink) write(seg []byte, k kind) {
	n := len(seg)
	s.bytes += int64(n)
	if s.countLines {
		s.newlines += int64(bytes.Count(seg, newline))
	}
	if k == kindUTF8 {
		s.chars += int64(countChars(seg))
	} else {
		s.chars += int64(n)
	}
	if s.headUnits < s.headCap {
		s.appendHead(seg, k)
	}
	if s.ringSize > 0 {
		s.appendRing(seg)
	}
}

// appendHead appends to the head as much of seg as it has room for.
func (s *sink) appendHead(seg []byte, k kind) {
	room := s.headCap - s.headUnits
	if room <= 0 || len(seg) == 0 {
		return
	}
	n, units := len(seg), len(seg)
	switch {
	case s.unit == Bytes || k != kindUTF8:
		if n > room {
			n, units = room, room
		}
	default:
		n, units = cutChars(seg, room)
	}
	s.head = appendBounded(s.head, seg[:n], s.headMax)
	s.headUnits += units
}

// appendRing appends seg to the ring, keeping its last ringSize bytes.
func (s *sink) appendRing(seg []byte) {
	size := s.ringSize
	if len(seg) >= size {
		if cap(s.ring) < size {
			s.ring = make([]byte, size)
		}
		s.ring = s.ring[:size]
		copy(s.ring, seg[len(seg)-size:])
		s.ringPos = 0
		return
	}
	if len(s.ring) < size {
		fill := min(size-len(s.ring), len(seg))
		s.ring = appendBounded(s.ring, seg[:fill], size)
		seg = seg[fill:]
		if len(seg) == 0 {
			return
		}
		s.ringPos = 0
	}
	m := copy(s.ring[s.ringPos:], seg)
	if m < len(seg) {
		s.ringPos = copy(s.ring, seg[m:])
	} else {
		s.ringPos += m
		if s.ringPos == size {
			s.ringPos = 0
		}
	}
}

// ringBytes returns the ring's content, oldest first (a fresh slice when the ring has wrapped).
func (s *sink) ringBytes() []byte {
	if len(s.ring) < s.ringSize || s.ringPos == 0 {
		return s.ring
	}
	out := make([]byte, 0, len(s.ring))
	out = append(out, s.ring[s.ringPos:]...)
	return append(out, s.ring[:s.ringPos]...)
}

// tailBytes returns the last min(total, tailCap) units.
func (s *sink) tailBytes() []byte {
	b := s.ringBytes()
	if s.unit == Chars {
		return lastChars(b, s.tailCap)
	}
	return b
}

// appendBounded appends src to dst, growing dst's capacity geometrically but never beyond max (the caller
// guarantees len(dst)+len(src) <= max).
func appendBounded(dst, src []byte, max int) []byte {
	need := len(dst) + len(src)
	if need > cap(dst) {
		c := 2 * cap(dst)
		if c < 512 {
			c = 512
		}
		if c < need {
			c = need
		}
		if c > max {
			c = max
		}
		if c < need {
			c = need
		}
		nd := make([]byte, len(dst), c)
		copy(nd, dst)
		dst = nd
	}
	return append(dst, src...)
}

// countChars counts the characters of valid UTF-8 (the bytes that are not continuation bytes).
func countChars(b []byte) int {
	n := len(b)
	cont := 0
	i := 0
	for ; i+8 <= n; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		cont += bits.OnesCount64(x &^ (x << 1) & hiBits)
	}
	for ; i < n; i++ {
		if b[i]&0xC0 == 0x80 {
			cont++
		}
	}
	return n - cont
}

// cutChars returns the byte length and character count of the first min(n, chars) characters of valid
// UTF-8 b.
func cutChars(b []byte, n int) (int, int) {
	c := 0
	for i, x := range b {
		if x&0xC0 != 0x80 {
			if c == n {
				return i, c
			}
			c++
		}
	}
	return len(b), c
}

// lastChars returns the last n runes of b as Go's range counts them. b may start in the middle of a
// character (a ring that wrapped): the misread continuation bytes are at most the first 3, and the ring holds
// 4n+3 bytes, so they are never among the last n runes.
func lastChars(b []byte, n int) []byte {
	m := 0
	for i := 0; i < len(b); m++ {
		_, w := utf8.DecodeRune(b[i:])
		i += w
	}
	i := 0
	for skip := m - n; skip > 0; skip-- {
		_, w := utf8.DecodeRune(b[i:])
		i += w
	}
	return b[i:]
}
