package textcap

import "unicode/utf8"

// asciiSpace marks the ASCII characters Python's str.isspace() accepts: \t \n \v \f \r, \x1c-\x1f, space.
var asciiSpace = [utf8.RuneSelf]bool{
	'\t': true, '\n': true, '\v': true, '\f': true, '\r': true,
	0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true, ' ': true,
}

// IsSpace reports whether Python's str.isspace() is true for r (bidirectional class WS, B or S, or general
// category Zs). It differs from unicode.IsSpace: \x1c-\x1f are white space, U+180E is not.
func IsSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0 && asciiSpace[r]
	}
	switch {
	case r == 0x85, r == 0xA0, r == 0x1680:
		return true
	case r >= 0x2000 && r <= 0x200A:
		return true
	case r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F, r == 0x3000:
		return true
	}
	return false
}

// spacePrefix returns the length of the white space at the start of a segment.
func spacePrefix(b []byte, k kind) int {
	if k == kindInvalid {
		return 0
	}
	i := 0
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				return i
			}
			i++
			continue
		}
		r, w := utf8.DecodeRune(b[i:])
		if !IsSpace(r) {
			return i
		}
		i += w
	}
	return i
}

// spaceSuffixStart returns where the white space at the end of a segment starts.
func spaceSuffixStart(b []byte, k kind) int {
	if k == kindInvalid {
		return len(b)
	}
	i := len(b)
	for i > 0 {
		c := b[i-1]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				return i
			}
			i--
			continue
		}
		r, w := utf8.DecodeLastRune(b[:i])
		if !IsSpace(r) {
			return i
		}
		i -= w
	}
	return 0
}
