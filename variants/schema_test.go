package variants_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/variants"
	"github.com/agentbash/agentbash/variants/agentrail"
	"github.com/agentbash/agentbash/variants/codegensandbox"
	"github.com/agentbash/agentbash/variants/codex"
	geminicli "github.com/agentbash/agentbash/variants/gemini-cli"
	"github.com/agentbash/agentbash/variants/opencode"
	"github.com/agentbash/agentbash/variants/rye"
	"github.com/agentbash/agentbash/variants/toolregistry"
	"github.com/agentbash/agentbash/variants/tunacode"
)

// param is an upstream fact about one model-facing parameter: its name, its JSON type (null aside), and,
// where the source shows one, its default.
type param struct {
	name, typ string
	def       any
}

// upstreamTool is what a source shows its model for one tool (see ../../shared/upstream-facts.md and the
// seeds): the parameters in order and the required ones.
type upstreamTool struct {
	params   any // a zero generated Params value, from which github.com/google/jsonschema-go infers a schema
	facts    []param
	required []string
}

func schemaCase(t *testing.T, id string, tools []upstreamTool) {
	t.Helper()
	v, err := variants.Spec(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Tools) != len(tools) {
		t.Fatalf("%d tools in the spec, %d upstream", len(v.Tools), len(tools))
	}
	for i, up := range tools {
		// The schema is the one built from the spec's params (what Definitions shows the model) ...
		want, err := toolschema.Summarize(toolschema.Input(&v.Tools[i]))
		if err != nil {
			t.Fatal(err)
		}
		// ... which the MCP go-sdk's schema library infers from the generated Params type as far as a Go
		// type says it (toolschema.Inferred: no defaults or minimums) ...
		reflected, err := toolschema.Reflect(up.params)
		if err != nil {
			t.Fatalf("%s: jsonschema.For of %T: %v", v.Tools[i].Name, up.params, err)
		}
		got, err := toolschema.Summarize(reflected)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range toolschema.Diff(toolschema.Inferred(want), got) {
			t.Errorf("%s: reflected vs spec: %s", v.Tools[i].Name, d)
		}
		// ... and keeps the source's facts.
		if !slices.Equal(want.Required, up.required) {
			t.Errorf("%s: required %q, upstream %q", v.Tools[i].Name, want.Required, up.required)
		}
		if len(want.Properties) != len(up.facts) {
			t.Errorf("%s: %d parameters, upstream %d", v.Tools[i].Name, len(want.Properties), len(up.facts))
			continue
		}
		for j, f := range up.facts {
			p := want.Properties[j]
			types := slices.DeleteFunc(slices.Clone(p.Types), func(s string) bool { return s == "null" })
			if p.Name != f.name || !slices.Equal(types, []string{f.typ}) {
				t.Errorf("%s: parameter %d is %s %v, upstream %s %s", v.Tools[i].Name, j, p.Name, p.Types, f.name, f.typ)
			}
			if f.def != nil && p.Default != f.def {
				t.Errorf("%s: %s default %v, upstream %v", v.Tools[i].Name, p.Name, p.Default, f.def)
			}
			if p.Description == "" {
				t.Errorf("%s: %s has no description", v.Tools[i].Name, p.Name)
			}
		}
	}
}

func TestSchemaRye(t *testing.T) {
	// bash.py CONFIG_SCHEMA: command (required), timeout (integer, 120), working_dir.
	schemaCase(t, "rye", []upstreamTool{{
		params:   &rye.BashParams{},
		facts:    []param{{"command", "string", nil}, {"timeout", "integer", 120.0}, {"working_dir", "string", nil}},
		required: []string{"command"},
	}})
	// What the go-sdk's mcp.AddTool does with a handler of rye.BashParams (#24: it failed with "tag must not
	// begin with 'WORD='" on the invopop tags).
	s, err := jsonschema.For[rye.BashParams](nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Properties["timeout"]; p == nil || p.Description != "Timeout in seconds (default: 120)" || !slices.Equal(s.Required, []string{"command"}) {
		t.Errorf("jsonschema.For[rye.BashParams]: %+v", s)
	}
}

func TestSchemaAgentrail(t *testing.T) {
	// bash.ts TypeBox schema: command, working_directory (optional), timeout (integer ms, minimum 0, 30000).
	schemaCase(t, "agentrail", []upstreamTool{{
		params:   &agentrail.BashParams{},
		facts:    []param{{"command", "string", nil}, {"working_directory", "string", nil}, {"timeout", "integer", 30000.0}},
		required: []string{"command"},
	}})
	p := toolschemaProperty(t, "agentrail", 0, "timeout")
	if p.Minimum == nil || *p.Minimum != 0 {
		t.Errorf("agentrail timeout minimum: %v, upstream 0", p.Minimum)
	}
}

func TestSchemaToolregistry(t *testing.T) {
	// execute(command: str, timeout: int = 120, cwd: str | None = None).
	schemaCase(t, "toolregistry", []upstreamTool{{
		params:   &toolregistry.BashParams{},
		facts:    []param{{"command", "string", nil}, {"timeout", "integer", 120.0}, {"cwd", "string", nil}},
		required: []string{"command"},
	}})
}

func TestSchemaTunacode(t *testing.T) {
	// bash(command: str, cwd: str | None = None, env: dict[str, str] | None = None, timeout: int | None = 30,
	// capture_output: bool = True).
	schemaCase(t, "tunacode", []upstreamTool{{
		params: &tunacode.BashParams{},
		facts: []param{{"command", "string", nil}, {"cwd", "string", nil}, {"env", "object", nil},
			{"timeout", "integer", 30.0}, {"capture_output", "boolean", true}},
		required: []string{"command"},
	}})
	for _, name := range []string{"cwd", "env", "timeout"} {
		if p := toolschemaProperty(t, "tunacode", 0, name); !slices.Contains(p.Types, "null") {
			t.Errorf("tunacode %s is Optional upstream, reflected %v", name, p.Types)
		}
	}
	if p := toolschemaProperty(t, "tunacode", 0, "env"); p.Values != "string" {
		t.Errorf("tunacode env values: %q, upstream str", p.Values)
	}
}

func TestSchemaCodegensandbox(t *testing.T) {
	// Bash: command, description (required), timeout (number), run_in_background (boolean), workspace
	// (string, withWorkspaceArg); BashOutput and KillShell: shell_id (required).
	schemaCase(t, "codegensandbox", []upstreamTool{
		{
			params: &codegensandbox.BashParams{},
			facts: []param{{"command", "string", nil}, {"description", "string", nil}, {"timeout", "number", nil},
				{"run_in_background", "boolean", nil}, {"workspace", "string", nil}},
			required: []string{"command", "description"},
		},
		{params: &codegensandbox.BashOutputParams{}, facts: []param{{"shell_id", "string", nil}}, required: []string{"shell_id"}},
		{params: &codegensandbox.KillShellParams{}, facts: []param{{"shell_id", "string", nil}}, required: []string{"shell_id"}},
	})
}

// toolschemaProperty is a property of a tool's schema (what Definitions shows the model).
func toolschemaProperty(t *testing.T, id string, tool int, name string) toolschema.Property {
	t.Helper()
	v, err := variants.Spec(id)
	if err != nil {
		t.Fatal(err)
	}
	s, err := toolschema.Summarize(toolschema.Input(&v.Tools[tool]))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Properties {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no property %s", name)
	return toolschema.Property{}
}

func TestSchemaCodex(t *testing.T) {
	// shell_spec.rs at 8a2c0cf (the properties are a BTreeMap, sorted): exec_command {cmd (required),
	// justification, login, max_output_tokens (number), sandbox_permissions, shell, tty, workdir,
	// yield_time_ms (number)} (prefix_rule, an array, is not offered: see the deviations); write_stdin
	// {chars, max_output_tokens, session_id (number, required), yield_time_ms}; shell_command {command
	// (required), justification, login, sandbox_permissions, timeout_ms (number), workdir}. No defaults are
	// shown: the descriptions say them.
	schemaCase(t, "codex", []upstreamTool{
		{
			params: &codex.ExecCommandParams{},
			facts: []param{{"cmd", "string", nil}, {"justification", "string", nil}, {"login", "boolean", nil},
				{"max_output_tokens", "number", nil}, {"sandbox_permissions", "string", nil}, {"shell", "string", nil},
				{"tty", "boolean", nil}, {"workdir", "string", nil}, {"yield_time_ms", "number", nil}},
			required: []string{"cmd"},
		},
		{
			params: &codex.WriteStdinParams{},
			facts: []param{{"chars", "string", nil}, {"max_output_tokens", "number", nil}, {"session_id", "number", nil},
				{"yield_time_ms", "number", nil}},
			required: []string{"session_id"},
		},
		{
			params: &codex.ShellCommandParams{},
			facts: []param{{"command", "string", nil}, {"justification", "string", nil}, {"login", "boolean", nil},
				{"sandbox_permissions", "string", nil}, {"timeout_ms", "number", nil}, {"workdir", "string", nil}},
			required: []string{"command"},
		},
	})
	for _, name := range []string{"yield_time_ms", "max_output_tokens", "tty"} {
		if p := toolschemaProperty(t, "codex", 0, name); p.Default != nil {
			t.Errorf("codex exec_command %s shows a default %v; upstream shows none", name, p.Default)
		}
	}
}

func TestSchemaGeminiCLI(t *testing.T) {
	// getShellDeclaration (tools/definitions/dynamic-declaration-helpers) in @google/gemini-cli 0.61.0's
	// bundle: command (required), description, dir_path, is_background (boolean), delay_ms (integer);
	// additional_permissions only with tool sandboxing (off). ListBackgroundProcessesTool: no parameters;
	// ReadBackgroundOutputTool: pid (integer, required), lines (integer, minimum 1), delay_ms (integer).
	schemaCase(t, "gemini-cli", []upstreamTool{
		{
			params: &geminicli.RunShellCommandParams{},
			facts: []param{{"command", "string", nil}, {"description", "string", nil}, {"dir_path", "string", nil},
				{"is_background", "boolean", nil}, {"delay_ms", "integer", nil}},
			required: []string{"command"},
		},
		{params: &geminicli.ListBackgroundProcessesParams{}},
		{
			params:   &geminicli.ReadBackgroundOutputParams{},
			facts:    []param{{"pid", "integer", nil}, {"lines", "integer", nil}, {"delay_ms", "integer", nil}},
			required: []string{"pid"},
		},
	})
}

func TestSchemaOpenCode(t *testing.T) {
	// The bash tool's parameters as opencode-ai 1.18.33 sent them to the model (recorded with make hosts):
	// command (string, required), timeout (integer; minimum -9007199254740991, exclusiveMinimum 0, maximum
	// 9007199254740991: Effect's Int with isGreaterThan(0)), workdir (string). No defaults.
	schemaCase(t, "opencode", []upstreamTool{{
		params:   &opencode.BashParams{},
		facts:    []param{{"command", "string", nil}, {"timeout", "integer", nil}, {"workdir", "string", nil}},
		required: []string{"command"},
	}})
	v, err := variants.Spec("opencode")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(v.Tools[0].InputSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	to := schema.Properties["timeout"]
	for key, want := range map[string]float64{"minimum": -9007199254740991, "exclusiveMinimum": 0, "maximum": 9007199254740991} {
		if got, ok := to[key].(float64); !ok || got != want {
			t.Errorf("timeout %s: %v, upstream %v", key, to[key], want)
		}
	}
}
