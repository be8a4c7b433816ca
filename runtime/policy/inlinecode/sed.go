package inlinecode

import "strings"

// sed finds the commands a GNU sed script runs: the e command (e CMD runs CMD; a bare e runs the pattern
// space, which is only known at run time) and the e flag of s (the pattern space after the substitution
// runs as a command: only known at run time). The script is read as GNU sed reads it: addresses, !,
// blocks, and the commands whose argument is the rest of the line (a, i, c, r, R, w, W, e, :, b, t, T).
func (s *scanner) sed(script string, depth int) {
	p := &sedParser{src: script}
	for p.more() {
		p.skip(" \t\n;")
		if !p.more() {
			return
		}
		start := p.i
		if !p.address() {
			return
		}
		p.skip(" \t")
		if p.peek() == ',' {
			p.i++
			p.skip(" \t")
			if !p.address() {
				return
			}
		}
		p.skip(" \t")
		for p.peek() == '!' {
			p.i++
			p.skip(" \t")
		}
		if !p.more() {
			return
		}
		cmd := p.src[p.i]
		p.i++
		switch cmd {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'L', 'q', 'Q':
			p.skip(" \t")
			p.skip("0123456789")
		case '#', 'a', 'i', 'c', 'r', 'R', 'w', 'W':
			p.line(cmd == 'a' || cmd == 'i' || cmd == 'c')
		case ':', 'b', 't', 'T', 'v':
			p.skip(" \t")
			for p.more() && p.peek() != ';' && p.peek() != '\n' {
				p.i++
			}
		case 'e':
			c := strings.TrimSpace(p.line(false))
			code := strings.TrimSpace(p.src[start:p.i])
			if c == "" {
				s.add(Run{Dynamic: true, Code: code})
			} else {
				s.add(Run{Shell: c, Code: code})
			}
		case 's':
			d := p.peek()
			if d == 0 || d == '\n' || d == '\\' {
				return
			}
			p.i++
			if !p.parts(d, 2) {
				return
			}
			exec := false
			for p.more() {
				f := p.peek()
				switch {
				case f == 'e':
					exec = true
				case strings.IndexByte("gpiImM0123456789", f) >= 0:
				case f == 'w' || f == 'W':
					p.i++
					p.line(false)
					continue
				default:
					goto flagsDone
				}
				p.i++
			}
		flagsDone:
			if exec {
				s.add(Run{Dynamic: true, Code: strings.TrimSpace(p.src[start:p.i])})
			}
		case 'y':
			d := p.peek()
			if d == 0 || d == '\n' || d == '\\' {
				return
			}
			p.i++
			if !p.parts(d, 2) {
				return
			}
		default:
			return // not a sed command: sed stops with an error, having run nothing
		}
	}
}

type sedParser struct {
	src string
	i   int
}

func (p *sedParser) more() bool { return p.i < len(p.src) }

func (p *sedParser) peek() byte {
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

func (p *sedParser) skip(chars string) {
	for p.more() && strings.IndexByte(chars, p.src[p.i]) >= 0 {
		p.i++
	}
}

// address reads an optional address: a number (N, N~M, +N, ~N), $, /regex/ or \cregexc with I and M flags.
func (p *sedParser) address() bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9' || c == '+' || c == '~':
		p.i++
		p.skip("0123456789~")
	case c == '$':
		p.i++
	case c == '/' || c == '\\':
		if c == '\\' {
			p.i++
			c = p.peek()
			if c == 0 || c == '\n' {
				return false
			}
		}
		p.i++
		if !p.delimited(c) {
			return false
		}
		p.skip("IM")
	}
	return true
}

// parts reads n parts each ended by d (s/REGEX/REPLACEMENT/, y/SOURCE/DEST/).
func (p *sedParser) parts(d byte, n int) bool {
	for range n {
		if !p.delimited(d) {
			return false
		}
	}
	return true
}

// delimited reads up to an unescaped d (inside a bracket expression too, as GNU sed reads it).
func (p *sedParser) delimited(d byte) bool {
	for p.more() {
		c := p.src[p.i]
		p.i++
		switch c {
		case '\\':
			p.i++
		case d:
			return true
		}
	}
	return false
}

// line reads the rest of the line (for a, i and c also the lines a trailing backslash continues).
func (p *sedParser) line(text bool) string {
	start := p.i
	for p.more() {
		c := p.src[p.i]
		if c == '\\' && text && p.i+1 < len(p.src) {
			p.i += 2
			continue
		}
		if c == '\n' {
			break
		}
		p.i++
	}
	return p.src[start:p.i]
}
