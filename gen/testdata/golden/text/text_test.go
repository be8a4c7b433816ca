package text_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentbash/agentbash/gen/testdata/golden/text"
	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/runtime"
)

func TestSchema(t *testing.T) {
	reflected, err := toolschema.Reflect(&text.BashParams{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := toolschema.Summarize(reflected)
	if err != nil {
		t.Fatal(err)
	}
	want, err := toolschema.Summarize(text.Definitions()[0].InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range toolschema.Diff(toolschema.Inferred(want), got) {
		t.Error(d)
	}
	if len(got.Properties) != 5 || got.Properties[1].Types[1] != "string" || got.Properties[1].Types[0] != "null" {
		t.Errorf("cwd should be nullable: %+v", got.Properties)
	}
}

func TestRun(t *testing.T) {
	tool, err := text.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	ctx := context.Background()

	res, err := tool.Bash(ctx, text.BashParams{Command: "echo hi; echo oops >&2", Env: map[string]string{"X": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Command: echo hi; echo oops >&2\nExit Code: 0\n\nSTDOUT:\nhi\n\nSTDERR:\noops"; res != want {
		t.Errorf("got %q, want %q", res, want)
	}
	raw, err := tool.Call(ctx, []byte(`{"command":"echo hi; echo oops >&2"}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `"Command: echo hi; echo oops \u003e\u00262\nExit Code: 0\n\nSTDOUT:\nhi\n\nSTDERR:\noops"`; string(raw) != want && string(raw) != `"Command: echo hi; echo oops >&2\nExit Code: 0\n\nSTDOUT:\nhi\n\nSTDERR:\noops"` {
		t.Errorf("Call: got %s", raw)
	}
}

func TestErrors(t *testing.T) {
	tool, err := text.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	cases := []struct {
		name   string
		params text.BashParams
		check  func(error) bool
		msg    string
	}{
		{"blank command", text.BashParams{Command: "  "}, func(err error) bool { var e *text.ModelRetry; return errors.As(err, &e) },
			"Empty command not allowed"},
		{"timeout out of range", text.BashParams{Command: "true", Timeout: new(301)}, func(err error) bool { var e *text.ModelRetry; return errors.As(err, &e) },
			"Timeout must be between 1 and 300 seconds."},
		{"missing cwd", text.BashParams{Command: "true", Cwd: new("nope")}, func(err error) bool { var e *text.ModelRetry; return errors.As(err, &e) },
			"Working directory 'nope' does not exist."},
		{"timeout", text.BashParams{Command: "sleep 5", Timeout: new(1)}, func(err error) bool { var e *text.ToolTimeoutError; return errors.As(err, &e) },
			"Command timed out after 1 seconds: sleep 5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tool.Bash(context.Background(), c.params)
			if err == nil || !c.check(err) {
				t.Fatalf("got %v (%T)", err, err)
			}
			var te *runtime.ToolError
			if !errors.As(err, &te) || te.Message != c.msg {
				t.Errorf("as *runtime.ToolError: %+v, want message %q", te, c.msg)
			}
		})
	}
}
