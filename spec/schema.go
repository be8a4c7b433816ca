package spec

//go:generate go run ./internal/genschema -o schema.json

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// SchemaID is the $id of the spec language's JSON Schema.
const SchemaID = "https://github.com/agentbash/agentbash/spec/schema.json"

//go:embed schema.json
var schemaJSON []byte

// SchemaJSON returns the checked-in JSON Schema of the spec language (spec/schema.json).
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }

// A SchemaCheck validates a spec document, decoded as encoding/json decodes into any, against a compiled
// JSON Schema. It calls leaf for each failed leaf of the validation, in the validator's order, with its
// instance location (one unescaped token per element) and message; its error is one that is not a
// validation failure.
type SchemaCheck = func(doc any, leaf func(location []string, message string)) error

// A SchemaValidator compiles a JSON Schema document known by id into a SchemaCheck.
type SchemaValidator func(id string, schemaJSON []byte) (SchemaCheck, error)

// ValidatePackage is the package whose import links the JSON Schema validator (see UseSchemaValidator).
const ValidatePackage = "github.com/agentbash/agentbash/spec/validate"

// schemaValidator is the validator UseSchemaValidator set, with its compiled check once it has compiled.
type schemaValidator struct {
	compile SchemaValidator
	once    sync.Once
	check   SchemaCheck
	err     error
}

var schemaUsed atomic.Pointer[schemaValidator]

// UseSchemaValidator sets the validator Parse checks every spec with against the spec language's JSON
// Schema (SchemaJSON). Package spec does not link one: its import of the santhosh-tekuri validator would
// run that library's package init (the meta-schemas of five drafts) at the start of every program built on
// spec, a generated adapter included. Importing package validate (ValidatePackage) for its effect calls
// this with that validator; until something does, Parse, Load and LoadFS refuse every spec with an error
// that names the package. ParseEmbedded and compiled specs never validate. A nil v unsets it.
func UseSchemaValidator(v SchemaValidator) {
	if v == nil {
		schemaUsed.Store(nil)
		return
	}
	schemaUsed.Store(&schemaValidator{compile: v})
}

// schemaCheck returns the check of the schema, compiled by the validator in use on its first call.
func schemaCheck() (SchemaCheck, error) {
	v := schemaUsed.Load()
	if v == nil {
		return nil, fmt.Errorf("this program links no JSON Schema validator, so it cannot read a YAML spec: import _ %q", ValidatePackage)
	}
	v.once.Do(func() {
		v.check, v.err = v.compile(SchemaID, schemaJSON)
		if v.err != nil {
			v.err = fmt.Errorf("internal: spec schema does not compile: %v", v.err)
		}
	})
	return v.check, v.err
}

// validateSchema checks a decoded spec against the JSON Schema and maps every leaf error to its position.
func validateSchema(file string, inst any, pos positions) Errors {
	check, err := schemaCheck()
	if err != nil {
		return Errors{{File: file, Line: 1, Col: 1, Msg: err.Error()}}
	}
	var out Errors
	seen := map[string]bool{}
	err = check(inst, func(location []string, msg string) {
		ptr := ""
		for _, part := range location {
			ptr += "/" + escapePointer(part)
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
	})
	if err != nil {
		return Errors{{File: file, Msg: err.Error()}}
	}
	sortErrors(out)
	return out
}
