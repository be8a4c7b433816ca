package spec

//go:generate go run ./internal/genschema -o schema.json

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	invschema "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// SchemaID is the $id of the spec language's JSON Schema.
const SchemaID = "https://github.com/agentbash/agentbash/spec/schema.json"

//go:embed schema.json
var schemaJSON []byte

// SchemaJSON returns the checked-in JSON Schema of the spec language (spec/schema.json).
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }

// GenerateSchema reflects the JSON Schema from the Go types; `go generate ./spec` writes it to schema.json
// and a test fails when the checked-in file is stale.
func GenerateSchema() ([]byte, error) {
	r := &invschema.Reflector{
		RequiredFromJSONSchemaTags: false,
		DoNotReference:             false,
	}
	// Field descriptions come from the doc comments; go generate and go test both run in spec/.
	if err := r.AddGoComments("github.com/agentbash/agentbash/spec", "."); err != nil {
		return nil, fmt.Errorf("reading doc comments (run in spec/): %v", err)
	}
	s := r.Reflect(&Variant{})
	compatSchema(s.Definitions)
	s.ID = SchemaID
	s.Title = "agentbash variant spec"
	s.Description = "A Bash-tool contract for AI-agent hosts: tools, parameters, checks, timeouts, output and results."
	// The editor hint at the top of every spec is a comment, not a key; "$schema" as a key is allowed too.
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

var (
	compileOnce sync.Once
	compiled    *jsonschema.Schema
	compileErr  error
)

func compiledSchema() (*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			compileErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(SchemaID, doc); err != nil {
			compileErr = err
			return
		}
		compiled, compileErr = c.Compile(SchemaID)
	})
	return compiled, compileErr
}

// validateSchema checks a decoded spec against the JSON Schema and maps every leaf error to its position.
func validateSchema(file string, inst any, pos positions) Errors {
	sch, err := compiledSchema()
	if err != nil {
		return Errors{{File: file, Msg: "internal: spec schema does not compile: " + err.Error()}}
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return Errors{{File: file, Msg: err.Error()}}
	}
	var out Errors
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		ptr := ""
		for _, part := range e.InstanceLocation {
			ptr += "/" + escapePointer(part)
		}
		msg := e.ErrorKind.LocalizedString(printer)
		switch k := e.ErrorKind.(type) {
		case *kind.Maximum:
			msg = k.Got.RatString() + " is over the maximum " + k.Want.RatString()
		case *kind.Minimum:
			msg = k.Got.RatString() + " is under the minimum " + k.Want.RatString()
		}
		// Point at an unknown key itself rather than at its object.
		at := ptr
		if strings.HasPrefix(msg, "additional properties") {
			if i := strings.IndexByte(msg, '\''); i >= 0 {
				if j := strings.IndexByte(msg[i+1:], '\''); j >= 0 {
					at = ptr + "/" + escapePointer(msg[i+1:i+1+j])
				}
			}
			msg = strings.Replace(msg, "additional properties", "unknown field", 1)
		}
		key := at + "\x00" + msg
		if seen[key] {
			return
		}
		seen[key] = true
		lc, ok := pos[at+"#value"]
		if !ok || at != ptr {
			lc = pos[at]
		}
		if lc == [2]int{} {
			lc = pos[ptr]
		}
		out = append(out, &Error{File: file, Line: lc[0], Col: lc[1], Field: pointerToField(ptr), Msg: msg})
	}
	walk(ve)
	sortErrors(out)
	return out
}
