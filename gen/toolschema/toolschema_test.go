package toolschema_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/spec"
)

func ptr[T any](v T) *T { return &v }

var tool = &spec.Tool{Name: "bash", Params: []spec.Param{
	{Name: "command", Type: "string", Required: true, Description: `The "command" <to> run.`},
	{Name: "cwd", Type: "string", Nullable: true, Description: "Directory."},
	{Name: "env", Type: "object", Nullable: true},
	{Name: "timeout", Type: "integer", Nullable: true, Default: 30, Minimum: ptr(0.0)},
	{Name: "capture_output", Type: "boolean", Default: true},
}}

func TestInput(t *testing.T) {
	want := `{"type":"object","properties":{` +
		`"command":{"type":"string","description":"The \"command\" <to> run."},` +
		`"cwd":{"type":["string","null"],"description":"Directory."},` +
		`"env":{"type":["object","null"],"additionalProperties":{"type":"string"}},` +
		`"timeout":{"type":["integer","null"],"default":30,"minimum":0},` +
		`"capture_output":{"type":"boolean","default":true}},` +
		`"required":["command"]}`
	if got := string(toolschema.Input(tool)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := string(toolschema.Input(&spec.Tool{})); got != `{"type":"object","properties":{}}` {
		t.Errorf("no params: %s", got)
	}
	// A range: minimum and maximum, which Summarize reads back.
	ranged := &spec.Tool{Params: []spec.Param{{Name: "timeout", Type: "integer", Minimum: ptr(1.0), Maximum: ptr(600000.0)}}}
	in := toolschema.Input(ranged)
	if got, want := string(in), `{"type":"object","properties":{"timeout":{"type":"integer","minimum":1,"maximum":600000}}}`; got != want {
		t.Errorf("range: got  %s\nwant %s", got, want)
	}
	if s, err := toolschema.Summarize(in); err != nil || len(s.Properties) != 1 || s.Properties[0].Maximum == nil || *s.Properties[0].Maximum != 600000 {
		t.Errorf("range summarized: %+v, %v", s, err)
	}
}

// TestSummarizeDialects: the same parameters as pydantic, invopop (nullable as oneOf, keywords inside) and
// a $ref-style schema show them summarize alike.
func TestSummarizeDialects(t *testing.T) {
	want, err := toolschema.Summarize(toolschema.Input(tool))
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]string{
		"pydantic": `{"properties":{
			"command":{"description":"The \"command\" <to> run.","title":"Command","type":"string"},
			"cwd":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"Directory.","title":"Cwd"},
			"env":{"anyOf":[{"additionalProperties":{"type":"string"},"type":"object"},{"type":"null"}],"default":null},
			"timeout":{"anyOf":[{"minimum":0,"type":"integer"},{"type":"null"}],"default":30},
			"capture_output":{"default":true,"type":"boolean"}},
			"required":["command"],"title":"bash","type":"object"}`,
		"invopop": `{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{
			"command":{"type":"string","description":"The \"command\" <to> run."},
			"cwd":{"oneOf":[{"type":"string","description":"Directory."},{"type":"null"}]},
			"env":{"oneOf":[{"additionalProperties":{"type":"string"},"type":"object"},{"type":"null"}]},
			"timeout":{"oneOf":[{"type":"integer","minimum":0,"default":30},{"type":"null"}]},
			"capture_output":{"type":"boolean","default":true}},
			"additionalProperties":false,"type":"object","required":["command"]}`,
		"ref": `{"$ref":"#/$defs/P","$defs":{"P":{"type":"object","required":["command"],"properties":{
			"command":{"type":"string","description":"The \"command\" <to> run."},
			"cwd":{"type":["null","string"],"description":"Directory."},
			"env":{"type":["object","null"],"additionalProperties":{"type":"string"}},
			"timeout":{"type":["integer","null"],"default":30.0,"minimum":0},
			"capture_output":{"type":"boolean","default":true}}}}}`,
	}
	for name, s := range schemas {
		t.Run(name, func(t *testing.T) {
			got, err := toolschema.Summarize([]byte(s))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range toolschema.Diff(want, got) {
				t.Error(d)
			}
		})
	}
}

func TestDiffFindsDifferences(t *testing.T) {
	want, _ := toolschema.Summarize(toolschema.Input(tool))
	cases := []struct{ name, schema, diff string }{
		{"required", `{"properties":{"command":{"type":"string"}}}`, "required"},
		{"order", `{"required":["command"],"properties":{"cwd":{"type":"string"},"command":{"type":"string"}}}`, "properties"},
		{"type", `{"required":["command"],"properties":{"command":{"type":"integer"}}}`, "properties"},
	}
	for _, c := range cases {
		got, err := toolschema.Summarize([]byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		diffs := toolschema.Diff(want, got)
		if len(diffs) == 0 || !strings.HasPrefix(diffs[0], c.diff) {
			t.Errorf("%s: diffs %q", c.name, diffs)
		}
	}
	one := func(prop string) toolschema.Summary {
		s, err := toolschema.Summarize([]byte(`{"properties":{"timeout":` + prop + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := one(`{"type":"integer","default":30,"minimum":0,"description":"d"}`)
	for _, changed := range []string{
		`{"type":"integer","default":31,"minimum":0,"description":"d"}`,
		`{"type":"integer","default":30,"minimum":1,"description":"d"}`,
		`{"type":"integer","default":30,"minimum":0,"description":"e"}`,
		`{"type":["integer","null"],"default":30,"minimum":0,"description":"d"}`,
	} {
		if len(toolschema.Diff(base, one(changed))) == 0 {
			t.Errorf("no difference found with %s", changed)
		}
	}
}

// Params is a hand-written struct tagged as the generator tags Params types.
type Params struct {
	Command       string            `json:"command" jsonschema:"The \"command\" <to> run."`
	Cwd           *string           `json:"cwd,omitempty" jsonschema:"Directory."`
	Env           map[string]string `json:"env,omitempty"`
	Timeout       *int              `json:"timeout,omitempty"`
	CaptureOutput *bool             `json:"capture_output,omitempty"`
}

// TestReflect: github.com/google/jsonschema-go infers from a Params type what Inferred says of Input: the
// names in order, required, descriptions, and the types as Go says them (an optional parameter nullable,
// an object never), without defaults or minimums.
func TestReflect(t *testing.T) {
	raw, err := toolschema.Reflect(&Params{})
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(raw) {
		t.Fatalf("invalid JSON %s", raw)
	}
	got, err := toolschema.Summarize(raw)
	if err != nil {
		t.Fatal(err)
	}
	input, _ := toolschema.Summarize(toolschema.Input(tool))
	want := toolschema.Inferred(input)
	for _, d := range toolschema.Diff(want, got) {
		t.Error(d)
	}
	// What Inferred leaves out is what a Go type cannot say.
	types := map[string][]string{"command": {"string"}, "cwd": {"null", "string"}, "env": {"object"},
		"timeout": {"integer", "null"}, "capture_output": {"boolean", "null"}}
	for _, p := range want.Properties {
		if !slices.Equal(p.Types, types[p.Name]) || p.Default != nil || p.Minimum != nil {
			t.Errorf("inferred %s: %+v", p.Name, p)
		}
	}
	// A jsonschema tag whose first word holds "=" is refused: the generator leaves such a description out.
	type bad struct {
		X string `json:"x" jsonschema:"k=v sets k"`
	}
	if _, err := toolschema.Reflect(bad{}); err == nil {
		t.Error("a WORD= tag was accepted")
	}
}

func TestTagDescription(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"The command to run.", true},
		{"Timeout in seconds (default: 120)", true},
		{"a k=v pair", true},
		{"k=v sets k", false},
		{"=", false},
		{"", false},
	} {
		if got, ok := toolschema.TagDescription(c.in); ok != c.ok || (ok && got != c.in) {
			t.Errorf("TagDescription(%q) = %q, %v; want ok %v", c.in, got, ok, c.ok)
		}
	}
}
