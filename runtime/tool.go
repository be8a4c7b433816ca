package runtime

import (
	"bytes"
	"fmt"
	"sync"
	"text/template"
	"time"

	"github.com/agentbash/agentbash/spec"
)

// tool is a spec tool compiled for execution.
type tool struct {
	v     *spec.Variant
	spec  *spec.Tool
	kind  string
	roles map[string]*spec.Param // role -> parameter
	grace time.Duration
	tmpl  *templates
}

func compileTool(v *spec.Variant, t *spec.Tool) (*tool, error) {
	ct := &tool{v: v, spec: t, kind: t.Kind, roles: map[string]*spec.Param{}, tmpl: &templates{m: map[string]*template.Template{}}}
	if ct.kind == "" {
		ct.kind = "exec"
	}
	for i := range t.Params {
		p := &t.Params[i]
		if p.Role != "" && p.Role != "none" {
			ct.roles[p.Role] = p
		}
	}
	ct.grace = 500 * time.Millisecond
	if v.Shell.Grace != "" {
		d, err := time.ParseDuration(v.Shell.Grace)
		if err != nil {
			return nil, fmt.Errorf("shell.grace: %v", err)
		}
		ct.grace = d
	}
	return ct, nil
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
