package spec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"text/template"

	"github.com/agentbash/agentbash/spec"
)

// doubling is a template that doubles a variable n times, starting from from, and writes only its length:
// what it holds grows as 2^n, what it writes does not.
func doubling(from string, n int) string {
	return "{{$x := " + from + "}}" + strings.Repeat("{{$x = concat $x $x}}", n) + "{{len $x}}"
}

// nestedRanges nests n ranges over the parameters, each over the whole map again.
func nestedRanges(n int) string {
	return strings.Repeat("{{range $.Params}}", n) + "x" + strings.Repeat("{{end}}", n)
}

// allocated runs f and returns the bytes it allocated, garbage included.
func allocated(f func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	f()
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileTemplatesAtLoad: templates whose work grows faster than their data are errors at load, with
// the template's position, found in bounded memory: a value doubled 16 times (before: 544 MB at
// validation) and nested ranges over the same data (before: validated, then 17 s per call for five).
func TestHostileTemplatesAtLoad(t *testing.T) {
	const okTrunc, okTimeout = `{unit: bytes, limit: 100, keep: head, marker: "[cut]"}`, `{unit: s, default: 10, expiry: kill}`
	cases := []struct{ name, text, want string }{
		{"a value doubled 16 times", doubling(`printf "%4096s" "x"`, 16), "error calling concat: the template exceeds its budget: its functions build more than 16777216 bytes"},
		{"a stream doubled 16 times", doubling(".Output", 16), "on data whose texts are 4096 bytes each, template: /tools/0/results/cases/exit/text:1:"},
		{"a stream doubled with print", "{{$x := .Stdout}}" + strings.Repeat("{{$x = print $x $x}}", 16), "error calling print: the template exceeds its budget"},
		{"a command doubled with join", "{{$x := .Command}}" + strings.Repeat("{{$x = join $x $x $x}}", 12) + "{{len $x}}", "error calling join"},
		{"five nested ranges over the parameters", nestedRanges(5), "range over $.Params inside another range"},
		{"two nested ranges over the parameters", nestedRanges(2), "range over $.Params inside another range"},
		{"a range over an outer range's element", `{{range $a := .Params}}{{range $b := $a}}{{range $a}}x{{end}}{{end}}{{end}}`, "range over $a inside another range"},
		{"a range over a range's index", `{{range $i, $s := .Sessions}}{{range $i}}x{{end}}{{end}}`, "range over $i:"},
		{"a range over a number field of an element", `{{range .Sessions}}{{range .Pid}}x{{end}}{{end}}`, "range over .Pid:"},
		{"a range over the data inside a range", `{{range .Params}}{{range $.Sessions}}x{{end}}{{end}}`, "range over $.Sessions inside another range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			alloc := allocated(func() { _, err = spec.Parse("hostile.yaml", []byte(hostileTool(c.text, okTrunc, okTimeout))) })
			if err == nil || !strings.Contains(err.Error(), c.want) || !regexp.MustCompile(`^hostile\.yaml:\d+:\d+: tools\[0\]\.results\.cases\.exit\.text: `).MatchString(err.Error()) {
				t.Fatalf("error %v\nwant a positioned one containing %q", err, c.want)
			}
			if alloc > 128<<20 { // all allocations, garbage included; the budget holds 16 MiB
				t.Errorf("loading allocated %d MiB", alloc>>20)
			}
		})
	}
	// Ranges that walk the data stay allowed: over an element, its variable or a field of it.
	d := spec.Data{Params: map[string]any{"a": []any{[]any{"y"}}, "b": map[string]any{"k": map[string]any{"items": []any{"z"}}}},
		Sessions: []spec.SessionInfo{{ID: "1", Command: "c"}}}
	for _, c := range []struct{ text, want string }{
		{`{{range $k, $v := .Params}}{{range $v}}{{.}};{{end}}{{end}}`, "[y];map[items:[z]];"},
		{`{{range .Params.b}}{{range .items}}{{.}}{{end}}{{end}}`, "z"},
		{`{{range .Params.a}}{{range $e := .}}{{.}}{{end}}{{end}}`, "y"},
		{`{{range .Params.b.k.items}}{{.}}{{end}}{{range .Sessions}}{{.ID}} {{.Command}}{{end}}`, "z1 c"},
		{`{{range $s := .Sessions}}{{$s.Command}}{{else}}none{{end}}`, "c"},
	} {
		tm, err := spec.ParseTemplate("t", c.text)
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		if out, err := spec.Execute(tm, d); out != c.want || err != nil {
			t.Errorf("%s: %q, %v; want %q", c.text, out, err, c.want)
		}
	}
	if _, err := spec.Parse("ok.yaml", []byte(hostileTool(doubling(".Output", 8), okTrunc, okTimeout))); err != nil {
		t.Errorf("8 doublings: %v", err)
	}
}

// TestTemplateBudgetAtRun: what only real data shows fails the execution with ErrTemplateBudget, early and
// in bounded memory: a doubling that validates (8 doublings of 4 KiB) on a stream of 1 MiB, ranges over a
// model's huge parameters or over an integer default, and comparisons of large strings in a loop.
func TestTemplateBudgetAtRun(t *testing.T) {
	const mib = 1 << 20
	huge := map[string]any{}
	for i := range 300000 {
		huge[fmt.Sprint(i)] = ""
	}
	someKeys := map[string]any{}
	for i := range 5000 {
		someKeys[fmt.Sprint(i)] = ""
	}
	cases := []struct {
		name, text string
		data       spec.Data
		want       error
	}{
		{"doubling a large stream", doubling(".Output", 8), spec.Data{Output: strings.Repeat("a", mib)}, spec.ErrTemplateBudget},
		{"writing a large stream again and again", strings.Repeat("{{.Output}}", 20), spec.Data{Output: strings.Repeat("a", mib)}, spec.ErrTemplateOutput},
		{"a range over huge parameters, with a body", `{{range .Params}}{{if .}}{{.}}{{.}}{{end}}{{end}}`, spec.Data{Params: huge}, spec.ErrTemplateBudget},
		{"a range up to an integer default", `{{range $k, $v := .Params}}{{range $v}}{{end}}{{end}}`, spec.Data{Params: map[string]any{"n": 1000000000}}, spec.ErrTemplateBudget},
		{"comparing large strings in a loop", `{{range .Params}}{{if eq $.Stdout $.Stderr}}{{end}}{{end}}`, spec.Data{Params: someKeys, Stdout: strings.Repeat("a", mib), Stderr: strings.Repeat("a", mib)}, spec.ErrTemplateBudget},
		{"printf padding in a loop", `{{range .Params}}{{$x := printf "%4096s" $.Stdout}}{{end}}`, spec.Data{Params: huge}, spec.ErrTemplateBudget},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tm, err := spec.ParseTemplate("t", c.text)
			if err != nil {
				t.Fatal(err)
			}
			var out string
			alloc := allocated(func() { out, err = spec.Execute(tm, c.data) })
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v (%d bytes), want %v", err, len(out), c.want)
			}
			if alloc > 96<<20 { // the data's own size is outside this; the budgets hold 16 MiB each
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}

// TestTemplateBudgetPerExecution: each execution has a budget of its own, whether executions follow each
// other or overlap (the overlapping ones run on clones), and the output is the same on every path.
func TestTemplateBudgetPerExecution(t *testing.T) {
	// Each execution builds 12 MiB of a 16 MiB budget: fine alone, over it if budgets were shared.
	tm, err := spec.ParseTemplate("t", `{{$x := concat .Output .Output .Output}}{{len $x}}`)
	if err != nil {
		t.Fatal(err)
	}
	d := spec.Data{Output: strings.Repeat("a", 4<<20)}
	for range 3 {
		if out, err := spec.Execute(tm, d); err != nil || out != "12582912" {
			t.Fatalf("sequential: %q, %v", out, err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := spec.Execute(tm, d)
			if err == nil && out != "12582912" {
				err = fmt.Errorf("output %q", out)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent: %v", err)
		}
	}
}

// TestBudgetedBuiltinsAgree: the built-ins a spec template gets in charging versions (comparisons, print,
// println, html, js, urlquery) answer as text/template's own do, errors included.
func TestBudgetedBuiltinsAgree(t *testing.T) {
	data := map[string]any{"s": "a<b>&'\"=", "t": "a<b", "i": 3, "u": uint(3), "f": 2.5, "n": nil, "b": true,
		"m": map[string]any{"k": 1}, "l": []any{1, "x"}, "neg": -1, "num": json.Number("7")}
	var exprs []string
	for _, op := range []string{"eq", "ne", "lt", "le", "gt", "ge"} {
		for _, pair := range []string{".s .t", ".t .s", ".s .s", ".i .u", ".u .i", ".neg .u", ".i .f", ".f .f", ".b .b", ".b .i",
			".n .n", ".m .m", ".l .l", ".n .s", `.i 3`, `.num "7"`, `.s "x" "a<b>&'\"="`} {
			exprs = append(exprs, op+" "+pair)
		}
	}
	for _, f := range []string{"print", "println", "html", "js", "urlquery"} {
		for _, args := range []string{".s", ".s .t", ".i .s", ".m", ".l .n", ".i .i", `"<\u2028>"`} {
			exprs = append(exprs, f+" "+args)
		}
	}
	for _, e := range exprs {
		text := "{{" + e + "}}"
		ours, err := spec.ParseTemplateFor("t", text, data)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		got, gotErr := spec.Execute(ours, data)
		var want bytes.Buffer
		wantErr := template.Must(template.New("t").Parse(text)).Execute(&want, data)
		if got != want.String() || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s: %q, %v; text/template: %q, %v", text, got, gotErr, want.String(), wantErr)
		}
	}
}

// BenchmarkHostileTemplate is what a call pays for the doubling template on a 1 MiB stream, which fails at
// its budget (before: 937 MB for the 16 doublings of the spec; now the budget bounds it).
func BenchmarkHostileTemplate(b *testing.B) {
	tm, err := spec.ParseTemplate("t", doubling(".Output", 16))
	if err != nil {
		b.Fatal(err)
	}
	d := spec.Data{Output: strings.Repeat("a", 1<<20)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spec.Execute(tm, d); !errors.Is(err, spec.ErrTemplateBudget) {
			b.Fatal(err)
		}
	}
}
