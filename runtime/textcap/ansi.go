package textcap

import (
	"bytes"
	"regexp"
	"strings"
)

// ANSI escape sequences, as the strip-ansi package (v7) finds them: an OSC sequence up to its first string
// terminator (BEL, ESC \ or U+009C), or a CSI-like sequence (ESC or U+009B, then intermediates, optional
// numeric parameters and a final character). Go's regexp chooses among the alternatives and the lazy
// repetition as a backtracking engine does, so the matches are those JavaScript's String.replace finds.
var ansiPattern = regexp.MustCompile("(?:\x1b\\][\\s\\S]*?(?:\x07|\x1b\\\\|\u009c))|[\x1b\u009b][\\[\\]()#;?]*(?:\\d{1,4}(?:[;:]\\d{0,4})*)?[\\dA-PR-TZcf-nq-uy=><~]")

// maxANSIHold bounds the text held while an escape sequence is not complete (an OSC whose terminator has
// not come, a CSI still reading parameters): past it the held text is taken as it is, as if the stream
// ended there. A real sequence is far shorter.
const maxANSIHold = 4096

// stripANSI is the ANSI stage, between decoding and universal newlines: it removes escape sequences,
// holding back the end of the text where one may still be in progress.
func (p *pipe) stripANSI(seg []byte, k kind) {
	if k == kindInvalid {
		// Raw bytes that are not text end any sequence in progress.
		p.flushANSI()
		p.newlines(seg, k)
		return
	}
	if len(p.ansiHeld) == 0 && !hasIntroducer(seg) {
		p.newlines(seg, k)
		return
	}
	p.ansiHeld = append(p.ansiHeld, seg...)
	safe := ansiUndecided(p.ansiHeld)
	if len(p.ansiHeld)-safe > maxANSIHold {
		safe = len(p.ansiHeld)
	}
	if safe == 0 {
		return
	}
	p.newlines(ansiPattern.ReplaceAll(p.ansiHeld[:safe], nil), kindUTF8)
	n := copy(p.ansiHeld, p.ansiHeld[safe:])
	p.ansiHeld = p.ansiHeld[:n]
}

// flushANSI passes on the held text as the end of the stream: a sequence still in progress is matched as
// far as it goes.
func (p *pipe) flushANSI() {
	if len(p.ansiHeld) == 0 {
		return
	}
	out := ansiPattern.ReplaceAll(p.ansiHeld, nil)
	p.ansiHeld = p.ansiHeld[:0]
	p.newlines(out, kindUTF8)
}

// hasIntroducer reports whether text holds ESC or U+009B (UTF-8 C2 9B).
func hasIntroducer(b []byte) bool {
	return bytes.IndexByte(b, 0x1b) >= 0 || bytes.Contains(b, c1CSI)
}

var c1CSI = []byte{0xc2, 0x9b}

// ansiContinues reports whether c may come before a CSI sequence's final character: an intermediate, a
// digit or a parameter separator. A sequence followed only by these may still grow.
func ansiContinues(c byte) bool {
	switch c {
	case '[', ']', '(', ')', '#', ';', '?', ':':
		return true
	}
	return c >= '0' && c <= '9'
}

// ansiUndecided returns where the text stops being decided: the first introducer whose sequence the text
// after it cannot yet settle (an OSC with no terminator after it, or an introducer followed only by
// characters a sequence may continue with), or len(b). Everything before it strips the same whatever
// follows.
func ansiUndecided(b []byte) int {
	for i := 0; i < len(b); i++ {
		n := 0
		switch {
		case b[i] == 0x1b:
			n = 1
		case b[i] == 0xc2 && i+1 < len(b) && b[i+1] == 0x9b:
			n = 2
		case b[i] == 0xc2 && i+1 == len(b):
			return i // the first byte of what may be U+009B
		default:
			continue
		}
		rest := b[i+n:]
		if n == 1 && len(rest) > 0 && rest[0] == ']' && !hasTerminator(rest[1:]) {
			return i // an OSC whose terminator has not come
		}
		open := true
		for _, c := range rest {
			if !ansiContinues(c) {
				open = false
				break
			}
		}
		if open {
			return i
		}
	}
	return len(b)
}

// hasTerminator reports whether b holds an OSC string terminator: BEL, ESC \ or U+009C.
func hasTerminator(b []byte) bool {
	return bytes.IndexByte(b, 0x07) >= 0 || bytes.Contains(b, []byte{0x1b, '\\'}) || bytes.Contains(b, []byte{0xc2, 0x9c})
}

// sniffBinary looks for a NUL byte among the first BinarySniff bytes of the stream in a write at raw
// position pos, as a host that sniffs the start of a stream for binary content does: the write that
// holds one, and everything after it, is counted but not processed, and the snapshot says Binary.
func (p *pipe) sniffBinary(b []byte, pos int64) bool {
	if p.cfg.BinarySniff <= 0 || pos >= int64(p.cfg.BinarySniff) {
		return false
	}
	n := min(int64(len(b)), int64(p.cfg.BinarySniff)-pos)
	if bytes.IndexByte(b[:n], 0) < 0 {
		return false
	}
	p.binary = true
	return true
}

// StripANSI removes the ANSI escape sequences of a whole text, as strip-ansi does (the capture's StripANSI
// stage does the same on a stream, as it arrives).
func StripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 && !strings.Contains(s, string(c1CSI)) {
		return s
	}
	return ansiPattern.ReplaceAllString(s, "")
}
