package toolregistry

import (
	"testing"

	"github.com/agentbash/agentbash/variants/internal/fidelity"
)

// TestFidelity: each JSON type of each parameter, and each shape of working directory, answered as the
// upstream code answers it (testdata/fidelity.yaml, measured by variants/internal/fidelity/probe).
func TestFidelity(t *testing.T) {
	v, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	fidelity.Run(t, v, "testdata/fidelity.yaml")
}
