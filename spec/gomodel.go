package spec

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// GoTool is what a generated adapter declares for one tool: its Go names and the Go model of its
// parameters and results. Names are per tool whatever the number of tools (Bash, BashParams, BashResult).
// Complete derives it, and fails with the spec's positions on what a generated adapter could not express
// (a name collision, a broken discriminator, cases whose fields no one struct can marshal back).
type GoTool struct {
	// Name is the tool's Go name (Bash, BashOutput): the method that calls it.
	Name string
	// Const is the constant holding the tool's name (ToolBash).
	Const string
	// Params is the parameters struct (BashParams).
	Params string
	// ParamFields are its fields, in the spec's order.
	ParamFields []GoParam
	// Result is the result type (BashResult): a struct for an object, an interface for a union, "" for
	// text (the result is a string).
	Result string
	// Shape is how the result is typed.
	Shape GoShape
	// Fields are an object result's fields, merged over every case with fields.
	Fields []*GoField
	// Union describes a union result.
	Union *GoUnion
}

// GoShape is how a tool's result is typed in Go.
type GoShape string

const (
	GoText   GoShape = "text"   // a string
	GoStruct GoShape = "struct" // one struct for every case (fields only some cases hold are pointers)
	GoSealed GoShape = "sealed" // a sealed interface with one struct per discriminator value (a union)
)

// GoParam is one field of a parameters struct.
type GoParam struct {
	Param *Param
	// Name is the Go field; Null the companion field that sends the parameter as JSON null ("" when the
	// parameter is not an optional nullable one).
	Name, Null string
}

// GoUnion is a discriminated union result.
type GoUnion struct {
	// Path is the discriminator's field path (details, mode); Type its JSON type.
	Path []string
	Type Type
	// Members are the union's types, one per discriminator value, in case order.
	Members []*GoMember
	// Unmarshal is the decoder function (UnmarshalBashResult); Seal the interface's sealing method.
	Unmarshal, Seal string
}

// GoMember is one type of a union: the cases sharing a discriminator value.
type GoMember struct {
	// Name is the Go type (BashForeground).
	Name string
	// Value is the discriminator's value.
	Value any
	// Cases are the outcomes it shapes.
	Cases []Outcome
	// Fields are merged over those cases.
	Fields []*GoField
}

// Go returns the tool's Go model (after Complete; nil before).
func (t *Tool) Go() *GoTool { return t.gotool }

// Names a generated adapter declares at package level whatever the spec, and the methods of its Tool.
var (
	goPackageNames = []string{"ID", "Spec", "Definitions", "Tool", "New", "specYAML", "loadSpec", "typedError"}
	goToolMethods  = []string{"Variant", "Engine", "Close", "Call", "CallTool"}
	// goSessionMethods are the methods of the Tool of a variant with sessions.
	goSessionMethods = []string{"Sessions", "WaitSession", "KillSession"}
)

// goNamer hands out Go identifiers and reports collisions with what took them first.
type goNamer struct {
	c     *checker
	taken map[string]string // identifier -> what declared it
}

func (n *goNamer) declare(ptr, name, what string) {
	if prev, ok := n.taken[name]; ok {
		n.c.errf(ptr, "%s and %s both need the Go name %s in a generated adapter", prev, what, name)
		return
	}
	n.taken[name] = what
}

// deriveGo builds each tool's Go model and checks that every Go name is unique.
func (v *Variant) deriveGo() Errors {
	c := &checker{v: v}
	pkg := &goNamer{c: c, taken: map[string]string{}}
	for _, n := range goPackageNames {
		pkg.taken[n] = "the generated " + n
	}
	methods := &goNamer{c: c, taken: map[string]string{}}
	for _, n := range goToolMethods {
		methods.taken[n] = "the method Tool." + n
	}
	if v.Sessions != nil {
		for _, n := range goSessionMethods {
			methods.taken[n] = "the method Tool." + n
		}
	}
	for i := range v.Tools {
		t := &v.Tools[i]
		ptr := "/tools/" + strconv.Itoa(i)
		t.outcomes = sortedOutcomes(t.Results.Cases, func(o Outcome) int {
			lc, _ := v.pos.get(ptr + "/results/cases/" + escapePointer(string(o)))
			return lc[0]
		})
		g := &GoTool{Name: GoName(t.Name)}
		g.Const = "Tool" + g.Name
		g.Params = g.Name + "Params"
		what := fmt.Sprintf("tool %q", t.Name)
		methods.declare(ptr+"/name", g.Name, what)
		pkg.declare(ptr+"/name", g.Const, "the name constant of "+what)
		pkg.declare(ptr+"/name", g.Params, "the parameters of "+what)
		g.ParamFields = c.goParams(ptr, t)
		c.goResult(ptr, t, g, pkg)
		t.gotool = g
	}
	for _, et := range v.ErrorTypes() {
		pkg.declare(et.Sites[0].Pointer+"/type", et.GoName, fmt.Sprintf("error type %q", et.Name))
	}
	sortErrors(c.errs)
	return c.errs
}

// goParams names a tool's parameter fields.
func (c *checker) goParams(ptr string, t *Tool) []GoParam {
	seen := map[string]string{"MarshalJSON": "the method MarshalJSON"}
	out := make([]GoParam, len(t.Params))
	for i := range t.Params {
		p := &t.Params[i]
		pp := ptr + "/params/" + strconv.Itoa(i) + "/name"
		gp := GoParam{Param: p, Name: GoName(p.Name)}
		if p.Nullable && !p.Required {
			gp.Null = gp.Name + "Null"
		}
		for _, n := range []string{gp.Name, gp.Null} {
			if n == "" {
				continue
			}
			if prev, ok := seen[n]; ok {
				c.errf(pp, "parameter %q and %s both become the Go field %s", p.Name, prev, n)
				continue
			}
			seen[n] = fmt.Sprintf("parameter %q", p.Name)
		}
		out[i] = gp
	}
	return out
}

// goResult derives a tool's result types.
func (c *checker) goResult(ptr string, t *Tool, g *GoTool, pkg *goNamer) {
	rp := ptr + "/results"
	var objects []labelled
	for _, o := range t.outcomes {
		if sh := t.Results.Cases[o]; sh.Raise == nil && sh.Text == nil {
			objects = append(objects, labelled{label: o, fields: sh.Fields})
		}
	}
	switch {
	case t.Results.Format == FormatText:
		g.Shape = GoText
		return
	case t.Results.Union:
		g.Shape = GoSealed
	default:
		g.Shape = GoStruct
	}
	g.Result = g.Name + "Result"
	pkg.declare(rp, g.Result, fmt.Sprintf("the result of tool %q", t.Name))
	if g.Shape == GoStruct {
		fields, err := mergeFields(objects)
		if err != nil {
			c.errf(rp+"/cases", "%v", err)
			return
		}
		g.Fields = fields
		c.goStructs(rp, g.Result, fields, pkg)
		return
	}
	u, at, err := goUnion(t, g, objects)
	if err != nil {
		ptr := rp + "/discriminator"
		if at != "" {
			ptr = rp + "/cases/" + escapePointer(string(at))
		}
		c.errf(ptr, "%v", err)
		return
	}
	g.Union = u
	pkg.declare(rp, u.Unmarshal, fmt.Sprintf("the result decoder of tool %q", t.Name))
	for _, m := range u.Members {
		pkg.declare(rp+"/cases/"+string(m.Cases[0]), m.Name, fmt.Sprintf("the union member %v of tool %q", jsonText(m.Value), t.Name))
		c.goStructs(rp+"/cases/"+string(m.Cases[0]), m.Name, m.Fields, pkg)
	}
}

// goStructs names the struct types of object fields (and arrays of objects), recursively: the parent's
// name followed by the field's.
func (c *checker) goStructs(ptr, parent string, fields []*GoField, pkg *goNamer) {
	for _, f := range fields {
		if f.GoName == "MarshalJSON" {
			c.errf(ptr, "result field %q becomes the Go field MarshalJSON, which is a method of the generated struct", f.Name)
		}
		if f.Type == TypeObject || (f.Type == TypeArray && f.Elem == TypeObject) {
			f.Struct = parent + f.GoName
			pkg.declare(ptr, f.Struct, fmt.Sprintf("the struct of result field %q", f.Name))
			c.goStructs(ptr, f.Struct, f.Children, pkg)
		}
	}
}

// goUnion finds a union's members: the objects grouped by the value of the discriminator, a const scalar
// that every object case has at the same path with the same type.
// The outcome returned with an error is the case at fault, if one is.
func goUnion(t *Tool, g *GoTool, objects []labelled) (*GoUnion, Outcome, error) {
	disc := t.Results.Discriminator
	u := &GoUnion{Path: strings.Split(disc, "."), Unmarshal: "Unmarshal" + g.Result, Seal: "is" + g.Result}
	byValue := map[string]*GoMember{}
	for _, o := range objects {
		f, err := findPath(o.fields, u.Path)
		if err != nil {
			return nil, o.label, fmt.Errorf("case %s: discriminator %s: %w", o.label, disc, err)
		}
		if u.Type == "" {
			u.Type = f.Type
		} else if f.Type != u.Type {
			return nil, o.label, fmt.Errorf("case %s: discriminator %s is a %s, other cases have %s", o.label, disc, f.Type, u.Type)
		}
		key := fmt.Sprint(f.Const)
		m := byValue[key]
		if m == nil {
			m = &GoMember{Value: f.Const}
			byValue[key] = m
			u.Members = append(u.Members, m)
		}
		if sn := t.Results.Cases[o.label].Name; sn != "" {
			if m.Name != "" && m.Name != g.Name+sn {
				return nil, o.label, fmt.Errorf("cases with %s %v are named both %s and %s", disc, f.Const, m.Name, g.Name+sn)
			}
			m.Name = g.Name + sn
		}
		m.Cases = append(m.Cases, o.label)
	}
	if len(u.Members) == 0 {
		return nil, "", fmt.Errorf("a union needs at least one case with fields")
	}
	for _, m := range u.Members {
		if m.Name == "" {
			m.Name = g.Name + GoName(fmt.Sprint(m.Value))
		}
		var lists []labelled
		for _, o := range objects {
			for _, c := range m.Cases {
				if o.label == c {
					lists = append(lists, o)
				}
			}
		}
		var err error
		if m.Fields, err = mergeFields(lists); err != nil {
			return nil, m.Cases[0], fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	return u, "", nil
}

// findPath finds the const field at a dotted path through object fields.
func findPath(fields []Field, path []string) (*Field, error) {
	for i, seg := range path {
		var f *Field
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
			if f.Type == TypeObject || f.Type == TypeArray || f.Type == TypeJSON {
				return nil, fmt.Errorf("%s is a %s, not a scalar", seg, f.Type)
			}
			return f, nil
		}
		if f.Type != TypeObject {
			return nil, fmt.Errorf("%s is a %s, not an object", seg, f.Type)
		}
		fields = f.Fields
	}
	return nil, fmt.Errorf("empty path")
}

// sortedOutcomes orders cases by line (when line is given and knows them), then by name.
func sortedOutcomes(cases map[Outcome]Shape, line func(Outcome) int) []Outcome {
	names := make([]Outcome, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if line != nil {
			li, lj := line(names[i]), line(names[j])
			if li != lj {
				// A case the file does not hold (a default filled by Complete) comes last.
				if li == 0 || lj == 0 {
					return lj == 0
				}
				return li < lj
			}
		}
		return names[i] < names[j]
	})
	return names
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
