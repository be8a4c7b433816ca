package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// scope is one parsed script: its source, nesting depth, variables and pipelines.
type scope struct {
	a     *analysis
	src   string
	depth int
	vars  *varTable
	// argvBuf is reused for the command lines of this script's statements, one statement at a time.
	argvBuf []field
}

// stmtInfo is a statement in source order with the earlier stages of the pipeline it reads from.
type stmtInfo struct {
	st   *syntax.Stmt
	prod []*syntax.Stmt
}

func (sc *scope) ev() evaluator { return evaluator{sc: sc} }

// text is the source text of a node of this scope.
func (sc *scope) text(n syntax.Node) string {
	if n == nil {
		return ""
	}
	i, j := int(n.Pos().Offset()), int(n.End().Offset())
	if i < 0 || j > len(sc.src) || i > j {
		return ""
	}
	return sc.src[i:j]
}

// script parses and checks shell source nested depth levels deep.
func (a *analysis) script(src string, depth int, parent *varTable) {
	if a.found != nil {
		return
	}
	e := a.e
	if depth > e.maxDepth {
		a.find(finding{rule: "too_deep", reason: e.reasons.TooDeep, segment: src})
		return
	}
	f, err := e.parse(a, src)
	if err != nil {
		a.find(finding{rule: "unparsable", reason: e.reasons.Unparsable, segment: src, err: err.Error()})
		return
	}
	sc := &scope{a: a, src: src, depth: depth, vars: newVarTable(parent)}
	// This script's statements and stages go after those of the scripts it is nested in, and are dropped
	// (and cleared, so that no tree outlives its check) when it is done.
	nStmts, nStages := len(a.stmts), len(a.stages)
	defer func() {
		clear(a.stmts[nStmts:])
		clear(a.stages[nStages:])
		a.stmts, a.stages = a.stmts[:nStmts], a.stages[:nStages]
	}()
	stmts, funcs := sc.prepass(f)
	if e.forkBombs && len(funcs) > 0 {
		if seg, name := sc.forkBomb(funcs); seg != "" {
			a.find(finding{rule: "fork_bomb", reason: e.reasons.ForkBomb, name: name, segment: seg})
			return
		}
	}
	for _, si := range stmts {
		if a.found != nil {
			return
		}
		sc.stmt(si)
	}
}

// prepass walks the script once (see collector) and then evaluates its assignments until their values
// settle, a few passes at most.
func (sc *scope) prepass(f *syntax.File) (stmts []stmtInfo, funcs []*syntax.FuncDecl) {
	start := len(sc.a.stmts)
	c := collector{stmts: sc.a.stmts, stages: sc.a.stages}
	c.file(f)
	sc.a.stmts, sc.a.stages = c.stmts, c.stages
	for _, name := range c.namerefs {
		sc.vars.markUnknown(name)
	}
	stmts, funcs = c.stmts[start:], c.funcs
	assigns, calls, fors := c.assigns, c.calls, c.fors
	if len(assigns)+len(calls)+len(fors) == 0 {
		return stmts, funcs
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
	return stmts, funcs
}

// assign records one assignment.
func (sc *scope) assign(as *syntax.Assign) bool {
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
				if f.dyn {
					changed = sc.vars.markUnknown(name) || changed
					continue
				}
				elems = append(elems, f.val)
			}
		}
		return sc.vars.addArray(name, elems) || changed
	}
	if as.Naked {
		return false
	}
	vals := ev.doc(as.Value, wordCtx{}, maxAlts)
	if as.Index != nil {
		changed := false
		for _, v := range vals {
			if v.dyn {
				changed = sc.vars.markUnknown(name) || changed
				continue
			}
			changed = sc.vars.addArray(name, []string{v.val}) || changed
		}
		return changed
	}
	changed := false
	if as.Append {
		for _, prev := range sc.lookup(name, nil) {
			for _, v := range vals {
				f := v
				if prev.dyn {
					f.dyn = true
				} else {
					f.val = prev.val + v.val
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
func (sc *scope) callAssigns(call *syntax.CallExpr) bool {
	if len(call.Args) == 0 {
		return false
	}
	changed := false
	switch call.Args[0].Lit() {
	case "export", "readonly", "local", "declare", "typeset":
		for _, argv := range sc.ev().words(call.Args[1:]) {
			for _, f := range argv {
				name, val, ok := strings.Cut(f.val, "=")
				if ok && syntax.ValidName(name) {
					v := litField(val)
					v.dyn = f.dyn
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
func (sc *scope) lookup(name string, index syntax.ArithmExpr) []alt {
	if !syntax.ValidName(name) {
		return []alt{{dyn: true}} // $1, $@, $?, $$ ...
	}
	vals, arrays, unknown, assigned := sc.vars.get(name)
	if !assigned {
		if name == "IFS" {
			return []alt{{val: " \t\n"}}
		}
		return []alt{{dyn: true}}
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
	if len(out) > maxAlts {
		return []alt{{dyn: true}}
	}
	return out
}

// ifs is the field separator: the script's single known IFS, else the default.
func (sc *scope) ifs() string {
	vals, arrays, unknown, assigned := sc.vars.get("IFS")
	if assigned && !unknown && len(vals) == 1 && len(arrays) == 0 {
		return vals[0]
	}
	return " \t\n"
}

// forkBomb finds a function that calls itself in a pipeline or in the background.
func (sc *scope) forkBomb(funcs []*syntax.FuncDecl) (segment, name string) {
	for _, fd := range funcs {
		if fd.Name == nil {
			continue
		}
		self := func(st *syntax.Stmt) bool {
			call, ok := st.Cmd.(*syntax.CallExpr)
			return ok && len(call.Args) > 0 && call.Args[0].Lit() == fd.Name.Value
		}
		syntax.Walk(fd.Body, func(m syntax.Node) bool {
			switch m := m.(type) {
			case *syntax.BinaryCmd:
				if isPipe(m) && (self(m.X) || self(m.Y)) {
					segment, name = sc.text(fd), fd.Name.Value
				}
			case *syntax.Stmt:
				if m.Background && self(m) {
					segment, name = sc.text(fd), fd.Name.Value
				}
			}
			return segment == ""
		})
		if segment != "" {
			return segment, name
		}
	}
	return "", ""
}
