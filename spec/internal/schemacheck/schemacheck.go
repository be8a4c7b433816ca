// Package schemacheck compiles a JSON Schema with the santhosh-tekuri validator and checks documents
// against it, reporting each failed leaf as an instance location and a message. It imports nothing of
// agentbash, so that both package spec/validate and package spec's own tests can use it.
package schemacheck

import (
	"bytes"
	"errors"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// Compile compiles the schema document schemaJSON, known by id, and returns its check (spec.SchemaCheck),
// safe for concurrent use. Its signature is spec.SchemaValidator's.
func Compile(id string, schemaJSON []byte) (func(doc any, leaf func(location []string, message string)) error, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(id)
	if err != nil {
		return nil, err
	}
	return func(doc any, leaf func(location []string, message string)) error { return check(sch, doc, leaf) }, nil
}

// check validates a decoded JSON document (as encoding/json decodes into any) and calls leaf for each
// failed leaf of the validation, in the validator's order: its instance location (one unescaped token
// per element) and the validator's English message, bounds as "3 is over the maximum 2". The error is
// one that is not a validation failure.
func check(sch *jsonschema.Schema, doc any, leaf func(location []string, message string)) error {
	err := sch.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		msg := e.ErrorKind.LocalizedString(printer)
		switch k := e.ErrorKind.(type) {
		case *kind.Maximum:
			msg = k.Got.RatString() + " is over the maximum " + k.Want.RatString()
		case *kind.Minimum:
			msg = k.Got.RatString() + " is under the minimum " + k.Want.RatString()
		}
		leaf(e.InstanceLocation, msg)
	}
	walk(ve)
	return nil
}
