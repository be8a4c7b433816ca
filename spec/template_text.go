package spec

import (
	"regexp"
	"strconv"
	"strings"
	"text/template"
)

// textFuncs are the template functions that work on texts and lists of lines: JavaScript's trim, string
// replacement, shell quoting, grouped numbers, and lines (split, the last or first of them, joined). Each
// charges what it builds and the work it does to the execution's budget (st nil: none).
func textFuncs(st *execState) template.FuncMap {
	return template.FuncMap{
		// trim is JavaScript's String.prototype.trim: white space and line terminators at both ends.
		"trim": func(s string) (string, error) {
			return strings.TrimFunc(s, isJSSpace), st.step(1 + len(s)/stepBytes)
		},
		// replace replaces every old in s by new (strings.ReplaceAll).
		"replace": func(s, old, new string) (string, error) {
			n := len(s)
			if old != "" && len(new) > len(old) {
				n += strings.Count(s, old) * (len(new) - len(old))
			}
			if err := st.build(n); err != nil {
				return "", err
			}
			return strings.ReplaceAll(s, old, new), st.step(1 + len(s)/stepBytes)
		},
		// shquote quotes a word for a POSIX shell as the shell-quote package's quote([s]) does: '' for an
		// empty word, single quotes around one with white space, a double quote or a backslash (and no single
		// quote), double quotes around one with a single quote, else each special character escaped.
		"shquote": func(s string) (string, error) {
			if err := st.reserve(2*len(s) + 2); err != nil {
				return "", err
			}
			q := shellQuote(s)
			return q, st.build(len(q))
		},
		// grouped writes an integer with its thousands grouped by commas, as JavaScript's toLocaleString()
		// does in the en-US locale (68968 is 68,968); a fraction is dropped toward zero.
		"grouped": func(v any) (string, error) {
			return groupThousands(int64(toFloat(v))), st.step(1)
		},
		// lines splits a text into its lines at "\n": a text ending in "\n" has no empty last line, and ""
		// has none (JavaScript's split("\n") with a last empty element popped).
		"lines": func(s string) ([]string, error) {
			if err := st.build(len(s)); err != nil {
				return nil, err
			}
			if s == "" {
				return []string{}, nil
			}
			l := strings.Split(s, "\n")
			if l[len(l)-1] == "" {
				l = l[:len(l)-1]
			}
			return l, st.step(1 + len(s)/stepBytes)
		},
		// last is the last n elements of a list (all of them when it has fewer; none for n <= 0).
		"last": func(n any, list []string) ([]string, error) {
			k := int(max(min(toFloat(n), float64(len(list))), 0))
			return list[len(list)-k:], st.step(1)
		},
		// first is the first n elements of a list (all of them when it has fewer; none for n <= 0).
		"first": func(n any, list []string) ([]string, error) {
			k := int(max(min(toFloat(n), float64(len(list))), 0))
			return list[:k], st.step(1)
		},
		// joinlist joins every element of a list with sep, empty ones included (strings.Join).
		"joinlist": func(sep string, list []string) (string, error) {
			n := len(sep) * max(len(list)-1, 0)
			for _, s := range list {
				n += len(s)
			}
			if err := st.build(n); err != nil {
				return "", err
			}
			return strings.Join(list, sep), st.step(1 + len(list))
		},
	}
}

// isJSSpace reports whether r is white space or a line terminator to JavaScript (String.prototype.trim,
// the \s class): TAB, LF, VT, FF, CR, space, NBSP, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
// U+3000 and U+FEFF.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// shellQuote is shell-quote's quote of one word.
func shellQuote(s string) string {
	switch {
	case s == "":
		return "''"
	case strings.ContainsFunc(s, func(r rune) bool { return r == '"' || r == '\\' || isJSSpace(r) }) && !strings.Contains(s, "'"):
		return "'" + s + "'"
	case strings.ContainsFunc(s, func(r rune) bool { return r == '"' || r == '\'' || isJSSpace(r) }):
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range s {
			if strings.ContainsRune("\"\\$`!", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
		return b.String()
	}
	return shellSpecial.ReplaceAllString(s, `$1\$2`)
}

// shellSpecial is shell-quote's pattern of the characters it escapes in a plain word (a drive letter's
// colon before one of them is left as it is).
var shellSpecial = regexp.MustCompile("([A-Za-z]:)?([#!\"$&'()*,:;<=>?@[\\\\\\]^`{|}])")

// groupThousands writes n with commas between groups of three digits.
func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
