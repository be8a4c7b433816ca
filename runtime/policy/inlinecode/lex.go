package inlinecode

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// kind is a token's kind.
type kind uint8

const (
	kIdent kind = iota // a name (os, system, child_process)
	kVar               // a variable with a sigil ($x, @a, $1): a value only known at run time
	kStr               // a string literal
	kCmd               // a command literal: backticks, qx//, %x{} (shell source)
	kPunct             // an operator or punctuation
	kNum               // a number
	kWords             // a word list (Perl qw//, Ruby %w//): a list of strings
	kCode              // code in the same language the source runs (Perl s///e's replacement)
)

// token is one lexical token of inline code.
type token struct {
	k    kind
	s    string // the name, the punctuation, or the literal's value
	dyn  bool   // a string or command literal that interpolates a run-time value
	off  int32  // offset in the source
	end  int32  // offset after it
	skip bool   // a name in an import statement, not a call
}

// lexer turns code into tokens; each language sets what it needs.
type lexer struct {
	lang   Language
	src    string
	i      int
	toks   []token // the scanner's tokens: this code's start at base
	base   int
	failed bool // the code does not lex (an unterminated literal): it is read as far as it goes
}

// maxTokens bounds the work on one piece of code.
const maxTokens = 1 << 16

// lex appends the tokens of src to the scanner's and returns them (a slice of its buffer, valid until
// the scanner cuts it back). Code that does not lex is read as far as it goes.
func (s *Scanner) lex(lang Language, src string) []token {
	l := &lexer{lang: lang, src: src, toks: s.toks, base: len(s.toks)}
	for l.i < len(l.src) && !l.failed {
		if len(l.toks)-l.base >= maxTokens {
			break
		}
		l.next()
	}
	s.toks = l.toks
	return l.toks[l.base:len(l.toks):len(l.toks)]
}

func (l *lexer) emit(k kind, s string, dyn bool, off int) {
	l.toks = append(l.toks, token{k: k, s: s, dyn: dyn, off: int32(off), end: int32(l.i)})
}

func (l *lexer) peek(k int) byte {
	if l.i+k < len(l.src) {
		return l.src[l.i+k]
	}
	return 0
}

func isIdentStart(c byte) bool {
	return c == '_' || c|0x20 >= 'a' && c|0x20 <= 'z' || c >= utf8.RuneSelf
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// prevValue reports that the previous token ends a value, so that a / is division, not a regex.
func (l *lexer) prevValue() bool {
	if len(l.toks) == l.base {
		return false
	}
	t := l.toks[len(l.toks)-1]
	switch t.k {
	case kIdent:
		switch t.s { // keywords after which an expression starts
		case "return", "and", "or", "not", "if", "unless", "while", "until", "split", "grep", "map", "in", "typeof", "case", "when":
			return false
		}
		return true
	case kVar, kStr, kNum, kCmd, kWords:
		return true
	case kPunct:
		return t.s == ")" || t.s == "]" || t.s == "}"
	}
	return false
}

func (l *lexer) lineComment() {
	for l.i < len(l.src) && l.src[l.i] != '\n' {
		l.i++
	}
}

func (l *lexer) blockComment(end string) {
	if k := strings.Index(l.src[l.i:], end); k >= 0 {
		l.i += k + len(end)
		return
	}
	l.i = len(l.src)
}

var punct2 = []string{"**", "==", "!=", "<=", ">=", "->", "::", "=>", "...", "..", "||", "&&", "|&", "//", "<<", ">>", "=~", "!~", "+=", "-=", ".=", "?.", "=="}

func (l *lexer) next() {
	c := l.src[l.i]
	start := l.i
	lang := l.lang
	switch {
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		l.i++
		return
	case c == '\n':
		l.i++
		l.emit(kPunct, "\n", false, start)
		return
	case c == '#' && lang != JavaScript && lang != Lua:
		if lang == PHP && l.peek(1) == '[' { // a PHP 8 attribute
			l.i++
			l.emit(kPunct, "#", false, start)
			return
		}
		l.lineComment()
		return
	case c == '/' && l.peek(1) == '/' && (lang == JavaScript || lang == PHP):
		l.lineComment()
		return
	case c == '/' && l.peek(1) == '*' && (lang == JavaScript || lang == PHP):
		l.i += 2
		l.blockComment("*/")
		return
	case c == '-' && l.peek(1) == '-' && lang == Lua:
		l.i += 2
		if l.peek(0) == '[' {
			if level, ok := l.longBracket(); ok {
				l.longString(level)
				return
			}
		}
		l.lineComment()
		return
	case c == '[' && lang == Lua:
		if level, ok := l.longBracket(); ok {
			s := l.longString(level)
			l.emit(kStr, s, false, start)
			return
		}
	case c >= '0' && c <= '9':
		for l.i < len(l.src) && (isIdentPart(l.src[l.i]) || l.src[l.i] == '.') {
			if l.src[l.i] == '.' && l.i+1 < len(l.src) && l.src[l.i+1] == '.' {
				break
			}
			l.i++
		}
		l.emit(kNum, l.src[start:l.i], false, start)
		return
	case c == '\'' || c == '"':
		l.quoted(start, "")
		return
	case c == '`':
		l.i++
		s, dyn := l.delimited('`', true)
		if lang == JavaScript {
			l.emit(kStr, s, dyn, start) // a template literal
		} else {
			l.emit(kCmd, s, dyn, start)
		}
		return
	case (c == '$' || c == '@' || c == '%' && lang == Perl) && (lang == Perl || lang == PHP || lang == Awk || lang == Ruby):
		if l.sigil(start) {
			return
		}
	case c == '%' && lang == Ruby && l.rubyPercent(start):
		return
	case c == '/' && (lang == JavaScript || lang == Perl || lang == Ruby || lang == Awk) && !l.prevValue():
		l.i++
		s, _ := l.delimited('/', false)
		l.skipFlags()
		l.emit(kStr, s, true, start) // a regular expression: a value, not a command
		return
	case isIdentStart(c):
		for l.i < len(l.src) && isIdentPart(l.src[l.i]) {
			l.i++
		}
		name := l.src[start:l.i]
		if l.i < len(l.src) && (l.src[l.i] == '\'' || l.src[l.i] == '"') && lang == Python && isStringPrefix(name) {
			l.quoted(start, strings.ToLower(name))
			return
		}
		if lang == Perl && l.perlQuote(name, start) {
			return
		}
		l.emit(kIdent, name, false, start)
		return
	}
	for _, p := range punct2 {
		if strings.HasPrefix(l.src[l.i:], p) {
			l.i += len(p)
			l.emit(kPunct, p, false, start)
			return
		}
	}
	_, size := utf8.DecodeRuneInString(l.src[l.i:])
	l.i += size
	l.emit(kPunct, l.src[start:l.i], false, start)
}

func (l *lexer) skipFlags() {
	for l.i < len(l.src) && l.src[l.i]|0x20 >= 'a' && l.src[l.i]|0x20 <= 'z' {
		l.i++
	}
}

// isStringPrefix reports Python's string prefixes (r, b, u, f and their pairs).
func isStringPrefix(p string) bool {
	if len(p) > 2 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if !strings.ContainsRune("rRbBuUfF", rune(p[i])) {
			return false
		}
	}
	return true
}

// quoted reads a quoted string at l.i (after a Python prefix).
func (l *lexer) quoted(start int, prefix string) {
	q := l.src[l.i]
	if l.lang == Python && strings.HasPrefix(l.src[l.i:], strings.Repeat(string(q), 3)) {
		l.i += 3
		end := strings.Index(l.src[l.i:], strings.Repeat(string(q), 3))
		if end < 0 {
			l.failed = true
			return
		}
		raw := l.src[l.i : l.i+end]
		l.i += end + 3
		l.emit(kStr, l.pyValue(raw, prefix), strings.Contains(prefix, "f") && hasFormatField(raw), start)
		return
	}
	l.i++
	if l.lang == Python {
		k := l.i
		for k < len(l.src) && l.src[k] != q && l.src[k] != '\n' {
			if l.src[k] == '\\' {
				k++
			}
			k++
		}
		if k >= len(l.src) || l.src[k] != q {
			l.failed = true
			return
		}
		raw := l.src[l.i:k]
		l.i = k + 1
		l.emit(kStr, l.pyValue(raw, prefix), strings.Contains(prefix, "f") && hasFormatField(raw), start)
		return
	}
	interp := q == '"' && (l.lang == Perl || l.lang == Ruby || l.lang == PHP)
	s, dyn := l.delimited(q, interp)
	l.emit(kStr, s, dyn, start)
}

// hasFormatField reports a replacement field in an f-string ({x}, not {{).
func hasFormatField(s string) bool {
	return strings.Contains(strings.ReplaceAll(s, "{{", ""), "{")
}

func (l *lexer) pyValue(raw, prefix string) string {
	if strings.Contains(prefix, "f") {
		raw = strings.NewReplacer("{{", "{", "}}", "}").Replace(raw)
	}
	if strings.Contains(prefix, "r") {
		return raw
	}
	return unescape(raw, Python)
}

// delimited reads up to the closing delimiter (opening brackets nest), unescaping as the language does
// (only \\ and the delimiter in a single-quoted literal); interp marks interpolation of run-time values.
func (l *lexer) delimited(close byte, interp bool) (string, bool) {
	return l.delimitedAs(close, interp, close == '\'' && (l.lang == Perl || l.lang == Ruby || l.lang == PHP))
}

func (l *lexer) delimitedAs(close byte, interp, single bool) (string, bool) {
	open := byte(0)
	switch close {
	case ')':
		open = '('
	case ']':
		open = '['
	case '}':
		open = '{'
	case '>':
		open = '<'
	}
	depth := 0
	k := l.i
	for k < len(l.src) {
		c := l.src[k]
		if c == '\\' && k+1 < len(l.src) {
			k += 2
			continue
		}
		if open != 0 && c == open {
			depth++
		} else if c == close {
			if depth == 0 {
				break
			}
			depth--
		}
		k++
	}
	if k >= len(l.src) {
		l.failed = true
		return "", true
	}
	raw := l.src[l.i:k]
	l.i = k + 1
	dyn := interp && interpolates(raw, l.lang, close)
	if single {
		return unescapeSingle(raw, close), dyn
	}
	return unescape(raw, l.lang), dyn
}

// interpolates reports a run-time value in an interpolating literal: $x, @x, ${...} (Perl, PHP,
// JavaScript templates, shell-like backticks), #{...} (Ruby).
func interpolates(raw string, lang Language, close byte) bool {
	for i := 0; i+1 < len(raw); i++ {
		c, n := raw[i], raw[i+1]
		if c == '\\' {
			i++
			continue
		}
		switch lang {
		case Ruby:
			if c == '#' && (n == '{' || n == '$' || n == '@') {
				return true
			}
			if close == '`' && c == '$' && (isIdentStart(n) || n == '{' || n == '(') {
				return true // the shell expands it
			}
		case JavaScript:
			if c == '$' && n == '{' {
				return true
			}
		default:
			if (c == '$' || c == '@') && (isIdentStart(n) || n == '{' || n == '(' || (c == '$' && n >= '0' && n <= '9')) {
				return true
			}
			if lang == PHP && c == '{' && n == '$' {
				return true
			}
		}
	}
	return false
}

// unescapeSingle removes the escapes of a single-quoted literal: \\ and \<quote>.
func unescapeSingle(raw string, q byte) string {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) && (raw[i+1] == '\\' || raw[i+1] == q) {
			i++
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// unescape removes C-style escapes: \n \t \r \0 \a \b \f \v \e, \xHH, \x{H...}, \uHHHH, \u{H...},
// \UHHHHHHHH, octal \NNN, and \<any> as itself.
func unescape(raw string, lang Language) string {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			b.WriteByte(c)
			continue
		}
		i++
		e := raw[i]
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'e':
			b.WriteByte(0x1b)
		case '\n':
			if lang == Python || lang == JavaScript || lang == Ruby || lang == Awk {
				continue // a line continuation
			}
			b.WriteByte('\n')
		case 'x', 'u', 'U':
			n, width := 2, 2
			if e == 'u' {
				n, width = 4, 4
			}
			if e == 'U' {
				n, width = 8, 8
			}
			if i+1 < len(raw) && raw[i+1] == '{' {
				end := strings.IndexByte(raw[i+1:], '}')
				if end > 0 {
					if v, err := strconv.ParseUint(raw[i+2:i+1+end], 16, 32); err == nil {
						b.WriteRune(rune(v))
						i += 1 + end
						continue
					}
				}
			}
			k := i + 1
			for k < len(raw) && k-(i+1) < width && isHex(raw[k]) {
				k++
			}
			if k == i+1 || (e != 'x' && k-(i+1) != n) {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			v, _ := strconv.ParseUint(raw[i+1:k], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i = k - 1
		default:
			if e >= '0' && e <= '7' {
				k := i
				for k < len(raw) && k-i < 3 && raw[k] >= '0' && raw[k] <= '7' {
					k++
				}
				v, _ := strconv.ParseUint(raw[i:k], 8, 16)
				b.WriteByte(byte(v))
				i = k - 1
				continue
			}
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

// sigil reads a Perl, PHP, Ruby or awk variable ($x, @x, %x, $1, ${x}, $$, $_): a value only known at run
// time. It reports false for a lone sigil (an operator).
func (l *lexer) sigil(start int) bool {
	c := l.src[l.i]
	n := l.peek(1)
	switch {
	case isIdentStart(n) || n >= '0' && n <= '9':
		if c == '%' && l.lang != Perl {
			return false
		}
		if c == '@' && l.lang != Perl && l.lang != Ruby {
			return false
		}
		l.i++
		for l.i < len(l.src) && (isIdentPart(l.src[l.i]) || (l.lang == Perl && l.src[l.i] == ':' && l.peek(1) == ':')) {
			if l.src[l.i] == ':' {
				l.i++
			}
			l.i++
		}
	case c == '$' && (n == '{' || n == '$' || n == '_' || n == '!' || n == '@' || n == '0'):
		l.i += 2
	case c == '$' && l.lang == Awk:
		l.i++ // $ applied to an expression: a field
	default:
		return false
	}
	l.emit(kVar, l.src[start:l.i], true, start)
	return true
}

// perlQuote reads Perl's quote-like operators: q qq qw qx m s tr y, with any delimiter.
func (l *lexer) perlQuote(name string, start int) bool {
	switch name {
	case "q", "qq", "qw", "qx", "m", "s", "tr", "y":
	default:
		return false
	}
	k := l.i
	for k < len(l.src) && (l.src[k] == ' ' || l.src[k] == '\t') {
		k++
	}
	if k >= len(l.src) {
		return false
	}
	d := l.src[k]
	if isIdentPart(d) || d == ' ' || d == '\n' || d == ',' || d == ';' || d == ')' || (d == '=' && l.peekAt(k+1) == '>') {
		return false // a bareword, a hash key or a function call
	}
	l.i = k + 1
	close := closer(d)
	interp := (name == "qq" || name == "qx" || name == "m" || name == "s") && d != '\''
	first, dyn := l.delimitedAs(close, interp, !interp)
	switch name {
	case "q", "qq":
		l.emit(kStr, first, dyn, start)
	case "qw":
		l.emit(kWords, first, false, start)
	case "qx":
		l.emit(kCmd, first, dyn, start)
	case "m":
		l.skipFlags()
		l.emit(kStr, first, true, start)
	case "s", "tr", "y":
		if close != d { // s{a}{b}: a second bracketed part, possibly after blanks
			for l.i < len(l.src) && (l.src[l.i] == ' ' || l.src[l.i] == '\t' || l.src[l.i] == '\n') {
				l.i++
			}
			if l.i >= len(l.src) {
				l.failed = true
				return true
			}
			d2 := l.src[l.i]
			l.i++
			close = closer(d2)
		}
		repl, _ := l.delimitedAs(close, false, true)
		fl := l.i
		l.skipFlags()
		flags := l.src[fl:l.i]
		if name == "s" && strings.Contains(flags, "e") {
			l.emit(kCode, repl, false, start) // s///e: the replacement is Perl code
			return true
		}
		l.emit(kStr, first, true, start)
	}
	return true
}

func (l *lexer) peekAt(k int) byte {
	if k < len(l.src) {
		return l.src[k]
	}
	return 0
}

func closer(d byte) byte {
	switch d {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	case '<':
		return '>'
	}
	return d
}

// rubyPercent reads Ruby's %q() %Q() %() %w() %i() %x() %r() literals.
func (l *lexer) rubyPercent(start int) bool {
	t := l.peek(1)
	d := t
	k := 2
	if t == 'q' || t == 'Q' || t == 'w' || t == 'W' || t == 'i' || t == 'I' || t == 'x' || t == 'r' || t == 's' {
		d = l.peek(2)
		k = 3
	} else {
		t = 'Q'
	}
	if d == 0 || isIdentPart(d) || d == ' ' || d == '=' {
		return false
	}
	// After a value, % is the modulo operator, except after a method name and a blank (puts %x(id)).
	if l.prevValue() && !(l.toks[len(l.toks)-1].k == kIdent && l.i > 0 && (l.src[l.i-1] == ' ' || l.src[l.i-1] == '\t')) {
		return false
	}
	l.i += k
	interp := t != 'q' && t != 'w' && t != 'i' && t != 's'
	s, dyn := l.delimitedAs(closer(d), interp, !interp)
	switch t {
	case 'x':
		l.emit(kCmd, s, dyn, start)
	case 'w', 'W', 'i', 'I':
		l.emit(kWords, s, dyn, start)
	case 'r':
		l.skipFlags()
		l.emit(kStr, s, true, start)
	default:
		l.emit(kStr, s, dyn, start)
	}
	return true
}

// longBracket reads Lua's [[ or [==[ opening at l.i (after --, for a comment), returning its level.
func (l *lexer) longBracket() (int, bool) {
	k := l.i + 1
	level := 0
	for k < len(l.src) && l.src[k] == '=' {
		level++
		k++
	}
	if k < len(l.src) && l.src[k] == '[' {
		l.i = k + 1
		return level, true
	}
	return 0, false
}

func (l *lexer) longString(level int) string {
	end := "]" + strings.Repeat("=", level) + "]"
	k := strings.Index(l.src[l.i:], end)
	if k < 0 {
		l.failed = true
		l.i = len(l.src)
		return ""
	}
	s := l.src[l.i : l.i+k]
	l.i += k + len(end)
	return strings.TrimPrefix(s, "\n")
}
