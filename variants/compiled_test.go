package variants_test

import (
	"io/fs"
	"path"
	"reflect"
	"slices"
	"testing"

	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate"
	"github.com/agentbash/agentbash/variants"
)

// TestCompiledMatchesYAML: each built-in's compiled form (in its generated package, <id>/<id>_gen.go) is
// the variant spec.Load reads from its YAML, named as the generated file names it (<id>.yaml, beside it),
// unexported state included (reflect.DeepEqual: positions, result-case order, Go model), with the Go
// model's parameters pointing into the variant's own parameters as Complete leaves them; and every YAML
// file has one. `go generate ./variants` (make check) rewrites the generated files.
func TestCompiledMatchesYAML(t *testing.T) {
	files, err := fs.Glob(variants.FS, "*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range files {
		ids = append(ids, path.Dir(f))
	}
	if got := variants.IDs(); !slices.Equal(got, ids) {
		t.Fatalf("compiled built-ins %v, YAML files %v: run go generate ./variants", got, ids)
	}
	for _, f := range files {
		id := path.Dir(f)
		t.Run(id, func(t *testing.T) {
			dir, err := fs.Sub(variants.FS, id)
			if err != nil {
				t.Fatal(err)
			}
			want, err := spec.LoadFS(dir, path.Base(f))
			if err != nil {
				t.Fatal(err)
			}
			got, err := variants.Spec(id)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Completed() {
				t.Error("the compiled variant is not completed")
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("the compiled %s differs from spec.Load of %s: run go generate ./variants", id, f)
			}
			for i := range got.Tools {
				tool := &got.Tools[i]
				for j, gp := range tool.Go().ParamFields {
					if gp.Param != &tool.Params[j] {
						t.Errorf("tool %s: the Go model's parameter %d is a copy, not the tool's parameter", tool.Name, j)
					}
				}
			}
			// Each call builds a new variant: a caller that changes one changes no other.
			again, err := variants.Spec(id)
			if err != nil {
				t.Fatal(err)
			}
			got.Tools[0].Params[0].Name = "changed"
			got.Tools[0].Go().Name = "Changed"
			if again.Tools[0].Params[0].Name == "changed" || again.Tools[0].Go().Name == "Changed" {
				t.Error("two calls share a variant")
			}
			if !reflect.DeepEqual(again, want) {
				t.Error("a second call differs from spec.Load")
			}
		})
	}
}
