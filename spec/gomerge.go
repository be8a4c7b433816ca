package spec

import (
	"fmt"
	"sort"
	"strings"
)

// GoField is a result field merged over every object it appears in (the cases of an envelope, the cases of
// one union member, the elements of an array): one field of a generated struct.
type GoField struct {
	// Name is the JSON name; GoName the Go field's.
	Name, GoName string
	// Type is the spec type, or json when the occurrences disagree (Conflict lists their types).
	Type     Type
	Conflict []Type
	// Always reports a field present in every object merged (a value; otherwise a pointer, omitempty).
	Always bool
	// In names the cases holding the field, when it is not always present.
	In []Outcome
	// Doc is the field's doc: text, if some occurrence has one.
	Doc string
	// Struct is the Go type of an object field, or of an array's object elements.
	Struct string
	// Children are an object's fields, or the fields of an array's object elements.
	Children []*GoField
	// Elem is an array's element type: object, a scalar type, or json (mixed).
	Elem Type
	// Const is the value of a field that is const everywhere with one value (IsConst).
	Const   any
	IsConst bool
}

// labelled is one object's field list with a label (a case name).
type labelled struct {
	label  Outcome
	fields []Field
}

// mergeFields merges field lists into one ordered list consistent with every list's order, so that a
// struct with omitempty pointers marshals each of them back byte for byte. It fails when two lists order
// the same fields differently.
func mergeFields(lists []labelled) ([]*GoField, error) {
	order, err := mergeOrder(lists)
	if err != nil {
		return nil, err
	}
	byName := map[string][]*Field{}
	labels := map[string][]Outcome{}
	for _, l := range lists {
		for i := range l.fields {
			f := &l.fields[i]
			byName[f.Name] = append(byName[f.Name], f)
			labels[f.Name] = append(labels[f.Name], l.label)
		}
	}
	seen := map[string]string{}
	var out []*GoField
	for _, name := range order {
		occ := byName[name]
		m := &GoField{Name: name, GoName: GoName(name), Always: len(occ) == len(lists)}
		for _, f := range occ {
			if f.OmitZero {
				m.Always = false // left out when zero: a pointer, omitempty
			}
		}
		if prev, ok := seen[m.GoName]; ok {
			return nil, fmt.Errorf("fields %q and %q both become Go field %s", prev, name, m.GoName)
		}
		seen[m.GoName] = name
		if !m.Always {
			m.In = dedupe(labels[name])
		}
		types := map[Type]bool{}
		for _, f := range occ {
			types[f.Type] = true
			if m.Doc == "" {
				m.Doc = f.Doc
			}
		}
		if len(types) > 1 {
			m.Type = TypeJSON
			for t := range types {
				m.Conflict = append(m.Conflict, t)
			}
			sort.Slice(m.Conflict, func(i, j int) bool { return m.Conflict[i] < m.Conflict[j] })
		} else {
			m.Type = occ[0].Type
		}
		switch m.Type {
		case TypeObject:
			var sub []labelled
			for i, f := range occ {
				sub = append(sub, labelled{label: labels[name][i], fields: f.Fields})
			}
			if m.Children, err = mergeFields(sub); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		case TypeArray:
			if err := m.mergeElements(occ); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		default:
			m.IsConst = true
			for _, f := range occ {
				if f.Const == nil || fmt.Sprint(f.Const) != fmt.Sprint(occ[0].Const) {
					m.IsConst = false
				}
			}
			if m.IsConst {
				m.Const = occ[0].Const
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// mergeElements types an array from the elements of every occurrence.
func (m *GoField) mergeElements(occ []*Field) error {
	var elems []labelled
	kinds := map[Type]bool{}
	for _, f := range occ {
		for _, e := range f.Fields {
			kinds[e.Type] = true
			elems = append(elems, labelled{fields: e.Fields})
		}
	}
	switch {
	case len(kinds) == 1 && kinds[TypeObject]:
		m.Elem = TypeObject
		var err error
		m.Children, err = mergeFields(elems)
		return err
	case len(kinds) == 1 && !kinds[TypeArray]:
		for k := range kinds {
			m.Elem = k
		}
	default:
		m.Elem = TypeJSON
	}
	return nil
}

// mergeOrder orders the field names of all lists: a topological order of "comes before in some list",
// ties broken by first appearance.
func mergeOrder(lists []labelled) ([]string, error) {
	first := map[string]int{}
	var names []string
	after := map[string]map[string]bool{}
	indeg := map[string]int{}
	for _, l := range lists {
		for i, f := range l.fields {
			if _, ok := first[f.Name]; !ok {
				first[f.Name] = len(names)
				names = append(names, f.Name)
				after[f.Name] = map[string]bool{}
			}
			if i > 0 {
				prev := l.fields[i-1].Name
				if prev != f.Name && !after[prev][f.Name] {
					after[prev][f.Name] = true
					indeg[f.Name]++
				}
			}
		}
	}
	var order []string
	done := map[string]bool{}
	for len(order) < len(names) {
		next := ""
		for _, n := range names {
			if !done[n] && indeg[n] == 0 {
				next = n
				break
			}
		}
		if next == "" {
			var left []string
			for _, n := range names {
				if !done[n] {
					left = append(left, n)
				}
			}
			return nil, fmt.Errorf("cases order fields %s differently, so no one struct marshals them all back "+
				"byte for byte: give them one order, or make the result a union", strings.Join(left, ", "))
		}
		done[next] = true
		order = append(order, next)
		for n := range after[next] {
			indeg[n]--
		}
	}
	return order, nil
}

func dedupe(s []Outcome) []Outcome {
	var out []Outcome
	seen := map[Outcome]bool{}
	for _, x := range s {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
