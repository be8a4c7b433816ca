package policy

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentbash/agentbash/spec"
)

// A dialect is the regular-expression language a source wrote its patterns in. Patterns run on Go's RE2;
// the differences that matter for deny lists are emulated in two steps:
//
//  1. The subject is mapped, rune by rune, to an ASCII text on which RE2's ASCII classes behave like the
//     dialect's: every character the dialect counts as white space but RE2's \s does not becomes \f; a
//     non-ASCII word character (Python) becomes an ASCII word character that the pattern never names (not
//     in a literal, a class or a range; chosen per pattern, so [^a-zA-Z_] still matches é); with Python's
//     IGNORECASE the four non-ASCII letters
//     that fold to ASCII (İ ı ſ K) become i, i, s, k; JavaScript's line terminators U+2028 and U+2029
//     become \n; anything else non-ASCII becomes NUL. Matches are reported on the original text through
//     an offset table, so .Match and .Groups are the command's own characters.
//  2. The pattern is rewritten where RE2's syntax means something else: JavaScript's `.` (which does not
//     match \r) becomes [^\n\r]; Python's `$` (end, or before a final newline) becomes (?:\n?\z) and its
//     \Z becomes \z; \uHHHH becomes \x{HHHH}.
//
// Limits (each policy lists those that touch it in its quirks): Python's \d does not match non-ASCII
// digits; Python's `$` match includes the final newline it stops before; patterns must be ASCII and must
// not name \v, \f or \x1c-\x1f themselves; lookaround and backreferences do not compile.
type dialect int

const (
	dialectRE2 dialect = iota
	dialectPython
	dialectJS
)

// parseDialect maps a checked policy's dialect to the engine's.
func parseDialect(d spec.RegexDialect) dialect {
	switch d {
	case spec.DialectPython:
		return dialectPython
	case spec.DialectJavaScript:
		return dialectJS
	}
	return dialectRE2
}

// spec is the spec's name of d.
func (d dialect) spec() spec.RegexDialect {
	switch d {
	case dialectPython:
		return spec.DialectPython
	case dialectJS:
		return spec.DialectJavaScript
	}
	return spec.DialectRE2
}

func (d dialect) String() string {
	switch d {
	case dialectPython:
		return "python"
	case dialectJS:
		return "javascript"
	}
	return "re2"
}

// mapKey says how a subject is mapped for one pattern: Python's IGNORECASE folds, and the byte that stands
// for a non-ASCII word character.
type mapKey struct {
	fold bool
	word byte
}

// dpattern is a compiled pattern with the mapping its subjects need and its literal prefilter.
type dpattern struct {
	re  *regexp.Regexp
	key mapKey
	pf  *prefilter
	// class, when the pattern is one character class (in a capture or not): its ranges (lo, hi pairs), so
	// that a text without such a character is passed over without running the regexp.
	class []rune
}

// compileDialect compiles a pattern written in dialect d (spec.RegexDialect.Regexp translates it).
func compileDialect(d dialect, pattern string, ignoreCase bool) (dpattern, error) {
	re, err := d.spec().Regexp(pattern, ignoreCase)
	if err != nil {
		return dpattern{}, err
	}
	key := mapKey{}
	if d == dialectPython {
		key = mapKey{fold: ignoreCase, word: wordStandIn(pattern, ignoreCase)}
	}
	return dpattern{re: re, key: key, pf: buildPrefilter(re.String()), class: classOf(re.String())}, nil
}

// wordStandIn picks the ASCII word character that stands for a non-ASCII word character in subjects
// matched by pattern: one the pattern does not name in a literal, a class or a range (case-folded with
// ignoreCase), and not a digit when the pattern uses \d or \D. If every word character is named, '_' is
// used and such a class treats non-ASCII letters like '_'.
func wordStandIn(p string, ignoreCase bool) byte {
	var used [128]bool
	mark := func(c byte) {
		if c >= 128 {
			return
		}
		used[c] = true
		if ignoreCase {
			switch {
			case 'a' <= c && c <= 'z':
				used[c-32] = true
			case 'A' <= c && c <= 'Z':
				used[c+32] = true
			}
		}
	}
	digits := func() {
		for c := byte('0'); c <= '9'; c++ {
			used[c] = true
		}
	}
	inClass := false
	var prev byte
	havePrev := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			n := p[i+1]
			i++
			switch n {
			case 'd', 'D':
				digits()
			case 'w', 'W', 's', 'S', 'b', 'B', 'A', 'z', 'Z':
			default:
				mark(n)
			}
			havePrev = false
			continue
		}
		if inClass {
			switch {
			case c == ']':
				inClass = false
			case c == '-' && havePrev && i+1 < len(p) && p[i+1] != ']':
				hi := p[i+1]
				if hi == '\\' && i+2 < len(p) {
					hi = p[i+2]
				}
				for x := int(prev); x <= int(hi) && x < 128; x++ {
					mark(byte(x))
				}
			default:
				mark(c)
				prev, havePrev = c, true
				continue
			}
			havePrev = false
			continue
		}
		if c == '[' {
			inClass = true
			havePrev = false
			continue
		}
		mark(c)
	}
	for _, c := range []byte("ZQXJzqxjYKVWGFBPMHDCUNLTSROIEAykvwgfbpmhdcunltsroiea0123456789_") {
		if !used[c] {
			return c
		}
	}
	return '_'
}

// subject is a text to match: the original and its dialect mapping, with the offset table between them.
type subject struct {
	orig   string
	mapped string
	// offs[i]-base is the offset in orig of mapped byte i; len(offs) == len(mapped)+1. Nil when mapped ==
	// orig byte for byte.
	offs []int
	base int
}

func (s subject) origIndex(i int) int {
	if s.offs == nil {
		return i
	}
	return s.offs[i] - s.base
}

// slice returns the subject between mapped offsets i and j (sharing the offset table).
func (s subject) slice(i, j int) subject {
	if s.offs == nil {
		return subject{orig: s.orig[i:j], mapped: s.mapped[i:j]}
	}
	return subject{orig: s.orig[s.origIndex(i):s.origIndex(j)], mapped: s.mapped[i:j], offs: s.offs[i : j+1], base: s.offs[i]}
}

// span returns the original text of mapped span [i, j).
func (s subject) span(i, j int) string {
	if i < 0 || j < 0 {
		return ""
	}
	return s.orig[s.origIndex(i):s.origIndex(j)]
}

// newSubject maps text for dialect d and a pattern's mapping key.
func newSubject(text string, d dialect, key mapKey) subject {
	if d == dialectRE2 || asciiClean(text, d) {
		return subject{orig: text, mapped: text}
	}
	return decode(text, d).subject(d, key)
}

// decoded is a text split into characters once, so that each mapping key only patches the bytes of its
// non-ASCII characters.
type decoded struct {
	text string
	base []byte // the mapping of every ASCII character; non-ASCII ones are patched per key
	wide []wideRune
	offs []int // the offset of each character, then len(text)
}

type wideRune struct {
	at int  // index in base
	r  rune // -1 for an invalid byte
}

func decode(text string, d dialect) *decoded {
	dec := &decoded{text: text, base: make([]byte, 0, len(text)), offs: make([]int, 0, len(text)+1)}
	for i := 0; i < len(text); {
		c := text[i]
		dec.offs = append(dec.offs, i)
		if c < utf8.RuneSelf {
			dec.base = append(dec.base, mapASCII(c, d))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			r = -1
		}
		dec.wide = append(dec.wide, wideRune{len(dec.base), r})
		dec.base = append(dec.base, 0)
		i += size
	}
	dec.offs = append(dec.offs, len(text))
	return dec
}

// subject maps the decoded text for a dialect and key.
func (dec *decoded) subject(d dialect, key mapKey) subject {
	mapped := make([]byte, len(dec.base))
	copy(mapped, dec.base)
	for _, w := range dec.wide {
		if w.r >= 0 {
			mapped[w.at] = mapRune(w.r, d, key)
		}
	}
	return subject{orig: dec.text, mapped: string(mapped), offs: dec.offs}
}

// origSpan is the original text of mapped span [i, j) (j < 0: everything).
func (dec *decoded) origSpan(i, j int) string {
	if j < 0 {
		return dec.text
	}
	return dec.text[dec.offs[i]:dec.offs[j]]
}

// asciiClean reports text that maps to itself.
func asciiClean(text string, d dialect) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf || (c < 0x20 && (c == '\v' || (d == dialectPython && c >= 0x1c))) {
			return false
		}
	}
	return true
}

func mapASCII(c byte, d dialect) byte {
	switch {
	case c == '\v':
		return '\f'
	case d == dialectPython && c >= 0x1c && c <= 0x1f:
		return '\f'
	}
	return c
}

// pythonSpace is str.isspace() (and re's \s) beyond ASCII.
func pythonSpace(r rune) bool {
	switch r {
	case 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// jsSpace is JavaScript's \s (and trim()) beyond ASCII, line terminators excluded.
func jsSpace(r rune) bool {
	switch r {
	case 0xa0, 0x1680, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

func mapRune(r rune, d dialect, key mapKey) byte {
	switch d {
	case dialectPython:
		if pythonSpace(r) {
			return '\f'
		}
		if key.fold {
			switch r {
			case 0x130, 0x131:
				return 'i'
			case 0x17f:
				return 's'
			case 0x212a:
				return 'k'
			}
		}
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return key.word
		}
		return 0
	case dialectJS:
		if r == 0x2028 || r == 0x2029 {
			return '\n'
		}
		if jsSpace(r) {
			return '\f'
		}
		return 0
	}
	return 0
}

// jsTrimStart is JavaScript's String.prototype.trimStart.
func jsTrimStart(s string) string {
	return strings.TrimLeftFunc(s, jsWhite)
}

func jsWhite(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x2028, 0x2029:
		return true
	}
	return jsSpace(r)
}
