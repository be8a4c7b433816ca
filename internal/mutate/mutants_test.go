package main

import "testing"

// TestMutantsApply: every mutant of `make mutate` still applies to the code (its text occurs exactly once)
// and changes it, so the list cannot rot silently as the code moves.
func TestMutantsApply(t *testing.T) {
	if err := checkAll("../.."); err != nil {
		t.Fatal(err)
	}
	if len(mutants) < 20 {
		t.Errorf("%d mutants; the issue asks for at least 20", len(mutants))
	}
	names := map[string]bool{}
	for _, m := range mutants {
		if m.old == m.new {
			t.Errorf("%s changes nothing", m.name)
		}
		if names[m.name] {
			t.Errorf("%s is listed twice", m.name)
		}
		names[m.name] = true
	}
}
