// Package jsonenc is the one JSON encoder of agentbash: encoding/json without HTML escaping and without a
// trailing newline, which is how results, reports, tool schemas and wire answers are written (a model and a
// host must see `<`, `>` and `&` as the command printed them, not as \u003c escapes).
package jsonenc

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf8"
)

// Marshal encodes v as compact JSON without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := Encode(&b, v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// MarshalIndent is Marshal with indentation (reports and schemas for people).
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Encode writes v to w as one line of JSON without HTML escaping, followed by a newline (JSON Lines).
func Encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// String encodes s as a JSON string, as Marshal(s) does.
func String(s string) []byte {
	return AppendString(make([]byte, 0, len(s)+len(s)/8+2), s)
}

// AppendString appends s encoded as a JSON string to dst, byte for byte as Marshal(s) encodes it (the
// escapes of encoding/json without HTML escaping: \" \\ \b \f \n \r \t, \u00XX for the other control
// bytes, \u2028 and \u2029, \ufffd for each byte of invalid UTF-8; FuzzAppendString holds it to that), in
// one pass and without the intermediate buffers of an Encoder: the results carry captured output of up to
// megabytes, whose copies were a result's largest allocations.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				// mutate: jsonenc-newline
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
