package runtime

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"sync"
	"text/template"
	"text/template/parse"

	"github.com/agentbash/agentbash/spec"
)

// tool is a spec tool compiled for execution.
type tool struct {
	v    *spec.Variant
	spec *spec.Tool
	tmpl *templates
	// killIf is the timeout's kill_if, compiled (nil without one).
	killIf *regexp.Regexp
}

func compileTool(v *spec.Variant, t *spec.Tool) *tool {
	// A result renders the streams and a few markers: its templates get the default budget plus three
	// times the largest size the tool keeps, so no template output outgrows what the tool holds anyway.
	largest := 0
	for _, tr := range append(t.ResultTruncates(), t.Output.Truncate) {
		if tr != nil {
			largest = max(largest, tr.Limit, tr.Head+tr.Tail, tr.TailThreshold)
		}
	}
	if tr := t.Output.Truncate; tr == nil && len(t.ResultTruncates()) == 0 {
		largest = safetyCap
	}
	if b := v.Background; b != nil {
		largest = max(largest, b.StreamLimit)
	}
	budget := spec.TemplateOutput + 3*2*largest // two streams
	tl := &tool{v: v, spec: t, tmpl: &templates{m: map[string]compiled{}, budget: budget}}
	if tm := t.Timeout; tm != nil && tm.KillIf != "" {
		tl.killIf = regexp.MustCompile(tm.KillIf) // Complete checked it
	}
	return tl
}

// backgroundsAtExpiry reports whether a command whose timeout expired moves to the background (expiry
// background, and kill_if does not match it) rather than being killed.
func (t *tool) backgroundsAtExpiry(command string) bool {
	return t.spec.Timeout.Expiry == spec.ExpiryBackground && (t.killIf == nil || !t.killIf.MatchString(command))
}

// templates caches compiled spec templates by their text.
type templates struct {
	mu     sync.Mutex
	m      map[string]compiled
	budget int // bytes one execution may write
}

// compiled is a parsed template and, for one that is exactly one field of the data ({{.Stdout}}, the
// commonest shape: argv words, results that are one stream), the index of that field, which render reads
// without executing the template.
type compiled struct {
	t     *template.Template
	field []int
	fast  *fastTemplate // the commonest shapes, without text/template's execution (fasttmpl.go)
}

func (ts *templates) render(text string, d *spec.Data) (string, error) {
	ts.mu.Lock()
	c, ok := ts.m[text]
	if !ok {
		t, err := spec.ParseTemplate("spec", text)
		if err != nil {
			ts.mu.Unlock()
			return "", err
		}
		c = compiled{t: t, field: plainField(t), fast: compileFast(t)}
		ts.m[text] = c
	}
	ts.mu.Unlock()
	if c.field != nil {
		s := formatField(reflect.ValueOf(d).Elem().FieldByIndex(c.field))
		if len(s) > ts.budget {
			return "", fmt.Errorf("%w (%d bytes)", spec.ErrTemplateOutput, ts.budget)
		}
		return s, nil
	}
	if c.fast != nil {
		if s, ok := c.fast.execute(reflect.ValueOf(d).Elem(), ts.budget); ok {
			return s, nil
		}
	}
	return spec.ExecuteLimit(c.t, d, ts.budget)
}

// dataType is the type of the templates' data.
var dataType = reflect.TypeFor[spec.Data]()

// plainField returns the index of the field of spec.Data that t is exactly ({{.Stdout}}: no text around
// it, no pipeline, no function), when that field is a string, an integer or a boolean, which text/template
// prints as formatField does; otherwise nil.
func plainField(t *template.Template) []int {
	if t.Tree == nil || t.Tree.Root == nil || len(t.Tree.Root.Nodes) != 1 {
		return nil
	}
	a, ok := t.Tree.Root.Nodes[0].(*parse.ActionNode)
	if !ok || len(a.Pipe.Decl) > 0 || len(a.Pipe.Cmds) != 1 || len(a.Pipe.Cmds[0].Args) != 1 {
		return nil
	}
	f, ok := a.Pipe.Cmds[0].Args[0].(*parse.FieldNode)
	if !ok || len(f.Ident) != 1 {
		return nil
	}
	sf, ok := dataType.FieldByName(f.Ident[0])
	if !ok || !sf.IsExported() {
		return nil
	}
	switch sf.Type.Kind() {
	case reflect.String, reflect.Int, reflect.Int64, reflect.Bool:
		return sf.Index
	}
	return nil
}

func formatField(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Int, reflect.Int64:
		// mutate: template-int-base
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	}
	return fmt.Sprint(v.Interface())
}
