// Package schemagen reflects the spec language's JSON Schema (spec/schema.json) from the spec package's Go
// types and doc comments. Only `go generate ./spec` and its freshness test use it, so the reflector
// (github.com/invopop/jsonschema, which parses Go source for the comments) is not linked by the spec
// package nor by any program on the runtime.
package schemagen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	invschema "github.com/invopop/jsonschema"

	"github.com/agentbash/agentbash/spec"
)

// Generate returns spec/schema.json as the Go types describe it. It reads the doc comments of the spec
// package from the current directory, which must be spec/ (as go generate runs it).
func Generate() ([]byte, error) {
	r := &invschema.Reflector{
		RequiredFromJSONSchemaTags: false,
		DoNotReference:             false,
		Mapper:                     mapType,
	}
	if err := r.AddGoComments("github.com/agentbash/agentbash/spec", "."); err != nil {
		return nil, fmt.Errorf("reading doc comments (run in spec/): %v", err)
	}
	s := r.Reflect(&spec.Variant{})
	s.Definitions["Duration"] = durationSchema()
	compatSchema(s.Definitions)
	s.ID = spec.SchemaID
	s.Title = "agentbash variant spec"
	s.Description = "A Bash-tool contract for AI-agent hosts: tools, parameters, checks, timeouts, output and results."
	// The editor hint at the top of every spec is a comment, not a key; "$schema" as a key is allowed too.
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// mapType gives the schema of the spec types that are not what their Go type reflects to: a Duration is
// a reference to its definition (durationSchema).
func mapType(t reflect.Type) *invschema.Schema {
	if t == reflect.TypeFor[spec.Duration]() {
		return &invschema.Schema{Ref: "#/$defs/Duration"}
	}
	return nil
}

// durationSchema is the definition of a Duration: a string, read by the loader with time.ParseDuration
// (its error names the position and the value, which a pattern's would not).
func durationSchema() *invschema.Schema {
	return &invschema.Schema{Type: "string", Description: "A Go duration: 500ms, 2s, 1m30s."}
}

// compatSchema adds the earlier forms to the reflected schema, deprecated, so that an editor accepts what
// the loader reads. A list item is if/then/else rather than anyOf, so that a value in the current form is
// checked against the current form alone, with the errors it always had.
func compatSchema(defs invschema.Definitions) {
	old := func(desc string) *invschema.Schema {
		return &invschema.Schema{Type: "string", Deprecated: true, Description: desc}
	}
	variant := defs["Variant"].Properties
	for _, key := range []struct{ name, def, desc string }{
		{"deviations", "Deviation", "spec_version 1: a deviation as a string, read as its topic. Write a mapping {topic, upstream, ours, why}."},
		{"disagreements", "Disagreement", "spec_version 1: a disagreement as a string, read as its topic, following upstream. Write a mapping {topic, seed, upstream, follow, note}."},
	} {
		prop, _ := variant.Get(key.name)
		prop.Items = &invschema.Schema{
			If:   &invschema.Schema{Type: "string"},
			Then: old(key.desc),
			Else: &invschema.Schema{Ref: "#/$defs/" + key.def},
		}
	}
	null := old("spec_version 1: the name of on_null. Rename it on_null.")
	null.Enum = []any{string(spec.OnNullDefault), string(spec.OnNullNone)}
	defs["Timeout"].Properties.Set("null", null)
	sv, _ := variant.Get("spec_version")
	sv.Minimum, sv.Maximum = "1", json.Number(strconv.Itoa(spec.SpecVersion))
}
