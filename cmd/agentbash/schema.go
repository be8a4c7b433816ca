package main

import (
	"flag"
	"io"
	"slices"
	"strings"

	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/internal/matrix"
	"github.com/agentbash/agentbash/variants"
)

// cmdSchema prints a variant's tool definitions as a model API takes them: `agentbash schema
// VARIANT|SPEC.yaml [-format jsonschema|openai|openai-responses|anthropic|mcp|gemini]`.
func cmdSchema(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	var names []string
	for _, f := range toolschema.Formats() {
		names = append(names, string(f))
	}
	format := fs.String("format", string(toolschema.JSONSchema), "one of "+strings.Join(names, ", "))
	sbx := addSandboxFlags(fs)
	pos, code, ok := schemaCmd.parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	switch {
	case len(pos) == 0:
		return schemaCmd.usageError(stderr, "name a variant or a spec file")
	case len(pos) > 1:
		return schemaCmd.usageError(stderr, "unexpected argument %q", pos[1])
	case !slices.Contains(names, *format):
		return schemaCmd.usageError(stderr, "unknown format %q%s; formats: %s", *format, didYouMean(*format, names, ""), strings.Join(names, ", "))
	}
	v, err := loadVariant(pos[0])
	if err == nil {
		err = sbx.apply(v, io.Discard)
	}
	if err != nil {
		return schemaCmd.fail(stderr, err)
	}
	b, err := toolschema.Definitions(v, toolschema.Format(*format))
	if err != nil {
		return schemaCmd.fail(stderr, err)
	}
	stdout.Write(b)
	return 0
}

// cmdMatrix prints the built-in variants, and any spec files given, side by side: `agentbash matrix
// [-format md|json] [SPEC.yaml...]`.
func cmdMatrix(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	format := fs.String("format", "md", "md (a markdown table) or json")
	pos, code, ok := matrixCmd.parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if *format != "md" && *format != "json" {
		return matrixCmd.usageError(stderr, "unknown format %q%s; formats: md, json", *format, didYouMean(*format, []string{"md", "json"}, ""))
	}
	var cols []matrix.Column
	for _, id := range variants.IDs() {
		v, err := variants.Spec(id)
		if err != nil {
			return matrixCmd.fail(stderr, err)
		}
		cols = append(cols, matrix.Of(v))
	}
	for _, f := range pos {
		v, err := loadVariant(f)
		if err != nil {
			return matrixCmd.fail(stderr, err)
		}
		cols = append(cols, matrix.Of(v))
	}
	if *format == "json" {
		b, err := matrix.JSON(cols)
		if err != nil {
			return matrixCmd.fail(stderr, err)
		}
		stdout.Write(b)
		return 0
	}
	io.WriteString(stdout, matrix.Markdown(cols))
	return 0
}
