package spec

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Translate rewrites a pattern written in dialect d into RE2 syntax, where RE2's syntax means something
// else: JavaScript's `.` (which does not match \r) becomes [^\n\r]; Python's `$` (end, or before a final
// newline) becomes (?:\n?\z) and its \Z becomes \z; \uHHHH becomes \x{HHHH}. Lookaround and
// backreferences are refused with a hint, and so is non-ASCII pattern text in the python and javascript
// dialects (the engine folds their subjects to ASCII to emulate their character classes: see
// runtime/policy). An empty dialect is re2.
func (d RegexDialect) Translate(p string) (string, error) {
	if err := unsupportedSyntax(p); err != nil {
		return "", fmt.Errorf("pattern %q: %v", p, err)
	}
	if d != DialectPython && d != DialectJavaScript {
		return p, nil
	}
	for i := 0; i < len(p); i++ {
		if p[i] >= utf8.RuneSelf {
			return "", fmt.Errorf("pattern %q: non-ASCII pattern text is not supported with dialect %s (subjects are folded to ASCII for matching; use dialect re2)", p, d)
		}
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			switch {
			case n == 'u' && i+6 <= len(p) && isHex4(p[i+2:i+6]):
				b.WriteString(`\x{` + p[i+2:i+6] + `}`)
				i += 5
				continue
			case n == 'Z' && d == DialectPython && !inClass:
				b.WriteString(`\z`)
			default:
				b.WriteByte(c)
				b.WriteByte(n)
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal member (Python); it must not end the class here.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == '.' && d == DialectJavaScript:
			b.WriteString(`[^\n\r]`)
		case c == '$' && d == DialectPython:
			b.WriteString(`(?:\n?\z)`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// Regexp translates a pattern of dialect d and compiles it on RE2, case-insensitive with ignoreCase. Its
// source (String) is the RE2 text it runs.
func (d RegexDialect) Regexp(pattern string, ignoreCase bool) (*regexp.Regexp, error) {
	src, err := d.Translate(pattern)
	if err != nil {
		return nil, err
	}
	if ignoreCase {
		src = "(?i)" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("pattern %q does not compile on RE2: %v", pattern, err)
	}
	return re, nil
}

func isHex4(s string) bool {
	if len(s) != 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// unsupportedSyntax names constructs RE2 cannot run, with a hint, before RE2 reports them less clearly.
func unsupportedSyntax(p string) error {
	for _, look := range []string{"(?=", "(?!", "(?<=", "(?<!"} {
		if strings.Contains(p, look) {
			return fmt.Errorf("lookaround %s is not supported by RE2 (express the exception with unless)", look)
		}
	}
	for i := 0; i+1 < len(p); i++ {
		if p[i] == '\\' {
			if p[i+1] >= '1' && p[i+1] <= '9' {
				return fmt.Errorf("backreference \\%c is not supported by RE2", p[i+1])
			}
			i++
		}
	}
	return nil
}
