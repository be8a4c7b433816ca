// Package variants holds the built-in variant specs (one folder each: <id>/<id>.yaml beside its generated
// adapter) and finds them by id or host framework.
//
// `go generate ./variants` (internal/genbuiltins) writes each adapter, which holds its spec compiled to a
// Go value, and the registry's table of them (builtins_gen.go): Spec returns the variant spec.Load returns
// for the file, completed, without reading YAML, validating it or completing it at run time;
// TestCompiledMatchesYAML fails when the two drift. A new built-in is its YAML file and go generate.
package variants

//go:generate go run ./internal/genbuiltins -o builtins_gen.go

import (
	"embed"
	"fmt"

	"github.com/agentbash/agentbash/spec"
)

// FS holds every built-in spec as <id>/<id>.yaml.
//
//go:embed */*.yaml
var FS embed.FS

// IDs lists the built-in variant ids, sorted.
func IDs() []string {
	ids := make([]string, len(builtins))
	for i, b := range builtins {
		ids[i] = b.ID
	}
	return ids
}

// Spec returns the built-in spec with this id, as spec.Load returns <id>.yaml in <id>/ of FS: a new completed
// variant on each call, built from its compiled form (the generated package's Spec).
func Spec(id string) (*spec.Variant, error) {
	for _, b := range builtins {
		if b.ID == id {
			return b.Spec()
		}
	}
	return nil, fmt.Errorf("unknown variant %q (built-in: %v)", id, IDs())
}
