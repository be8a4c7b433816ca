package spec

import (
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The JSON Schema, as an editor reads it, accepts every spec of testdata/compat as written (before the
// loader converts its earlier forms), and still refuses what no version had.
func TestSchemaAcceptsEarlierForms(t *testing.T) {
	files, _ := filepath.Glob("testdata/compat/*/*.yaml")
	if len(files) == 0 {
		t.Fatal("no compat specs")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if errs := schemaErrors(t, f, data); len(errs) > 0 {
			t.Errorf("%s: the schema flags a spec that loads: %v", f, errs)
		}
	}
	for _, bad := range []string{
		"deviations: [3]",
		"deviations: [{topic: t}]",
		"tools: [{timeout: {null: sometimes}}]",
		"spec_version: 3",
	} {
		if errs := schemaErrors(t, "bad.yaml", []byte(bad)); len(errs) == 0 {
			t.Errorf("the schema accepts %q", bad)
		}
	}
}

func schemaErrors(t *testing.T, file string, data []byte) Errors {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	inst, err := nodeToJSON(root.Content[0])
	if err != nil {
		t.Fatal(err)
	}
	var errs Errors
	for _, e := range validateSchema(file, inst, positions{}) {
		// The fragments above are not whole specs: only the errors about their own keys count.
		if e.Field != "" && e.Field != "tools[0]" {
			errs = append(errs, e)
		}
	}
	return errs
}
