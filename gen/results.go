package gen

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentbash/agentbash/spec"
)

// resultTypes emits a tool's result types: nothing for text (the result is a string), one struct for a
// JSON envelope, a sealed interface with one struct per member for a union.
func (g *generator) resultTypes(tg *toolGen) error {
	cases := tg.t.Results.Cases
	var objects []labelled
	for _, name := range tg.cases {
		if sh := cases[name]; sh.Raise == nil && sh.Text == nil {
			objects = append(objects, labelled{label: name, fields: sh.Fields})
		}
	}
	switch tg.format {
	case "text":
		return nil
	case "json":
		fields, err := mergeFields(objects)
		if err != nil {
			return err
		}
		var labels []string
		for _, o := range objects {
			labels = append(labels, o.label)
		}
		doc := fmt.Sprintf("%s is the result of the %s tool: a JSON object whose fields are those of every "+
			"case (%s). A field that only some cases hold is a pointer (or a slice) left out when empty, so a "+
			"result marshals back to the runtime's bytes with an Encoder that does not escape HTML.",
			tg.result, tg.t.Name, strings.Join(labels, ", "))
		return g.structType(tg.result, doc, fields, len(objects) > 1)
	}
	return g.unionTypes(tg, objects)
}

// structType emits a struct for merged fields, and the struct types of its object fields after it.
// withCases says whether the doc comments name the cases holding a field.
func (g *generator) structType(name, doc string, fields []*mfield, withCases bool) error {
	if err := g.declare(name, "result type "+name); err != nil {
		return err
	}
	var body []jen.Code
	var nested []func() error
	for i, m := range fields {
		typ, err := g.fieldType(name, m, &nested)
		if err != nil {
			return err
		}
		js := m.name
		if !m.always {
			js += ",omitempty"
		}
		if i > 0 {
			body = append(body, jen.Line())
		}
		body = append(body, jen.Comment(wrap(fieldDoc(m, withCases))), jen.Id(m.goName).Add(typ).Tag(map[string]string{"json": js}))
	}
	g.f.Comment(wrap(doc))
	g.f.Type().Id(name).Struct(body...)
	g.f.Line()
	for _, n := range nested {
		if err := n(); err != nil {
			return err
		}
	}
	return nil
}

// fieldType returns a merged field's Go type, queueing the struct types it needs.
func (g *generator) fieldType(parent string, m *mfield, nested *[]func() error) (*jen.Statement, error) {
	ptr := func(s *jen.Statement) *jen.Statement {
		if m.always {
			return s
		}
		return jen.Op("*").Add(s)
	}
	switch m.typ {
	case "object":
		name := parent + m.goName
		*nested = append(*nested, func() error {
			return g.structType(name, fmt.Sprintf("%s is the %s object of %s.", name, m.name, parent), m.children, false)
		})
		return ptr(jen.Id(name)), nil
	case "array":
		switch m.elem {
		case "object":
			name := parent + m.goName
			*nested = append(*nested, func() error {
				return g.structType(name, fmt.Sprintf("%s is an element of the %s array of %s.", name, m.name, parent), m.children, false)
			})
			return jen.Index().Id(name), nil
		case "json":
			return jen.Index().Qual("encoding/json", "RawMessage"), nil
		}
		s, err := scalarType(m.elem)
		return jen.Index().Add(s), err
	case "json":
		return jen.Qual("encoding/json", "RawMessage"), nil
	}
	s, err := scalarType(m.typ)
	return ptr(s), err
}

func scalarType(t string) (*jen.Statement, error) {
	switch t {
	case "string":
		return jen.String(), nil
	case "integer":
		return jen.Int(), nil
	case "number":
		return jen.Float64(), nil
	case "boolean":
		return jen.Bool(), nil
	case "json":
		return jen.Qual("encoding/json", "RawMessage"), nil
	}
	return nil, fmt.Errorf("unknown field type %q", t)
}

func fieldDoc(m *mfield, withCases bool) string {
	doc := m.doc
	if doc == "" {
		doc = fmt.Sprintf("%s is the %s field.", m.goName, m.name)
	} else if !strings.HasPrefix(doc, m.goName+" ") {
		doc = fmt.Sprintf("%s is the %s field: %s", m.goName, m.name, doc)
	}
	if !strings.HasSuffix(doc, ".") {
		doc += "."
	}
	if m.isConst {
		c, _ := json.Marshal(m.constVal)
		doc += fmt.Sprintf(" Always %s.", c)
	}
	if len(m.conflict) > 0 {
		doc += fmt.Sprintf(" Its type differs by case (%s), so it is kept as raw JSON.", strings.Join(m.conflict, ", "))
	}
	if withCases && !m.always && len(m.in) > 0 {
		doc += fmt.Sprintf(" Only in: %s.", strings.Join(m.in, ", "))
	}
	return doc
}

// member is one type of a union: the cases sharing a discriminator value.
type member struct {
	name    string
	value   any
	cases   []labelled
	fields  []*mfield
	valueGo *jen.Statement
}

// unionTypes emits the sealed interface, one struct per discriminator value, and the decoder.
func (g *generator) unionTypes(tg *toolGen, objects []labelled) error {
	path := strings.Split(tg.t.Results.Discriminator, ".")
	var members []*member
	byValue := map[string]*member{}
	discType := ""
	for _, o := range objects {
		f, err := findPath(o.fields, path)
		if err != nil {
			return fmt.Errorf("case %s: discriminator %s: %w", o.label, tg.t.Results.Discriminator, err)
		}
		if discType == "" {
			discType = f.Type
		} else if f.Type != discType {
			return fmt.Errorf("case %s: discriminator %s is a %s, other cases have %s", o.label, tg.t.Results.Discriminator, f.Type, discType)
		}
		key := fmt.Sprint(f.Const)
		m := byValue[key]
		shapeName := tg.t.Results.Cases[o.label].Name
		if m == nil {
			m = &member{value: f.Const}
			byValue[key] = m
			members = append(members, m)
		}
		if shapeName != "" {
			if m.name != "" && m.name != tg.prefix+shapeName {
				return fmt.Errorf("cases with %s %v are named both %s and %s", tg.t.Results.Discriminator, f.Const, m.name, tg.prefix+shapeName)
			}
			m.name = tg.prefix + shapeName
		}
		m.cases = append(m.cases, o)
	}
	if len(members) == 0 {
		return fmt.Errorf("a union needs at least one case with fields")
	}
	for _, m := range members {
		if m.name == "" {
			m.name = tg.prefix + goName(fmt.Sprint(m.value))
		}
		var err error
		if m.fields, err = mergeFields(m.cases); err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		if m.valueGo, err = constLit(discType, m.value); err != nil {
			return err
		}
	}

	var names []string
	for _, m := range members {
		names = append(names, m.name)
	}
	seal := "is" + tg.result
	g.f.Comment(wrap(fmt.Sprintf("%s is the result of the %s tool: one of %s, told apart by %s. %s decodes it; "+
		"each member marshals with its %s.", tg.result, tg.t.Name, strings.Join(names, ", "),
		tg.t.Results.Discriminator, tg.unmarshal, tg.t.Results.Discriminator)))
	g.f.Type().Id(tg.result).Interface(
		jen.Comment(fmt.Sprintf("// %s seals the interface to the types of this package.", seal)),
		jen.Id(seal).Params(),
	)
	g.f.Line()

	for _, m := range members {
		var labels []string
		for _, c := range m.cases {
			labels = append(labels, c.label)
		}
		doc := fmt.Sprintf("%s is the %s result with %s %s (cases: %s).", m.name, tg.t.Name,
			tg.t.Results.Discriminator, jsonText(m.value), strings.Join(labels, ", "))
		if err := g.structType(m.name, doc, m.fields, len(m.cases) > 1); err != nil {
			return err
		}
		g.f.Func().Params(jen.Id(m.name)).Id(seal).Params().Block()
		g.f.Line()
		// MarshalJSON writes the discriminator whatever the field holds, so a member built in Go marshals
		// as the runtime writes it.
		sel := jen.Id("r")
		for _, seg := range path {
			sel = sel.Dot(goName(seg))
		}
		g.f.Comment(wrap(fmt.Sprintf("MarshalJSON encodes the result as the runtime writes it (no HTML escaping), "+
			"with %s set to %s.", tg.t.Results.Discriminator, jsonText(m.value))))
		g.f.Func().Params(jen.Id("r").Id(m.name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
			jen.Type().Id("plain").Id(m.name),
			sel.Op("=").Add(m.valueGo),
			jen.Return(jen.Id("marshalJSON").Call(jen.Id("plain").Call(jen.Id("r")))),
		)
		g.f.Line()
	}

	// The decoder reads the discriminator through a probe of anonymous structs.
	probeType, err := scalarType(discType)
	if err != nil {
		return err
	}
	for i := len(path) - 1; i >= 0; i-- {
		probeType = jen.Struct(jen.Id(goName(path[i])).Add(probeType).Tag(map[string]string{"json": path[i]}))
	}
	sel := jen.Id("probe")
	for _, seg := range path {
		sel = sel.Dot(goName(seg))
	}
	var arms []jen.Code
	for _, m := range members {
		arms = append(arms, jen.Case(m.valueGo).Block(
			jen.Var().Id("r").Id(m.name),
			jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("r")),
			jen.Return(jen.Id("r"), jen.Err()),
		))
	}
	g.f.Comment(wrap(fmt.Sprintf("%s decodes a %s result as the runtime writes it into its member type, by %s.",
		tg.unmarshal, tg.t.Name, tg.t.Results.Discriminator)))
	g.f.Func().Id(tg.unmarshal).Params(jen.Id("data").Index().Byte()).Params(jen.Id(tg.result), jen.Error()).Block(
		jen.Var().Id("probe").Add(probeType),
		jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("probe")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		),
		jen.Switch(sel.Clone()).Block(arms...),
		jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(
			jen.Lit(fmt.Sprintf("%s: %s result has unknown %s %%v", g.cfg.Package, tg.t.Name, tg.t.Results.Discriminator)), sel.Clone())),
	)
	g.f.Line()
	return nil
}

// findPath finds the const field at a dotted path through object fields.
func findPath(fields []spec.Field, path []string) (*spec.Field, error) {
	for i, seg := range path {
		var f *spec.Field
		for j := range fields {
			if fields[j].Name == seg {
				f = &fields[j]
			}
		}
		if f == nil {
			return nil, fmt.Errorf("no field %s", seg)
		}
		if i == len(path)-1 {
			if f.Const == nil {
				return nil, fmt.Errorf("%s is not a const", seg)
			}
			if f.Type == "object" || f.Type == "array" || f.Type == "json" {
				return nil, fmt.Errorf("%s is a %s, not a scalar", seg, f.Type)
			}
			return f, nil
		}
		if f.Type != "object" {
			return nil, fmt.Errorf("%s is a %s, not an object", seg, f.Type)
		}
		fields = f.Fields
	}
	return nil, fmt.Errorf("empty path")
}

// constLit renders a const as a Go literal of the field's Go type.
func constLit(typ string, v any) (*jen.Statement, error) {
	switch typ {
	case "string":
		if s, ok := v.(string); ok {
			return jen.Lit(s), nil
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return jen.Lit(b), nil
		}
	case "integer":
		switch n := v.(type) {
		case int:
			return jen.Lit(n), nil
		case int64:
			return jen.Lit(int(n)), nil
		case uint64:
			return jen.Lit(int(n)), nil
		case float64:
			return jen.Lit(int(n)), nil
		}
	case "number":
		switch n := v.(type) {
		case int:
			return jen.Lit(float64(n)), nil
		case float64:
			return jen.Lit(n), nil
		}
	}
	return nil, fmt.Errorf("const %v does not fit type %s", v, typ)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func (g *generator) marshalHelper() {
	g.f.Comment("// marshalJSON is json.Marshal without HTML escaping, as the runtime writes results.")
	g.f.Func().Id("marshalJSON").Params(jen.Id("v").Any()).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Var().Id("b").Qual("bytes", "Buffer"),
		jen.Id("enc").Op(":=").Qual("encoding/json", "NewEncoder").Call(jen.Op("&").Id("b")),
		jen.Id("enc").Dot("SetEscapeHTML").Call(jen.False()),
		jen.If(jen.Err().Op(":=").Id("enc").Dot("Encode").Call(jen.Id("v")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		),
		jen.Return(jen.Qual("bytes", "TrimSuffix").Call(jen.Id("b").Dot("Bytes").Call(), jen.Index().Byte().Parens(jen.Lit("\n"))), jen.Nil()),
	)
}
