package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/spec"
)

// params emits a tool's parameters struct. The model-facing schema is Definitions' (spec.Tool.InputSchema);
// the struct carries what a Go type can, in the form schema libraries read: json names, omitempty for
// optional parameters (so that they are not required), and the description as the jsonschema tag
// github.com/google/jsonschema-go (the MCP go-sdk's) reads, where that library can take it
// (toolschema.TagDescription). No keyword tags (defaults, minimums, nullability): another library's
// syntax for them is one this one refuses.
func (g *generator) params(t *spec.Tool) {
	gt := t.Go()
	var fields, nulls []jen.Code
	for _, gp := range gt.ParamFields {
		fields = append(fields, jen.Id(gp.Name).Add(paramType(gp.Param)).Tag(paramTags(gp.Param)))
		if gp.Null != "" {
			fields = append(fields,
				jen.Comment(fmt.Sprintf("// %s sends %s as null (%s must be nil); null may mean other than absent.", gp.Null, gp.Param.Name, gp.Name)),
				jen.Id(gp.Null).Bool().Tag(map[string]string{"json": "-"}))
			nulls = append(nulls, jen.Qual(genimplPkg, "Null").Add(keyed(jen.Id("Name"), jen.Lit(gp.Param.Name), jen.Id("Set"), jen.Id("p").Dot(gp.Null))))
		}
	}
	g.f.Comment(wrap(fmt.Sprintf("%s are the parameters of the %s tool; a nil pointer leaves an optional one out.", gt.Params, t.Name)))
	g.f.Type().Id(gt.Params).Struct(fields...)
	g.f.Line()
	if len(nulls) == 0 {
		return
	}
	g.f.Comment("// MarshalJSON writes the parameters as a model sends them, the Null ones as null.")
	g.f.Func().Params(jen.Id("p").Id(gt.Params)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Type().Id("plain").Id(gt.Params),
		jen.Return(jen.Qual(genimplPkg, "MarshalParams").Call(append([]jen.Code{jen.Id("plain").Call(jen.Id("p"))}, nulls...)...)),
	)
	g.f.Line()
}

// paramType maps a parameter's JSON type to Go: a value when the model must send it, a pointer when it may
// be left out or be null (maps are nil-able as they are).
func paramType(p *spec.Param) *jen.Statement {
	var base *jen.Statement
	switch p.Type {
	case spec.TypeInteger:
		base = jen.Int()
	case spec.TypeNumber:
		base = jen.Float64()
	case spec.TypeBoolean:
		base = jen.Bool()
	case spec.TypeObject:
		return jen.Map(jen.String()).String()
	case spec.TypeArray:
		return jen.Index().String()
	default:
		base = jen.String()
	}
	if !p.Required || p.Nullable {
		return jen.Op("*").Add(base)
	}
	return base
}

func paramTags(p *spec.Param) map[string]string {
	js := p.Name
	if !p.Required {
		js += ",omitempty"
	}
	tags := map[string]string{"json": js}
	if d, ok := toolschema.TagDescription(p.Description); ok {
		tags["jsonschema"] = d
	}
	return tags
}
