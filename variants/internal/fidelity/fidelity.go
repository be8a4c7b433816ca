// Package fidelity runs a variant's fidelity table (testdata/fidelity.yaml beside its spec): what the
// variant's upstream answers to each JSON type of each parameter and to each shape of working directory,
// each answer with the upstream lines that produce it. The tables of the Python variants are measured by
// probe/cases.py, which runs the upstream code itself; the others are written from their source, each
// case citing the line it follows.
package fidelity

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// Table is a variant's fidelity table.
type Table struct {
	// Tool is the tool the cases call (default: the variant's first).
	Tool  string `yaml:"tool"`
	Cases []Case `yaml:"cases"`
}

// Case is one call and what upstream answers to it.
type Case struct {
	Name string `yaml:"name"`
	// Params are the parameters as the model sends them (JSON text; {ws} and {root} stand for the
	// workspace and its parent).
	Params string `yaml:"params"`
	// Answer is {"result": ...} or {"error": {"type": ..., "message": ...}} (JSON text, with {ws} and
	// {root}), or for a JSON-RPC error {"rpc_error": {"code": ..., "message": ...}}.
	Answer string `yaml:"answer"`
	// Cite names the upstream lines that produce the answer.
	Cite string `yaml:"cite"`
}

// Tree lays out the directories every case runs in under root, and returns the workspace: ws/sub,
// ws/é-dir, ws/notes.txt, ws/out (a symlink to root/outside), ws/loop and ws/loop2 (symlinks to each
// other), ws/inlink (a symlink to sub), and root/outside.
func Tree(t testing.TB, root string) string {
	t.Helper()
	ws := filepath.Join(root, "ws")
	for _, d := range []string{"ws/sub", "ws/é-dir", "outside"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"out": filepath.Join(root, "outside"), "loop": "loop2", "loop2": "loop", "inlink": "sub"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// Run runs the table at file against the variant v, each case on a tree of its own.
func Run(t *testing.T, v *spec.Variant, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tab Table
	if err := yaml.Unmarshal(data, &tab); err != nil {
		t.Fatal(err)
	}
	if len(tab.Cases) == 0 {
		t.Fatalf("%s has no cases", file)
	}
	tool := tab.Tool
	if tool == "" {
		tool = v.Tools[0].Name
	}
	for _, tc := range tab.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			if tc.Cite == "" {
				t.Error("the case cites no upstream line")
			}
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			ws := Tree(t, root)
			expand := strings.NewReplacer("{ws}", jsonInner(ws), "{root}", jsonInner(root))
			eng, err := runtime.New(v, runtime.WithWorkspace(ws))
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := eng.Call(ctx, tool, json.RawMessage(expand.Replace(tc.Params)))
			got := answer(t, res, err)
			want := expand.Replace(tc.Answer)
			if !sameJSON(got, want) {
				t.Errorf("%s\nparams %s\n got  %s\n want %s\n (upstream: %s)", tc.Name, tc.Params, got, want, tc.Cite)
			}
		})
	}
}

// jsonInner is s as it appears inside a JSON string.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// answer writes a call's outcome in the table's form.
func answer(t *testing.T, res json.RawMessage, err error) string {
	var te *runtime.ToolError
	var rpc *runtime.RPCError
	var out any
	switch {
	case err == nil:
		out = map[string]json.RawMessage{"result": res}
	case errors.As(err, &te):
		out = map[string]any{"error": map[string]string{"type": te.Type, "message": te.Message}}
	case errors.As(err, &rpc):
		out = map[string]any{"rpc_error": map[string]any{"code": rpc.Code, "message": rpc.Message}}
	default:
		t.Fatalf("the call failed: %v", err)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}
