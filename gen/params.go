package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentbash/agentbash/spec"
)

// params emits a tool's parameters struct. Its tags make github.com/invopop/jsonschema reflect the
// model-facing schema (spec.Tool.InputSchema): json names, omitempty for optional parameters (so they are not
// required), jsonschema tags for defaults, minimums and nullability, and the description.
func (g *generator) params(t *spec.Tool) {
	gt := t.Go()
	var fields, nulls []jen.Code
	for _, gp := range gt.ParamFields {
		fields = append(fields, jen.Id(gp.Name).Add(paramType(gp.Param)).Tag(paramTags(gp.Param)))
		if gp.Null != "" {
			fields = append(fields,
				jen.Comment(fmt.Sprintf("// %s sends %s as null (%s must be nil); null may mean other than absent.", gp.Null, gp.Param.Name, gp.Name)),
				jen.Id(gp.Null).Bool().Tag(map[string]string{"json": "-"}))
			nulls = append(nulls, jen.Qual(runtimePkg, "Null").Add(keyed(jen.Id("Name"), jen.Lit(gp.Param.Name), jen.Id("Set"), jen.Id("p").Dot(gp.Null))))
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
		jen.Return(jen.Qual(runtimePkg, "MarshalParams").Call(append([]jen.Code{jen.Id("plain").Call(jen.Id("p"))}, nulls...)...)),
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
	var schema []string
	if p.Default != nil && p.Type != spec.TypeObject {
		schema = append(schema, "default="+tagValue(p.Type, p.Default))
	}
	if p.Minimum != nil {
		schema = append(schema, "minimum="+strconv.FormatFloat(*p.Minimum, 'g', -1, 64))
	}
	if p.Nullable {
		schema = append(schema, "nullable")
	}
	if len(schema) > 0 {
		tags["jsonschema"] = strings.Join(schema, ",")
	}
	if p.Description != "" {
		tags["jsonschema_description"] = p.Description
	}
	return tags
}

// tagValue writes a default (whose type the loader checked) as invopop/jsonschema reads it back from a tag.
func tagValue(typ spec.Type, v any) string {
	switch n := v.(type) {
	case string:
		return strings.ReplaceAll(n, ",", `\,`)
	case bool:
		return strconv.FormatBool(n)
	case int:
		return strconv.Itoa(n)
	case int64:
		return strconv.FormatInt(n, 10)
	case uint64:
		return strconv.FormatUint(n, 10)
	case float64:
		if typ == spec.TypeInteger {
			return strconv.FormatInt(int64(n), 10)
		}
		return strconv.FormatFloat(n, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
