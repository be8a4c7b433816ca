package runtime

import (
	"sync"
	"text/template"

	"github.com/agentbash/agentbash/spec"
)

// tool is a spec tool compiled for execution.
type tool struct {
	v    *spec.Variant
	spec *spec.Tool
	tmpl *templates
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
	return &tool{v: v, spec: t, tmpl: &templates{m: map[string]*template.Template{}, budget: budget}}
}

// templates caches compiled spec templates by their text.
type templates struct {
	mu     sync.Mutex
	m      map[string]*template.Template
	budget int // bytes one execution may write
}

func (ts *templates) render(text string, d *spec.Data) (string, error) {
	ts.mu.Lock()
	t, ok := ts.m[text]
	if !ok {
		var err error
		t, err = spec.ParseTemplate("spec", text)
		if err != nil {
			ts.mu.Unlock()
			return "", err
		}
		ts.m[text] = t
	}
	ts.mu.Unlock()
	return spec.ExecuteLimit(t, d, ts.budget)
}
