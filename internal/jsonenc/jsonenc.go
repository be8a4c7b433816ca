// Package jsonenc is the one JSON encoder of agentbash: encoding/json without HTML escaping and without a
// trailing newline, which is how results, reports, tool schemas and wire answers are written (a model and a
// host must see `<`, `>` and `&` as the command printed them, not as \u003c escapes).
package jsonenc

import (
	"bytes"
	"encoding/json"
	"io"
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

// String encodes a string as a JSON string literal without HTML escaping.
func String(s string) []byte {
	b, _ := Marshal(s) // a Go string always encodes (invalid UTF-8 becomes U+FFFD)
	return b
}
