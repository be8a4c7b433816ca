// Package genimpl is what every generated adapter shares, as protobuf-go's protoimpl is for generated
// messages: the engine behind a generated Tool (Generated), typed calls (Invoke, DecodeJSON, DecodeText,
// MarshalParams, Null), the embedding of raised errors in the adapter's error types (Raised), and the
// guard that stops the build of an adapter this runtime does not support (EnforceVersion, GenVersion).
//
// Only generated code imports it (gen writes the imports; a test checks that no hand-written file of this
// module does): it is not an API for users, and it changes with the generated-code API version. Users call
// the adapter, and the engine in package runtime.
package genimpl

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// Generated is the machinery of one generated Tool: an engine running the adapter's spec, and the mapping
// of the errors its tools raise to the adapter's error types. A generated Tool holds it in an unexported
// field and forwards to it; the generated file keeps only what is the spec's own. It is safe for
// concurrent use.
type Generated struct {
	eng   *runtime.Engine
	typed func(*runtime.ToolError) error
}

// NewGenerated starts an engine for the spec load returns (the adapter's compiled spec). typed maps an
// error a tool raised to the adapter's type for its class (returning the *runtime.ToolError itself for a
// class it has none for).
func NewGenerated(load func() (*spec.Variant, error), typed func(*runtime.ToolError) error, opts ...runtime.Option) (*Generated, error) {
	v, err := load()
	if err != nil {
		return nil, err
	}
	eng, err := runtime.New(v, opts...)
	if err != nil {
		return nil, err
	}
	return &Generated{eng: eng, typed: typed}, nil
}

// Variant returns the spec the tools run.
func (g *Generated) Variant() *spec.Variant { return g.eng.Variant() }

// Engine returns the runtime engine behind the tools.
func (g *Generated) Engine() *runtime.Engine { return g.eng }

// Close kills and reaps every process the tools left running.
func (g *Generated) Close() error { return g.eng.Close() }

// Call runs the named tool with the parameters as a model sent them and returns its result as the host
// receives it. An error the tool raises is the adapter's type for its class; any other error (a cancelled
// context, an unknown tool) is returned as it is.
func (g *Generated) Call(ctx context.Context, name string, params json.RawMessage) (json.RawMessage, error) {
	res, err := g.eng.Call(ctx, name, params)
	if err != nil {
		var te *runtime.ToolError
		if g.typed != nil && errors.As(err, &te) {
			return nil, g.typed(te)
		}
		return nil, err
	}
	return res, nil
}

// Invoke runs the named tool with typed parameters (marshalled to JSON as a model sends them) and decodes
// its result with decode (DecodeJSON, DecodeText, or a union's decoder).
func Invoke[R any](ctx context.Context, g *Generated, name string, params any, decode func([]byte) (R, error)) (R, error) {
	var zero R
	raw, err := json.Marshal(params)
	if err != nil {
		return zero, err
	}
	res, err := g.Call(ctx, name, raw)
	if err != nil {
		return zero, err
	}
	return decode(res)
}

// DecodeJSON decodes a JSON result into R.
func DecodeJSON[R any](data []byte) (R, error) {
	var r R
	err := json.Unmarshal(data, &r)
	return r, err
}

// DecodeText decodes a text tool's result (a JSON string).
func DecodeText(data []byte) (string, error) { return DecodeJSON[string](data) }

// MarshalJSON encodes v as the runtime writes results: compact, without HTML escaping.
func MarshalJSON(v any) ([]byte, error) { return jsonenc.Marshal(v) }

// Raised is embedded by the error types of a generated adapter: it is the *runtime.ToolError the runtime
// raised (its Type, its Message and its Error text), and unwraps to it, so errors.As finds both the
// adapter's type and the *runtime.ToolError.
type Raised struct{ *runtime.ToolError }

// Unwrap returns the error as the runtime raised it.
func (r Raised) Unwrap() error { return r.ToolError }

// Null names a parameter of a generated parameters struct and whether to send it as JSON null.
type Null struct {
	Name string
	Set  bool
}

// MarshalParams marshals a generated parameters struct (as a type without its MarshalJSON method) and
// adds each Null that is set as null: how a model sends null for a nullable parameter, which can mean
// something else than leaving it out (a Python tool's timeout=None: no time limit). A parameter that has a
// value and is to be sent as null is an error.
func MarshalParams(v any, nulls ...Null) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range nulls {
		if n.Set {
			names = append(names, n.Name)
		}
	}
	return SetNulls(b, names...)
}
