package spec

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// referenceSchema is spec/schema.json compiled by github.com/santhosh-tekuri/jsonschema/v6, the validator
// spec's own follows.
func referenceSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// referenceErrors is what validateSchema answered when it ran the reference library: its leaf errors, in
// the library's order, with the same positions and rewording.
func referenceErrors(sch *jsonschema.Schema, file string, inst any, pos positions) Errors {
	err := sch.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return Errors{{File: file, Msg: err.Error()}}
	}
	printer := message.NewPrinter(language.English)
	var leaves []schemaLeaf
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
		l := schemaLeaf{ptr: ptr, msg: e.ErrorKind.LocalizedString(printer)}
		switch k := e.ErrorKind.(type) {
		case *kind.Maximum:
			l.got, l.bound, l.max = k.Got, k.Want, true
		case *kind.Minimum:
			l.got, l.bound = k.Got, k.Want
		}
		leaves = append(leaves, l)
	}
	walk(ve)
	return schemaErrors(file, leaves, pos)
}

// schemaInstance reads a YAML document as parseSpec does for the schema: the instance and the positions.
func schemaInstance(doc *yaml.Node) (any, positions, error) {
	w := &walker{pos: positions{}}
	if !w.walk(doc, "", 1) {
		return nil, nil, w.err
	}
	inst, err := nodeToJSON(doc)
	return inst, w.pos, err
}

// tiesSorted orders errors by position and then field: the reference library visits an object's
// properties in map order, so two fields at one position (an alias used twice) come in either order. The
// errors of one field keep their order.
func tiesSorted(es Errors) string {
	es = slices.Clone(es)
	slices.SortStableFunc(es, func(a, b *Error) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if a.Col != b.Col {
			return a.Col - b.Col
		}
		return strings.Compare(a.Field, b.Field)
	})
	return es.Error()
}

// checkSameErrors validates a YAML document with both validators and fails on any difference; it
// returns the number of errors.
func checkSameErrors(t *testing.T, ref *jsonschema.Schema, name string, doc *yaml.Node) (errs int) {
	t.Helper()
	inst, pos, err := schemaInstance(doc)
	if err != nil {
		return 0
	}
	want := referenceErrors(ref, "f.yaml", inst, pos)
	got := validateSchema("f.yaml", inst, pos)
	if tiesSorted(got) != tiesSorted(want) {
		data, _ := yaml.Marshal(doc)
		t.Errorf("%s: the errors differ from the reference validator's\ngot:\n%v\nwant:\n%v\nspec:\n%s", name, got, want, data)
	}
	return len(want)
}

// checkSameErrorsYAML is checkSameErrors for YAML text.
func checkSameErrorsYAML(t *testing.T, ref *jsonschema.Schema, name string, data []byte) {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return
	}
	checkSameErrors(t, ref, name, root.Content[0])
}

// TestSchemaSameErrors: spec's validator answers every spec with the errors, positions and order the
// reference validator (github.com/santhosh-tekuri/jsonschema/v6) gives: the broken and good specs of
// testdata, the built-ins, and every value of every built-in replaced by values of other types, removed,
// or joined by an unknown key.
func TestSchemaSameErrors(t *testing.T) {
	ref := referenceSchema(t)
	files, _ := filepath.Glob("testdata/*/*.yaml")
	builtins, _ := filepath.Glob("../variants/*/*.yaml")
	if len(builtins) < 6 {
		t.Fatalf("found %d built-in specs", len(builtins))
	}
	for _, f := range append(files, builtins...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkSameErrorsYAML(t, ref, f, data)
	}
	replacements := []string{`7`, `-3`, `1.5`, `1e400`, `"x"`, `"exec"`, `true`, `null`, `[]`, `[1, "a", "a"]`, `["cwd", "env", "cwd"]`, `{}`, `{zz: 1}`, `100000000`}
	var cases, failing int
	for _, f := range builtins {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		// slots are the places a value sits: mapping values and sequence items, with their parents.
		type slot struct {
			parent *yaml.Node
			i      int
		}
		var slots []slot
		var visit func(n *yaml.Node)
		visit = func(n *yaml.Node) {
			switch n.Kind {
			case yaml.MappingNode:
				for i := 1; i < len(n.Content); i += 2 {
					slots = append(slots, slot{n, i})
					visit(n.Content[i])
				}
			case yaml.SequenceNode:
				for i := range n.Content {
					slots = append(slots, slot{n, i})
					visit(n.Content[i])
				}
			}
		}
		visit(doc.Content[0])
		root := doc.Content[0]
		for k, s := range slots {
			orig := s.parent.Content[s.i]
			// Each slot gets one of the replacements, in turn (the full run two).
			n := 2
			if testing.Short() {
				n = 1
			}
			for r := range n {
				var rep yaml.Node
				if err := yaml.Unmarshal([]byte(replacements[(k*2+r)%len(replacements)]), &rep); err != nil {
					t.Fatal(err)
				}
				s.parent.Content[s.i] = rep.Content[0]
				cases++
				if checkSameErrors(t, ref, fmt.Sprintf("%s slot %d", f, k), root) > 0 {
					failing++
				}
			}
			s.parent.Content[s.i] = orig
			if s.parent.Kind == yaml.MappingNode && k%2 == 0 {
				// Remove the key, or add an unknown one beside it.
				saved := s.parent.Content
				s.parent.Content = slices.Delete(slices.Clone(saved), s.i-1, s.i+1)
				checkSameErrors(t, ref, fmt.Sprintf("%s slot %d removed", f, k), root)
				key := &yaml.Node{Kind: yaml.ScalarNode, Value: "unknown_key"}
				s.parent.Content = append(slices.Clone(saved), key, &yaml.Node{Kind: yaml.ScalarNode, Value: "1", Tag: "!!int"})
				checkSameErrors(t, ref, fmt.Sprintf("%s slot %d unknown key", f, k), root)
				s.parent.Content = saved
				cases += 2
			}
		}
	}
	if failing < cases/4 {
		t.Errorf("only %d of %d mutated specs fail the schema: the mutations test little", failing, cases)
	}
	t.Logf("%d mutated specs, %d of them invalid", cases, failing)
}

// FuzzSchemaSameErrors: on any YAML, spec's validator and the reference one agree.
func FuzzSchemaSameErrors(f *testing.F) {
	for _, s := range []string{
		"id: x\ntitle: t\nshell: {argv: [sh, -c]}\ntools: [{name: a, kind: exec, params: [], results: {}}]\n",
		"id: 1\ntools: {}\n",
		"a: &x {grace: q}\nshell: *x\ntools: [*x, *x]\n",
		"tools: [{carry: [cwd, env, cwd], timeout: {min: -1, max: 1.5e3}}]\n",
	} {
		f.Add([]byte(s))
	}
	ref := referenceSchema(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		checkSameErrorsYAML(t, ref, "fuzz", data)
	})
}

// TestSchemaCompileRejects: the validator compiles only the keywords it implements, so a schema that
// starts to use another fails here and at every validation rather than passing specs it should not.
func TestSchemaCompileRejects(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"oneOf": [{"type": "string"}]}`, `keyword "oneOf" is not implemented`},
		{`{"$ref": "#/$defs/Nope", "$defs": {}}`, `no such definition`},
		{`{"$ref": "https://example.com/x"}`, `only a reference to a definition`},
		{`{"type": "str"}`, `unknown type "str"`},
		{`{"properties": {"a": 3}}`, `a schema is an object or a boolean`},
		{`{"pattern": "("}`, `missing closing )`},
		{`{"minItems": -1}`, `not a count`},
	} {
		_, err := compileSpecSchema([]byte(c.schema))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.schema, err, c.want)
		}
	}
	if _, err := compileSpecSchema(schemaJSON); err != nil {
		t.Fatalf("spec/schema.json: %v", err)
	}
}

// TestGroupDigits: %d as the English message printer writes it.
func TestGroupDigits(t *testing.T) {
	p := message.NewPrinter(language.English)
	for _, n := range []int{0, 7, 999, 1000, 12345, 1234567, -1000} {
		if got, want := groupDigits(n), p.Sprintf("%d", n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}
