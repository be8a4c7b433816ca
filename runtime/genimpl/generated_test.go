package runtime_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentbash/agentbash/runtime"
)

// typedErr stands for a generated package's error type.
type typedErr struct{ runtime.Raised }

func TestGenerated(t *testing.T) {
	load := runtime.LoadSpec("test.yaml", []byte(textSpec))
	v1, err1 := load()
	v2, err2 := load()
	if err1 != nil || err2 != nil || v1 != v2 {
		t.Fatalf("LoadSpec: %p, %v; %p, %v (want one variant, parsed once)", v1, err1, v2, err2)
	}
	typed := func(te *runtime.ToolError) error {
		if te.Type == "ValueError" {
			return &typedErr{runtime.Raised{ToolError: te}}
		}
		return te
	}
	g, err := runtime.NewGenerated(load, typed, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Variant() != v1 || g.Engine() == nil {
		t.Errorf("Variant %p (want %p), Engine %v", g.Variant(), v1, g.Engine())
	}
	ctx := bounded(t)

	// Typed parameters are marshalled; the result is decoded.
	type params struct {
		Command string `json:"command"`
	}
	text, err := runtime.Invoke(ctx, g, "bash", params{"echo hi"}, runtime.DecodeText)
	if err != nil || text != "hi\n||0" {
		t.Errorf("Invoke: %q, %v", text, err)
	}
	// An error a tool raises goes through typed, and unwraps to the *ToolError.
	_, err = g.Call(ctx, "bash", json.RawMessage(`{"command": "  "}`))
	var te *typedErr
	var raw *runtime.ToolError
	if !errors.As(err, &te) || te.Message != "Empty command not allowed" || !errors.As(err, &raw) || raw.Type != "ValueError" {
		t.Errorf("Call with a blank command: %v", err)
	}
	if err == nil || err.Error() != "ValueError: Empty command not allowed" {
		t.Errorf("Error() = %v", err)
	}
	// Other errors are returned as they are: parameters that do not marshal, an unknown tool, a result that
	// does not decode.
	if _, err := runtime.Invoke(ctx, g, "bash", func() {}, runtime.DecodeText); err == nil || errors.As(err, &te) {
		t.Errorf("Invoke with a func: %v", err)
	}
	if _, err := g.Call(ctx, "nope", json.RawMessage(`{}`)); err == nil {
		t.Error("Call of an unknown tool: no error")
	}
	if _, err := runtime.Invoke(ctx, g, "bash", params{"echo hi"}, runtime.DecodeJSON[int]); err == nil {
		t.Error("a text result decoded as an int")
	}
	// A spec that does not load fails New.
	bad := runtime.LoadSpec("bad.yaml", []byte("id: x\n"))
	if _, err := runtime.NewGenerated(bad, typed); err == nil {
		t.Error("NewGenerated of a broken spec: no error")
	}
}

func TestMarshalParams(t *testing.T) {
	type plain struct {
		A *int `json:"a,omitempty"`
		B *int `json:"b,omitempty"`
	}
	one := 1
	tests := []struct {
		v     plain
		nulls []runtime.Null
		want  string
		err   bool
	}{
		{plain{}, nil, `{}`, false},
		{plain{A: &one}, []runtime.Null{{Name: "b", Set: true}}, `{"a":1,"b":null}`, false},
		{plain{}, []runtime.Null{{Name: "a", Set: true}, {Name: "b", Set: false}}, `{"a":null}`, false},
		{plain{A: &one}, []runtime.Null{{Name: "a", Set: true}}, ``, true},
	}
	for _, tt := range tests {
		got, err := runtime.MarshalParams(tt.v, tt.nulls...)
		if (err != nil) != tt.err || (!tt.err && string(got) != tt.want) {
			t.Errorf("MarshalParams(%+v, %v) = %s, %v; want %s (error %v)", tt.v, tt.nulls, got, err, tt.want, tt.err)
		}
	}
}
