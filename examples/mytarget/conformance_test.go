package main

import (
	"os"
	"testing"

	"github.com/agentbash/agentbash/conformance"
	"github.com/agentbash/agentbash/conformance/conformancetest"
	"github.com/agentbash/agentbash/examples/myshell"
)

// The test binary doubles as the target: with MYTARGET_SERVE=1 it is mytarget.
func TestMain(m *testing.M) {
	if os.Getenv("MYTARGET_SERVE") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestConforms runs every case the conformance suite derives from myshell.yaml on agentbash's runtime and
// on this hand-written implementation, and fails the cases whose answers differ: a downstream project's
// conformance test, in a few lines.
func TestConforms(t *testing.T) {
	v, err := myshell.Spec()
	if err != nil {
		t.Fatal(err)
	}
	target := conformance.Wire(os.Args[0])
	target.Env = append(os.Environ(), "MYTARGET_SERVE=1")
	conformancetest.Run(t, target, v, conformance.TimeScale(timeScale))
}
