// Package toolschema builds the model-facing JSON Schema of a tool's parameters from a spec, and reduces any
// such schema (ours, one inferred from a generated Params type, or one a source framework shows its model)
// to the facts a model sees: parameter names in order, types, required, defaults, descriptions and minimums.
//
// Input is the one schema: the generator writes it in every generated package as the tool definitions'
// input schema, and the server and the variants registry serve the same bytes. A generated Params type
// carries only what a Go type can (json names and optionality, and the description in the jsonschema tag
// github.com/google/jsonschema-go reads); Reflect infers a schema from it as the MCP go-sdk does, and
// Inferred says what of Input that schema holds. Tests compare Summaries.
package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentbash/agentbash/spec"
)

// Input returns the JSON Schema of the tool's parameters as the model sees it (spec.Tool.InputSchema).
func Input(t *spec.Tool) json.RawMessage { return t.InputSchema() }

// Summary is what a model learns from a parameters schema.
type Summary struct {
	// Properties are the parameters in the schema's order.
	Properties []Property `json:"properties"`
	// Required lists the required parameters, sorted.
	Required []string `json:"required"`
}

// Property is one parameter of a Summary.
type Property struct {
	Name string `json:"name"`
	// Types are the JSON types accepted, sorted ("null" included for a nullable parameter).
	Types []string `json:"types"`
	// Values is the JSON type of an object's values ("string" for the spec's object parameters), or "".
	Values string `json:"values,omitempty"`
	// Description is the parameter's description.
	Description string `json:"description,omitempty"`
	// Default is the default value, with every number as a float64, or nil.
	Default any `json:"default,omitempty"`
	// Minimum is the schema minimum, or nil.
	Minimum *float64 `json:"minimum,omitempty"`
	// Maximum is the schema maximum, or nil.
	Maximum *float64 `json:"maximum,omitempty"`
}

// Summarize reduces a parameters schema to its Summary. It reads the properties of a top-level object
// schema, or of the one definition a top-level $ref names, and understands a type list, and
// anyOf/oneOf members (pydantic's Optional, invopop's nullable) whose keywords it merges.
func Summarize(schema []byte) (Summary, error) {
	var root node
	if err := decode(schema, &root); err != nil {
		return Summary{}, err
	}
	if root.Ref != "" {
		name := root.Ref[bytes.LastIndexByte([]byte(root.Ref), '/')+1:]
		def, ok := root.Defs[name]
		if !ok {
			def, ok = root.Definitions[name]
		}
		if !ok {
			return Summary{}, fmt.Errorf("toolschema: $ref %s is not defined", root.Ref)
		}
		root = def
	}
	names, err := keyOrder(root.Properties)
	if err != nil {
		return Summary{}, err
	}
	var props map[string]node
	if len(root.Properties) > 0 {
		if err := decode(root.Properties, &props); err != nil {
			return Summary{}, err
		}
	}
	s := Summary{Required: slices.Clone(root.Required), Properties: []Property{}}
	if s.Required == nil {
		s.Required = []string{}
	}
	sort.Strings(s.Required)
	for _, n := range names {
		s.Properties = append(s.Properties, summarizeProperty(n, props[n]))
	}
	return s, nil
}

// node is the part of a JSON Schema Summarize reads.
type node struct {
	Type                 json.RawMessage `json:"type"`
	Description          string          `json:"description"`
	Default              json.RawMessage `json:"default"`
	Minimum              *float64        `json:"minimum"`
	Maximum              *float64        `json:"maximum"`
	AnyOf                []node          `json:"anyOf"`
	OneOf                []node          `json:"oneOf"`
	Properties           json.RawMessage `json:"properties"`
	Required             []string        `json:"required"`
	AdditionalProperties *node           `json:"additionalProperties"`
	Ref                  string          `json:"$ref"`
	Defs                 map[string]node `json:"$defs"`
	Definitions          map[string]node `json:"definitions"`
}

// UnmarshalJSON accepts the boolean schemas (additionalProperties: false) as empty nodes.
func (n *node) UnmarshalJSON(data []byte) error {
	if t := bytes.TrimSpace(data); bytes.Equal(t, []byte("true")) || bytes.Equal(t, []byte("false")) {
		*n = node{}
		return nil
	}
	type plain node
	return json.Unmarshal(data, (*plain)(n))
}

func decode(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("toolschema: %w", err)
	}
	return nil
}

func summarizeProperty(name string, n node) Property {
	p := Property{Name: name}
	types := map[string]bool{}
	var visit func(n node)
	visit = func(n node) {
		for _, t := range typeList(n.Type) {
			types[t] = true
		}
		if p.Description == "" {
			p.Description = n.Description
		}
		if p.Default == nil && len(n.Default) > 0 && !bytes.Equal(bytes.TrimSpace(n.Default), []byte("null")) {
			var v any
			if json.Unmarshal(n.Default, &v) == nil {
				p.Default = v
			}
		}
		if p.Minimum == nil {
			p.Minimum = n.Minimum
		}
		if p.Maximum == nil {
			p.Maximum = n.Maximum
		}
		if p.Values == "" && n.AdditionalProperties != nil {
			if ts := typeList(n.AdditionalProperties.Type); len(ts) == 1 {
				p.Values = ts[0]
			}
		}
		for _, m := range n.AnyOf {
			visit(m)
		}
		for _, m := range n.OneOf {
			visit(m)
		}
	}
	visit(n)
	for t := range types {
		p.Types = append(p.Types, t)
	}
	sort.Strings(p.Types)
	return p
}

func typeList(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}

// keyOrder returns the keys of a JSON object in document order.
func keyOrder(obj json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(obj)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("toolschema: properties is not an object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("toolschema: %w", err)
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("toolschema: %w", err)
		}
	}
	return keys, nil
}

// Reflect returns the JSON Schema github.com/google/jsonschema-go infers from a generated Params type (or
// any struct; params is a value of it or a pointer to one), as the MCP go-sdk's mcp.AddTool infers a
// tool's input schema (jsonschema.For). For a generated Params type its Summary is the Inferred Summary of
// the tool's Input.
func Reflect(params any) ([]byte, error) {
	t := reflect.TypeOf(params)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return nil, fmt.Errorf("toolschema: Reflect of nil")
	}
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, fmt.Errorf("toolschema: %w", err)
	}
	return json.Marshal(s)
}

// noTagDescription is what github.com/google/jsonschema-go refuses as a jsonschema tag: a first word with
// "=" in it (it takes the whole tag as the description, and reserves WORD= for keywords).
var noTagDescription = regexp.MustCompile("^[^ \t\n]*=")

// TagDescription returns the jsonschema struct tag that gives a field a parameter's description, as
// github.com/google/jsonschema-go reads it, and false for a description it cannot carry: an empty one, or
// one whose first word holds "=" (that library refuses the tag; the description stays in Input only).
func TagDescription(desc string) (string, bool) {
	if desc == "" || noTagDescription.MatchString(desc) {
		return "", false
	}
	return desc, true
}

// Inferred reduces the Summary of a tool's Input to what a schema inferred from its generated Params type
// holds (Reflect): the parameters in order, required, the descriptions a tag can carry (TagDescription),
// and the types as the Go types say them. A Go type cannot carry defaults or minimums; an optional or
// nullable parameter is a pointer, which the inference reads as nullable even when the model may only
// leave it out; an object parameter is a map, which it reads as an object, never null.
func Inferred(s Summary) Summary {
	out := Summary{Required: slices.Clone(s.Required), Properties: []Property{}}
	for _, p := range s.Properties {
		q := Property{Name: p.Name, Values: p.Values}
		q.Description, _ = TagDescription(p.Description)
		base := slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
		pointer := !slices.Contains(s.Required, p.Name) || len(base) != len(p.Types)
		q.Types = base
		if pointer && !slices.Equal(base, []string{"object"}) {
			q.Types = append(q.Types, "null")
			sort.Strings(q.Types)
		}
		out.Properties = append(out.Properties, q)
	}
	return out
}

// Diff lists the differences between two summaries (want and got), or nothing when they are equal.
func Diff(want, got Summary) []string {
	var out []string
	if !slices.Equal(want.Required, got.Required) {
		out = append(out, fmt.Sprintf("required: want %q, got %q", want.Required, got.Required))
	}
	names := func(s Summary) []string {
		var n []string
		for _, p := range s.Properties {
			n = append(n, p.Name)
		}
		return n
	}
	if wn, gn := names(want), names(got); !slices.Equal(wn, gn) {
		out = append(out, fmt.Sprintf("properties: want %q, got %q", wn, gn))
	}
	gotBy := map[string]Property{}
	for _, p := range got.Properties {
		gotBy[p.Name] = p
	}
	for _, w := range want.Properties {
		g, ok := gotBy[w.Name]
		if !ok {
			continue
		}
		wj, _ := json.Marshal(w)
		gj, _ := json.Marshal(g)
		if !bytes.Equal(wj, gj) {
			out = append(out, fmt.Sprintf("property %s: want %s, got %s", w.Name, wj, gj))
		}
	}
	return out
}
