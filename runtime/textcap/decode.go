package textcap

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"
)

// DecodeError is a UTF-8 decode error as CPython reports it: the raw byte range [Start, End) and the reason
// ("invalid start byte", "invalid continuation byte" or "unexpected end of data").
type DecodeError struct {
	// Start is the position of the first byte of the invalid range in the raw bytes.
	Start int64
	// End is the position just after the invalid range.
	End int64
	// Byte is the byte at Start.
	Byte byte
	// Reason is CPython's reason text.
	Reason string
}

// The reasons CPython's UTF-8 decoder gives.
const (
	reasonStart        = "invalid start byte"
	reasonContinuation = "invalid continuation byte"
	reasonEnd          = "unexpected end of data"
)

// Error returns Python's str(UnicodeDecodeError) for the utf-8 codec, for example
// "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte" or
// "'utf-8' codec can't decode bytes in position 4-5: invalid continuation byte".
func (e *DecodeError) Error() string {
	if e.End-e.Start == 1 {
		const hex = "0123456789abcdef"
		return "'utf-8' codec can't decode byte 0x" + string([]byte{hex[e.Byte>>4], hex[e.Byte&15]}) +
			" in position " + strconv.FormatInt(e.Start, 10) + ": " + e.Reason
	}
	return "'utf-8' codec can't decode bytes in position " + strconv.FormatInt(e.Start, 10) + "-" +
		strconv.FormatInt(e.End-1, 10) + ": " + e.Reason
}

// seqLen is the length of the well-formed sequence a byte starts: 1 for ASCII, 2-4 for a valid lead byte,
// 0 for a byte that cannot start a sequence (continuation bytes 80-BF, C0, C1, F5-FF).
var seqLen = func() (t [256]uint8) {
	for i := range t {
		switch {
		case i < 0x80:
			t[i] = 1
		case i < 0xC2:
			t[i] = 0
		case i < 0xE0:
			t[i] = 2
		case i < 0xF0:
			t[i] = 3
		case i < 0xF5:
			t[i] = 4
		}
	}
	return t
}()

// validCont reports whether x may be byte idx (1-3) of a sequence starting with lead (Unicode table 3-7:
// E0 A0..BF, ED 80..9F, F0 90..BF, F4 80..8F, otherwise 80..BF).
func validCont(lead byte, idx int, x byte) bool {
	if idx == 1 {
		switch lead {
		case 0xE0:
			return x >= 0xA0 && x <= 0xBF
		case 0xED:
			return x >= 0x80 && x <= 0x9F
		case 0xF0:
			return x >= 0x90 && x <= 0xBF
		case 0xF4:
			return x >= 0x80 && x <= 0x8F
		}
	}
	return x&0xC0 == 0x80
}

const hiBits = 0x8080808080808080

// first and acceptRanges are the fast path's tables (as in Go's unicode/utf8): for a valid lead byte, the
// sequence length (low 3 bits) and the index of the range its second byte must be in (high 4 bits); 0 for
// ASCII and invalid lead bytes.
var first = func() (t [256]uint8) {
	for i := 0xC2; i < 0xF5; i++ {
		switch {
		case i < 0xE0:
			t[i] = 2
		case i == 0xE0:
			t[i] = 3 | 1<<4
		case i == 0xED:
			t[i] = 3 | 2<<4
		case i < 0xF0:
			t[i] = 3
		case i == 0xF0:
			t[i] = 4 | 3<<4
		case i == 0xF4:
			t[i] = 4 | 4<<4
		default:
			t[i] = 4
		}
	}
	return t
}()

var acceptRanges = [5]struct{ lo, hi byte }{
	{0x80, 0xBF},
	{0xA0, 0xBF},
	{0x80, 0x9F},
	{0x90, 0xBF},
	{0x80, 0x8F},
}

// decode decodes b (raw position pos), carrying an incomplete trailing sequence to the next call.
func (p *pipe) decode(b []byte, pos int64) {
	if p.npend > 0 {
		lead := p.pend[0]
		need := int(seqLen[lead])
		for len(b) > 0 {
			x := b[0]
			if !validCont(lead, p.npend, x) {
				// The maximal subpart is what was pending; x starts afresh.
				p.invalid(p.pend[:p.npend], p.pendStart, reasonContinuation)
				p.npend = 0
				break
			}
			p.pend[p.npend] = x
			p.npend++
			b = b[1:]
			pos++
			if p.npend == need {
				p.npend = 0
				p.emit(p.pend[:need], kindUTF8)
				break
			}
		}
		if p.npend > 0 || p.dead {
			return
		}
	}
	n := len(b)
	start, i := 0, 0
	k := kindASCII
	for i < n {
		c := b[i]
		if c < utf8.RuneSelf {
			// ASCII: skip 16 bytes at a time while they are all ASCII.
			i++
			for i+16 <= n && (binary.LittleEndian.Uint64(b[i:])|binary.LittleEndian.Uint64(b[i+8:]))&hiBits == 0 {
				i += 16
			}
			continue
		}
		// Fast path: a complete, valid multi-byte sequence.
		if x := first[c]; x != 0 {
			size := int(x & 7)
			if i+size <= n {
				ar := acceptRanges[x>>4]
				if c1 := b[i+1]; ar.lo <= c1 && c1 <= ar.hi {
					if size == 2 || b[i+2]&0xC0 == 0x80 && (size == 3 || b[i+3]&0xC0 == 0x80) {
						k = kindUTF8
						i += size
						continue
					}
				}
			}
		}
		// Slow path: an invalid sequence, or one cut by the end of this write.
		l := int(seqLen[c])
		j := 1
		if l > 1 {
			for j < l && i+j < n && validCont(c, j, b[i+j]) {
				j++
			}
			if j == l {
				k = kindUTF8
				i += l
				continue
			}
			if i+j == n {
				// A valid prefix cut by the end of this write: wait for the next one.
				if i > start {
					p.emit(b[start:i], k)
				}
				p.npend = copy(p.pend[:], b[i:])
				p.pendStart = pos + int64(i)
				return
			}
		}
		if i > start {
			p.emit(b[start:i], k)
		}
		reason := reasonStart
		if l > 1 {
			reason = reasonContinuation
		}
		p.invalid(b[i:i+j], pos+int64(i), reason)
		if p.dead {
			return
		}
		i += j
		start = i
		k = kindASCII
	}
	if n > start {
		p.emit(b[start:n], k)
	}
}

// invalid handles one maximal invalid subpart seq found at raw position at.
func (p *pipe) invalid(seq []byte, at int64, reason string) {
	switch p.cfg.Decode {
	case Strict:
		if p.err == nil {
			p.err = &DecodeError{Start: at, End: at + int64(len(seq)), Byte: seq[0], Reason: reason}
		}
		p.dead = true
	case Replace:
		p.emit(replacement, kindUTF8)
	case Ignore:
	case Raw:
		p.emit(seq, kindInvalid)
	}
}

// DecodeBytes decodes b as a whole (the end of b is the end of the data) the way Python's
// b.decode("utf-8", errors=...) does: Strict returns the text before the first error and the error; Replace
// puts one U+FFFD per maximal invalid subpart; Ignore drops invalid bytes; Raw returns b unchanged.
func DecodeBytes(b []byte, d Decode) (string, *DecodeError) {
	if d == Raw || utf8.Valid(b) {
		return string(b), nil
	}
	out := make([]byte, 0, len(b)+8)
	n := len(b)
	for i := 0; i < n; {
		c := b[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		l := int(seqLen[c])
		j := 1
		reason := reasonStart
		if l > 1 {
			for j < l && i+j < n && validCont(c, j, b[i+j]) {
				j++
			}
			if j == l {
				out = append(out, b[i:i+l]...)
				i += l
				continue
			}
			reason = reasonContinuation
			if i+j == n {
				reason = reasonEnd
			}
		}
		switch d {
		case Strict:
			return string(out), &DecodeError{Start: int64(i), End: int64(i + j), Byte: c, Reason: reason}
		case Ignore:
		default:
			out = append(out, replacement...)
		}
		i += j
	}
	return string(out), nil
}

// Sanitize makes s valid UTF-8. With perByte each invalid byte becomes one U+FFFD, as Go's encoding/json
// does; otherwise each maximal invalid subpart becomes one U+FFFD, as Python errors="replace" does.
func Sanitize(s string, perByte bool) string {
	if utf8.ValidString(s) {
		return s
	}
	if !perByte {
		t, _ := DecodeBytes([]byte(s), Replace)
		return t
	}
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		// mutate: textcap-replacement
		if r == utf8.RuneError && w == 1 {
			out = append(out, replacement...)
		} else {
			out = append(out, s[i:i+w]...)
		}
		i += w
	}
	return string(out)
}
