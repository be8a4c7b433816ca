package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentbash/agentbash/gen"
	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/spec"
)

// cmdGen implements `agentbash gen`: spec in, typed Go adapter out, the same bytes every time.
func cmdGen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	specFile := fs.String("spec", "", "the spec `FILE` (YAML) to generate from")
	out := fs.String("out", "", "the Go `FILE` to write, or - for stdout")
	pkg := fs.String("pkg", "", "the Go package `NAME` (default: the variant id)")
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
	v, err := loadSpec(*specFile)
	if err != nil {
		fmt.Fprintln(stderr, "agentbash gen:", err)
		return 1
	}
	for _, n := range v.Notes() {
		fmt.Fprintln(stderr, "agentbash gen: note:", n)
	}
	embed := filepath.Base(*specFile)
	if *out != "-" {
		rel, err := relSpec(*specFile, *out)
		if err != nil {
			fmt.Fprintln(stderr, "agentbash gen:", err)
			return 1
		}
		embed = rel
	}
	code, err := gen.Generate(v, gen.Config{Package: *pkg, SpecFile: embed})
	if err != nil {
		fmt.Fprintln(stderr, "agentbash gen:", err)
		return 1
	}
	if *out == "-" {
		if _, err := stdout.Write(code); err != nil {
			fmt.Fprintln(stderr, "agentbash gen:", err)
			return 1
		}
		return 0
	}
	old, err := os.ReadFile(*out)
	same := err == nil && bytes.Equal(old, code)
	if *check {
		if !same {
			fmt.Fprintf(stderr, "agentbash gen: %s is stale: run go generate (or agentbash gen -spec %s -out %s)\n", *out, *specFile, *out)
			return 1
		}
		return 0
	}
	if same {
		return 0 // leave the file (and its modification time) alone
	}
	if err := writeFile(*out, code); err != nil {
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

// relSpec returns the spec's path relative to the output's directory, with forward slashes, as go:embed
// names it; the spec must be inside that directory.
func relSpec(specFile, out string) (string, error) {
	absSpec, err := filepath.Abs(specFile)
	if err != nil {
		return "", err
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(filepath.Dir(absOut), absSpec)
	if err != nil {
		return "", err
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || len(rel) > 3 && rel[:3] == "../" {
		return "", fmt.Errorf("spec %s is outside %s: the generated package embeds its spec, so keep them together", specFile, filepath.Dir(out))
	}
	return rel, nil
}

// writeFile replaces path with data through a temporary file in the same directory.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
