package codegensandbox

import (
	"testing"

	"github.com/agentbash/agentbash/variants/internal/fidelity"
)

// TestFidelity: each JSON type of each parameter answered as the upstream Go code answers it
// (testdata/fidelity.yaml, written from the code it cites by variants/internal/fidelity/probe/codegensandbox.py).
func TestFidelity(t *testing.T) {
	v, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	fidelity.Run(t, v, "testdata/fidelity.yaml")
}
