package runtime

import (
	"errors"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// TestPlainFieldRendersAsTemplate: the fast path renders exactly what text/template renders, for a
// template that is one field or one field with text around it; what is more than that takes the template
// path.
func TestPlainFieldRendersAsTemplate(t *testing.T) {
	d := &spec.Data{Stdout: "out\n", ExitCode: -9, Success: true, Total: 1 << 40, Command: "", Params: map[string]any{"a": 1.5}}
	for _, c := range []struct {
		text string
		fast bool
	}{
		{"{{.Stdout}}", true},
		{"{{ .Stdout }}", true},
		{"{{- .Stdout -}}", true},
		{"{{.ExitCode}}", true},
		{"{{.Success}}", true},
		{"{{.Total}}", true},
		{"{{.Command}}", true},
		{"{{.Timeout}}", false},  // an interface: printed by fmt's rules
		{"{{.Params.a}}", false}, // a map lookup
		{"{{.Stdout}}\n", true},  // text around it
		{"x{{.Stdout}}", true},   //
		{"{{.Stdout | printf \"%q\"}}", false},
		{"{{$x := .Stdout}}{{$x}}", false},
		{"{{.TimeoutValue}}", false}, // a float: %v formatting
	} {
		ts := &templates{m: map[string]compiled{}, budget: 1 << 20}
		got, err := ts.render(c.text, d)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if fast := ts.m[c.text].fast != nil; fast != c.fast {
			t.Errorf("%q: fast path %v, want %v", c.text, fast, c.fast)
		}
		tm, err := spec.ParseTemplate("t", c.text)
		if err != nil {
			t.Fatal(err)
		}
		want, err := spec.ExecuteLimit(tm, d, 1<<20)
		if err != nil || got != want {
			t.Errorf("%q: %q, want %q (%v)", c.text, got, want, err)
		}
	}
	ts := &templates{m: map[string]compiled{}, budget: 3}
	if _, err := ts.render("{{.Stdout}}", &spec.Data{Stdout: "four"}); !errors.Is(err, spec.ErrTemplateOutput) {
		t.Errorf("past the budget: %v, want ErrTemplateOutput", err)
	}
}
