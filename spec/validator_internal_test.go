package spec

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec/internal/schemacheck"
)

// The tests read YAML specs: they link the validator, as a program does by importing spec/validate.
func init() { UseSchemaValidator(schemacheck.Compile) }

// TestNoSchemaValidator: without a validator, Parse, Load and LoadFS refuse a spec, naming the package that
// links one; ParseEmbedded, which does not validate, still reads it. (Not parallel: it unsets the
// validator for the package's tests, which run in parallel only after it.)
func TestNoSchemaValidator(t *testing.T) {
	used := schemaUsed.Load()
	t.Cleanup(func() { schemaUsed.Store(used) })
	UseSchemaValidator(nil)
	doc, err := os.ReadFile("testdata/good/minimal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse("t.yaml", doc)
	if err == nil || !strings.Contains(err.Error(), `import _ "`+ValidatePackage+`"`) || !strings.HasPrefix(err.Error(), "t.yaml:1:1: ") {
		t.Fatalf("Parse without a validator: %v; want t.yaml:1:1 and the import of %s", err, ValidatePackage)
	}
	if _, err := ParseEmbedded("t.yaml", doc); err != nil {
		t.Fatalf("ParseEmbedded without a validator: %v", err)
	}
	UseSchemaValidator(schemacheck.Compile)
	if _, err := Parse("t.yaml", doc); err != nil {
		t.Fatalf("Parse with the validator: %v", err)
	}
	UseSchemaValidator(func(string, []byte) (SchemaCheck, error) { return nil, errors.New("broken") })
	if _, err := Parse("t.yaml", doc); err == nil || !strings.Contains(err.Error(), "spec schema does not compile: broken") {
		t.Fatalf("Parse with a validator that fails: %v", err)
	}
}
