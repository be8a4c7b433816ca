package gen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentbash/agentbash/spec"
)

// mfield is a result field merged over every object it appears in (the cases of an envelope, the cases of
// one union member, the elements of an array).
type mfield struct {
	name   string // JSON name
	goName string
	// typ is the spec type, or "json" when the occurrences disagree.
	typ string
	// conflict lists the types the occurrences disagree on.
	conflict []string
	// always reports a field present in every object merged.
	always bool
	// in names the objects (cases) holding the field, when it is not always present.
	in  []string
	doc string
	// children are an object's fields, or the fields of an array's object elements.
	children []*mfield
	// elem is an array's element type: object, a scalar spec type, or json (mixed).
	elem string
	// constVal is the value of a field that is const everywhere with one value (for discriminators).
	constVal any
	isConst  bool
}

// labelled is one object's field list with a label (a case name) for documentation.
type labelled struct {
	label  string
	fields []spec.Field
}

// mergeFields merges field lists into one ordered list consistent with every list's order, so that a
// struct with omitempty pointers marshals each of them back byte for byte. It fails when two lists order
// the same fields differently.
func mergeFields(lists []labelled) ([]*mfield, error) {
	order, err := mergeOrder(lists)
	if err != nil {
		return nil, err
	}
	byName := map[string][]*spec.Field{}
	labels := map[string][]string{}
	for _, l := range lists {
		for i := range l.fields {
			f := &l.fields[i]
			byName[f.Name] = append(byName[f.Name], f)
			labels[f.Name] = append(labels[f.Name], l.label)
		}
	}
	seen := map[string]string{}
	var out []*mfield
	for _, name := range order {
		occ := byName[name]
		m := &mfield{name: name, goName: goName(name), always: len(occ) == len(lists)}
		if prev, ok := seen[m.goName]; ok {
			return nil, fmt.Errorf("fields %q and %q both become Go field %s", prev, name, m.goName)
		}
		seen[m.goName] = name
		if !m.always {
			m.in = dedupe(labels[name])
		}
		types := map[string]bool{}
		for _, f := range occ {
			types[f.Type] = true
			if m.doc == "" {
				m.doc = f.Doc
			}
		}
		if len(types) > 1 {
			m.typ = "json"
			for t := range types {
				m.conflict = append(m.conflict, t)
			}
			sort.Strings(m.conflict)
		} else {
			m.typ = occ[0].Type
		}
		switch m.typ {
		case "object":
			var sub []labelled
			for i, f := range occ {
				sub = append(sub, labelled{label: labels[name][i], fields: f.Fields})
			}
			if m.children, err = mergeFields(sub); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		case "array":
			if err := m.mergeElements(occ); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		default:
			m.isConst = true
			for _, f := range occ {
				if f.Const == nil || fmt.Sprint(f.Const) != fmt.Sprint(occ[0].Const) {
					m.isConst = false
				}
			}
			if m.isConst {
				m.constVal = occ[0].Const
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// mergeElements types an array from the elements of every occurrence.
func (m *mfield) mergeElements(occ []*spec.Field) error {
	var elems []labelled
	kinds := map[string]bool{}
	for _, f := range occ {
		for _, e := range f.Fields {
			kinds[e.Type] = true
			elems = append(elems, labelled{fields: e.Fields})
		}
	}
	switch {
	case len(kinds) == 1 && kinds["object"]:
		m.elem = "object"
		var err error
		m.children, err = mergeFields(elems)
		return err
	case len(kinds) == 1 && !kinds["array"]:
		for k := range kinds {
			m.elem = k
		}
	default:
		m.elem = "json"
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

func dedupe(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
