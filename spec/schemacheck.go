package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The JSON Schema of the spec language is checked by this small validator rather than by a general one:
// spec/schema.json is reflected from the Go types and uses a handful of keywords (type, enum, $ref,
// properties, required, additionalProperties, items, minItems, uniqueItems, pattern, minimum, maximum), and
// a general validator's package initialisation (github.com/santhosh-tekuri/jsonschema/v6 compiles the
// meta-schemas of five drafts in its init) is paid by every process that links it, whether it validates a
// file or not. The validator follows that library's draft 2020-12 semantics and messages for those keywords,
// error for error; spec's tests run both on every broken spec they hold and on mutations of the built-ins
// and compare the errors, and the schema compiles only if it uses no other assertion keyword.

// schemaNode is one compiled schema of spec/schema.json.
type schemaNode struct {
	// never is the schema false (true compiles to a schema with no keywords).
	never       bool
	ref         *schemaNode
	refName     string
	types       []string // "type": JSON type names
	enum        []any    // "enum", or nil
	properties  map[string]*schemaNode
	propOrder   []string // property names, sorted: the order of their errors when positions tie
	required    []string
	addFalse    bool        // additionalProperties: false
	additional  *schemaNode // additionalProperties: a schema
	items       *schemaNode
	minItems    int // -1 when absent
	uniqueItems bool
	pattern     *regexp.Regexp
	minimum     *big.Rat
	maximum     *big.Rat
}

// schemaAnnotations are keywords that assert nothing.
var schemaAnnotations = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// compileSpecSchema compiles the JSON Schema document (a $ref to one of its $defs, or a schema).
func compileSpecSchema(doc []byte) (*schemaNode, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var root any
	if err := d.Decode(&root); err != nil {
		return nil, err
	}
	c := &schemaCompiler{root: root, defs: map[string]*schemaNode{}}
	n, err := c.compile(root, "#")
	if err != nil {
		return nil, err
	}
	// Resolve every $ref now that every definition exists.
	for _, n := range c.nodes {
		if n.refName == "" {
			continue
		}
		target, ok := c.defs[n.refName]
		if !ok {
			return nil, fmt.Errorf("$ref %q: no such definition", n.refName)
		}
		n.ref = target
	}
	return n, nil
}

type schemaCompiler struct {
	root  any
	defs  map[string]*schemaNode // by "#/$defs/Name"
	nodes []*schemaNode
}

func (c *schemaCompiler) compile(v any, at string) (*schemaNode, error) {
	n := &schemaNode{minItems: -1}
	c.nodes = append(c.nodes, n)
	if b, ok := v.(bool); ok {
		n.never = !b
		return n, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema is an object or a boolean, got %T", at, v)
	}
	fail := func(kw, format string, args ...any) error {
		return fmt.Errorf("%s/%s: %s", at, kw, fmt.Sprintf(format, args...))
	}
	for _, kw := range slices.Sorted(maps.Keys(obj)) {
		val := obj[kw]
		switch kw {
		case "$defs":
			defs, ok := val.(map[string]any)
			if !ok {
				return nil, fail(kw, "not an object")
			}
			for _, name := range slices.Sorted(maps.Keys(defs)) {
				p := at + "/$defs/" + escapePointer(name)
				d, err := c.compile(defs[name], p)
				if err != nil {
					return nil, err
				}
				c.defs[p] = d
			}
		case "$ref":
			s, ok := val.(string)
			if !ok || !strings.HasPrefix(s, "#/$defs/") {
				return nil, fail(kw, "only a reference to a definition (#/$defs/Name) is supported, got %v", val)
			}
			n.refName = s
		case "type":
			switch t := val.(type) {
			case string:
				n.types = []string{t}
			case []any:
				for _, x := range t {
					s, ok := x.(string)
					if !ok {
						return nil, fail(kw, "not a type name: %v", x)
					}
					n.types = append(n.types, s)
				}
			default:
				return nil, fail(kw, "not a type name: %v", val)
			}
			for _, t := range n.types {
				switch t {
				case "null", "boolean", "number", "integer", "string", "array", "object":
				default:
					return nil, fail(kw, "unknown type %q", t)
				}
			}
		case "enum":
			e, ok := val.([]any)
			if !ok {
				return nil, fail(kw, "not an array")
			}
			n.enum = e
		case "properties":
			props, ok := val.(map[string]any)
			if !ok {
				return nil, fail(kw, "not an object")
			}
			n.properties = map[string]*schemaNode{}
			for _, name := range slices.Sorted(maps.Keys(props)) {
				p, err := c.compile(props[name], at+"/properties/"+escapePointer(name))
				if err != nil {
					return nil, err
				}
				n.properties[name] = p
				n.propOrder = append(n.propOrder, name)
			}
		case "required":
			r, ok := val.([]any)
			if !ok {
				return nil, fail(kw, "not an array")
			}
			for _, x := range r {
				s, ok := x.(string)
				if !ok {
					return nil, fail(kw, "not a property name: %v", x)
				}
				n.required = append(n.required, s)
			}
		case "additionalProperties":
			switch a := val.(type) {
			case bool:
				n.addFalse = !a
			default:
				s, err := c.compile(a, at+"/additionalProperties")
				if err != nil {
					return nil, err
				}
				n.additional = s
			}
		case "items":
			s, err := c.compile(val, at+"/items")
			if err != nil {
				return nil, err
			}
			n.items = s
		case "minItems":
			num, ok := val.(json.Number)
			i, err := strconv.Atoi(string(num))
			if !ok || err != nil || i < 0 {
				return nil, fail(kw, "not a count: %v", val)
			}
			n.minItems = i
		case "uniqueItems":
			b, ok := val.(bool)
			if !ok {
				return nil, fail(kw, "not a boolean")
			}
			n.uniqueItems = b
		case "pattern":
			s, ok := val.(string)
			if !ok {
				return nil, fail(kw, "not a string")
			}
			re, err := regexp.Compile(s)
			if err != nil {
				return nil, fail(kw, "%v", err)
			}
			n.pattern = re
		case "minimum", "maximum":
			num, ok := val.(json.Number)
			r, ok2 := new(big.Rat).SetString(string(num))
			if !ok || !ok2 {
				return nil, fail(kw, "not a number: %v", val)
			}
			if kw == "minimum" {
				n.minimum = r
			} else {
				n.maximum = r
			}
		default:
			if !schemaAnnotations[kw] {
				return nil, fail(kw, "keyword %q is not implemented by spec's validator", kw)
			}
		}
	}
	return n, nil
}

// schemaLeaf is one error: the instance location (JSON pointer) and the message, in the words of
// github.com/santhosh-tekuri/jsonschema/v6's English printer.
type schemaLeaf struct {
	ptr string
	msg string
	// got and bound are the value and the bound of a minimum (max false) or maximum error, whose message
	// schemaErrors writes.
	got, bound *big.Rat
	max        bool
}

// validate appends the errors of v against n at the instance location ptr, in the order the reference
// library reports them for one location.
func (n *schemaNode) validate(v any, ptr string, out []schemaLeaf) []schemaLeaf {
	if n.never {
		return append(out, schemaLeaf{ptr: ptr, msg: "false schema"})
	}
	t := jsonTypeOf(v)
	if len(n.types) > 0 {
		matched := false
		for _, want := range n.types {
			if want == t || want == "integer" && t == "number" && isIntegerNumber(v) {
				matched = true
				break
			}
		}
		if !matched {
			return append(out, schemaLeaf{ptr: ptr, msg: "got " + t + ", want " + strings.Join(n.types, " or ")})
		}
	}
	if n.enum != nil {
		matched := false
		for _, item := range n.enum {
			if jsonEqual(v, item) {
				matched = true
				break
			}
		}
		if !matched {
			return append(out, schemaLeaf{ptr: ptr, msg: enumMessage(n.enum)})
		}
	}
	if n.ref != nil {
		out = n.ref.validate(v, ptr, out)
	}
	switch v := v.(type) {
	case map[string]any:
		if len(n.required) > 0 {
			var missing []string
			for _, p := range n.required {
				if _, ok := v[p]; !ok {
					missing = append(missing, p)
				}
			}
			switch len(missing) {
			case 0:
			case 1:
				out = append(out, schemaLeaf{ptr: ptr, msg: "missing property " + schemaQuote(missing[0])})
			default:
				out = append(out, schemaLeaf{ptr: ptr, msg: "missing properties " + joinSchemaQuoted(missing)})
			}
		}
		var additional []string
		for _, name := range slices.Sorted(maps.Keys(v)) {
			p := ptr + "/" + escapePointer(name)
			if s, ok := n.properties[name]; ok {
				out = s.validate(v[name], p, out)
				continue
			}
			switch {
			case n.additional != nil:
				out = n.additional.validate(v[name], p, out)
			case n.addFalse:
				additional = append(additional, name)
			}
		}
		if len(additional) > 0 {
			out = append(out, schemaLeaf{ptr: ptr, msg: "additional properties " + joinSchemaQuoted(additional) + " not allowed"})
		}
	case []any:
		if n.minItems >= 0 && len(v) < n.minItems {
			out = append(out, schemaLeaf{ptr: ptr, msg: "minItems: got " + groupDigits(len(v)) + ", want " + groupDigits(n.minItems)})
		}
		if n.uniqueItems && len(v) > 1 {
			if i, j := firstDuplicate(v); i >= 0 {
				out = append(out, schemaLeaf{ptr: ptr, msg: "items at " + groupDigits(i) + " and " + groupDigits(j) + " are equal"})
			}
		}
		if n.items != nil {
			for i, item := range v {
				out = n.items.validate(item, ptr+"/"+strconv.Itoa(i), out)
			}
		}
	case string:
		if n.pattern != nil && !n.pattern.MatchString(v) {
			out = append(out, schemaLeaf{ptr: ptr, msg: schemaQuote(v) + " does not match pattern " + schemaQuote(n.pattern.String())})
		}
	case json.Number:
		if n.minimum != nil || n.maximum != nil {
			num, _ := new(big.Rat).SetString(string(v))
			if num == nil {
				break
			}
			if n.minimum != nil && num.Cmp(n.minimum) < 0 {
				out = append(out, schemaLeaf{ptr: ptr, got: num, bound: n.minimum})
			}
			if n.maximum != nil && num.Cmp(n.maximum) > 0 {
				out = append(out, schemaLeaf{ptr: ptr, got: num, bound: n.maximum, max: true})
			}
		}
	}
	return out
}

// jsonTypeOf names the JSON type of a decoded value (json.Number for numbers).
func jsonTypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

func isIntegerNumber(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	r, ok := new(big.Rat).SetString(string(n))
	return ok && r.IsInt()
}

// jsonEqual is JSON equality: numbers by value, objects by their members, arrays in order.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, x := range a {
			y, ok := b[k]
			if !ok || !jsonEqual(x, y) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		x, ok1 := new(big.Rat).SetString(string(a))
		y, ok2 := new(big.Rat).SetString(string(b))
		return ok1 && ok2 && x.Cmp(y) == 0
	case nil:
		return b == nil
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case string:
		b, ok := b.(string)
		return ok && a == b
	}
	return false
}

// firstDuplicate returns the indexes (earlier, later) of the first item equal to an earlier one, the
// earliest such earlier one; -1, -1 when the items are unique.
func firstDuplicate(arr []any) (int, int) {
	first := make(map[string]int, len(arr))
	for i, item := range arr {
		k := canonicalJSON(item)
		if j, ok := first[k]; ok {
			return j, i
		}
		first[k] = i
	}
	return -1, -1
}

// canonicalJSON renders a decoded value so that two values are jsonEqual exactly when their renderings
// are equal: numbers as exact fractions, object members sorted.
func canonicalJSON(v any) string {
	var b strings.Builder
	var write func(v any)
	write = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			b.WriteByte('{')
			for i, k := range slices.Sorted(maps.Keys(v)) {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Quote(k))
				b.WriteByte(':')
				write(v[k])
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, x := range v {
				if i > 0 {
					b.WriteByte(',')
				}
				write(x)
			}
			b.WriteByte(']')
		case json.Number:
			if r, ok := new(big.Rat).SetString(string(v)); ok {
				b.WriteString("n" + r.RatString())
			} else {
				b.WriteString("?" + string(v))
			}
		case string:
			b.WriteString(strconv.Quote(v))
		default:
			fmt.Fprint(&b, v)
		}
	}
	write(v)
	return b.String()
}

func enumMessage(want []any) string {
	display := func(v any) string {
		switch v := v.(type) {
		case string:
			return schemaQuote(v)
		case []any, map[string]any:
			return "value"
		case nil:
			return "<nil>"
		}
		return fmt.Sprint(v)
	}
	for _, item := range want {
		switch item.(type) {
		case []any, map[string]any:
			return "'enum' failed"
		}
	}
	if len(want) == 1 {
		return "value must be " + display(want[0])
	}
	parts := make([]string, len(want))
	for i, v := range want {
		parts[i] = display(v)
	}
	return "value must be one of " + strings.Join(parts, ", ")
}

// schemaQuote single-quotes s as the reference library does: Go's %q, with double quotes unescaped and
// single quotes escaped.
func schemaQuote(s string) string {
	s = strconv.Quote(s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

func joinSchemaQuoted(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = schemaQuote(s)
	}
	return strings.Join(q, ", ")
}

// groupDigits writes n as an English message printer writes %d: thousands separated by commas.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
