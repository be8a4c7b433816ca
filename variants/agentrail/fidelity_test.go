package agentrail

import (
	"testing"

	"github.com/agentbash/agentbash/variants/internal/fidelity"
)

// TestFidelity: each JSON type of each parameter, and each shape of working directory, answered as the
// upstream tool answers it on Node 20 (testdata/fidelity.yaml, measured by
// variants/internal/fidelity/probe/agentrail.js).
func TestFidelity(t *testing.T) {
	v, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	fidelity.Run(t, v, "testdata/fidelity.yaml")
}
