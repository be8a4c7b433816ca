// Package variants holds the built-in variant specs (one folder each: <id>/<id>.yaml beside its generated
// adapter) and finds them by id or host framework.
package variants

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"github.com/agentbash/agentbash/spec"
)

// FS holds every built-in spec as <id>/<id>.yaml.
//
//go:embed */*.yaml
var FS embed.FS

// IDs lists the built-in variant ids, sorted.
func IDs() []string {
	entries, err := fs.ReadDir(FS, ".")
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() {
			if _, err := fs.Stat(FS, path.Join(e.Name(), e.Name()+".yaml")); err == nil {
				ids = append(ids, e.Name())
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// Spec loads the built-in spec with this id.
func Spec(id string) (*spec.Variant, error) {
	p := path.Join(id, id+".yaml")
	if _, err := fs.Stat(FS, p); err != nil {
		return nil, fmt.Errorf("unknown variant %q (built-in: %v)", id, IDs())
	}
	data, err := fs.ReadFile(FS, p)
	if err != nil {
		return nil, err
	}
	// The built-ins are validated against the JSON Schema by their tests; here they load without it.
	return spec.ParseEmbedded(p, data)
}
