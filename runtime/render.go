package runtime

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// render shapes the call's data with the result case of an outcome (spec.Results.Case's fallbacks apply).
func (c *call) render(name spec.Outcome) (json.RawMessage, error) {
	c.rendered(name)
	sh, caseName, ok := c.resultCases().Case(name)
	if !ok {
		return nil, fmt.Errorf("agentbash: tool %s has no result case %q", c.t.spec.Name, name)
	}
	if sh.Raise != nil {
		var msg string
		var err error
		if sh.Truncate != nil {
			msg, err = c.renderText(sh.Raise.Message, sh.Truncate) // the case's truncate cuts the message
		} else {
			msg, err = c.t.tmpl.render(sh.Raise.Message, &c.data)
		}
		if err != nil {
			return nil, fmt.Errorf("agentbash: rendering %s: %w", name, err)
		}
		return nil, &ToolError{Type: sh.Raise.Type, Message: msg}
	}
	if sh.Text != nil {
		text, err := c.renderText(*sh.Text, sh.Truncate)
		if err != nil {
			return nil, fmt.Errorf("agentbash: rendering %s: %w", name, err)
		}
		if text, err = c.spillResult(caseName, c.redact(text)); err != nil {
			return nil, fmt.Errorf("agentbash: rendering %s: %w", name, err)
		}
		return jsonenc.String(text), nil
	}
	var b bytes.Buffer
	if err := c.writeObject(&b, sh.Fields, sh.Truncate); err != nil {
		return nil, fmt.Errorf("agentbash: rendering %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// renderText renders a text template; with a result-level truncation the streams enter as placeholders,
// so the cut is computed over the whole text without holding the streams whole.
func (c *call) renderText(tmpl string, tr *spec.Truncate) (string, error) {
	if tr == nil {
		return c.t.tmpl.render(tmpl, &c.data)
	}
	d := c.data
	var pieces map[string]*textcap.Snapshot
	if c.ropeStreams() {
		pieces = map[string]*textcap.Snapshot{}
		nonce := make([]byte, 12)
		_, _ = rand.Read(nonce)
		tag := "\x00agentbash-" + hex.EncodeToString(nonce) + "-"
		mark := func(field *string, sn *textcap.Snapshot, n int) {
			if sn == nil || sn.Bytes == 0 {
				*field = ""
				return
			}
			tok := tag + strconv.Itoa(n) + "\x00"
			pieces[tok] = sn
			*field = tok
		}
		mark(&d.Stdout, c.snaps.stdout, 0)
		mark(&d.Stderr, c.snaps.stderr, 1)
		mark(&d.Output, c.snaps.output, 2)
	}
	text, err := c.t.tmpl.render(tmpl, &d)
	if err != nil {
		return "", err
	}
	rope := splitRope(text, pieces)
	out, _, err := c.cut(c.limit(tr), rope.Truncate, nil, c.data.Running)
	return out, err
}

// splitRope cuts a rendered text at the stream placeholders.
func splitRope(text string, pieces map[string]*textcap.Snapshot) textcap.Rope {
	var rope textcap.Rope
	for len(pieces) > 0 {
		at, tok := -1, ""
		for t := range pieces {
			if i := strings.Index(text, t); i >= 0 && (at < 0 || i < at) {
				at, tok = i, t
			}
		}
		if at < 0 {
			break
		}
		if at > 0 {
			rope = append(rope, textcap.Piece{Text: text[:at]})
		}
		rope = append(rope, textcap.Piece{Snap: pieces[tok]})
		text = text[at+len(tok):]
	}
	if text != "" {
		rope = append(rope, textcap.Piece{Text: text})
	}
	return rope
}

// writeObject writes the fields as one JSON object, in order, each value in place (a value of megabytes
// is written once, not copied from a buffer of its own).
func (c *call) writeObject(b *bytes.Buffer, fields []spec.Field, tr *spec.Truncate) error {
	b.WriteByte('{')
	first := true
	for i := range fields {
		f := &fields[i]
		mark := b.Len()
		if !first {
			b.WriteByte(',')
		}
		writeString(b, f.Name)
		b.WriteByte(':')
		value := b.Len()
		if err := c.writeValue(b, f, tr); err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		// mutate: omit-zero
		if f.OmitZero && isZeroJSON(b.Bytes()[value:]) {
			b.Truncate(mark) // JavaScript's JSON.stringify drops undefined
			continue
		}
		first = false
	}
	b.WriteByte('}')
	return nil
}

// writeString writes s as a JSON string, reserving room for a few escapes first so that the encoding
// of a large string is written in place.
func writeString(b *bytes.Buffer, s string) {
	b.Grow(len(s) + len(s)/2 + 2)
	b.Write(jsonenc.AppendString(b.AvailableBuffer(), s))
}

// isZeroJSON reports a scalar that omit_zero leaves out.
func isZeroJSON(v []byte) bool {
	switch string(v) {
	case "0", `""`, "false", "null":
		return true
	}
	return false
}

func (c *call) writeValue(b *bytes.Buffer, f *spec.Field, tr *spec.Truncate) error {
	switch f.Type {
	case spec.TypeObject:
		return c.writeObject(b, f.Fields, tr)
	case spec.TypeArray:
		b.WriteByte('[')
		for i := range f.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := c.writeValue(b, &f.Fields[i], tr); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	if f.Const != nil {
		raw, err := jsonenc.Marshal(f.Const)
		if err != nil {
			return err
		}
		b.Write(raw)
		return nil
	}
	if f.Type == spec.TypeString && tr != nil {
		// Under a result-level truncation each string field is cut as a whole, streams included.
		s, err := c.renderText(f.Value, tr)
		if err != nil {
			return err
		}
		writeString(b, c.redact(s))
		return nil
	}
	s, err := c.t.tmpl.render(f.Value, &c.data)
	if err != nil {
		return err
	}
	switch f.Type {
	case spec.TypeString:
		writeString(b, c.redact(s))
	case spec.TypeInteger:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", s)
		}
		b.WriteString(strconv.FormatInt(n, 10))
	case spec.TypeNumber:
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		raw, _ := jsonenc.Marshal(x)
		b.Write(raw)
	case spec.TypeBoolean:
		v, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("%q is not a boolean", s)
		}
		b.WriteString(strconv.FormatBool(v))
	case spec.TypeJSON:
		s = strings.TrimSpace(s)
		if !json.Valid([]byte(s)) {
			return fmt.Errorf("%q is not JSON", s)
		}
		b.WriteString(s)
	default:
		return fmt.Errorf("unknown field type %q", f.Type)
	}
	return nil
}
