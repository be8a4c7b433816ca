package variants_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

// FuzzCall sends arbitrary parameters to every built-in tool. The shell is replaced by /bin/true, so a
// fuzzed command is only an argument to true and never runs. Every call ends in a result that is valid JSON
// or in a ToolError (or the JSON-RPC error a spec makes of a request its host refuses), never a panic or
// another error.
func FuzzCall(f *testing.F) {
	for _, s := range []string{
		`{"command":"echo hi"}`, `{"command":"","timeout":-1}`, `{"command":"x","timeout":1e309}`,
		`{"command":"x","working_dir":"../.."}`, `{"command":"x","cwd":"\u0000"}`, `{"command":"x","env":{"A":1}}`,
		`{"command":"x","timeout":"10"}`, `{"shell_id":"x"}`, `[]`, `null`, `{"command":{}}`, `{"command":"x","timeout":0.0001}`,
	} {
		f.Add(s)
	}
	var engines []*runtime.Engine
	ws := f.TempDir()
	for _, id := range variants.IDs() {
		v, err := variants.Spec(id)
		if err != nil {
			f.Fatal(err)
		}
		eng, err := runtime.New(v, runtime.WithWorkspace(ws), runtime.WithShell("/bin/true"))
		if err != nil {
			f.Fatal(err)
		}
		engines = append(engines, eng)
	}
	defer func() {
		for _, e := range engines {
			e.Close()
		}
	}()
	f.Fuzz(func(t *testing.T, params string) {
		for _, eng := range engines {
			for _, tool := range eng.Variant().Tools {
				res, err := eng.Call(behavior.Bounded(t), tool.Name, json.RawMessage(params))
				var te *runtime.ToolError
				var rpc *runtime.RPCError
				switch {
				case err == nil && !json.Valid(res):
					t.Fatalf("%s/%s: invalid JSON result %q", eng.Variant().ID, tool.Name, res)
				case err != nil && !errors.As(err, &te) && !errors.As(err, &rpc):
					t.Fatalf("%s/%s(%s): %v", eng.Variant().ID, tool.Name, params, err)
				}
			}
		}
	})
}
