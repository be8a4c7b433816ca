package genimpl_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/genimpl"
	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate"
)

// textSpec is a text tool with a check that raises ValueError.
const textSpec = `
id: t
title: test
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c], grace: 300ms}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    checks:
      - {not_blank: command, fail: {type: ValueError, message: "Empty command not allowed"}}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}|{{.Stderr}}|{{.ExitCode}}"}
`

// typedErr stands for a generated package's error type.
type typedErr struct{ genimpl.Raised }

func TestGenerated(t *testing.T) {
	var v1 *spec.Variant
	load := func() (*spec.Variant, error) {
		v, err := spec.Parse("test.yaml", []byte(textSpec))
		v1 = v
		return v, err
	}
	typed := func(te *runtime.ToolError) error {
		if te.Type == "ValueError" {
			return &typedErr{genimpl.Raised{ToolError: te}}
		}
		return te
	}
	g, err := genimpl.NewGenerated(load, typed, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Variant() != v1 || g.Engine() == nil {
		t.Errorf("Variant %p (want %p), Engine %v", g.Variant(), v1, g.Engine())
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	// Typed parameters are marshalled; the result is decoded.
	type params struct {
		Command string `json:"command"`
	}
	text, err := genimpl.Invoke(ctx, g, "bash", params{"echo hi"}, genimpl.DecodeText)
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
	if _, err := genimpl.Invoke(ctx, g, "bash", func() {}, genimpl.DecodeText); err == nil || errors.As(err, &te) {
		t.Errorf("Invoke with a func: %v", err)
	}
	if _, err := g.Call(ctx, "nope", json.RawMessage(`{}`)); err == nil {
		t.Error("Call of an unknown tool: no error")
	}
	if _, err := genimpl.Invoke(ctx, g, "bash", params{"echo hi"}, genimpl.DecodeJSON[int]); err == nil {
		t.Error("a text result decoded as an int")
	}
	// A spec that does not load fails New.
	bad := func() (*spec.Variant, error) { return spec.Parse("bad.yaml", []byte("id: x\n")) }
	if _, err := genimpl.NewGenerated(bad, typed); err == nil {
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
		nulls []genimpl.Null
		want  string
		err   bool
	}{
		{plain{}, nil, `{}`, false},
		{plain{A: &one}, []genimpl.Null{{Name: "b", Set: true}}, `{"a":1,"b":null}`, false},
		{plain{}, []genimpl.Null{{Name: "a", Set: true}, {Name: "b", Set: false}}, `{"a":null}`, false},
		{plain{A: &one}, []genimpl.Null{{Name: "a", Set: true}}, ``, true},
	}
	for _, tt := range tests {
		got, err := genimpl.MarshalParams(tt.v, tt.nulls...)
		if (err != nil) != tt.err || (!tt.err && string(got) != tt.want) {
			t.Errorf("MarshalParams(%+v, %v) = %s, %v; want %s (error %v)", tt.v, tt.nulls, got, err, tt.want, tt.err)
		}
	}
}
