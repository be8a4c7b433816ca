package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentbash/agentbash/variants"
)

// tools/list gives every tool with a JSON result its outputSchema (and a text tool none), and the server
// gives the spec's summary as its instructions; the structured content of calls, whichever case they
// render, validates against the schema.
func TestMCPOutputSchemaAndInstructions(t *testing.T) {
	ctx := context.Background()
	calls := map[string][]string{ // per variant, calls of its first tool: several result cases
		"rye":          {`{"command":"echo hi"}`, `{"command":"exit 3"}`, `{"command":"echo x","working_dir":"/nonexistent-dir"}`},
		"toolregistry": {`{"command":"echo hi"}`, `{"command":"sleep 5","timeout":1}`},
		"agentrail":    {`{"command":"echo hi"}`, `{"command":"sleep 5","timeout":0}`},
	}
	for _, id := range variants.IDs() {
		t.Run(id, func(t *testing.T) {
			v := mustSpec(t, id)
			cs, _ := connectMCP(t, id)
			if got := cs.InitializeResult().Instructions; got != v.Summary || got == "" {
				t.Errorf("instructions %q, want the summary %q", got, v.Summary)
			}
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			schemas := map[string]*jsonschema.Schema{}
			for _, tool := range res.Tools {
				st := v.Tool(tool.Name)
				isJSON := string(st.Results.Format) == "json"
				if (tool.OutputSchema != nil) != isJSON {
					t.Errorf("%s: a %s result, output schema %v", tool.Name, st.Results.Format, tool.OutputSchema)
				}
				if tool.OutputSchema == nil {
					continue
				}
				raw, _ := json.Marshal(tool.OutputSchema)
				var top map[string]any
				_ = json.Unmarshal(raw, &top)
				if top["type"] != "object" {
					t.Errorf("%s: the output schema is not of type object: %s", tool.Name, raw)
				}
				doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				c := jsonschema.NewCompiler()
				if err := c.AddResource("mem://"+tool.Name, doc); err != nil {
					t.Fatal(err)
				}
				if schemas[tool.Name], err = c.Compile("mem://" + tool.Name); err != nil {
					t.Fatalf("%s: %v\n%s", tool.Name, err, raw)
				}
			}
			name := v.Tools[0].Name
			for _, args := range calls[id] {
				r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
				if err != nil {
					t.Fatal(err)
				}
				if r.IsError || r.StructuredContent == nil {
					t.Fatalf("%s: no structured result: %s", args, textOf(r))
				}
				raw, _ := json.Marshal(r.StructuredContent)
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				if s := schemas[name]; s == nil {
					continue // reported above
				} else if err := s.Validate(inst); err != nil {
					t.Errorf("%s: the result %s does not validate: %v", args, raw, err)
				}
			}
		})
	}
}
