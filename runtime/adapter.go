package runtime

import (
	"context"
	"encoding/json"

	"github.com/agentbash/agentbash/spec"
)

// Adapter is what a generated Tool is built on: an engine, and the function that turns the errors its tools
// raise into the generated package's error types. Generated code embeds it, so its methods are the Tool's.
// It is safe for concurrent use.
type Adapter struct {
	eng   *Engine
	typed func(error) error
}

// NewAdapter compiles v for execution with opts. typed maps an error a tool raised (a *ToolError) to the
// generated package's type for it.
func NewAdapter(v *spec.Variant, typed func(error) error, opts ...Option) (*Adapter, error) {
	eng, err := New(v, opts...)
	if err != nil {
		return nil, err
	}
	return &Adapter{eng: eng, typed: typed}, nil
}

// Engine returns the runtime engine behind the tool.
func (a *Adapter) Engine() *Engine { return a.eng }

// Variant returns the spec the tool runs.
func (a *Adapter) Variant() *spec.Variant { return a.eng.Variant() }

// Close kills and reaps every process the tool left running.
func (a *Adapter) Close() error { return a.eng.Close() }

// CallTool runs the named tool with the parameters as a model sent them and returns its result as the host
// receives it. An error the tool raises is one of the generated package's error types; any other error (a
// cancelled context, an unknown tool) is returned as it is.
func (a *Adapter) CallTool(ctx context.Context, name string, params json.RawMessage) (json.RawMessage, error) {
	res, err := a.eng.Call(ctx, name, params)
	if err != nil {
		if a.typed != nil {
			err = a.typed(err)
		}
		return nil, err
	}
	return res, nil
}

// CallTyped marshals typed parameters (a generated Params value) and runs the named tool as CallTool does.
func (a *Adapter) CallTyped(ctx context.Context, name string, params any) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	return a.CallTool(ctx, name, b)
}
