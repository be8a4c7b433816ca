package policy

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbash/agentbash/spec"
	"go.yaml.in/yaml/v3"
)

// fragments are the policy sets under test: each built-in variant's (read from its spec) and the opt-in
// shell policy (testdata/shell.policies.yaml, which no built-in variant uses).
var fragments = []string{"toolregistry", "tunacode", "codegensandbox", "agentrail", "shell"}

// loadPolicies returns the policies of a built-in variant, loaded through the spec loader from
// variants/<name>/<name>.yaml, or those of testdata/<name>.policies.yaml decoded strictly.
func loadPolicies(tb testing.TB, name string) []spec.Policy {
	tb.Helper()
	variant := filepath.Join("..", "..", "variants", name, name+".yaml")
	if _, err := os.Stat(variant); err == nil {
		v, err := spec.Load(variant)
		if err != nil {
			tb.Fatal(err)
		}
		return v.Policies
	}
	data, err := os.ReadFile(filepath.Join("testdata", name+".policies.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	var ps []spec.Policy
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&ps); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return ps
}

// compileFragment compiles every policy of a fragment, keyed by name.
func compileFragment(tb testing.TB, name string, opts ...Option) map[string]Checker {
	tb.Helper()
	cs, err := CompileAll(loadPolicies(tb, name), opts...)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return cs
}

// checkSeq runs policies in order, as a tool's checks do: the first verdict that blocks, or allow.
func checkSeq(cs map[string]Checker, names []string, command string) Verdict {
	for _, n := range names {
		if v := cs[n].Check(command); !v.Allowed {
			return v
		}
	}
	return Verdict{Allowed: true, Decision: "allow"}
}
