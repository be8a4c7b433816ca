// Package conformancetest runs the conformance suite as go test subtests, for an implementation's own
// tests:
//
//	func TestConforms(t *testing.T) {
//		v, _ := variants.Spec("toolregistry")
//		conformancetest.Run(t, conformance.Wire("python3", "target.py"), v)
//	}
//
// It is apart from package conformance so that programs using the suite (the agentbash command) do not
// link package testing.
package conformancetest

import (
	"testing"

	"github.com/agentbash/agentbash/conformance"
	"github.com/agentbash/agentbash/spec"
)

// Run runs every case of v (as cases.Cases derives them, filtered by the options) on
// the reference and on target, one subtest per case in order: a case whose answer or properties differ
// fails its subtest with the diff, a case not sent is skipped with its reason, and so is a failure the
// baseline (conformance.WithBaseline) expects. Closing the target badly, a stale baseline entry and a run
// in which no case was sent fail t. It returns the report.
func Run(t *testing.T, target conformance.Target, v *spec.Variant, opts ...conformance.Option) *conformance.Report {
	t.Helper()
	s, err := conformance.Open(t.Context(), v, target, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			res := s.Run(t.Context(), c)
			switch res.Status {
			case conformance.Skip, conformance.XFail:
				t.Skip(res.Reason)
			case conformance.Fail:
				t.Error(res.Text())
			}
		})
	}
	r := s.Close()
	if r.CloseError != "" {
		t.Errorf("closing %s: %s", target.Name(), r.CloseError)
	}
	for _, name := range r.Stale {
		t.Errorf("stale baseline entry %q: the spec has no such case", name)
	}
	if r.Ran() == 0 {
		t.Errorf("no case of %s was sent to %s", v.ID, target.Name())
	}
	return r
}
