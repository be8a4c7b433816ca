package variants

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// Tool is a variant ready to run, for hosts that pick a contract at run time. Lookup and ForHost return
// the built-ins' generated adapters (the typed *rye.Tool, *agentrail.Tool, ...), and Start runs any spec
// on the shared runtime; every generated adapter (those generated downstream too) implements Tool, so a
// host can hold either behind it.
type Tool interface {
	// Variant returns the spec the tool runs.
	Variant() *spec.Variant
	// Call runs the primary tool (the spec's first) with the parameters as a model sent them and returns
	// the result as the host receives it: a JSON object, or a JSON string for text tools. An error the tool
	// raises is, or wraps, a *runtime.ToolError.
	Call(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	// CallTool runs the named tool as Call runs the primary one.
	CallTool(ctx context.Context, name string, params json.RawMessage) (json.RawMessage, error)
	// Close kills and reaps every process the tool left running.
	Close() error
}

// ErrUnknown is returned (wrapped) for an id or host no built-in variant has.
var ErrUnknown = errors.New("no such built-in variant")

// Info describes a built-in variant without starting it.
type Info struct {
	ID    string
	Title string
	// Summary says in a sentence or two what the contract is.
	Summary string
	// Hosts are the agent frameworks whose models expect the contract.
	Hosts []string
	// Tools are the tool names, the primary one first.
	Tools []string
}

// List describes every built-in variant, sorted by id.
func List() ([]Info, error) {
	var infos []Info
	for _, id := range IDs() {
		v, err := Spec(id)
		if err != nil {
			return nil, err
		}
		infos = append(infos, info(v))
	}
	return infos, nil
}

func info(v *spec.Variant) Info {
	in := Info{ID: v.ID, Title: v.Title, Summary: v.Summary, Hosts: slices.Clone(v.Hosts)}
	for _, t := range v.Tools {
		in.Tools = append(in.Tools, t.Name)
	}
	return in
}

// builtin is a row of the registry's table (builtins_gen.go): a built-in's id and its generated package's
// Spec and New.
type builtin struct {
	ID   string
	Spec func() (*spec.Variant, error)
	New  func(...runtime.Option) (Tool, error)
}

// typed makes a generated package's New a constructor of Tools.
func typed[T Tool](newTool func(...runtime.Option) (T, error)) func(...runtime.Option) (Tool, error) {
	return func(opts ...runtime.Option) (Tool, error) {
		t, err := newTool(opts...)
		if err != nil {
			return nil, err
		}
		return t, nil
	}
}

// Lookup starts the built-in variant with this id, its generated adapter (whose errors are the package's
// types, each unwrapping to the *runtime.ToolError), with the runtime options (workspace, environment,
// shell, ...). Close the Tool when done.
func Lookup(id string, opts ...runtime.Option) (Tool, error) {
	for _, b := range builtins {
		if b.ID == id {
			return b.New(opts...)
		}
	}
	return nil, fmt.Errorf("variants: %w: %q (built-in: %s)", ErrUnknown, id, strings.Join(IDs(), ", "))
}

// ForHostIDs lists the built-in variants whose hosts include host (compared without case), sorted by id.
func ForHostIDs(host string) []string {
	var ids []string
	for _, id := range IDs() {
		v, err := Spec(id)
		if err != nil {
			continue
		}
		for _, h := range v.Hosts {
			if strings.EqualFold(h, host) {
				ids = append(ids, id)
				break
			}
		}
	}
	return ids
}

// ForHost starts the built-in variant whose model-facing contract the host framework expects (the first
// by id when several list it; ForHostIDs lists them all).
func ForHost(host string, opts ...runtime.Option) (Tool, error) {
	ids := ForHostIDs(host)
	if len(ids) == 0 {
		var hosts []string
		if infos, err := List(); err == nil {
			for _, in := range infos {
				hosts = append(hosts, in.Hosts...)
			}
		}
		slices.Sort(hosts)
		return nil, fmt.Errorf("variants: %w for host %q (hosts: %s)", ErrUnknown, host, strings.Join(slices.Compact(hosts), ", "))
	}
	return Lookup(ids[0], opts...)
}

// Start runs any variant (a built-in's spec, or one loaded with spec.Load) behind the Tool interface.
func Start(v *spec.Variant, opts ...runtime.Option) (Tool, error) {
	eng, err := runtime.New(v, opts...)
	if err != nil {
		return nil, err
	}
	return &engineTool{eng: eng}, nil
}

// engineTool is a Tool run straight from a spec; its errors are the runtime's *runtime.ToolError.
type engineTool struct {
	eng *runtime.Engine
}

func (t *engineTool) Variant() *spec.Variant { return t.eng.Variant() }

func (t *engineTool) Call(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	return t.eng.Call(ctx, t.eng.Variant().Tools[0].Name, params)
}

func (t *engineTool) CallTool(ctx context.Context, name string, params json.RawMessage) (json.RawMessage, error) {
	return t.eng.Call(ctx, name, params)
}

func (t *engineTool) Close() error { return t.eng.Close() }

// Definition is one tool as its model sees it.
type Definition = spec.Definition

// Definitions returns the tools of a Tool's variant as their model sees them, the primary tool first: the
// same data a generated package's Definitions holds.
func Definitions(t Tool) []Definition { return t.Variant().Definitions() }
