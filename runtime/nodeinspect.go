package runtime

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// nodeArgValue is the message of Node's ERR_INVALID_ARG_VALUE for a value that must be a string without
// null bytes: "The argument 'args[1]' ..." for a plain name, "The property 'options.cwd' ..." for a dotted
// one, and "Received " the value as util.inspect shows it, cut at 128 UTF-16 units.
func nodeArgValue(name, reason, value string) string {
	inspected := utf16.Encode([]rune(nodeInspectString(value)))
	shown := string(utf16.Decode(inspected))
	if len(inspected) > 128 {
		shown = string(utf16.Decode(inspected[:128])) + "..."
	}
	kind := "argument"
	if strings.Contains(name, ".") {
		kind = "property"
	}
	return "The " + kind + " '" + name + "' " + reason + ". Received " + shown
}

// nodeInspectString is util.inspect(s) of Node 20 with its default options (maxStringLength 10000,
// breakLength 80, compact 3): the string quoted and escaped, split after each newline into pieces joined
// with " +\n  " when it is longer than 76 UTF-16 units, and cut at 10000 units with a "... N more
// characters" trailer. Lengths are JavaScript's, in UTF-16 code units.
func nodeInspectString(s string) string {
	u := utf16.Encode([]rune(s))
	trailer := ""
	if len(u) > 10000 {
		remaining := len(u) - 10000
		u = u[:10000]
		trailer = "... " + strconv.Itoa(remaining) + " more character"
		if remaining > 1 {
			trailer += "s"
		}
	}
	if len(u) > 16 && len(u) > 80-4 {
		var lines []string
		start := 0
		for i, c := range u {
			if c == '\n' {
				lines = append(lines, nodeStrEscape(u[start:i+1]))
				start = i + 1
			}
		}
		if start < len(u) {
			lines = append(lines, nodeStrEscape(u[start:]))
		}
		return strings.Join(lines, " +\n  ") + trailer
	}
	return nodeStrEscape(u) + trailer
}

// nodeStrEscape is Node's strEscape: single quotes unless the text holds one (then double quotes, or
// backticks when it holds a double quote too and no backtick or "${"); control characters, C1 controls,
// the backslash and the chosen quote escaped; a lone surrogate as \uXXXX.
func nodeStrEscape(u []uint16) string {
	s := string(utf16.Decode(u))
	quote := byte('\'')
	if strings.Contains(s, "'") {
		if !strings.Contains(s, `"`) {
			quote = '"'
		} else if !strings.Contains(s, "`") && !strings.Contains(s, "${") {
			quote = '`'
		}
	}
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '\'' && quote == '\'':
			b.WriteString(`\'`)
		case c == '\\':
			b.WriteString(`\\`)
		case c < 32 || (c > 126 && c < 160):
			b.WriteString(nodeMeta(c))
		case c >= 0xd800 && c <= 0xdbff && i+1 < len(u) && u[i+1] >= 0xdc00 && u[i+1] <= 0xdfff:
			b.WriteString(string(utf16.Decode(u[i : i+2])))
			i++
		case c >= 0xd800 && c <= 0xdfff:
			b.WriteString(`\u` + strconv.FormatUint(uint64(c), 16))
		default:
			b.WriteRune(rune(c))
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// nodeMeta is the escape Node's meta table gives a control character.
func nodeMeta(c uint16) string {
	switch c {
	case '\b':
		return `\b`
	case '\t':
		return `\t`
	case '\n':
		return `\n`
	case '\f':
		return `\f`
	case '\r':
		return `\r`
	}
	return `\x` + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:])
}
