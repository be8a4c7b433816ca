package spec

import (
	"strings"
	"unicode"
)

// initialisms are written in upper case inside Go names (exit_code -> ExitCode, shell_id -> ShellID).
var initialisms = map[string]string{
	"api": "API", "ascii": "ASCII", "cpu": "CPU", "html": "HTML", "http": "HTTP", "https": "HTTPS",
	"id": "ID", "ids": "IDs", "io": "IO", "ip": "IP", "json": "JSON", "pid": "PID", "sql": "SQL",
	"tty": "TTY", "uid": "UID", "uri": "URI", "url": "URL", "utf8": "UTF8", "uuid": "UUID", "xml": "XML",
}

// GoName turns a spec name (snake_case, kebab-case, camelCase, dotted) into an exported Go identifier.
// Words split at every character that is not a letter or digit, and at a lower-to-upper case change.
func GoName(s string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	var b strings.Builder
	for _, w := range words {
		if up, ok := initialisms[strings.ToLower(w)]; ok && (w == strings.ToLower(w) || w == up) {
			b.WriteString(up)
			continue
		}
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	name := b.String()
	if name == "" {
		return "X"
	}
	if r := []rune(name)[0]; !unicode.IsLetter(r) {
		name = "X" + name
	}
	return name
}
