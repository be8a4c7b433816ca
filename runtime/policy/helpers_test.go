package policy

import (
	"path/filepath"
	"testing"

	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate"
)

// fragments are the policy sets under test: each built-in variant's (read from its spec) and the shell
// guard of the policy library (spec/library/shell_guard.yaml, which no built-in variant uses).
var fragments = []string{"toolregistry", "tunacode", "codegensandbox", "agentrail", "shell"}

// loadPolicies returns the policies of a built-in variant, loaded through the spec loader from
// variants/<name>/<name>.yaml, or, for "shell", the library's shell guard.
func loadPolicies(tb testing.TB, name string) []spec.Policy {
	tb.Helper()
	if name == "shell" {
		p, ok := spec.LibraryPolicy("shell_guard")
		if !ok {
			tb.Fatal("the library has no shell_guard")
		}
		return []spec.Policy{p}
	}
	v, err := spec.Load(filepath.Join("..", "..", "variants", name, name+".yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	return v.Policies
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

// CheckVariant runs, in order, the policy checks of a variant's tool (the first exec tool when tool is
// empty) on command and returns the first verdict that blocks, or an allowing verdict. Checks that are not
// policies (required, not_blank, timeout, workdir) are skipped: this answers "would the deny rules let
// this command run", as a host would ask it.
func CheckVariant(v *spec.Variant, tool, command string, opts ...Option) (Verdict, error) {
	all, err := CheckVariantAll(v, tool, command, opts...)
	if err != nil {
		return Verdict{}, err
	}
	return First(all), nil
}
