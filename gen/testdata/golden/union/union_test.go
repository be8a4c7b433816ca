package union_test

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/agentbash/agentbash/runtime"
	"testing"

	"github.com/agentbash/agentbash/gen/testdata/golden/union"
	"github.com/agentbash/agentbash/gen/toolschema"
)

func TestSchema(t *testing.T) {
	reflected, err := toolschema.Reflect(&union.BashParams{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := toolschema.Summarize(reflected)
	want, _ := toolschema.Summarize(union.Definitions()[0].InputSchema)
	for _, d := range toolschema.Diff(toolschema.Inferred(want), got) {
		t.Error(d)
	}
}

func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

func TestMembers(t *testing.T) {
	tool, err := union.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	cases := []struct {
		name   string
		params union.BashParams
		check  func(union.BashResult) bool
	}{
		{"success", union.BashParams{Command: "echo '<ok>'"}, func(r union.BashResult) bool {
			f, ok := r.(union.BashForeground)
			return ok && f.Details.Mode == "foreground" && f.Details.ExitCode == 0 && f.Details.Stdout == "<ok>\n" && f.IsError == nil
		}},
		{"failure", union.BashParams{Command: "echo no >&2; exit 2"}, func(r union.BashResult) bool {
			f, ok := r.(union.BashForeground)
			return ok && f.Details.ExitCode == 2 && f.IsError != nil && *f.IsError && f.Content[0].Text == "no\n\n[exit code: 2]"
		}},
		{"background", union.BashParams{Command: "echo started; sleep 5", Timeout: new(300)}, func(r union.BashResult) bool {
			b, ok := r.(union.BashBackground)
			return ok && b.Details.Mode == "background" && b.Details.PID > 0 && b.Details.Stdout == "started\n"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, _ := json.Marshal(c.params)
			raw, err := tool.Call(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			r, err := union.UnmarshalBashResult(raw)
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(r) {
				t.Errorf("unexpected %T %s", r, raw)
			}
			back, err := encode(r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, raw) {
				t.Errorf("round trip:\n got %s\nwant %s", back, raw)
			}
			typed, err := tool.Bash(context.Background(), c.params)
			if err != nil || !c.check(typed) {
				t.Errorf("Run: %v %+v", err, typed)
			}
		})
	}
}

// TestMarshalSetsDiscriminator: a member built in Go marshals with its discriminator.
func TestMarshalSetsDiscriminator(t *testing.T) {
	b, err := json.Marshal(union.BashBackground{Details: union.BashBackgroundDetails{PID: 7}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":null,"details":{"mode":"background","pid":7,"stdout":"","stderr":""}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if _, err := union.UnmarshalBashResult([]byte(`{"details":{"mode":"sideways"}}`)); err == nil {
		t.Error("an unknown mode decoded")
	}
}
