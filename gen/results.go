package gen

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentbash/agentbash/spec"
)

// results emits a tool's result types: nothing for text (the result is a string), one struct for a JSON
// object, a sealed interface with one struct per member and the decoder for a union.
func (g *generator) results(t *spec.Tool) {
	gt := t.Go()
	switch gt.Shape {
	case spec.GoStruct:
		g.structType(gt.Result, fmt.Sprintf("%s is the result of the %s tool.", gt.Result, t.Name), gt.Fields)
	case spec.GoSealed:
		g.union(t, gt)
	}
}

// structType emits a struct for merged fields, then the structs of its object fields.
func (g *generator) structType(name, doc string, fields []*spec.GoField, methods ...jen.Code) {
	var body []jen.Code
	for _, f := range fields {
		js := f.Name
		if !f.Always {
			js += ",omitempty"
		}
		if f.Doc != "" {
			body = append(body, jen.Comment(wrap(f.Doc)))
		}
		body = append(body, jen.Id(f.GoName).Add(fieldType(f)).Tag(map[string]string{"json": js}))
	}
	g.f.Comment(wrap(doc))
	g.f.Type().Id(name).Struct(body...)
	g.f.Line()
	for _, m := range methods {
		g.f.Add(m)
		g.f.Line()
	}
	for _, f := range fields {
		if f.Struct != "" {
			g.structType(f.Struct, fmt.Sprintf("%s is the %s field of %s.", f.Struct, f.Name, name), f.Children)
		}
	}
}

// fieldType is a merged field's Go type: a value when every case holds it, else a pointer (omitempty).
func fieldType(f *spec.GoField) *jen.Statement {
	ptr := func(s *jen.Statement) *jen.Statement {
		if f.Always {
			return s
		}
		return jen.Op("*").Add(s)
	}
	switch f.Type {
	case spec.TypeObject:
		return ptr(jen.Id(f.Struct))
	case spec.TypeArray:
		if f.Elem == spec.TypeObject {
			return jen.Index().Id(f.Struct)
		}
		return jen.Index().Add(scalarType(f.Elem))
	case spec.TypeJSON:
		return jen.Qual(jsonPkg, "RawMessage")
	}
	return ptr(scalarType(f.Type))
}

func scalarType(t spec.Type) *jen.Statement {
	switch t {
	case spec.TypeString:
		return jen.String()
	case spec.TypeInteger:
		return jen.Int()
	case spec.TypeNumber:
		return jen.Float64()
	case spec.TypeBoolean:
		return jen.Bool()
	}
	return jen.Qual(jsonPkg, "RawMessage")
}

// union emits the sealed interface, one struct per member (each marshalling with its discriminator set),
// and the decoder.
func (g *generator) union(t *spec.Tool, gt *spec.GoTool) {
	u := gt.Union
	disc := strings.Join(u.Path, ".")
	var names []string
	for _, m := range u.Members {
		names = append(names, m.Name)
	}
	g.f.Comment(wrap(fmt.Sprintf("%s is the result of the %s tool: %s, told apart by %s; %s decodes it.",
		gt.Result, t.Name, strings.Join(names, " or "), disc, u.Unmarshal)))
	g.f.Type().Id(gt.Result).Interface(jen.Id(u.Seal).Params())
	g.f.Line()
	for _, m := range u.Members {
		sel := jen.Id("r")
		for _, seg := range u.Path {
			sel = sel.Dot(spec.GoName(seg))
		}
		seal := jen.Func().Params(jen.Id(m.Name)).Id(u.Seal).Params().Block()
		marshal := jen.Comment(fmt.Sprintf("// MarshalJSON encodes the result as the runtime writes it, with %s %s.", disc, jsonText(m.Value))).Line().
			Func().Params(jen.Id("r").Id(m.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
			jen.Type().Id("plain").Id(m.Name),
			sel.Op("=").Add(constLit(u.Type, m.Value)),
			jen.Return(jen.Qual(genimplPkg, "MarshalJSON").Call(jen.Id("plain").Call(jen.Id("r")))),
		)
		var cases []string
		for _, c := range m.Cases {
			cases = append(cases, string(c))
		}
		g.structType(m.Name, fmt.Sprintf("%s is the %s result with %s %s (outcomes: %s).", m.Name, t.Name, disc,
			jsonText(m.Value), strings.Join(cases, ", ")), m.Fields, seal, marshal)
	}

	// The decoder reads the discriminator through a probe of anonymous structs.
	probe := scalarType(u.Type)
	for i := len(u.Path) - 1; i >= 0; i-- {
		probe = jen.Struct(jen.Id(spec.GoName(u.Path[i])).Add(probe).Tag(map[string]string{"json": u.Path[i]}))
	}
	sel := jen.Id("probe")
	for _, seg := range u.Path {
		sel = sel.Dot(spec.GoName(seg))
	}
	var arms []jen.Code
	for _, m := range u.Members {
		arms = append(arms, jen.Case(constLit(u.Type, m.Value)).Block(
			jen.Return(jen.Qual(genimplPkg, "DecodeJSON").Types(jen.Id(m.Name)).Call(jen.Id("data"))),
		))
	}
	g.f.Comment(wrap(fmt.Sprintf("%s decodes a %s result into its member type, by %s.", u.Unmarshal, t.Name, disc)))
	g.f.Func().Id(u.Unmarshal).Params(jen.Id("data").Index().Byte()).Params(jen.Id(gt.Result), jen.Error()).Block(
		jen.Var().Id("probe").Add(probe),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("probe")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		),
		jen.Switch(sel.Clone()).Block(arms...),
		jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(
			jen.Lit(fmt.Sprintf("%s: %s result has unknown %s %%v", g.cfg.Package, t.Name, disc)), sel.Clone())),
	)
	g.f.Line()
}

// constLit renders a discriminator value (whose type the loader checked) as a Go literal.
func constLit(typ spec.Type, v any) *jen.Statement {
	switch n := v.(type) {
	case int:
		if typ == spec.TypeNumber {
			return jen.Lit(float64(n))
		}
		return jen.Lit(n)
	case int64:
		return jen.Lit(int(n))
	case uint64:
		return jen.Lit(int(n))
	case float64:
		if typ == spec.TypeInteger {
			return jen.Lit(int(n))
		}
		return jen.Lit(n)
	}
	return jen.Lit(v)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
