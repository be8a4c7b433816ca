package shellexpand

import (
	"strings"

	"github.com/agentbash/agentbash/runtime/policy/shellsyntax"
	"mvdan.cc/sh/v3/syntax"
)

// Scope is one script being expanded: its source (the text of its nodes), what it assigns to its variables
// and the arena its expansions use. A nested script (bash -c, eval) gets its own Scope whose variables
// extend its parent's.
type Scope struct {
	src   string
	vars  *Vars
	arena *Arena
}

// Init makes sc the scope of the script src, whose variables extend parent's (nil for a top-level
// script); its expansions use ar until ar is reset. A Scope may be initialised again once nothing uses its
// Vars (the scripts nested in it are done): it then reuses its memory. A Scope must not be copied.
func (sc *Scope) Init(ar *Arena, src string, parent *Vars) {
	vars := sc.vars
	if vars == nil {
		vars = &Vars{}
	}
	vars.reset(parent)
	*sc = Scope{src: src, vars: vars, arena: ar}
}

// Clear drops what the scope holds of its script (source, variables), keeping its memory for the next
// Init.
func (sc *Scope) Clear() {
	if sc.vars != nil {
		sc.vars.reset(nil)
	}
	sc.src, sc.arena = "", nil
}

// Vars is the scope's variable table (the parent of a nested script's).
func (sc *Scope) Vars() *Vars { return sc.vars }

// Src is the script's source.
func (sc *Scope) Src() string { return sc.src }

// Text is the source text of a node of this scope.
func (sc *Scope) Text(n syntax.Node) string {
	if n == nil {
		return ""
	}
	i, j := int(n.Pos().Offset()), int(n.End().Offset())
	if i < 0 || j > len(sc.src) || i > j {
		return ""
	}
	return sc.src[i:j]
}

func (sc *Scope) ev() evaluator { return evaluator{sc: sc} }

// Prepass records what the script collected in c assigns: it evaluates the assignments, the assigning
// builtins and the for loops until their values settle (three passes at most), and marks the namerefs'
// values unknown. Values are kept flow-insensitively: every value any assignment can give.
func (sc *Scope) Prepass(c *shellsyntax.Collector) {
	for _, name := range c.Namerefs {
		sc.vars.markUnknown(name)
	}
	assigns, calls, fors := c.Assigns, c.Calls, c.Fors
	if len(assigns)+len(calls)+len(fors) == 0 {
		return
	}
	ev := sc.ev()
	for pass := 0; pass < 3; pass++ {
		changed := false
		for _, as := range assigns {
			changed = sc.assign(as) || changed
		}
		for _, call := range calls {
			changed = sc.callAssigns(call) || changed
		}
		for _, wi := range fors {
			if !wi.InPos.IsValid() {
				changed = sc.vars.markUnknown(wi.Name.Value) || changed
				continue
			}
			for _, argv := range ev.words(wi.Items) {
				for _, fl := range argv {
					changed = sc.vars.add(wi.Name.Value, fl) || changed
				}
			}
		}
		if !changed {
			break
		}
	}
}

// assign records one assignment.
func (sc *Scope) assign(as *syntax.Assign) bool {
	if as.Name == nil || (as.Naked && as.Value == nil && as.Array == nil) {
		return false
	}
	name := as.Name.Value
	ev := sc.ev()
	if as.Array != nil {
		var elems []string
		changed := false
		for _, el := range as.Array.Elems {
			if el.Value == nil {
				continue
			}
			for _, f := range ev.word(el.Value, 1)[0] {
				if f.Dyn {
					changed = sc.vars.markUnknown(name) || changed
					continue
				}
				elems = append(elems, f.Val)
			}
		}
		return sc.vars.addArray(name, elems) || changed
	}
	if as.Naked {
		return false
	}
	vals := ev.doc(as.Value, wordCtx{}, MaxAlts)
	if as.Index != nil {
		changed := false
		for _, v := range vals {
			if v.Dyn {
				changed = sc.vars.markUnknown(name) || changed
				continue
			}
			changed = sc.vars.addArray(name, []string{v.Val}) || changed
		}
		return changed
	}
	changed := false
	if as.Append {
		for _, prev := range sc.lookup(name, nil) {
			for _, v := range vals {
				f := v
				if prev.dyn {
					f.Dyn = true
				} else {
					f.Val = prev.val + v.Val
				}
				changed = sc.vars.add(name, f) || changed
			}
		}
		return changed
	}
	for _, v := range vals {
		changed = sc.vars.add(name, v) || changed
	}
	return changed
}

// callAssigns records what builtins assign: export/readonly/local/declare/typeset NAME=VALUE (POSIX
// parse), and read, mapfile, readarray, getopts and printf -v, whose values are not known.
func (sc *Scope) callAssigns(call *syntax.CallExpr) bool {
	if len(call.Args) == 0 {
		return false
	}
	changed := false
	switch call.Args[0].Lit() {
	case "export", "readonly", "local", "declare", "typeset":
		for _, argv := range sc.ev().words(call.Args[1:]) {
			for _, f := range argv {
				name, val, ok := strings.Cut(f.Val, "=")
				if ok && syntax.ValidName(name) {
					v := Literal(val)
					v.Dyn = f.Dyn
					changed = sc.vars.add(name, v) || changed
				}
			}
		}
	case "read", "mapfile", "readarray", "getopts", "printf":
		for _, w := range call.Args[1:] {
			if l := w.Lit(); syntax.ValidName(l) {
				changed = sc.vars.markUnknown(l) || changed
			}
		}
	}
	return changed
}

// lookup returns a variable's possible values.
func (sc *Scope) lookup(name string, index syntax.ArithmExpr) []alt {
	if !syntax.ValidName(name) {
		return dynAlt // $1, $@, $?, $$ ...
	}
	vals, arrays, unknown, assigned := sc.vars.get(name)
	if !assigned {
		if name == "IFS" {
			return []alt{{val: " \t\n"}}
		}
		return dynAlt
	}
	var out []alt
	all, idx := false, -1
	if index != nil {
		if w, ok := index.(*syntax.Word); ok && (w.Lit() == "@" || w.Lit() == "*") {
			all = true
		} else if n, ok := sc.ev().arithInt(index); ok {
			idx = n
		}
	}
	for _, arr := range arrays {
		switch {
		case all:
			out = append(out, alt{val: strings.Join(arr, "\x00"), multi: true})
		case index == nil || idx == 0:
			if len(arr) > 0 {
				out = append(out, alt{val: arr[0]})
			}
		case idx > 0:
			if idx < len(arr) {
				out = append(out, alt{val: arr[idx]})
			}
		default:
			for _, el := range arr {
				out = append(out, alt{val: el})
			}
		}
	}
	if index == nil || all || idx <= 0 {
		for _, v := range vals {
			out = append(out, alt{val: v})
		}
	}
	if unknown || len(out) == 0 {
		out = append(out, alt{dyn: true})
	}
	out = dedupe(out)
	if len(out) > MaxAlts {
		return dynAlt
	}
	return out
}

// ifs is the field separator: the script's single known IFS, else the default.
func (sc *Scope) ifs() string {
	vals, arrays, unknown, assigned := sc.vars.get("IFS")
	if assigned && !unknown && len(vals) == 1 && len(arrays) == 0 {
		return vals[0]
	}
	return " \t\n"
}
