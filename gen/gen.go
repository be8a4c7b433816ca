// Package gen renders a normalized agentbash spec (spec.Variant) as a typed Go adapter with
// github.com/dave/jennifer: typed parameters whose reflected JSON Schema is the model-facing one, typed
// results (a struct for JSON envelopes, a sealed interface for discriminated unions, string for text), typed
// errors per error kind, a Tool wrapping the runtime engine, the tool definitions as data, and a guard
// against a runtime that does not support the generated code.
//
// The generated package embeds its spec and parses it at first use, so it is self-contained: a downstream
// module needs only its YAML file, a go:generate line and this module.
package gen

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/spec"
)

// Version is the generated-code API version this generator emits. Generated code compiles only against a
// runtime whose [MinGenVersion, GenVersion] range holds it.
const Version = 2

const (
	runtimePkg = "github.com/agentbash/agentbash/runtime"
	policyPkg  = "github.com/agentbash/agentbash/runtime/policy"
	specPkg    = "github.com/agentbash/agentbash/spec"
)

// Config says how to render a variant.
type Config struct {
	// Package is the Go package name of the output (default: the variant id).
	Package string
	// SpecFile is the spec's path relative to the output file's directory, with forward slashes (for
	// example "rye.yaml"). The generated package embeds it and the header names it.
	SpecFile string
}

// Generate renders the adapter for v. The output is gofmt-formatted and depends only on v and cfg.
func Generate(v *spec.Variant, cfg Config) ([]byte, error) {
	if cfg.Package == "" {
		cfg.Package = v.ID
	}
	if cfg.SpecFile == "" {
		return nil, fmt.Errorf("gen: Config.SpecFile is empty")
	}
	if p := path.Clean(cfg.SpecFile); path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
		return nil, fmt.Errorf("gen: spec %s must be inside the output's directory to be embedded", cfg.SpecFile)
	}
	g := &generator{v: v, cfg: cfg, f: jen.NewFile(cfg.Package), names: map[string]string{}, multi: len(v.Tools) > 1}
	g.f.ImportName(runtimePkg, "runtime")
	g.f.ImportName(specPkg, "spec")
	g.f.ImportName(policyPkg, "policy")
	if err := g.build(); err != nil {
		return nil, fmt.Errorf("gen %s: %w", cfg.SpecFile, err)
	}
	var b bytes.Buffer
	if err := g.f.Render(&b); err != nil {
		return nil, fmt.Errorf("gen %s: %w", cfg.SpecFile, err)
	}
	return b.Bytes(), nil
}

// generator renders one variant.
type generator struct {
	v     *spec.Variant
	cfg   Config
	f     *jen.File
	names map[string]string // package-level identifier -> what declared it
	multi bool
	tools []*toolGen
	kinds []*errKind
	// union is set when some result is a union (the marshal helper is emitted).
	union bool
}

// toolGen is what the generator derives for one tool.
type toolGen struct {
	t         *spec.Tool
	goName    string
	prefix    string // "" for a single-tool variant, the tool's Go name otherwise
	name      string // the tool name constant (ToolBash)
	method    string // Run, or the tool's Go name
	params    string // Params, BashParams
	result    string // Result, BashResult (a type, except for text results)
	format    string // text, json (envelope) or union
	cases     []string
	unmarshal string // UnmarshalResult for unions
}

// declare reserves a package-level identifier.
func (g *generator) declare(name, what string) error {
	if prev, ok := g.names[name]; ok {
		return fmt.Errorf("%s and %s both need the Go name %s", prev, what, name)
	}
	g.names[name] = what
	return nil
}

func (g *generator) build() error {
	for _, n := range []string{"specYAML", "genVersion", "ID", "loadSpec", "Spec", "Definition", "Definitions",
		"Option", "WithWorkspace", "WithEnv", "WithShell", "WithTerminal", "WithPolicyOptions", "Tool", "New",
		"typedError", "marshalJSON"} {
		_ = g.declare(n, "the generated "+n)
	}
	methods := map[string]bool{"Engine": true, "Variant": true, "Close": true, "Call": true, "CallTool": true, "CallTyped": true, "Adapter": true}
	for i := range g.v.Tools {
		t := &g.v.Tools[i]
		tg := &toolGen{t: t, goName: goName(t.Name), method: "Run", params: "Params", result: "Result"}
		if g.multi {
			tg.prefix = tg.goName
			tg.method = tg.goName
			tg.params = tg.goName + "Params"
			tg.result = tg.goName + "Result"
		}
		if methods[tg.method] {
			return fmt.Errorf("tool %s: its method name %s is taken", t.Name, tg.method)
		}
		methods[tg.method] = true
		tg.name = "Tool" + tg.goName
		if err := g.declare(tg.name, "the name constant of tool "+t.Name); err != nil {
			return err
		}
		if err := g.declare(tg.params, "the parameters of tool "+t.Name); err != nil {
			return err
		}
		tg.cases = caseOrder(g.v, i)
		switch {
		case t.Results.Format == "text":
			tg.format = "text"
		case t.Results.Union:
			tg.format = "union"
			g.union = true
		default:
			tg.format = "json"
		}
		if tg.format == "union" {
			if err := g.declare(tg.result, "the result of tool "+t.Name); err != nil {
				return err
			}
		}
		if tg.format == "union" {
			tg.unmarshal = "Unmarshal" + tg.result
			if err := g.declare(tg.unmarshal, "the result decoder of tool "+t.Name); err != nil {
				return err
			}
		}
		g.tools = append(g.tools, tg)
	}
	g.kinds = collectKinds(g.v)
	for _, k := range g.kinds {
		if err := g.declare(k.goName, "error kind "+k.kind); err != nil {
			return err
		}
	}

	g.header()
	g.constants()
	g.specAndDefinitions()
	g.options()
	g.toolType()
	for _, tg := range g.tools {
		g.toolMethod(tg)
	}
	for _, tg := range g.tools {
		if err := g.paramsType(tg); err != nil {
			return fmt.Errorf("tool %s: %w", tg.t.Name, err)
		}
		if err := g.resultTypes(tg); err != nil {
			return fmt.Errorf("tool %s: results: %w", tg.t.Name, err)
		}
	}
	g.errorTypes()
	if g.union {
		g.marshalHelper()
	}
	return nil
}

// caseOrder lists a tool's result cases in file order (by their line), or by name for a spec built in Go.
func caseOrder(v *spec.Variant, tool int) []string {
	cases := v.Tools[tool].Results.Cases
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	line := func(n string) int {
		l, _ := v.Pos(fmt.Sprintf("/tools/%d/results/cases/%s", tool, n))
		return l
	}
	sort.Slice(names, func(i, j int) bool {
		li, lj := line(names[i]), line(names[j])
		if li != lj {
			return li < lj
		}
		return names[i] < names[j]
	})
	return names
}

func (g *generator) header() {
	v := g.v
	g.f.HeaderComment(fmt.Sprintf("Code generated by agentbash gen from %s; DO NOT EDIT.", g.cfg.SpecFile))
	pkgDoc := fmt.Sprintf("Package %s is the typed Go adapter for the %s variant: %s.", g.cfg.Package, v.ID,
		strings.TrimSuffix(v.Title, "."))
	if v.Summary != "" {
		pkgDoc += "\n\n" + strings.TrimSpace(v.Summary)
	}
	pkgDoc += "\n\nNew starts the tool on the agentbash runtime; " + g.tools[0].method +
		" calls it with typed parameters, Call with the JSON a model sent; Definitions is what to show the model."
	g.f.PackageComment(wrap(pkgDoc))
	g.f.Anon("embed")

	g.f.Comment(wrap(fmt.Sprintf("specYAML is the variant's spec, embedded from %s.", g.cfg.SpecFile)) + "\n//")
	g.f.Comment("//go:embed " + g.cfg.SpecFile)
	g.f.Var().Id("specYAML").Index().Byte()
	g.f.Line()
	g.f.Comment(wrap("genVersion is the generated-code API version of this file; the constants below stop it " +
		"compiling against a runtime that does not support it."))
	g.f.Const().Id("genVersion").Op("=").Lit(Version)
	g.f.Line()
	enforce := jen.Qual(runtimePkg, "EnforceVersion")
	g.f.Const().Defs(
		jen.Id("_").Op("=").Add(enforce).Call(jen.Id("genVersion").Op("-").Qual(runtimePkg, "MinGenVersion")),
		jen.Id("_").Op("=").Add(enforce).Call(jen.Qual(runtimePkg, "GenVersion").Op("-").Id("genVersion")),
	)
	g.f.Line()
}

func (g *generator) constants() {
	g.f.Comment("// ID is the variant's id.")
	g.f.Const().Id("ID").Op("=").Lit(g.v.ID)
	g.f.Line()
	var defs []jen.Code
	for _, tg := range g.tools {
		defs = append(defs, jen.Comment(fmt.Sprintf("// %s is the name of the %s tool.", tg.name, tg.t.Name)),
			jen.Id(tg.name).Op("=").Lit(tg.t.Name))
	}
	g.f.Comment("// The tools' names, as the model calls them.")
	g.f.Const().Defs(defs...)
	g.f.Line()
}

func (g *generator) specAndDefinitions() {
	specT := jen.Op("*").Qual(specPkg, "Variant")
	g.f.Var().Id("loadSpec").Op("=").Qual("sync", "OnceValues").Call(
		jen.Func().Params().Params(specT.Clone(), jen.Error()).Block(
			jen.Return(jen.Qual(specPkg, "Parse").Call(jen.Lit(g.cfg.SpecFile), jen.Id("specYAML"))),
		),
	)
	g.f.Line()
	g.f.Comment(wrap(fmt.Sprintf("Spec returns the variant's spec, parsed once from the embedded %s. The "+
		"value is shared: do not modify it.", g.cfg.SpecFile)))
	g.f.Func().Id("Spec").Params().Params(specT.Clone(), jen.Error()).Block(jen.Return(jen.Id("loadSpec").Call()))
	g.f.Line()

	g.f.Comment("// Definition is one tool as its model sees it.")
	g.f.Type().Id("Definition").Struct(
		jen.Comment("// Name is what the model calls."),
		jen.Id("Name").String(),
		jen.Comment("// Description is the model-facing description, verbatim from the source."),
		jen.Id("Description").String(),
		jen.Comment(wrap("InputSchema is the JSON Schema of the parameters, as the source shows it to its "+
			"model; it is also what the Params type reflects to with github.com/invopop/jsonschema.")),
		jen.Id("InputSchema").Qual("encoding/json", "RawMessage"),
	)
	g.f.Line()
	var items []jen.Code
	for _, tg := range g.tools {
		items = append(items, jen.Values(jen.Dict{
			jen.Id("Name"):        jen.Id(tg.name),
			jen.Id("Description"): jen.Lit(tg.t.Description),
			jen.Id("InputSchema"): jen.Qual("encoding/json", "RawMessage").Call(jen.Lit(string(toolschema.Input(tg.t)))),
		}))
	}
	g.f.Comment("// Definitions returns the variant's tools, in spec order (the first is the primary tool).")
	g.f.Func().Id("Definitions").Params().Index().Id("Definition").Block(
		jen.Return(jen.Index().Id("Definition").ValuesFunc(func(gr *jen.Group) {
			for _, it := range items {
				gr.Line().Add(it)
			}
			gr.Line()
		})),
	)
	g.f.Line()
}

func (g *generator) options() {
	g.f.Comment(wrap("Option configures a Tool. It is a runtime.Option: every option of the runtime " +
		"package applies."))
	g.f.Type().Id("Option").Op("=").Qual(runtimePkg, "Option")
	g.f.Line()
	type opt struct{ pkg, name, doc string }
	opts := []opt{
		{runtimePkg, "WithWorkspace", "WithWorkspace sets the workspace root: the default working directory and the confinement root (default: the process's working directory)."},
		{runtimePkg, "WithEnv", "WithEnv sets the environment commands inherit (default: os.Environ())."},
		{runtimePkg, "WithShell", "WithShell replaces the spec's shell argv (the command is appended)."},
		{runtimePkg, "WithTerminal", "WithTerminal is where output goes when a call asks not to capture it (default: discarded)."},
	}
	if len(g.v.Policies) > 0 {
		opts = append(opts, opt{runtimePkg, "WithPolicyOptions", "WithPolicyOptions passes host settings to the spec's policies."})
	}
	g.f.Var().DefsFunc(func(gr *jen.Group) {
		for k, o := range opts {
			if k > 0 {
				gr.Line()
			}
			gr.Comment(wrap(o.doc))
			gr.Id(o.name).Op("=").Qual(o.pkg, o.name)
		}
	})
	g.f.Line()
}

func (g *generator) toolType() {
	v, primary := g.v, g.tools[0]
	g.f.Comment(wrap(fmt.Sprintf("Tool runs the %s variant's tools on the agentbash runtime. Its runtime.Adapter "+
		"gives it Engine, Variant, Close and CallTool. It is safe for concurrent use; Close ends every process "+
		"it left running.", v.ID)))
	g.f.Type().Id("Tool").Struct(jen.Op("*").Qual(runtimePkg, "Adapter"))
	g.f.Line()

	g.f.Comment(wrap("New compiles the embedded spec for execution with the options."))
	g.f.Func().Id("New").Params(jen.Id("opts").Op("...").Id("Option")).Params(jen.Op("*").Id("Tool"), jen.Error()).Block(
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("Spec").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.List(jen.Id("a"), jen.Err()).Op(":=").Qual(runtimePkg, "NewAdapter").Call(jen.Id("v"), jen.Id("typedError"), jen.Id("opts").Op("...")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id("Tool").Values(jen.Id("a")), jen.Nil()),
	)
	g.f.Line()

	ctx := jen.Id("ctx").Qual("context", "Context")
	raw := jen.Qual("encoding/json", "RawMessage")
	what := "a JSON object"
	if primary.format == "text" {
		what = "a JSON string"
	}
	g.f.Comment(wrap(fmt.Sprintf("Call runs the %s tool with the parameters as a model sent them and returns its "+
		"result as the host receives it (%s). An error the tool raises is one of this package's error types.",
		primary.t.Name, what)))
	g.f.Func().Params(jen.Id("t").Op("*").Id("Tool")).Id("Call").Params(ctx.Clone(), jen.Id("params").Add(raw.Clone())).Params(raw.Clone(), jen.Error()).Block(
		jen.Return(jen.Id("t").Dot("CallTool").Call(jen.Id("ctx"), jen.Id(primary.name), jen.Id("params"))),
	)
	g.f.Line()
}

// resultType is the Go type a tool's typed method returns, and its zero value.
func (tg *toolGen) resultType() (typ, zero jen.Code) {
	switch tg.format {
	case "text":
		return jen.String(), jen.Lit("")
	case "union":
		return jen.Id(tg.result), jen.Nil()
	}
	return jen.Id(tg.result), jen.Id(tg.result).Values()
}

func (g *generator) toolMethod(tg *toolGen) {
	typ, zero := tg.resultType()
	decode := []jen.Code{
		jen.List(jen.Id("raw"), jen.Err()).Op(":=").Id("t").Dot("CallTyped").Call(jen.Id("ctx"), jen.Id(tg.name), jen.Id("params")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(zero, jen.Err())),
	}
	if tg.format == "union" {
		decode = append(decode, jen.Return(jen.Id(tg.unmarshal).Call(jen.Id("raw"))))
	} else {
		decode = append(decode,
			jen.Var().Id("res").Add(typ),
			jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("raw"), jen.Op("&").Id("res")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(zero, jen.Qual("fmt", "Errorf").Call(jen.Lit(fmt.Sprintf("%s: decoding the %s result: %%w", g.cfg.Package, tg.t.Name)), jen.Err())),
			),
			jen.Return(jen.Id("res"), jen.Nil()),
		)
	}
	what := map[string]string{"text": "its text", "json": "its result", "union": "its result (one of the " + tg.result + " types)"}[tg.format]
	g.f.Comment(wrap(fmt.Sprintf("%s runs the %s tool with typed parameters and returns %s. An error the tool "+
		"raises is one of this package's error types.", tg.method, tg.t.Name, what)))
	g.f.Func().Params(jen.Id("t").Op("*").Id("Tool")).Id(tg.method).Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("params").Id(tg.params),
	).Params(typ, jen.Error()).Block(decode...)
	g.f.Line()
}

// wrap formats text as // comment lines of at most about 100 columns, keeping the text's line breaks.
func wrap(text string) string {
	// gofmt turns ``x'' into curly quotes in doc comments; keep the source's backticks and quotes single.
	text = strings.NewReplacer("``", "`", "''", "'").Replace(text)
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(text), "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && len(line)+1+len(w) > 100 {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		out = append(out, line)
	}
	for i, l := range out {
		if l == "" {
			out[i] = "//"
		} else {
			out[i] = "// " + l
		}
	}
	return strings.Join(out, "\n")
}
