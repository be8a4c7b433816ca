package runtime

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// templatesOf collects every string of a spec that holds an action.
func templatesOf(v reflect.Value, out map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			templatesOf(v.Elem(), out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				templatesOf(v.Field(i), out)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			templatesOf(v.Index(i), out)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			templatesOf(it.Value(), out)
		}
	case reflect.String:
		if strings.Contains(v.String(), "{{") {
			out[v.String()] = true
		}
	}
}

// randomData fills the template data's strings, integers and booleans from small pools that take every
// branch of and, or and join (empty and not, zero and not, negative).
func randomData(r *rand.Rand) *spec.Data {
	strs := []string{"", "", "x", "out\n", "[stderr]\n", "a b\n\nc", "ünï\r\n", "{{.Stdout}}", strings.Repeat("y\n", 40)}
	ints := []int64{0, 0, 1, 3, -9, 127, 1 << 40}
	d := &spec.Data{}
	v := reflect.ValueOf(d).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(strs[r.IntN(len(strs))])
		case reflect.Int, reflect.Int64:
			f.SetInt(ints[r.IntN(len(ints))])
		case reflect.Bool:
			f.SetBool(r.IntN(2) == 0)
		}
	}
	return d
}

// Every template of every built-in spec that compiles fast renders as text/template renders it, for 200
// data values each, with a budget that fits and with budgets that do not (where text/template fails, the
// fast path gives up); rye's output template, the commonest shape, is among them.
func TestFastTemplateMatches(t *testing.T) {
	files, err := filepath.Glob("../variants/*/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no variant specs: %v", err)
	}
	all := map[string]bool{}
	for _, f := range files {
		v, err := spec.Load(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		templatesOf(reflect.ValueOf(v), all)
	}
	const commonest = `{{join "\n" .Stdout (and .Stderr (concat "[stderr]\n" .Stderr))}}`
	if !all[commonest] {
		t.Fatalf("no built-in spec has the template %s any more: pick another commonest shape", commonest)
	}
	r := rand.New(rand.NewPCG(1, 2))
	fast := 0
	for text := range all {
		tm, err := spec.ParseTemplate("spec", text)
		if err != nil {
			continue // not a template on its own (a part of one, or a policy's text)
		}
		ft := compileFast(tm)
		if ft == nil {
			if text == commonest {
				t.Errorf("%s does not compile fast", text)
			}
			continue
		}
		fast++
		for range 200 {
			d := randomData(r)
			for _, budget := range []int{1 << 20, 8, 0} {
				want, werr := spec.ExecuteLimit(tm, d, budget)
				got, ok := ft.execute(reflect.ValueOf(d).Elem(), budget)
				switch {
				case werr != nil && ok:
					t.Fatalf("%s, budget %d: text/template fails (%v), the fast path gives %q", text, budget, werr, got)
				case werr == nil && ok && got != want:
					t.Fatalf("%s, budget %d:\n got %q\nwant %q\ndata %+v", text, budget, got, want, d)
				case werr == nil && !ok && budget == 1<<20:
					t.Fatalf("%s: the fast path gave up where text/template renders %q", text, want)
				}
			}
		}
	}
	t.Logf("%d of %d templates compile fast", fast, len(all))
}

// The shapes the fast path takes and those it leaves to text/template, each checked against text/template
// on data where the functions' arguments are empty and not.
func TestFastTemplateShapes(t *testing.T) {
	for _, tc := range []struct {
		text string
		fast bool
	}{
		{`a {{.Stdout}} b {{.ExitCode}} {{.Success}}`, true},
		{`{{and .Stdout .Stderr}}|{{or .Stdout .Stderr}}|{{or .ExitCode .Success}}|{{and .Success .ExitCode}}`, true},
		{`{{or .Stdout "none"}}{{and .ExitCode (concat "exit " .Stderr)}}`, true},
		{`{{join ", " .Stdout .Stderr .Output}}{{join ""}}`, true}, // join with no parts: ""
		{`{{join ", " .Stdout .Stderr .Output}}`, true},
		{`{{join ", " .Stdout .ExitCode}}`, true},      // an integer part: text/template's error, the fast path gives up
		{`{{concat .Stdout (or .Success "x")}}`, true}, // a boolean part, sometimes
		{`{{.Stdout | printf "%q"}}`, false},
		{`{{if .Stdout}}x{{end}}`, false},
		{`{{$x := .Stdout}}{{$x}}`, false},
		{`{{printf "%d" .ExitCode}}`, false},
		{`{{.Params}}`, false},
		{`{{.Issues}}`, false},
	} {
		tm, err := spec.ParseTemplate("t", tc.text)
		if err != nil {
			t.Fatalf("%s: %v", tc.text, err)
		}
		ft := compileFast(tm)
		if (ft != nil) != tc.fast {
			t.Errorf("%s: fast %v, want %v", tc.text, ft != nil, tc.fast)
			continue
		}
		if ft == nil {
			continue
		}
		r := rand.New(rand.NewPCG(3, 4))
		for range 300 {
			d := randomData(r)
			want, werr := spec.ExecuteLimit(tm, d, 1<<20)
			got, ok := ft.execute(reflect.ValueOf(d).Elem(), 1<<20)
			if (werr == nil) != ok || got != want && ok {
				t.Fatalf("%s: got %q, %v; text/template %q, %v", tc.text, got, ok, want, werr)
			}
		}
	}
}

// BenchmarkTemplate renders the commonest result template with text/template and with the fast path.
func BenchmarkTemplate(b *testing.B) {
	tm, err := spec.ParseTemplate("spec", `{{join "\n" .Stdout (and .Stderr (concat "[stderr]\n" .Stderr))}}`)
	if err != nil {
		b.Fatal(err)
	}
	d := &spec.Data{Stdout: "hello\n", Stderr: "oops\n"}
	b.Run("text-template", func(b *testing.B) {
		for b.Loop() {
			if _, err := spec.ExecuteLimit(tm, d, 1<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
	ft := compileFast(tm)
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			if _, ok := ft.execute(reflect.ValueOf(d).Elem(), 1<<20); !ok {
				b.Fatal("gave up")
			}
		}
	})
}
