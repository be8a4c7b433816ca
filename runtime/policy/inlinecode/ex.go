package inlinecode

import "strings"

// ex finds the commands a vim Ex command line runs (vim -c CMD, +CMD, ex -c): :!CMD and a range's
// filter :{range}!CMD, :r !CMD, :w !CMD, :terminal CMD; the calls system(), systemlist(), job_start(),
// jobstart() and termopen() with a string; :silent and :global before another command; :execute of a
// string; and the code of :python3, :perl, :ruby and :lua. Commands are separated by |, except that the
// shell commands take the rest of the line. A command built at run time (:execute of an expression,
// system() of a variable) is dynamic.
func (s *scanner) ex(line string, depth int) {
	for rest := line; rest != ""; {
		_, rest = s.exCommand(rest, depth)
	}
}

// exAbbrev reports that word is an abbreviation of full at least min letters long (:r, :re, :read).
func exAbbrev(word, full string, min int) bool {
	return len(word) >= min && len(word) <= len(full) && full[:len(word)] == word
}

// exCommand reads one command of line and returns it and what follows its bar.
func (s *scanner) exCommand(line string, depth int) (string, string) {
	cmd := strings.TrimLeft(line, " \t:")
	cmd = skipExRange(cmd)
	cmd = strings.TrimLeft(cmd, " \t")
	if cmd == "" {
		return "", ""
	}
	if cmd[0] == '!' {
		s.exShell(cmd[1:], line)
		return line, ""
	}
	k := 0
	for k < len(cmd) && (cmd[k]|0x20 >= 'a' && cmd[k]|0x20 <= 'z' || k > 0 && cmd[k] >= '0' && cmd[k] <= '9') {
		k++
	}
	name, args := cmd[:k], cmd[k:]
	bang := strings.HasPrefix(args, "!")
	if bang {
		args = args[1:]
	}
	trimmed := strings.TrimLeft(args, " \t")
	switch {
	case exAbbrev(name, "read", 1):
		if bang || strings.HasPrefix(trimmed, "!") {
			s.exShell(strings.TrimPrefix(trimmed, "!"), line)
			return line, ""
		}
	case exAbbrev(name, "write", 1):
		if !bang && strings.HasPrefix(trimmed, "!") && trimmed != args { // :w !cmd, not :w! file
			s.exShell(trimmed[1:], line)
			return line, ""
		}
	case exAbbrev(name, "terminal", 3):
		t := trimmed
		for strings.HasPrefix(t, "++") { // ++close, ++rows=N ...
			t = strings.TrimLeft(strings.TrimLeft(t, "+abcdefghijklmnopqrstuvwxyz=0123456789"), " \t")
		}
		if t != "" {
			s.exShell(t, line)
		}
		return line, ""
	case exAbbrev(name, "silent", 3), exAbbrev(name, "unsilent", 3), exAbbrev(name, "noautocmd", 3),
		exAbbrev(name, "keepjumps", 5), exAbbrev(name, "verbose", 4), exAbbrev(name, "sandbox", 3):
		if exAbbrev(name, "sandbox", 3) {
			return line, "" // :sandbox refuses the commands that run the shell
		}
		return s.exCommand(trimmed, depth)
	case exAbbrev(name, "global", 1), exAbbrev(name, "vglobal", 1):
		if trimmed != "" { // :g/pat/cmd: cmd runs on every matching line
			d := trimmed[0]
			if end := strings.IndexByte(trimmed[1:], d); end >= 0 {
				s.ex(trimmed[end+2:], depth+1)
			}
		}
		return line, ""
	case exAbbrev(name, "execute", 3):
		if v, ok := exString(strings.TrimSpace(trimmed)); ok {
			s.scan(Ex, v, depth+1)
		} else {
			s.add(Run{Dynamic: true, Code: clip(strings.TrimSpace(cmd))})
		}
		return line, ""
	case exAbbrev(name, "normal", 4):
		if strings.Contains(trimmed, "!") || strings.Contains(trimmed, ":") {
			s.add(Run{Dynamic: true, Code: clip(strings.TrimSpace(cmd))}) // keys that may type an Ex command
		}
		return line, ""
	}
	for _, e := range []struct {
		name string
		min  int
		lang Language
	}{{"python3", 7, Python}, {"py3", 3, Python}, {"python", 2, Python}, {"pythonx", 7, Python}, {"pyx", 3, Python},
		{"perl", 3, Perl}, {"ruby", 3, Ruby}, {"lua", 3, Lua}} {
		if exAbbrev(name, e.name, e.min) || name == e.name {
			s.scan(e.lang, strings.TrimSpace(trimmed), depth+1)
			return line, ""
		}
	}
	// Any other command: its expressions may call the functions that run commands; a bar ends it.
	body, next := cutBar(cmd)
	s.exCalls(body)
	return body, next
}

// exShell is the shell command of :!, :r !, :w !, :terminal: !! repeats the last one, which is not known.
func (s *scanner) exShell(cmd, line string) {
	cmd = strings.TrimSpace(cmd)
	switch {
	case cmd == "":
	case strings.HasPrefix(cmd, "!"):
		s.add(Run{Dynamic: true, Code: clip(line)})
	default:
		s.add(Run{Shell: cmd, Code: clip(strings.TrimSpace(line))})
	}
}

// skipExRange skips a command's range: numbers, . $ % , ; + -, marks ('a) and patterns (/pat/, ?pat?).
func skipExRange(s string) string {
	for s != "" {
		switch c := s[0]; {
		case c >= '0' && c <= '9' || strings.IndexByte(".$%,;+- \t", c) >= 0:
			s = s[1:]
		case c == '\'' && len(s) > 1:
			s = s[2:]
		case c == '/' || c == '?':
			end := strings.IndexByte(s[1:], c)
			if end < 0 {
				return ""
			}
			s = s[end+2:]
		case c == '\\' && len(s) > 1:
			s = s[2:]
		default:
			return s
		}
	}
	return s
}

// cutBar splits a command at its first bar outside a string.
func cutBar(s string) (string, string) {
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			} else if c == '\\' && q == '"' {
				i++
			}
		case c == '"' || c == '\'':
			q = c
		case c == '|':
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// exString is the value of a Vim string literal ('...' with ” for a quote, "..." with escapes).
func exString(s string) (string, bool) {
	if len(s) < 2 {
		return "", false
	}
	switch {
	case s[0] == '\'' && s[len(s)-1] == '\'' && !strings.Contains(strings.ReplaceAll(s[1:len(s)-1], "''", ""), "'"):
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), true
	case s[0] == '"' && s[len(s)-1] == '"':
		body := s[1 : len(s)-1]
		for i := 0; i < len(body); i++ {
			if body[i] == '\\' {
				i++
			} else if body[i] == '"' {
				return "", false
			}
		}
		return unescape(body, Ex), true
	}
	return "", false
}

// exCalls finds system(), systemlist(), job_start(), jobstart() and termopen() in an expression.
func (s *scanner) exCalls(expr string) {
	for _, fn := range []string{"systemlist(", "system(", "job_start(", "jobstart(", "termopen("} {
		for k := 0; ; {
			i := strings.Index(expr[k:], fn)
			if i < 0 {
				break
			}
			i += k
			k = i + len(fn)
			if i > 0 && (isIdentPart(expr[i-1]) || expr[i-1] == '#' || expr[i-1] == '.') {
				continue // another function whose name ends so
			}
			arg, end := exArg(expr[k:])
			code := clip(expr[i : k+end])
			if v, ok := exString(strings.TrimSpace(arg)); ok {
				s.add(Run{Shell: v, Code: code})
			} else if strings.HasPrefix(strings.TrimSpace(arg), "[") {
				s.add(Run{Dynamic: true, Code: code}) // a list: an argument vector, read as not known
			} else {
				s.add(Run{Dynamic: true, Code: code})
			}
		}
	}
}

// exArg is a call's first argument, up to a comma or the closing parenthesis outside strings and brackets.
func exArg(s string) (string, int) {
	depth := 0
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			} else if c == '\\' && q == '"' {
				i++
			}
		case c == '"' || c == '\'':
			q = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				return s[:i], i + 1
			}
			depth--
		case c == ',' && depth == 0:
			return s[:i], i + 1
		}
	}
	return s, len(s)
}
