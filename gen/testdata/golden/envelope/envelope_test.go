package envelope_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/agentbash/agentbash/runtime"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbash/agentbash/gen/testdata/golden/envelope"
	"github.com/agentbash/agentbash/gen/toolschema"
)

func TestSchema(t *testing.T) {
	reflected, err := toolschema.Reflect(&envelope.RunCommandParams{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := toolschema.Summarize(reflected)
	want, _ := toolschema.Summarize(envelope.Definitions()[0].InputSchema)
	for _, d := range toolschema.Diff(toolschema.Inferred(want), got) {
		t.Error(d)
	}
	// The description reaches the Params type; the default is the schema's (Definitions) alone.
	if got.Properties[3].Description != "Recorded only, with a comma, here." || want.Properties[3].Default != 0.5 {
		t.Errorf("ratio: %+v, in the schema %+v", got.Properties[3], want.Properties[3])
	}
}

// encode marshals as the runtime writes JSON: no HTML escaping.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// TestCasesRoundTrip decodes each case's JSON into Result and marshals it back byte for byte.
func TestCasesRoundTrip(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tool, err := envelope.New(runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	cases := []struct {
		name, params string
		check        func(envelope.RunCommandResult) bool
	}{
		{"exit", `{"command":"echo '<a & b>'; exit 3"}`, func(r envelope.RunCommandResult) bool {
			return !r.Success && *r.ExitCode == 3 && *r.Stdout == "<a & b>\n" && r.Content[0].Text == "<a & b>\n" &&
				r.Meta.Timeout == 5 && string(r.Code) == "3" && r.Error == nil
		}},
		{"timeout", `{"command":"sleep 5","timeout":1}`, func(r envelope.RunCommandResult) bool {
			return *r.Error == "Command timed out after 1 seconds" && *r.Timeout == 1 && string(r.Code) == `"TIMEOUT"` && r.Stdout == nil
		}},
		{"error", `{"command":""}`, func(r envelope.RunCommandResult) bool { return *r.Error == "command is empty" && r.Code == nil }},
		{"confined", `{"command":"true","working_dir":"/"}`, func(r envelope.RunCommandResult) bool {
			return *r.Error == "Working directory is outside the workspace"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, err := tool.Call(context.Background(), json.RawMessage(c.params))
			if err != nil {
				t.Fatal(err)
			}
			var r envelope.RunCommandResult
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			if !c.check(r) {
				t.Errorf("unexpected %s", raw)
			}
			back, err := encode(r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, raw) {
				t.Errorf("round trip:\n got %s\nwant %s", back, raw)
			}
		})
	}
}

func TestRunTyped(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tool, err := envelope.New(runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	r, err := tool.RunCommand(context.Background(), envelope.RunCommandParams{Command: "pwd", Timeout: new(2)})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Success || r.Meta == nil || r.Meta.Cwd == "" {
		t.Errorf("got %+v", r)
	}
	_, err = tool.RunCommand(context.Background(), envelope.RunCommandParams{Command: "true", WorkingDir: new("file")})
	var nf *envelope.FileNotFoundError
	if !errors.As(err, &nf) || nf.Message != "Working directory not found: "+filepath.Join(r.Meta.Cwd, "file") {
		t.Errorf("got %v", err)
	}
}
