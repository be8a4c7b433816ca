package gen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentbash/agentbash/spec"
)

// errKind is one error class a variant can raise, with where the spec raises it.
type errKind struct {
	kind    string
	goName  string
	sources []string
}

// collectKinds finds every error class the variant raises: the types of its failures and raised result
// cases, and the classes the runtime raises on the spec's behalf (ValidationError for invalid parameters
// without invalid_param, OSError for a shell that cannot start without a spawn_error case, PolicyError for a
// policy without a failure type, ToolError for background registry errors).
func collectKinds(v *spec.Variant) []*errKind {
	byKind := map[string]*errKind{}
	add := func(kind, source string) {
		if kind == "" {
			return
		}
		k := byKind[kind]
		if k == nil {
			k = &errKind{kind: kind, goName: goName(kind)}
			byKind[kind] = k
		}
		for _, s := range k.sources {
			if s == source {
				return
			}
		}
		k.sources = append(k.sources, source)
	}
	failure := func(f *spec.Failure, source string) {
		if f != nil {
			add(f.Type, source)
		}
	}
	for _, p := range v.Policies {
		switch {
		case p.Fail == nil:
			add("PolicyError", fmt.Sprintf("policy %s blocks a command", p.Name))
		case p.Fail.Type != "":
			add(p.Fail.Type, fmt.Sprintf("policy %s blocks a command", p.Name))
		}
	}
	if b := v.Background; b != nil {
		failure(b.LimitError, "too many background shells are running")
		failure(b.UnknownID, "a shell id is not known")
		add("ToolError", "the background registry fails")
	}
	for i := range v.Tools {
		t := &v.Tools[i]
		if t.InvalidParam == nil {
			add("ValidationError", fmt.Sprintf("%s gets a parameter of the wrong type, or misses a required one", t.Name))
		} else {
			failure(t.InvalidParam, fmt.Sprintf("%s gets a parameter of the wrong type, or misses a required one", t.Name))
		}
		for _, ch := range t.Checks {
			switch {
			case ch.Required != "":
				failure(ch.Fail, fmt.Sprintf("%s gets no %s", t.Name, ch.Required))
			case ch.NotEmpty != "":
				failure(ch.Fail, fmt.Sprintf("%s gets an empty %s", t.Name, ch.NotEmpty))
			case ch.NotBlank != "":
				failure(ch.Fail, fmt.Sprintf("%s gets a blank %s", t.Name, ch.NotBlank))
			}
		}
		if tm := t.Timeout; tm != nil {
			failure(tm.Fail, fmt.Sprintf("%s gets a timeout out of range", t.Name))
		}
		if w := t.Workdir; w != nil {
			failure(w.Confine, fmt.Sprintf("%s gets a working directory outside the workspace", t.Name))
			failure(w.MustBeDir, fmt.Sprintf("%s gets a working directory that is not a directory", t.Name))
		}
		if o := t.Output; o != nil {
			failure(o.DecodeError, fmt.Sprintf("%s reads output that does not decode", t.Name))
		}
		names := make([]string, 0, len(t.Results.Cases))
		for n := range t.Results.Cases {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			failure(t.Results.Cases[n].Raise, fmt.Sprintf("%s ends with outcome %s", t.Name, n))
		}
		kind := t.Kind
		if kind == "" || kind == "exec" {
			if _, ok := t.Results.Cases["spawn_error"]; !ok {
				add("OSError", fmt.Sprintf("%s cannot start its shell", t.Name))
			}
		}
	}
	kinds := make([]*errKind, 0, len(byKind))
	for _, k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].kind < kinds[j].kind })
	return kinds
}

// errorTypes emits one error type per kind and typedError, which maps a *runtime.ToolError to them.
func (g *generator) errorTypes() {
	for _, k := range g.kinds {
		doc := fmt.Sprintf("%s is the %s error the tools raise (a *runtime.ToolError with Type %q) when: %s. "+
			"errors.As finds it, and through Unwrap the *runtime.ToolError too.",
			k.goName, k.kind, k.kind, strings.Join(k.sources, "; "))
		g.f.Comment(wrap(doc))
		g.f.Type().Id(k.goName).Struct(
			jen.Comment("// Message is the error's text, exactly as the source words it."),
			jen.Id("Message").String(),
		)
		g.f.Line()
		g.f.Comment(fmt.Sprintf("// Error returns %q and the message, as runtime.ToolError does.", k.kind+": "))
		g.f.Func().Params(jen.Id("e").Op("*").Id(k.goName)).Id("Error").Params().String().Block(
			jen.Return(jen.Lit(k.kind + ": ").Op("+").Id("e").Dot("Message")),
		)
		g.f.Line()
		g.f.Comment("// Unwrap returns the error as the runtime raised it.")
		g.f.Func().Params(jen.Id("e").Op("*").Id(k.goName)).Id("Unwrap").Params().Error().Block(
			jen.Return(jen.Op("&").Qual(runtimePkg, "ToolError").Values(jen.Dict{
				jen.Id("Type"):    jen.Lit(k.kind),
				jen.Id("Message"): jen.Id("e").Dot("Message"),
			})),
		)
		g.f.Line()
	}

	g.f.Comment(wrap("typedError returns a *runtime.ToolError as this package's error type for its kind, and " +
		"any other error as it is."))
	if len(g.kinds) == 0 {
		g.f.Func().Id("typedError").Params(jen.Err().Error()).Error().Block(jen.Return(jen.Err()))
		g.f.Line()
		return
	}
	var arms []jen.Code
	for _, k := range g.kinds {
		arms = append(arms, jen.Case(jen.Lit(k.kind)).Block(
			jen.Return(jen.Op("&").Id(k.goName).Values(jen.Dict{jen.Id("Message"): jen.Id("te").Dot("Message")})),
		))
	}
	g.f.Func().Id("typedError").Params(jen.Err().Error()).Error().Block(
		jen.Var().Id("te").Op("*").Qual(runtimePkg, "ToolError"),
		jen.If(jen.Op("!").Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("te"))).Block(jen.Return(jen.Err())),
		jen.Switch(jen.Id("te").Dot("Type")).Block(arms...),
		jen.Return(jen.Err()),
	)
	g.f.Line()
}
