package gen

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/agentbash/agentbash/internal/jsonenc"
)

// text renders a string literal readably: a raw string for multi-line text that a raw string can hold,
// else one quoted literal per line, joined with +.
func text(s string) *jen.Statement {
	if !strings.Contains(s, "\n") {
		return jen.Lit(s)
	}
	if !strings.ContainsAny(s, "`\r") && utf8.ValidString(s) {
		return jen.Op("`" + s + "`")
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	st := jen.Lit(lines[0])
	for _, l := range lines[1:] {
		st = st.Op("+").Line().Lit(l)
	}
	return st
}

// readableJSON lays out compact JSON for people: an object or array that fits in about 100 columns stays on
// one line (with a space after each colon and comma), a larger one has one member per line. Keys keep their
// order.
func readableJSON(raw []byte) string {
	var b strings.Builder
	writeJSON(&b, raw, "")
	return b.String()
}

func writeJSON(b *strings.Builder, raw []byte, indent string) {
	raw = bytes.TrimSpace(raw)
	if one := oneLineJSON(raw); len(indent)+len(one) <= 90 || (raw[0] != '{' && raw[0] != '[') {
		b.WriteString(one)
		return
	}
	open, close := raw[0], raw[len(raw)-1]
	b.WriteByte(open)
	inner := indent + "  "
	for i, m := range members(raw) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + inner)
		if m.key != nil {
			b.Write(m.key)
			b.WriteString(": ")
		}
		writeJSON(b, m.value, inner)
	}
	b.WriteString("\n" + indent)
	b.WriteByte(close)
}

// oneLineJSON is compact JSON with a space after each colon and comma outside strings.
func oneLineJSON(raw []byte) string {
	var b strings.Builder
	inString, escaped := false, false
	for _, c := range raw {
		b.WriteByte(c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// member is one element of a JSON array, or one key and value of an object.
type member struct{ key, value []byte }

// members splits a compact JSON object or array into its members.
func members(raw []byte) []member {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // the opening delimiter
		return nil
	}
	isObject := raw[0] == '{'
	var out []member
	for dec.More() {
		var m member
		if isObject {
			key, err := dec.Token()
			if err != nil {
				return out
			}
			m.key = jsonenc.String(key.(string))
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		m.value = v
		out = append(out, m)
	}
	return out
}

// wrap formats text as // comment lines of at most about 100 columns, keeping the text's line breaks.
func wrap(text string) string {
	// gofmt turns ``x'' into curly quotes in doc comments; keep the source's backticks and quotes single.
	text = strings.NewReplacer("``", "`", "''", "'").Replace(text)
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(text), "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && len(line)+1+len(w) > 100 {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		out = append(out, line)
	}
	for i, l := range out {
		if l == "" {
			out[i] = "//"
		} else {
			out[i] = "// " + l
		}
	}
	return strings.Join(out, "\n")
}

// oneLine is a function or struct body kept on one line ({ return x }), as a person would write a
// forwarding method: jennifer's Block always breaks lines.
func oneLine(code ...jen.Code) *jen.Statement {
	return jen.Op("{").Add(code...).Op("}")
}

// keyed is a composite literal's keyed elements in the given order, on one line.
func keyed(kv ...jen.Code) *jen.Statement {
	var elems []jen.Code
	for i := 0; i+1 < len(kv); i += 2 {
		elems = append(elems, jen.Add(kv[i]).Op(":").Add(kv[i+1]))
	}
	return jen.Values(elems...)
}
