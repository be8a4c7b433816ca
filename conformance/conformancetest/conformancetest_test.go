package conformancetest_test

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/conformance"
	"github.com/agentbash/agentbash/conformance/conformancetest"
	"github.com/agentbash/agentbash/variants"
)

// Harness test: the runtime in process against itself, a few cases as subtests.
func TestRun(t *testing.T) {
	v, err := variants.Spec("rye")
	if err != nil {
		t.Fatal(err)
	}
	r := conformancetest.Run(t, conformance.InProcess(v), v, conformance.Filter(func(c conformance.Case) bool {
		return strings.HasSuffix(c.Name, "/stdout only") || strings.HasSuffix(c.Name, "/non-zero exit")
	}))
	if r.Passed != 2 || r.Failed != 0 {
		t.Errorf("want 2 passed:\n%s", r.Summary())
	}
}
