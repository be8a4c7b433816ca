package runtime

import (
	"bytes"
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
	return &tool{v: v, spec: t, tmpl: &templates{m: map[string]*template.Template{}}}
}

// templates caches compiled spec templates by their text.
type templates struct {
	mu sync.Mutex
	m  map[string]*template.Template
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
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}
