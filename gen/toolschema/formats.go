package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/spec"
)

// Format is a way of writing tool definitions, as one model API or protocol takes them.
type Format string

// The formats of Definitions.
const (
	// JSONSchema: each tool's parameters as a JSON Schema (draft 2020-12) document, titled with the tool's
	// name and described with its description.
	JSONSchema Format = "jsonschema"
	// OpenAI: OpenAI Chat Completions function tools, {"type": "function", "function": {name, description,
	// parameters}}.
	OpenAI Format = "openai"
	// OpenAIResponses: OpenAI Responses function tools, {"type": "function", name, description, parameters,
	// "strict": false} (the Responses API makes strict the default, and strict mode demands every property
	// be required, which these contracts do not).
	OpenAIResponses Format = "openai-responses"
	// Anthropic: Anthropic Messages tools, {name, description, input_schema}.
	Anthropic Format = "anthropic"
	// MCP: MCP Tool objects as tools/list returns them, {name, description, inputSchema, outputSchema (for a
	// tool with a JSON result: Output), annotations}.
	MCP Format = "mcp"
	// Gemini: one Gemini API tool, {"functionDeclarations": [{name, description, parametersJsonSchema}]},
	// every tool a declaration of it, as generateContent's tools take them (parametersJsonSchema carries
	// the JSON Schema as it is; parameters would take only the API's OpenAPI subset).
	Gemini Format = "gemini"
)

// Formats lists every format, in the order the CLI documents them.
func Formats() []Format { return []Format{JSONSchema, OpenAI, OpenAIResponses, Anthropic, MCP, Gemini} }

// Annotations are the MCP tool annotations of a tool (hints to a client, not guarantees).
type Annotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

// ToolAnnotations derives a tool's MCP annotations from its kind: a tool that runs a command may do anything
// (not read-only, destructive, not idempotent, open world, as CodeGen-Sandbox upstream declares its tools);
// a poll tool only reads the background registry (read-only, closed world; idempotent when every poll
// returns the whole output); a kill tool ends a process it started (destructive, idempotent, closed world).
// Of the session tools, session_list only reads the registry (read-only, idempotent), session_read reads a
// session's new output (read-only, not idempotent), session_kill is a kill; session_start and session_write
// run or drive a command (as a command tool). A command runner (session_start and session_write included)
// of a sandboxed variant is read-only in read-only mode, and closed world without the network.
func ToolAnnotations(v *spec.Variant, t *spec.Tool) Annotations {
	switch t.Kind {
	case spec.KindPoll:
		all := v.Background == nil || v.Background.Poll != spec.PollNew
		return Annotations{ReadOnlyHint: true, IdempotentHint: all}
	case spec.KindKill, spec.KindSessionKill:
		return Annotations{DestructiveHint: true, IdempotentHint: true}
	case spec.KindSessionList, spec.KindList:
		return Annotations{ReadOnlyHint: true, IdempotentHint: true}
	case spec.KindSessionRead:
		return Annotations{ReadOnlyHint: true}
	}
	if sb := v.Sandbox; sb != nil {
		// A sandbox (spec.Sandbox) bounds what a command can reach: nothing written in read-only mode, no
		// world beyond the machine without the network.
		ro := sb.Mode == spec.SandboxReadOnly
		return Annotations{ReadOnlyHint: ro, DestructiveHint: !ro, OpenWorldHint: sb.Network}
	}
	return Annotations{DestructiveHint: true, OpenWorldHint: true}
}

// Definitions writes the tools of v, the primary one first, as one JSON array (indented) in the format (for
// Gemini, an array of one tool whose declarations are the variant's tools).
func Definitions(v *spec.Variant, f Format) ([]byte, error) {
	if !slices.Contains(Formats(), f) {
		return nil, fmt.Errorf("toolschema: unknown format %q (formats: %s)", f, formatList())
	}
	var out, decls []any
	for i := range v.Tools {
		t := &v.Tools[i]
		if form := APIForm(t, f); form != nil {
			out = append(out, form)
			continue
		}
		in := Input(t)
		desc := v.ToolDescription(t)
		switch f {
		case JSONSchema:
			out = append(out, documentOf(t, desc, in))
		case OpenAI:
			out = append(out, struct {
				Type     string `json:"type"`
				Function any    `json:"function"`
			}{"function", struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			}{t.Name, desc, in}})
		case OpenAIResponses:
			out = append(out, struct {
				Type        string          `json:"type"`
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
				Strict      bool            `json:"strict"`
			}{"function", t.Name, desc, in, false})
		case Anthropic:
			out = append(out, struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"input_schema"`
			}{t.Name, desc, in})
		case Gemini:
			decls = append(decls, struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parametersJsonSchema"`
			}{t.Name, desc, in})
		case MCP:
			out = append(out, struct {
				Name         string          `json:"name"`
				Description  string          `json:"description"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
				Annotations  Annotations     `json:"annotations"`
			}{t.Name, desc, in, Output(t), ToolAnnotations(v, t)})
		}
	}
	if f == Gemini {
		out = []any{struct {
			FunctionDeclarations []any `json:"functionDeclarations"`
		}{decls}}
	}
	b, err := jsonenc.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// APIForm is the form a model API that defines the tool itself names it by in format f (the tool's api
// block: {"type": "bash_20250124", "name": "bash"} in Anthropic's, {"type": "shell"} in OpenAI Responses'),
// or nil when the tool has none in that format: then its definition is its name, description and schema.
func APIForm(t *spec.Tool, f Format) *spec.APIForm {
	if t.API == nil {
		return nil
	}
	switch f {
	case Anthropic:
		return t.API.Anthropic
	case OpenAIResponses:
		return t.API.OpenAIResponses
	}
	return nil
}

// documentOf is a tool's input schema as a standalone JSON Schema document: the $schema (the tool's
// input_schema dialect, else draft 2020-12), title and description first, then the schema's own keywords
// in their order.
func documentOf(t *spec.Tool, desc string, in json.RawMessage) json.RawMessage {
	dialect := "https://json-schema.org/draft/2020-12/schema"
	if f := t.SchemaForm; f != nil && f.Dialect != "" {
		dialect = f.Dialect
		// Input wrote it first: the document names it once.
		in = append(json.RawMessage{'{'}, bytes.TrimPrefix(in, []byte(`{"$schema":`+string(jsonenc.String(dialect))+`,`))...)
	}
	var b []byte
	b = append(b, `{"$schema":`...)
	b = append(b, jsonenc.String(dialect)...)
	b = append(b, `,"title":`...)
	b = append(b, jsonenc.String(t.Name)...)
	if desc != "" {
		b = append(b, `,"description":`...)
		b = append(b, jsonenc.String(desc)...)
	}
	b = append(b, ',')
	b = append(b, in[1:]...) // Input always writes an object with at least "type"
	return b
}

func formatList() string {
	var s []string
	for _, f := range Formats() {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}
