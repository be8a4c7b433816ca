// Command agentbash-gen generates the typed Go adapter of an agentbash spec: what `agentbash gen` does,
// in a small program that imports only the generator (package gen) and the spec language (package spec),
// as protoc-gen-go is to protobuf. A downstream module runs it from a go:generate line:
//
//	//go:generate go run github.com/agentbash/agentbash/cmd/agentbash-gen -spec myshell.yaml -out myshell_gen.go
//
// or pins it as a tool (go get -tool github.com/agentbash/agentbash/cmd/agentbash-gen) and runs
// `go tool agentbash-gen`. The output depends only on the spec and the flags: the spec is named by its
// path relative to the output's directory, and an output that holds the same bytes is not rewritten.
// -check writes nothing and exits 1 when the output is stale. It checks what spec.Load checks; the
// policies' examples, which only their engine can run, are run by `agentbash spec validate` (and
// `agentbash gen`) and when an engine starts.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/agentbash/agentbash/gen"
)

func main() {
	specFile := flag.String("spec", "", "the spec `FILE` (YAML) to generate from")
	out := flag.String("out", "", "the Go `FILE` to write, or - for stdout")
	pkg := flag.String("pkg", "", "the Go package `NAME` (default: the variant id without its dashes)")
	check := flag.Bool("check", false, "write nothing; exit 1 if -out is not what it would write")
	version := flag.Bool("version", false, "print the generated-code API version and exit")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: agentbash-gen -spec FILE -out FILE [-pkg NAME] [-check]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *version {
		fmt.Printf("agentbash-gen: generated-code API version %d\n", gen.Version)
		return
	}
	if flag.NArg() > 0 || *specFile == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	err := gen.GenerateFile(gen.FileConfig{Spec: *specFile, Out: *out, Package: *pkg, Check: *check}, os.Stdout)
	if errors.Is(err, gen.ErrStale) {
		err = fmt.Errorf("%w: run go generate", err)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentbash-gen:", err)
		os.Exit(1)
	}
}
