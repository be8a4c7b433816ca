package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

// errorTypes emits one error type per error class the spec raises (spec.Variant.ErrorTypes), each
// embedding runtime.Raised, and typedError, which gives a *runtime.ToolError its type.
func (g *generator) errorTypes() {
	types := g.v.ErrorTypes()
	var arms []jen.Code
	for _, et := range types {
		var when []string
		for _, s := range et.Sites {
			when = append(when, s.When)
		}
		g.f.Comment(wrap(fmt.Sprintf("%s is raised when %s.", et.GoName, strings.Join(when, "; "))))
		g.f.Type().Id(et.GoName).Op("struct").Add(oneLine(jen.Qual(genimplPkg, "Raised")))
		g.f.Line()
		arms = append(arms, jen.Case(jen.Lit(et.Name)).Block(
			jen.Return(jen.Op("&").Id(et.GoName).Values(jen.Qual(genimplPkg, "Raised").Add(keyed(jen.Id("ToolError"), jen.Id("te"))))),
		))
	}
	g.f.Comment("// typedError gives an error a tool raised this package's type for its class.")
	body := []jen.Code{jen.Return(jen.Id("te"))}
	if len(arms) > 0 {
		body = append([]jen.Code{jen.Switch(jen.Id("te").Dot("Type")).Block(arms...)}, body...)
	}
	g.f.Func().Id("typedError").Params(jen.Id("te").Op("*").Qual(runtimePkg, "ToolError")).Error().Block(body...)
}
