package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// typedErr stands for a generated package's error type.
type typedErr struct{ te *runtime.ToolError }

func (e *typedErr) Error() string { return "typed: " + e.te.Error() }

func TestAdapter(t *testing.T) {
	v, err := spec.Parse("test.yaml", []byte(textSpec))
	if err != nil {
		t.Fatal(err)
	}
	typed := func(err error) error {
		var te *runtime.ToolError
		if errors.As(err, &te) {
			return &typedErr{te}
		}
		return err
	}
	a, err := runtime.NewAdapter(v, typed, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Variant() != v || a.Engine() == nil {
		t.Errorf("Variant %p (want %p), Engine %v", a.Variant(), v, a.Engine())
	}
	ctx := context.Background()

	// Typed parameters are marshalled; the result is the host's JSON.
	res, err := a.CallTyped(ctx, "bash", struct {
		Command string `json:"command"`
	}{"echo hi"})
	if err != nil || string(res) != `"hi\n||0"` {
		t.Errorf("CallTyped: %s, %v", res, err)
	}
	// An error a tool raises goes through typed.
	_, err = a.CallTool(ctx, "bash", json.RawMessage(`{"command": "  "}`))
	var te *typedErr
	if !errors.As(err, &te) || te.te.Type != "ValueError" || te.te.Message != "Empty command not allowed" {
		t.Errorf("CallTool with a blank command: %v", err)
	}
	// Other errors are returned as they are: parameters that do not marshal, an unknown tool.
	if _, err := a.CallTyped(ctx, "bash", func() {}); err == nil || errors.As(err, &te) {
		t.Errorf("CallTyped with a func: %v", err)
	}
	if _, err := a.CallTool(ctx, "nope", json.RawMessage(`{}`)); err == nil {
		t.Error("CallTool of an unknown tool: no error")
	}
}
