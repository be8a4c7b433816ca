package runtime

import (
	"reflect"
	"regexp"
	"sync"
	"text/template"

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

// compiled is a parsed template and, for one of the commonest shapes ({{.Stdout}}, argv words, a
// stream joined with another), its fast form (fasttmpl.go), which render runs without executing the
// template.
type compiled struct {
	t    *template.Template
	fast *fastTemplate
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
		c = compiled{t: t, fast: compileFast(t)}
		ts.m[text] = c
	}
	ts.mu.Unlock()
	if c.fast != nil {
		if s, ok := c.fast.execute(reflect.ValueOf(d).Elem(), ts.budget); ok {
			return s, nil
		}
	}
	return spec.ExecuteLimit(c.t, d, ts.budget)
}

// dataType is the type of the templates' data.
var dataType = reflect.TypeFor[spec.Data]()
