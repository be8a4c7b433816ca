package main

import (
	"strings"
	"testing"
)

// TestMutantsApply: every mutant of `make mutate` still finds its marker and its text on the marked line,
// so the list cannot rot silently; a marker found twice, a missing marker, or a text not on the marked line
// is an error.
func TestMutantsApply(t *testing.T) {
	if err := checkAll("../.."); err != nil {
		t.Fatal(err)
	}
	if len(mutants) < 20 {
		t.Errorf("%d mutants; the issue asks for at least 20", len(mutants))
	}
	names := map[string]bool{}
	for _, m := range mutants {
		if m.from == m.to {
			t.Errorf("%s changes nothing", m.name)
		}
		if names[m.name] || names[m.id] {
			t.Errorf("%s (%s) is listed twice", m.name, m.id)
		}
		names[m.name], names[m.id] = true, true
	}
}

func TestApply(t *testing.T) {
	m := mutant{id: "x", name: "x", file: "f.go", from: "<=", to: "<"}
	for _, c := range []struct {
		name, src, want, err string
	}{
		{"applies", "a\n\t// mutate: x\n\tif a <= b {\n", "a\n\t// mutate: x\n\tif a < b {\n", ""},
		{"yaml marker", "# mutate: x\nk: a <= b\n", "# mutate: x\nk: a < b\n", ""},
		{"rewritten around the site", "// mutate: x\nif total <= limit && ok {\n", "// mutate: x\nif total < limit && ok {\n", ""},
		{"no marker", "if a <= b {\n", "", "no marker"},
		{"marker twice", "// mutate: x\na <= b\n// mutate: x\na <= b\n", "", "twice"},
		{"text gone", "// mutate: x\nif a < b {\n", "", "occurs 0 times"},
		{"text twice", "// mutate: x\nif a <= b && c <= d {\n", "", "occurs 2 times"},
		{"marker last", "a <= b\n// mutate: x", "", "ends"},
		{"another id", "// mutate: xy\na <= b\n", "", "no marker"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := apply(c.src, m)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}
