package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/agentbash/agentbash/gen"
	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/spec"
)

// cmdGen implements `agentbash gen`: spec in, typed Go adapter out, the same bytes every time (gen.GenerateFile,
// as cmd/agentbash-gen does).
func cmdGen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	specFile := fs.String("spec", "", "the spec `FILE` (YAML) to generate from")
	out := fs.String("out", "", "the Go `FILE` to write, or - for stdout")
	pkg := fs.String("pkg", "", "the Go package `NAME` (default: the variant id without its dashes)")
	check := fs.Bool("check", false, "write nothing; exit 1 if -out is not what gen would write")
	pos, status, ok := genCmd.parse(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	switch {
	case len(pos) > 0:
		return genCmd.usageError(stderr, "unexpected argument %q: name the spec with -spec", pos[0])
	case *specFile == "" || *out == "":
		return genCmd.usageError(stderr, "give -spec FILE and -out FILE")
	}
	// The spec is read as validate reads it (loadSpec), its notes said on stderr.
	load := func(path string) (*spec.Variant, error) {
		v, err := loadSpec(path)
		if err == nil {
			for _, n := range v.Notes() {
				fmt.Fprintln(stderr, "agentbash gen: note:", n)
			}
		}
		return v, err
	}
	err := gen.GenerateFile(gen.FileConfig{Spec: *specFile, Out: *out, Package: *pkg, Check: *check, Load: load}, stdout)
	switch {
	case errors.Is(err, gen.ErrStale):
		fmt.Fprintf(stderr, "agentbash gen: %s is stale: run go generate (or agentbash gen -spec %s -out %s)\n", *out, *specFile, *out)
		return 1
	case err != nil:
		fmt.Fprintln(stderr, "agentbash gen:", err)
		return 1
	}
	return 0
}

// loadSpec reads a spec as `agentbash spec validate` and `agentbash gen` both take it, so that they accept
// the same specs and refuse the others with the same messages: spec.Load (the JSON Schema, then the
// checks of the whole model, policies included, each error at its position), then the policies compiled
// and their examples run (policy.CompileVariant), which only an engine can do.
func loadSpec(path string) (*spec.Variant, error) {
	v, err := spec.Load(path)
	if err != nil {
		return nil, err
	}
	if _, err := policy.CompileVariant(v); err != nil {
		return nil, err
	}
	return v, nil
}
