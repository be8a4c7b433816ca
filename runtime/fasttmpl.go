package runtime

import (
	"reflect"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"
)

// A fastTemplate evaluates a template of the commonest shape without text/template's reflective
// execution: text, and actions of one command over fields of spec.Data (strings, integers, booleans),
// string constants, parenthesised pipelines, and the functions join, concat, and and or, as in
// `{{join "\n" .Stdout (and .Stderr (concat "[stderr]\n" .Stderr))}}`. A call made for every result,
// it costs text/template's execution a reflect.Call per function and a deeper stack per goroutine.
//
// It gives up (ok false) wherever text/template would do something else than print the values: a
// function's argument of the wrong type (text/template's error), or output or built text past the budget
// (spec.ExecuteLimit's error); the caller then executes the template, which says so in its own words.
// TestFastTemplateMatches runs every template of every built-in spec both ways.
type fastTemplate struct {
	nodes []fastNode
}

// maxFastArgs bounds a fast template's nodes and a function's arguments, far below spec.TemplateSteps.
const maxFastArgs = 32

// A fastNode is a piece of the output (text), or an operand: its value.
type fastNode struct {
	text  string // a TextNode, or a string constant
	isVal bool   // an operand (an action's pipeline, or an argument), not text
	field []int  // a field of spec.Data
	fn    string // join, concat, and, or
	args  []fastNode
	konst bool // a string constant
}

// fastValue is a value of the data or a function's result.
type fastValue struct {
	kind reflect.Kind // String, Int64 or Bool
	s    string
	i    int64
	b    bool
}

func (v fastValue) truth() bool {
	switch v.kind {
	case reflect.String:
		return v.s != ""
	case reflect.Int64:
		return v.i != 0
	}
	return v.b
}

func (v fastValue) String() string {
	switch v.kind {
	case reflect.String:
		return v.s
	case reflect.Int64:
		// mutate: template-int-base
		return strconv.FormatInt(v.i, 10)
	}
	return strconv.FormatBool(v.b)
}

// compileFast returns t as a fastTemplate, or nil when t has another shape.
func compileFast(t *template.Template) *fastTemplate {
	if t.Tree == nil || t.Tree.Root == nil {
		return nil
	}
	if len(t.Tree.Root.Nodes) > maxFastArgs {
		return nil // text/template counts its steps
	}
	ft := &fastTemplate{}
	for _, n := range t.Tree.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			ft.nodes = append(ft.nodes, fastNode{text: string(n.Text)})
		case *parse.ActionNode:
			op, ok := fastPipe(n.Pipe)
			if !ok {
				return nil
			}
			ft.nodes = append(ft.nodes, op)
		default:
			return nil
		}
	}
	return ft
}

// fastPipe compiles a pipeline of one command with no variables.
func fastPipe(p *parse.PipeNode) (fastNode, bool) {
	if p == nil || len(p.Decl) > 0 || len(p.Cmds) != 1 || len(p.Cmds[0].Args) == 0 {
		return fastNode{}, false
	}
	args := p.Cmds[0].Args
	if id, ok := args[0].(*parse.IdentifierNode); ok {
		switch id.Ident {
		case "join", "concat", "and", "or":
		default:
			return fastNode{}, false
		}
		if len(args) < 2 || len(args) > maxFastArgs {
			return fastNode{}, false
		}
		fn := fastNode{isVal: true, fn: id.Ident}
		for _, a := range args[1:] {
			op, ok := fastOperand(a)
			if !ok {
				return fastNode{}, false
			}
			fn.args = append(fn.args, op)
		}
		return fn, true
	}
	if len(args) != 1 {
		return fastNode{}, false
	}
	return fastOperand(args[0])
}

// fastOperand compiles an argument: a field, a string constant or a parenthesised pipeline.
func fastOperand(n parse.Node) (fastNode, bool) {
	switch n := n.(type) {
	case *parse.FieldNode:
		if len(n.Ident) != 1 {
			return fastNode{}, false
		}
		sf, ok := dataType.FieldByName(n.Ident[0])
		if !ok || !sf.IsExported() {
			return fastNode{}, false
		}
		switch sf.Type.Kind() {
		case reflect.String, reflect.Int, reflect.Int64, reflect.Bool:
			return fastNode{isVal: true, field: sf.Index}, true
		}
	case *parse.StringNode:
		return fastNode{isVal: true, konst: true, text: n.Text}, true
	case *parse.PipeNode:
		return fastPipe(n)
	}
	return fastNode{}, false
}

// execute renders the template for d, or reports that text/template must (ok false).
func (ft *fastTemplate) execute(d reflect.Value, budget int) (string, bool) {
	built := 0
	if len(ft.nodes) == 1 && ft.nodes[0].isVal {
		// One operand ({{.Stdout}}): its value as it is, not copied (a stream may be megabytes).
		v, ok := ft.nodes[0].value(d, &built)
		if !ok || built > budget {
			return "", false
		}
		s := v.String()
		return s, len(s) <= budget
	}
	var b strings.Builder
	for i := range ft.nodes {
		n := &ft.nodes[i]
		if !n.isVal {
			b.WriteString(n.text)
		} else {
			v, ok := n.value(d, &built)
			if !ok || built > budget {
				return "", false
			}
			b.WriteString(v.String())
		}
		if b.Len() > budget {
			return "", false
		}
	}
	return b.String(), true
}

// value evaluates an operand; built counts the bytes join and concat build, as spec.ExecuteLimit does.
func (n *fastNode) value(d reflect.Value, built *int) (fastValue, bool) {
	switch {
	case n.konst:
		return fastValue{kind: reflect.String, s: n.text}, true
	case n.field != nil:
		f := d.FieldByIndex(n.field)
		switch f.Kind() {
		case reflect.String:
			return fastValue{kind: reflect.String, s: f.String()}, true
		case reflect.Int, reflect.Int64:
			return fastValue{kind: reflect.Int64, i: f.Int()}, true
		case reflect.Bool:
			return fastValue{kind: reflect.Bool, b: f.Bool()}, true
		}
		return fastValue{}, false
	}
	switch n.fn {
	case "and", "or":
		// text/template's: the first argument that decides (empty for and, non-empty for or), else the
		// last; the arguments after it are not evaluated.
		var v fastValue
		for i := range n.args {
			var ok bool
			if v, ok = n.args[i].value(d, built); !ok {
				return fastValue{}, false
			}
			if v.truth() == (n.fn == "or") {
				break
			}
		}
		return v, true
	}
	parts := make([]string, 0, len(n.args))
	for i := range n.args {
		v, ok := n.args[i].value(d, built)
		if !ok || v.kind != reflect.String {
			return fastValue{}, false // text/template's "wrong type for value"
		}
		parts = append(parts, v.s)
	}
	if n.fn == "concat" {
		s := strings.Join(parts, "")
		*built += len(s)
		return fastValue{kind: reflect.String, s: s}, true
	}
	// join: the non-empty parts, joined with the first argument.
	sep, keep := parts[0], make([]string, 0, len(parts)-1)
	for _, p := range parts[1:] {
		if p != "" {
			keep = append(keep, p)
		}
	}
	s := strings.Join(keep, sep)
	*built += len(s)
	return fastValue{kind: reflect.String, s: s}, true
}
