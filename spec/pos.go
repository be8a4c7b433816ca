package spec

import (
	"slices"
	"strings"
)

// positions maps a JSON pointer (/tools/0/timeout/max, or with "#value" appended, the value's own
// position) to its line and column in the YAML file, as the loader's walk records them.
type positions map[string][2]int

// table is p sorted by pointer: what a Variant keeps.
func (p positions) table() posTable {
	t := make(posTable, 0, len(p))
	for ptr, lc := range p {
		t = append(t, Position{Pointer: ptr, Line: lc[0], Col: lc[1]})
	}
	slices.SortFunc(t, func(a, b Position) int { return strings.Compare(a.Pointer, b.Pointer) })
	return t
}

// posTable is a variant's positions, sorted by pointer: a table a compiled variant holds as it is
// (FromCompiled), without building a map at start.
type posTable []Position

// get returns the line and column of a pointer.
func (t posTable) get(ptr string) ([2]int, bool) {
	i, ok := slices.BinarySearchFunc(t, ptr, func(p Position, ptr string) int { return strings.Compare(p.Pointer, ptr) })
	if !ok {
		return [2]int{}, false
	}
	return [2]int{t[i].Line, t[i].Col}, true
}

// fieldAt names the field whose value starts at line:col, or "".
func (p positions) fieldAt(line, col int) string {
	for ptr, lc := range p {
		if lc == [2]int{line, col} {
			if f, ok := strings.CutSuffix(ptr, "#value"); ok {
				return pointerToField(f)
			}
		}
	}
	return ""
}
