package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentbash/agentbash/spec"
)

// paramsType emits a tool's parameters struct. Its tags make github.com/invopop/jsonschema reflect the
// model-facing schema (toolschema.Input): json names, omitempty for optional parameters (so they are not
// required), and jsonschema tags for defaults, minimums, nullability and descriptions.
func (g *generator) paramsType(tg *toolGen) error {
	var fields []jen.Code
	var nulls []nullParam
	seen := map[string]string{}
	for i := range tg.t.Params {
		p := &tg.t.Params[i]
		name := goName(p.Name)
		if prev, ok := seen[name]; ok {
			return fmt.Errorf("parameters %q and %q both become Go field %s", prev, p.Name, name)
		}
		seen[name] = p.Name
		typ, err := paramGoType(p)
		if err != nil {
			return err
		}
		tags, err := paramTags(p)
		if err != nil {
			return err
		}
		if i > 0 {
			fields = append(fields, jen.Line())
		}
		fields = append(fields, jen.Comment(wrap(paramDoc(name, p))), jen.Id(name).Add(typ).Tag(tags))
		if p.Nullable && !p.Required {
			nullName := name + "Null"
			if prev, ok := seen[nullName]; ok {
				return fmt.Errorf("parameters %q and %q both become Go field %s", prev, p.Name, nullName)
			}
			seen[nullName] = p.Name
			nulls = append(nulls, nullParam{null: nullName, json: p.Name})
			fields = append(fields, jen.Line(), jen.Comment(wrap(fmt.Sprintf("%s sends %s as JSON null, as a model may "+
				"(%s must then be nil). What null means is the tool's: it can differ from leaving the parameter out.",
				nullName, p.Name, name))), jen.Id(nullName).Bool().Tag(map[string]string{"json": "-"}))
		}
	}
	doc := fmt.Sprintf("%s are the parameters of the %s tool, as its model sends them. Optional parameters "+
		"are pointers: nil leaves them out, and the tool applies its default.", tg.params, tg.t.Name)
	g.f.Comment(wrap(doc))
	g.f.Type().Id(tg.params).Struct(fields...)
	g.f.Line()
	if len(nulls) > 0 {
		g.marshalNulls(tg.params, nulls)
	}
	return nil
}

// nullParam is an optional nullable parameter: its XNull field and its JSON name.
type nullParam struct{ null, json string }

// marshalNulls emits a MarshalJSON that sends the parameters whose XNull field is set as null.
func (g *generator) marshalNulls(params string, nulls []nullParam) {
	body := []jen.Code{
		jen.Type().Id("plain").Id(params),
		jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual("encoding/json", "Marshal").Call(jen.Id("plain").Call(jen.Id("p"))),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Var().Id("nulls").Index().String(),
	}
	for _, n := range nulls {
		body = append(body, jen.If(jen.Id("p").Dot(n.null)).Block(
			jen.Id("nulls").Op("=").Append(jen.Id("nulls"), jen.Lit(n.json)),
		))
	}
	body = append(body, jen.Return(jen.Qual(runtimePkg, "SetNulls").Call(jen.Id("b"), jen.Id("nulls").Op("..."))))
	g.f.Comment(wrap("MarshalJSON writes the parameters as the model sends them: a nil field is left out, " +
		"and a parameter whose Null field is set is sent as null (an error if it has a value too)."))
	g.f.Func().Params(jen.Id("p").Id(params)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(body...)
	g.f.Line()
}

// paramGoType maps a parameter's JSON type to Go: a value when the model must send it, a pointer when it
// may be left out or be null (maps are nil-able as they are).
func paramGoType(p *spec.Param) (*jen.Statement, error) {
	var base *jen.Statement
	switch p.Type {
	case "string":
		base = jen.String()
	case "integer":
		base = jen.Int()
	case "number":
		base = jen.Float64()
	case "boolean":
		base = jen.Bool()
	case "object":
		return jen.Map(jen.String()).String(), nil
	default:
		return nil, fmt.Errorf("parameter %s: unknown type %q", p.Name, p.Type)
	}
	if !p.Required || p.Nullable {
		return jen.Op("*").Add(base), nil
	}
	return base, nil
}

func paramTags(p *spec.Param) (map[string]string, error) {
	js := p.Name
	if !p.Required {
		js += ",omitempty"
	}
	tags := map[string]string{"json": js}
	var schema []string
	if p.Default != nil && p.Type != "object" {
		d, err := tagValue(p.Type, p.Default)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: default: %w", p.Name, err)
		}
		schema = append(schema, "default="+d)
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
	return tags, nil
}

// tagValue writes a default as invopop/jsonschema reads it back from a jsonschema tag.
func tagValue(typ string, v any) (string, error) {
	switch typ {
	case "string":
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%v is not a string", v)
		}
		return strings.ReplaceAll(s, ",", `\,`), nil
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return "", fmt.Errorf("%v is not a boolean", v)
		}
		return strconv.FormatBool(b), nil
	case "integer", "number":
		switch n := v.(type) {
		case int:
			return strconv.Itoa(n), nil
		case int64:
			return strconv.FormatInt(n, 10), nil
		case uint64:
			return strconv.FormatUint(n, 10), nil
		case float64:
			if typ == "integer" {
				return strconv.FormatInt(int64(n), 10), nil
			}
			return strconv.FormatFloat(n, 'g', -1, 64), nil
		}
		return "", fmt.Errorf("%v is not a number", v)
	}
	return "", fmt.Errorf("type %s takes no default in a tag", typ)
}

func paramDoc(name string, p *spec.Param) string {
	var facts []string
	if p.Required {
		facts = append(facts, "required")
	} else {
		facts = append(facts, "optional")
	}
	if p.Nullable {
		facts = append(facts, "nullable")
	}
	if p.Default != nil {
		facts = append(facts, fmt.Sprintf("default %v", p.Default))
	}
	if p.Minimum != nil {
		facts = append(facts, fmt.Sprintf("minimum %v", *p.Minimum))
	}
	doc := fmt.Sprintf("%s is the %s parameter (%s", name, p.Name, strings.Join(facts, ", "))
	if p.Role != "" && p.Role != "none" {
		doc += "; role " + p.Role
	}
	doc += ")."
	if p.Description != "" {
		doc += "\n\n" + p.Description
	}
	return doc
}
