package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/internal/matrix"
	"github.com/agentbash/agentbash/variants"
)

// cmdSchema prints a variant's tool definitions as a model API takes them: `agentbash schema
// VARIANT|SPEC.yaml [-format jsonschema|openai|openai-responses|anthropic|mcp]`.
func cmdSchema(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var names []string
	for _, f := range toolschema.Formats() {
		names = append(names, string(f))
	}
	format := fs.String("format", string(toolschema.JSONSchema), "one of "+strings.Join(names, ", "))
	sbx := addSandboxFlags(fs)
	name, err := parseNamed(fs, args)
	if err != nil {
		return 2
	}
	if name == "" || fs.NArg() > 1 || (fs.NArg() == 1 && fs.Arg(0) != name) {
		fmt.Fprintln(stderr, "agentbash schema: want VARIANT|SPEC.yaml [-format "+strings.Join(names, "|")+"]")
		return 2
	}
	v, err := loadVariant(name)
	if err == nil {
		err = sbx.apply(v, io.Discard)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	b, err := toolschema.Definitions(v, toolschema.Format(*format))
	if err != nil {
		fmt.Fprintln(stderr, "agentbash schema:", err)
		return 2
	}
	stdout.Write(b)
	return 0
}

// cmdMatrix prints the built-in variants, and any spec files given, side by side: `agentbash matrix
// [-format md|json] [SPEC.yaml...]`.
func cmdMatrix(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "md", "md (a markdown table) or json")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *format != "md" && *format != "json" {
		fmt.Fprintf(stderr, "agentbash matrix: unknown format %q (want md or json)\n", *format)
		return 2
	}
	var cols []matrix.Column
	for _, id := range variants.IDs() {
		v, err := variants.Spec(id)
		if err != nil {
			fmt.Fprintln(stderr, "agentbash:", err)
			return 1
		}
		cols = append(cols, matrix.Of(v))
	}
	for _, f := range fs.Args() {
		v, err := loadVariant(f)
		if err != nil {
			fmt.Fprintln(stderr, "agentbash:", err)
			return 1
		}
		cols = append(cols, matrix.Of(v))
	}
	if *format == "json" {
		b, err := matrix.JSON(cols)
		if err != nil {
			fmt.Fprintln(stderr, "agentbash:", err)
			return 1
		}
		stdout.Write(b)
		return 0
	}
	io.WriteString(stdout, matrix.Markdown(cols))
	return 0
}
