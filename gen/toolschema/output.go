package toolschema

import (
	"bytes"

	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/spec"
)

// Output returns the JSON Schema of a JSON-result tool's result, as MCP's outputSchema gives it: built from
// the tool's Go model (spec.Tool.Go), so it says what the generated result type holds. A struct result is
// an object whose properties are the fields merged over every case, those present in every case required;
// a union is an object that is one of its members (oneOf), each with its discriminator's value as a const.
// A field typed json, or whose cases disagree on its type, accepts any value. A text tool (or a tool whose
// model is not known: Complete was not run) has none: nil.
func Output(t *spec.Tool) []byte {
	g := t.Go()
	if g == nil || t.Results.Format != spec.FormatJSON {
		return nil
	}
	var b bytes.Buffer
	switch g.Shape {
	case spec.GoStruct:
		writeObject(&b, g.Fields, "")
	case spec.GoSealed:
		b.WriteString(`{"type":"object","oneOf":[`)
		for i, m := range g.Union.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeObject(&b, m.Fields, m.Name)
		}
		b.WriteString(`]}`)
	default:
		return nil
	}
	return b.Bytes()
}

// writeObject writes an object schema of the fields (titled when title is set).
func writeObject(b *bytes.Buffer, fields []*spec.GoField, title string) {
	b.WriteString(`{"type":"object"`)
	if title != "" {
		b.WriteString(`,"title":`)
		b.Write(jsonenc.String(title))
	}
	b.WriteString(`,"properties":{`)
	var required []string
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonenc.String(f.Name))
		b.WriteByte(':')
		writeField(b, f)
		if f.Always {
			required = append(required, f.Name)
		}
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":[`)
		for i, r := range required {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonenc.String(r))
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

// writeField writes the schema of one field's value.
func writeField(b *bytes.Buffer, f *spec.GoField) {
	switch f.Type {
	case spec.TypeObject:
		writeObject(b, f.Children, "")
		return
	case spec.TypeArray:
		b.WriteString(`{"type":"array","items":`)
		switch f.Elem {
		case spec.TypeObject:
			writeObject(b, f.Children, "")
		case spec.TypeString, spec.TypeInteger, spec.TypeNumber, spec.TypeBoolean:
			b.WriteString(`{"type":`)
			b.Write(jsonenc.String(string(f.Elem)))
			b.WriteByte('}')
		default:
			b.WriteString(`{}`)
		}
		b.WriteByte('}')
		return
	}
	b.WriteByte('{')
	sep := ""
	switch f.Type {
	case spec.TypeString, spec.TypeInteger, spec.TypeNumber, spec.TypeBoolean:
		b.WriteString(`"type":`)
		b.Write(jsonenc.String(string(f.Type)))
		sep = ","
	}
	if f.IsConst {
		if c, err := jsonenc.Marshal(f.Const); err == nil {
			b.WriteString(sep + `"const":`)
			b.Write(c)
			sep = ","
		}
	}
	if f.Doc != "" {
		b.WriteString(sep + `"description":`)
		b.Write(jsonenc.String(f.Doc))
	}
	b.WriteByte('}')
}
