package spec

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Derived is what Complete derives for a variant beyond its exported fields: each tool's result cases in
// file order and Go model, and the position of every value of the file. A generator that writes a
// completed variant as a Go value (gen.Compiled) writes the exported fields and this; FromCompiled puts
// them back together.
type Derived struct {
	// Tools are per tool, in order.
	Tools []DerivedTool
	// Positions are the line and column of every value (and mapping key) of the file, by JSON pointer
	// (a value's own position under the pointer with "#value" appended), sorted by pointer.
	Positions []Position
}

// DerivedTool is what Complete derives for one tool.
type DerivedTool struct {
	// Outcomes are the result cases in file order (Tool.Outcomes).
	Outcomes []Outcome
	// Go is the tool's Go model (Tool.Go).
	Go *GoTool
}

// Position is where a value of the spec file is.
type Position struct {
	Pointer   string
	Line, Col int
}

// Derived returns what Complete derived for v (which must be completed) beyond its exported fields.
func (v *Variant) Derived() (Derived, error) {
	if !v.completed {
		return Derived{}, errors.New("spec: Derived of a variant that is not completed")
	}
	var d Derived
	for i := range v.Tools {
		t := &v.Tools[i]
		d.Tools = append(d.Tools, DerivedTool{Outcomes: t.outcomes, Go: t.gotool})
	}
	d.Positions = slices.Clone(v.pos)
	return d, nil
}

// FromCompiled completes v from what Complete derived for it (Variant.Derived), without checking, filling
// or deriving anything: v holds the exported fields of a completed variant, as a generated file writes
// them, and d what Complete derived (whose pointers may point into v). It returns v, now equal to the
// variant Load returned; the built-ins start this way, without YAML, the JSON Schema or Complete.
func FromCompiled(v *Variant, d Derived) (*Variant, error) {
	if len(d.Tools) != len(v.Tools) {
		return nil, fmt.Errorf("spec: compiled variant %q has %d tools and what was derived for %d", v.ID, len(v.Tools), len(d.Tools))
	}
	for i := range v.Tools {
		if d.Tools[i].Go == nil {
			return nil, fmt.Errorf("spec: compiled variant %q: tool %q has no Go model", v.ID, v.Tools[i].Name)
		}
		v.Tools[i].outcomes = d.Tools[i].Outcomes
		v.Tools[i].gotool = d.Tools[i].Go
	}
	if !slices.IsSortedFunc(d.Positions, func(a, b Position) int { return strings.Compare(a.Pointer, b.Pointer) }) {
		return nil, fmt.Errorf("spec: compiled variant %q: the positions are not sorted by pointer", v.ID)
	}
	// The table is kept as it is: a generated file's is laid out by the linker and never written.
	v.pos = d.Positions
	v.completed = true
	return v, nil
}
