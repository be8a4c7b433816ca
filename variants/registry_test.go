package variants_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
	"github.com/agentbash/agentbash/variants/agentrail"
	"github.com/agentbash/agentbash/variants/anthropic-bash"
	claudecode "github.com/agentbash/agentbash/variants/claude-code"
	"github.com/agentbash/agentbash/variants/codegensandbox"
	"github.com/agentbash/agentbash/variants/codex"
	geminicli "github.com/agentbash/agentbash/variants/gemini-cli"
	"github.com/agentbash/agentbash/variants/internal/behavior"
	"github.com/agentbash/agentbash/variants/openai-local-shell"
	"github.com/agentbash/agentbash/variants/openai-shell"
	"github.com/agentbash/agentbash/variants/opencode"
	qwencode "github.com/agentbash/agentbash/variants/qwen-code"
	"github.com/agentbash/agentbash/variants/rye"
	"github.com/agentbash/agentbash/variants/toolregistry"
	"github.com/agentbash/agentbash/variants/tunacode"
	"github.com/agentbash/agentbash/variants/vercel-bash-tool"
)

// Every generated adapter is a variants.Tool.
var (
	_ variants.Tool = (*rye.Tool)(nil)
	_ variants.Tool = (*agentrail.Tool)(nil)
	_ variants.Tool = (*toolregistry.Tool)(nil)
	_ variants.Tool = (*tunacode.Tool)(nil)
	_ variants.Tool = (*codegensandbox.Tool)(nil)
	_ variants.Tool = (*codex.Tool)(nil)
	_ variants.Tool = (*geminicli.Tool)(nil)
	_ variants.Tool = (*anthropicbash.Tool)(nil)
	_ variants.Tool = (*vercelbashtool.Tool)(nil)
	_ variants.Tool = (*openaishell.Tool)(nil)
	_ variants.Tool = (*openailocalshell.Tool)(nil)
	_ variants.Tool = (*opencode.Tool)(nil)
)

// compact is a definition with its input schema compacted (the generated packages write it indented).
func compact(t *testing.T, defs []spec.Definition) []spec.Definition {
	t.Helper()
	out := make([]spec.Definition, len(defs))
	for i, d := range defs {
		var b bytes.Buffer
		if err := json.Compact(&b, d.InputSchema); err != nil {
			t.Fatalf("%s: invalid schema %s", d.Name, d.InputSchema)
		}
		d.InputSchema = b.Bytes()
		out[i] = d
	}
	return out
}

// builtins is one row per built-in: its generated package's data and a typed constructor.
var builtins = []struct {
	id   string
	defs func() []spec.Definition
	open func(ws string) (variants.Tool, error)
}{
	{"agentrail", agentrail.Definitions, func(ws string) (variants.Tool, error) { return agentrail.New(runtime.WithWorkspace(ws)) }},
	{"anthropic-bash", anthropicbash.Definitions, func(ws string) (variants.Tool, error) {
		return anthropicbash.New(runtime.WithWorkspace(ws))
	}},
	{"claude-code", claudecode.Definitions, func(ws string) (variants.Tool, error) { return claudecode.New(runtime.WithWorkspace(ws)) }},
	{"codegensandbox", codegensandbox.Definitions, func(ws string) (variants.Tool, error) {
		return codegensandbox.New(runtime.WithWorkspace(ws))
	}},
	{"codex", codex.Definitions, func(ws string) (variants.Tool, error) { return codex.New(runtime.WithWorkspace(ws)) }},
	{"gemini-cli", geminicli.Definitions, func(ws string) (variants.Tool, error) {
		return geminicli.New(runtime.WithWorkspace(ws))
	}},
	{"openai-local-shell", openailocalshell.Definitions, func(ws string) (variants.Tool, error) {
		return openailocalshell.New(runtime.WithWorkspace(ws))
	}},
	{"openai-shell", openaishell.Definitions, func(ws string) (variants.Tool, error) {
		return openaishell.New(runtime.WithWorkspace(ws))
	}},
	{"opencode", opencode.Definitions, func(ws string) (variants.Tool, error) { return opencode.New(runtime.WithWorkspace(ws)) }},
	{"qwen-code", qwencode.Definitions, func(ws string) (variants.Tool, error) { return qwencode.New(runtime.WithWorkspace(ws)) }},
	{"rye", rye.Definitions, func(ws string) (variants.Tool, error) { return rye.New(runtime.WithWorkspace(ws)) }},
	{"toolregistry", toolregistry.Definitions, func(ws string) (variants.Tool, error) {
		return toolregistry.New(runtime.WithWorkspace(ws))
	}},
	{"tunacode", tunacode.Definitions, func(ws string) (variants.Tool, error) { return tunacode.New(runtime.WithWorkspace(ws)) }},
	{"vercel-bash-tool", vercelbashtool.Definitions, func(ws string) (variants.Tool, error) {
		return vercelbashtool.New(runtime.WithWorkspace(ws))
	}},
}

func TestList(t *testing.T) {
	infos, err := variants.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range infos {
		ids = append(ids, in.ID)
		if in.Title == "" || len(in.Hosts) == 0 || len(in.Tools) == 0 {
			t.Errorf("%s: incomplete info %+v", in.ID, in)
		}
	}
	var want []string
	for _, b := range builtins {
		want = append(want, b.id)
	}
	if !slices.Equal(ids, want) || !slices.Equal(ids, variants.IDs()) {
		t.Errorf("List ids %v, want %v (IDs %v)", ids, want, variants.IDs())
	}
}

func TestLookup(t *testing.T) {
	for _, b := range builtins {
		t.Run(b.id, func(t *testing.T) {
			tool, err := variants.Lookup(b.id, runtime.WithWorkspace(t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			defer tool.Close()
			if tool.Variant().ID != b.id {
				t.Errorf("Variant().ID = %q", tool.Variant().ID)
			}
			// The registry's tool is the generated package's.
			typed, err := b.open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer typed.Close()
			if got, want := reflect.TypeOf(tool), reflect.TypeOf(typed); got != want {
				t.Errorf("Lookup returned a %v, want the generated %v", got, want)
			}
		})
	}
	for _, id := range []string{"", "nope", "RYE", "../rye"} {
		if _, err := variants.Lookup(id); !errors.Is(err, variants.ErrUnknown) {
			t.Errorf("Lookup(%q): %v, want ErrUnknown", id, err)
		}
	}
}

func TestForHost(t *testing.T) {
	cases := []struct{ host, want string }{
		{"rye-os", "rye"},
		{"agentrail", "agentrail"},
		{"toolregistry-hub", "toolregistry"},
		{"pydantic-ai", "tunacode"},
		{"TunaCode", "tunacode"},
		{"mcp", "codegensandbox"},
		{"codegen-sandbox", "codegensandbox"},
	}
	for _, c := range cases {
		t.Run(c.host, func(t *testing.T) {
			tool, err := variants.ForHost(c.host, runtime.WithWorkspace(t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			defer tool.Close()
			if got := tool.Variant().ID; got != c.want {
				t.Errorf("ForHost(%q) = %s, want %s", c.host, got, c.want)
			}
		})
	}
	if _, err := variants.ForHost("no-such-framework"); !errors.Is(err, variants.ErrUnknown) {
		t.Errorf("unknown host: %v", err)
	}
	// Every host a spec lists finds a variant that lists it.
	infos, _ := variants.List()
	for _, in := range infos {
		for _, h := range in.Hosts {
			if ids := variants.ForHostIDs(h); !slices.Contains(ids, in.ID) {
				t.Errorf("ForHostIDs(%q) = %v, misses %s", h, ids, in.ID)
			}
		}
	}
}

// TestDefinitions: the registry's definitions (from the spec at run time) equal the generated packages'
// (from the spec at generation time).
func TestDefinitions(t *testing.T) {
	for _, b := range builtins {
		t.Run(b.id, func(t *testing.T) {
			tool, err := variants.Lookup(b.id, runtime.WithWorkspace(t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			defer tool.Close()
			got := compact(t, variants.Definitions(tool))
			if want := compact(t, b.defs()); !reflect.DeepEqual(got, want) {
				t.Errorf("registry definitions\n%+v\ndiffer from generated\n%+v", got, want)
			}
			if !json.Valid(got[0].InputSchema) {
				t.Errorf("invalid schema %s", got[0].InputSchema)
			}
		})
	}
}

// pidLine is a result's report of a process id (gemini-cli's "Process Group PGID: 123"), which differs
// between two runs of one command.
var pidLine = regexp.MustCompile(`(PGID|PID): \d+`)

func maskPids(b []byte) []byte { return pidLine.ReplaceAll(b, []byte("$1: N")) }

// TestTypedAndGenericAgree: a generated adapter and an engine running its spec (Start) answer the same
// call with the same bytes, and raise the same error.
func TestTypedAndGenericAgree(t *testing.T) {
	calls := []struct{ name, params string }{
		{"echo", `{"command":"echo '<hi & bye>'; echo err >&2; exit 3","description":"echo a line"}`},
		{"invalid", `{"command":7,"description":"bad"}`},
	}
	for _, b := range builtins {
		for _, c := range calls {
			t.Run(b.id+"/"+c.name, func(t *testing.T) {
				ws := t.TempDir()
				typed, err := b.open(ws)
				if err != nil {
					t.Fatal(err)
				}
				defer typed.Close()
				v, err := variants.Spec(b.id)
				if err != nil {
					t.Fatal(err)
				}
				generic, err := variants.Start(v, runtime.WithWorkspace(ws))
				if err != nil {
					t.Fatal(err)
				}
				defer generic.Close()
				ctx := behavior.Bounded(t)
				tr, terr := typed.Call(ctx, json.RawMessage(c.params))
				gr, gerr := generic.Call(ctx, json.RawMessage(c.params))
				if !bytes.Equal(maskPids(tr), maskPids(gr)) {
					t.Errorf("results differ:\n typed %s\ngeneric %s", tr, gr)
				}
				var tte, gte *runtime.ToolError
				if errors.As(terr, &tte) != errors.As(gerr, &gte) || (tte != nil && *tte != *gte) {
					t.Errorf("errors differ: typed %v (%T), generic %v", terr, terr, gerr)
				}
				if terr != nil && tte == nil {
					t.Errorf("typed error %v (%T) does not unwrap to *runtime.ToolError", terr, terr)
				}
			})
		}
	}
}
