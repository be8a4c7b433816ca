// Command gencompiled writes builtins_gen.go in package variants: each built-in spec (<id>/<id>.yaml) as
// a Go value (gen.Compiled), which variants.Spec returns without reading YAML, validating or completing.
// `go generate ./variants` runs it from the variants directory; it imports spec and gen but not variants,
// so a stale or broken builtins_gen.go never stops it from running.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/agentbash/agentbash/gen"
	"github.com/agentbash/agentbash/spec"
)

func main() {
	out := flag.String("o", "builtins_gen.go", "the output `FILE`")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gencompiled:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	fsys := os.DirFS(".")
	files, err := fs.Glob(fsys, "*/*.yaml")
	if err != nil {
		return err
	}
	var specs []gen.CompiledSpec
	for _, f := range files {
		id := path.Dir(f)
		if f != path.Join(id, id+".yaml") {
			continue
		}
		v, err := spec.LoadFS(fsys, f)
		if err != nil {
			return err
		}
		specs = append(specs, gen.CompiledSpec{Func: id + "Spec", Variant: v})
	}
	if len(specs) == 0 {
		return fmt.Errorf("no <id>/<id>.yaml under the current directory")
	}
	b, err := gen.Compiled(gen.CompiledConfig{Package: "variants", Source: "variants/internal/gencompiled from */*.yaml", Table: "builtins"}, specs)
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
