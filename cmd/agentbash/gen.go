package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/agentbash/agentbash/gen"
)

// cmdGen implements `agentbash gen`: spec in, typed Go adapter out, the same bytes every time (gen.GenerateFile,
// as cmd/agentbash-gen does).
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
	err := gen.GenerateFile(gen.FileConfig{Spec: *specFile, Out: *out, Package: *pkg, Check: *check}, stdout)
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
