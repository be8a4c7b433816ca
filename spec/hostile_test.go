package spec_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/spec"
)

// aliasBomb is the billion laughs in YAML: each level refers to the one before it ten times.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// TestHostileSpecs: inputs built to exhaust a loader end in a positioned error, fast and in little memory
// (the bounds are generous guards against a runaway, not speed targets).
func TestHostileSpecs(t *testing.T) {
	cases := []struct {
		name, data, want string
	}{
		{"self-referential alias", "x: &a [*a]\n", "1:8: x[0]: alias *a refers to a value that contains it"},
		{"indirect cycle", "x: &a {y: [1, {z: *a}]}\n", "x.y[1].z: alias *a refers to a value that contains it"},
		{"alias bomb", aliasBomb(9), "the spec holds more than 100000 values (aliases expanded)"},
		{"alias bomb, one level deeper", aliasBomb(10), "the spec holds more than 100000 values (aliases expanded)"},
		{"deep nesting", strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n", "values are nested deeper than 64 levels"},
		{"a large spec", "id: x\nsummary: \"" + strings.Repeat("a", spec.MaxSpecBytes) + "\"\n", "1:1: the spec is 1048594 bytes; a spec is at most 1048576"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before, after goruntime.MemStats
			goruntime.GC()
			goruntime.ReadMemStats(&before)
			start := time.Now()
			_, err := spec.Parse("hostile.yaml", []byte(c.data))
			elapsed := time.Since(start)
			goruntime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "hostile.yaml:") {
				t.Fatalf("error %v\nwant one containing %q", err, c.want)
			}
			if elapsed > 2*time.Second {
				t.Errorf("took %v", elapsed)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}

// hostileTool is a valid text tool whose exit case is text and whose truncation and timeout are given.
func hostileTool(exitText, truncate, timeout string) string {
	return `id: h
title: t
source: {seed: none, repo: x/y, path: z}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: timeout, type: integer, role: timeout}
    timeout: ` + timeout + `
    output:
      truncate: ` + truncate + `
    results:
      format: text
      cases:
        exit: {text: '` + exitText + `'}
        timeout: {text: t}
`
}

// TestHostileTemplatesAndLimits: a template that could loop or allocate without bound, a limit past its
// maximum and a default outside its own range are errors at load, with positions.
func TestHostileTemplatesAndLimits(t *testing.T) {
	const okTrunc, okTimeout = `{unit: bytes, limit: 100, keep: head, marker: "[cut]"}`, `{unit: s, default: 10, expiry: kill}`
	cases := []struct {
		name, text, trunc, timeout, want string
	}{
		{"range over a number", `{{range 10000000000}}{{end}}`, okTrunc, okTimeout, "a spec template ranges only over a list or a map"},
		{"range over a numeric field", `{{range $i := .Pid}}x{{end}}`, okTrunc, okTimeout, "range over $i := .Pid"},
		{"range over a variable set to a number", `{{$n := 100}}{{range $n}}x{{end}}`, okTrunc, okTimeout, "range over $n"},
		{"a range variable redeclared as a number", `{{range $v := .Params}}{{$v := 100000000}}{{range $v}}x{{end}}{{end}}`, okTrunc, okTimeout, "range over $v"},
		{"a range variable assigned a number", `{{range $v := .Params}}{{$v = 100000000}}{{range $v}}x{{end}}{{end}}`, okTrunc, okTimeout, "range over $v"},
		{"dot set by with", `{{with .Pid}}{{range .}}x{{end}}{{end}}`, okTrunc, okTimeout, "range over ."},
		{"define", `{{define "a"}}x{{end}}`, okTrunc, okTimeout, "may not define templates"},
		{"template call", `{{template "x"}}`, okTrunc, okTimeout, "may not call templates"},
		{"huge printf width", `{{printf "%0999999999d" 1}}`, okTrunc, okTimeout, "printf: width or precision 999999999 is over 4096"},
		{"printf width from an argument", `{{printf "%*d" 9 1}}`, okTrunc, okTimeout, "a width or precision from an argument"},
		{"huge printf precision", `{{printf "%.100000f" 1.0}}`, okTrunc, okTimeout, "is over 4096"},
		{"limit past the maximum", `{{.Stdout}}`, `{unit: bytes, limit: 1000000000000000000, keep: head, marker: "[cut]"}`, okTimeout, "tools[0].output.truncate.limit: 1000000000000000000 is over the maximum 268435456"},
		{"default above max", `{{.Stdout}}`, okTrunc, `{unit: s, default: 700, max: 600, out_of_range: clamp, expiry: kill}`, "tools[0].timeout.default: default 700 is above max 600"},
		{"default below min", `{{.Stdout}}`, okTrunc, `{unit: s, default: 1, min: 5, out_of_range: clamp, expiry: kill}`, "tools[0].timeout.default: default 1 is below min 5"},
		{"timeout past the maximum", `{{.Stdout}}`, okTrunc, `{unit: ms, default: 100000000000000, expiry: kill}`, "default 1e+14 is over the maximum"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := spec.Parse("hostile.yaml", []byte(hostileTool(c.text, c.trunc, c.timeout)))
			if err == nil || !strings.Contains(err.Error(), c.want) || !regexp.MustCompile(`^hostile\.yaml:\d+:\d+: `).MatchString(err.Error()) {
				t.Fatalf("error %v\nwant a positioned one containing %q", err, c.want)
			}
			if elapsed := time.Since(start); elapsed > 2*time.Second {
				t.Errorf("took %v", elapsed)
			}
		})
	}
	// What a template may do stays allowed.
	for _, text := range []string{`{{range $k, $v := .Params}}{{$k}}={{$v}};{{end}}`, `{{range .Params}}{{.}};{{end}}`, `{{printf "%-20s|%5.2f" .Stdout 1.5}}`} {
		if _, err := spec.Parse("ok.yaml", []byte(hostileTool(text, okTrunc, okTimeout))); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
}

// TestParseEmbedded: a spec read without the JSON Schema still rejects a bad enumeration, an unknown field
// and a wrong type, at their positions; and every good spec reads the same either way.
func TestParseEmbedded(t *testing.T) {
	const okTrunc, okTimeout = `{unit: bytes, limit: 100, keep: head, marker: "[cut]"}`, `{unit: s, default: 10, expiry: kill}`
	for _, c := range []struct{ name, data, want string }{
		{"bad enum", hostileTool(`{{.Stdout}}`, `{unit: bytes, limit: 100, keep: middle, marker: "[cut]"}`, okTimeout), `embedded.yaml:13:`},
		{"unknown field", strings.Replace(hostileTool(`{{.Stdout}}`, okTrunc, okTimeout), "description: d", "descripton: d", 1), `embedded.yaml:7:5: tools[0]: unknown field "descripton"; did you mean description?`},
		{"wrong type", hostileTool(`{{.Stdout}}`, `{unit: bytes, limit: lots, keep: head, marker: "[cut]"}`, okTimeout), "embedded.yaml:13:"},
	} {
		_, err := spec.ParseEmbedded("embedded.yaml", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	files, _ := filepath.Glob("testdata/good/*.yaml")
	more, _ := filepath.Glob("../variants/*/*.yaml")
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		full, err1 := spec.Parse(f, data)
		embedded, err2 := spec.ParseEmbedded(f, data)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(full, embedded) {
			t.Errorf("%s: Parse and ParseEmbedded differ (%v, %v)", f, err1, err2)
		}
	}
}
