package shellexpand

import "strings"

// Vars is what a script assigns to its variables, flow-insensitively: every value any assignment can
// give, in any order, and whether some assignment gives a value that is not known. A nested script's Vars
// extend its parent's.
type Vars struct {
	vals    map[string][]string
	arrays  map[string][][]string
	unknown map[string]bool
	parent  *Vars
}

// reset empties the table, keeping its maps' memory, and makes it extend parent.
func (t *Vars) reset(parent *Vars) {
	clear(t.vals)
	clear(t.arrays)
	clear(t.unknown)
	t.parent = parent
}

func (t *Vars) get(name string) (vals []string, arrays [][]string, unknown, assigned bool) {
	for x := t; x != nil; x = x.parent {
		if v, ok := x.vals[name]; ok {
			vals, assigned = append(vals, v...), true
		}
		if a, ok := x.arrays[name]; ok {
			arrays, assigned = append(arrays, a...), true
		}
		if x.unknown[name] {
			unknown, assigned = true, true
		}
	}
	return vals, arrays, unknown, assigned
}

// add records an assigned value; it reports whether the table changed.
func (t *Vars) add(name string, f Field) bool {
	if f.Dyn {
		return t.markUnknown(name)
	}
	if t.vals == nil {
		t.vals = map[string][]string{}
	}
	for _, v := range t.vals[name] {
		if v == f.Val {
			return false
		}
	}
	if len(t.vals[name]) >= MaxAlts {
		return t.markUnknown(name)
	}
	t.vals[name] = append(t.vals[name], f.Val)
	return true
}

func (t *Vars) addArray(name string, elems []string) bool {
	if t.arrays == nil {
		t.arrays = map[string][][]string{}
	}
	if len(t.arrays[name]) >= MaxAlts {
		return false
	}
	for _, a := range t.arrays[name] {
		if strings.Join(a, "\x00") == strings.Join(elems, "\x00") {
			return false
		}
	}
	t.arrays[name] = append(t.arrays[name], elems)
	return true
}

func (t *Vars) markUnknown(name string) bool {
	if t.unknown[name] {
		return false
	}
	if t.unknown == nil {
		t.unknown = map[string]bool{}
	}
	t.unknown[name] = true
	return true
}
