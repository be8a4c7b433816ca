package toolschema_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestDefinitionsGolden")

// Each format of each built-in variant matches its golden file (testdata/golden/<id>.<format>.json,
// rewritten with -update) and has the shape its API documents: checked field by field below, so that a
// golden file cannot enshrine a wrong shape.
func TestDefinitionsGolden(t *testing.T) {
	for _, id := range variants.IDs() {
		v, err := variants.Spec(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range toolschema.Formats() {
			t.Run(id+"/"+string(f), func(t *testing.T) {
				got, err := toolschema.Definitions(v, f)
				if err != nil {
					t.Fatal(err)
				}
				checkShape(t, f, got, v.Tools)
				// Each definition carries the spec's tool: name, description and the same input schema.
				arr := declarations(t, f, got)
				for i, d := range arr {
					tl := &v.Tools[i]
					if form := toolschema.APIForm(tl, f); form != nil {
						continue // checked in checkShape
					}
					name, desc, schema := fields(f, d)
					if name != tl.Name || desc != tl.Description {
						t.Errorf("tool %d: name %q, description %q", i, name, desc)
					}
					want := toolschema.Input(tl)
					if f == toolschema.JSONSchema {
						want = nil // the document has the schema's keywords at its top level: checked in checkShape
					}
					if want != nil && !sameJSON(schema, want) {
						t.Errorf("tool %d: input schema\n%s\nwant\n%s", i, schema, want)
					}
				}
				path := filepath.Join("testdata", "golden", id+"."+string(f)+".json")
				if *update {
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test -update ./gen/toolschema/)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s is stale (go test -update ./gen/toolschema/):\n%s", path, got)
				}
			})
		}
	}
	if _, err := toolschema.Definitions(nil, "nope"); err == nil {
		t.Error("an unknown format is accepted")
	}
}

// fields finds a definition's name, description and input schema where its format puts them.
func fields(f toolschema.Format, d map[string]json.RawMessage) (name, desc string, schema json.RawMessage) {
	get := func(m map[string]json.RawMessage, k string) string {
		var s string
		_ = json.Unmarshal(m[k], &s)
		return s
	}
	switch f {
	case toolschema.OpenAI:
		var fn map[string]json.RawMessage
		_ = json.Unmarshal(d["function"], &fn)
		return get(fn, "name"), get(fn, "description"), fn["parameters"]
	case toolschema.OpenAIResponses:
		return get(d, "name"), get(d, "description"), d["parameters"]
	case toolschema.Anthropic:
		return get(d, "name"), get(d, "description"), d["input_schema"]
	case toolschema.MCP:
		return get(d, "name"), get(d, "description"), d["inputSchema"]
	case toolschema.Gemini:
		return get(d, "name"), get(d, "description"), d["parametersJsonSchema"]
	}
	return get(d, "title"), get(d, "description"), nil
}

// checkShape checks the keys each API documents for a tool definition, and nothing else.
func checkShape(t *testing.T, f toolschema.Format, b []byte, tools []spec.Tool) {
	t.Helper()
	arr := declarations(t, f, b)
	if len(arr) != len(tools) {
		t.Fatalf("%d definitions, not %d:\n%s", len(arr), len(tools), b)
	}
	keys := map[toolschema.Format][]string{
		toolschema.OpenAI:          {"type", "function"},
		toolschema.OpenAIResponses: {"type", "name", "description", "parameters", "strict"},
		toolschema.Anthropic:       {"name", "description", "input_schema"},
		toolschema.MCP:             {"name", "description", "inputSchema", "outputSchema", "annotations"},
		toolschema.JSONSchema:      {"$schema", "title", "description", "type", "properties", "required", "additionalProperties"},
		toolschema.Gemini:          {"name", "description", "parametersJsonSchema"},
	}[f]
	for i, d := range arr {
		// A tool the API defines is named by the API's own form: its type, and its name when it has one.
		if form := toolschema.APIForm(&tools[i], f); form != nil {
			want := map[string]string{"type": form.Type}
			if form.Name != "" {
				want["name"] = form.Name
			}
			got := map[string]string{}
			if err := json.Unmarshal(mustJSON(d), &got); err != nil || !maps.Equal(got, want) || form.Type == "" {
				t.Errorf("%s: API form %v, want %v (%v)", f, got, want, err)
			}
			continue
		}
		for k := range d {
			if !contains(keys, k) {
				t.Errorf("%s: unexpected key %q", f, k)
			}
		}
		switch f {
		case toolschema.OpenAI:
			if string(d["type"]) != `"function"` {
				t.Errorf("type %s", d["type"])
			}
			var fn map[string]json.RawMessage
			_ = json.Unmarshal(d["function"], &fn)
			for k := range fn {
				if !contains([]string{"name", "description", "parameters"}, k) {
					t.Errorf("function: unexpected key %q", k)
				}
			}
		case toolschema.OpenAIResponses:
			if string(d["type"]) != `"function"` || string(d["strict"]) != "false" {
				t.Errorf("type %s, strict %s", d["type"], d["strict"])
			}
		case toolschema.MCP:
			var a map[string]bool
			if err := json.Unmarshal(d["annotations"], &a); err != nil || len(a) != 4 {
				t.Errorf("annotations %s", d["annotations"])
			}
			// MCP: an outputSchema, when present, is an object schema.
			var out struct{ Type string }
			if o, ok := d["outputSchema"]; ok && (json.Unmarshal(o, &out) != nil || out.Type != "object") {
				t.Errorf("outputSchema %s", o)
			}
		case toolschema.JSONSchema:
			if string(d["$schema"]) != `"https://json-schema.org/draft/2020-12/schema"` || string(d["type"]) != `"object"` {
				t.Errorf("$schema %s, type %s", d["$schema"], d["type"])
			}
		}
	}
}

// declarations are a format's tool definitions: the array's objects, or for Gemini the declarations of
// its one tool (an array holding only {"functionDeclarations": [...]}).
func declarations(t *testing.T, f toolschema.Format, b []byte) []map[string]json.RawMessage {
	t.Helper()
	var arr []map[string]json.RawMessage
	if err := json.Unmarshal(b, &arr); err != nil {
		t.Fatalf("not an array of objects: %v\n%s", err, b)
	}
	if f != toolschema.Gemini {
		return arr
	}
	if len(arr) != 1 || len(arr[0]) != 1 || arr[0]["functionDeclarations"] == nil {
		t.Fatalf("gemini: not one tool with functionDeclarations only:\n%s", b)
	}
	var decls []map[string]json.RawMessage
	if err := json.Unmarshal(arr[0]["functionDeclarations"], &decls); err != nil {
		t.Fatalf("gemini: functionDeclarations: %v", err)
	}
	return decls
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
