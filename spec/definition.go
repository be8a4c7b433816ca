package spec

import (
	"bytes"
	"encoding/json"

	"github.com/agentbash/agentbash/internal/jsonenc"
)

// Definition is one tool as its model sees it: what a host shows the model.
type Definition struct {
	// Name is what the model calls.
	Name string `json:"name"`
	// Description is the model-facing description, verbatim from the source.
	Description string `json:"description"`
	// InputSchema is the JSON Schema of the parameters (Tool.InputSchema).
	InputSchema json.RawMessage `json:"input_schema"`
}

// Definitions returns the variant's tools as their model sees them, the primary tool first.
func (v *Variant) Definitions() []Definition {
	defs := make([]Definition, len(v.Tools))
	for i := range v.Tools {
		t := &v.Tools[i]
		defs[i] = Definition{Name: t.Name, Description: v.ToolDescription(t), InputSchema: t.InputSchema()}
	}
	return defs
}

// ToolDescription is the description of a tool of v as the model sees it: its Description, and for a tool
// that runs commands (kind exec) of a variant with a sandbox block, a paragraph saying what the sandbox
// allows (Sandbox.Note). Without a sandbox block it is the Description, byte for byte.
func (v *Variant) ToolDescription(t *Tool) string {
	if v.Sandbox == nil || t.kind() != KindExec {
		return t.Description
	}
	note := v.Sandbox.Note()
	if t.Description == "" {
		return note
	}
	return t.Description + "\n\n" + note
}

// Note is the sentence that tells a model what the sandbox allows its commands.
func (s *Sandbox) Note() string {
	var note string
	if s.Mode == SandboxReadOnly {
		note = "Commands run in a read-only sandbox: they can read files but not write any"
	} else {
		note = "Commands run in a sandbox: they can write files only in the workspace and in $TMPDIR (.git stays read-only)"
	}
	if s.Network {
		return note + "."
	}
	return note + ", and have no network access."
}

// InputSchema returns the JSON Schema of the tool's parameters as the model sees it: an object whose properties
// follow the spec's order, each with its type (["T", "null"] when nullable), description, default and
// minimum, and the list of required parameters. Object parameters carry string values. The tool's
// input_schema block adds the dialect first ($schema) and closes the object (additionalProperties: false)
// last. The output is compact, deterministic JSON.
func (t *Tool) InputSchema() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	if f := t.SchemaForm; f != nil && f.Dialect != "" {
		b.WriteString(`"$schema":`)
		writeString(&b, f.Dialect)
		b.WriteByte(',')
	}
	b.WriteString(`"type":"object","properties":{`)
	var required []string
	for i, p := range t.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, p.Name)
		b.WriteByte(':')
		writeProperty(&b, &t.Params[i])
		if p.Required {
			required = append(required, p.Name)
		}
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":[`)
		for i, r := range required {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(&b, r)
		}
		b.WriteByte(']')
	}
	if f := t.SchemaForm; f != nil && f.Closed {
		b.WriteString(`,"additionalProperties":false`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeProperty(b *bytes.Buffer, p *Param) {
	b.WriteString(`{"type":`)
	if p.Nullable {
		b.WriteByte('[')
		writeString(b, string(p.Type))
		b.WriteString(`,"null"]`)
	} else {
		writeString(b, string(p.Type))
	}
	if p.Type == TypeObject {
		b.WriteString(`,"additionalProperties":{"type":"string"}`)
	}
	if p.Type == TypeArray {
		b.WriteString(`,"items":{"type":"string"}`)
	}
	if p.Description != "" {
		b.WriteString(`,"description":`)
		writeString(b, p.Description)
	}
	if p.Default != nil {
		if raw, err := jsonenc.Marshal(p.Default); err == nil {
			b.WriteString(`,"default":`)
			b.Write(raw)
		}
	}
	for _, lim := range []struct {
		key string
		v   *float64
	}{{"minimum", p.Minimum}, {"exclusiveMinimum", p.ExclusiveMinimum}, {"maximum", p.Maximum}} {
		if lim.v != nil {
			b.WriteString(`,"` + lim.key + `":`)
			raw, _ := jsonenc.Marshal(*lim.v) // 9007199254740991, not 9.007199254740991e+15
			b.Write(raw)
		}
	}
	if len(p.Enum) > 0 {
		b.WriteString(`,"enum":[`)
		for i, e := range p.Enum {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, e)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

func writeString(b *bytes.Buffer, s string) {
	raw, _ := jsonenc.Marshal(s)
	b.Write(raw)
}
