package policy

import "mvdan.cc/sh/v3/syntax"

// collector is the prepass over one parsed script. It visits the tree in the order of syntax.Walk and
// collects what the checks need: every statement in source order with the earlier stages of the pipeline
// it reads from, the assignments and assigning builtins (for the variable table), the for loops over word
// lists and the function declarations (for the fork-bomb check).
//
// It is a typed recursive descent rather than syntax.Walk with a callback: syntax.Walk defers inside a
// loop and calls the callback for every node, and this pass runs on every check, so it is the policy's main
// cost after parsing. Pipelines are flattened where they are met, so no node needs to be looked up later.
type collector struct {
	stmts   []stmtInfo
	funcs   []*syntax.FuncDecl
	assigns []*syntax.Assign
	calls   []*syntax.CallExpr
	fors    []*syntax.WordIter
	// namerefs are the names declared with declare -n / local -n: their values are not known.
	namerefs []string
	// prod is the earlier stages of the pipeline whose stage is being visited.
	prod []*syntax.Stmt
	// stages holds every pipeline's stages; prod is a part of it.
	stages []*syntax.Stmt
}

func (c *collector) file(f *syntax.File) { c.stmtList(f.Stmts) }

func (c *collector) stmtList(list []*syntax.Stmt) {
	for _, s := range list {
		c.stmt(s)
	}
}

func (c *collector) stmt(s *syntax.Stmt) {
	c.stmts = append(c.stmts, stmtInfo{st: s, prod: c.prod})
	if s.Cmd != nil {
		c.command(s.Cmd)
	}
	for _, r := range s.Redirs {
		c.redirect(r)
	}
}

// pipe visits a pipeline: its stages, flattened across nested pipes, each with the stages before it.
func (c *collector) pipe(b *syntax.BinaryCmd) {
	start := len(c.stages)
	flattenPipe(b, &c.stages)
	list := c.stages[start:len(c.stages):len(c.stages)]
	k := 0
	c.pipeSide(b.X, list, &k)
	c.pipeSide(b.Y, list, &k)
}

func (c *collector) pipeSide(st *syntax.Stmt, list []*syntax.Stmt, k *int) {
	if inner, ok := innerPipe(st); ok {
		// The statement that only groups a nested pipe: it reads from what the whole pipeline reads from.
		c.stmts = append(c.stmts, stmtInfo{st: st, prod: c.prod})
		c.pipeSide(inner.X, list, k)
		c.pipeSide(inner.Y, list, k)
		return
	}
	saved := c.prod
	if *k > 0 {
		c.prod = list[:*k]
	}
	*k++
	c.stmt(st)
	c.prod = saved
}

func (c *collector) command(cmd syntax.Command) {
	switch n := cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range n.Assigns {
			c.assign(a)
		}
		if len(n.Args) > 0 && isAssigningBuiltin(n.Args[0].Lit()) {
			c.calls = append(c.calls, n)
		}
		c.words(n.Args)
	case *syntax.BinaryCmd:
		if isPipe(n) {
			c.pipe(n)
			return
		}
		c.stmt(n.X)
		c.stmt(n.Y)
	case *syntax.Subshell:
		c.stmtList(n.Stmts)
	case *syntax.Block:
		c.stmtList(n.Stmts)
	case *syntax.IfClause:
		c.ifClause(n)
	case *syntax.WhileClause:
		c.stmtList(n.Cond)
		c.stmtList(n.Do)
	case *syntax.ForClause:
		switch l := n.Loop.(type) {
		case *syntax.WordIter:
			if l.Name != nil {
				c.fors = append(c.fors, l)
			}
			c.words(l.Items)
		case *syntax.CStyleLoop:
			c.arithm(l.Init)
			c.arithm(l.Cond)
			c.arithm(l.Post)
		}
		c.stmtList(n.Do)
	case *syntax.FuncDecl:
		c.funcs = append(c.funcs, n)
		c.stmt(n.Body)
	case *syntax.ArithmCmd:
		c.arithm(n.X)
	case *syntax.CaseClause:
		c.word(n.Word)
		for _, it := range n.Items {
			c.words(it.Patterns)
			c.stmtList(it.Stmts)
		}
	case *syntax.TestClause:
		c.test(n.X)
	case *syntax.DeclClause:
		nameref := n.Variant != nil && n.Variant.Value == "nameref"
		for _, a := range n.Args {
			if nameref && a.Name != nil {
				c.namerefs = append(c.namerefs, a.Name.Value)
			}
			c.assign(a)
		}
	case *syntax.TimeClause:
		if n.Stmt != nil {
			c.stmt(n.Stmt)
		}
	case *syntax.CoprocClause:
		c.word(n.Name)
		c.stmt(n.Stmt)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			c.arithm(x)
		}
	case *syntax.TestDecl:
		c.word(n.Description)
		c.stmt(n.Body)
	}
}

func (c *collector) ifClause(n *syntax.IfClause) {
	for ; n != nil; n = n.Else {
		c.stmtList(n.Cond)
		c.stmtList(n.Then)
	}
}

func (c *collector) assign(a *syntax.Assign) {
	c.assigns = append(c.assigns, a)
	if a.Value != nil {
		c.word(a.Value)
	}
	if a.Index != nil {
		c.arithm(a.Index)
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Index != nil {
				c.arithm(e.Index)
			}
			if e.Value != nil {
				c.word(e.Value)
			}
		}
	}
}

func (c *collector) redirect(r *syntax.Redirect) {
	c.word(r.Word)
	if r.Hdoc != nil {
		c.word(r.Hdoc)
	}
}

func (c *collector) words(list []*syntax.Word) {
	for _, w := range list {
		c.word(w)
	}
}

func (c *collector) word(w *syntax.Word) {
	if w == nil {
		return
	}
	c.parts(w.Parts)
}

func (c *collector) parts(parts []syntax.WordPart) {
	for _, p := range parts {
		c.part(p)
	}
}

func (c *collector) part(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.DblQuoted:
		c.parts(p.Parts)
	case *syntax.CmdSubst:
		c.stmtList(p.Stmts)
	case *syntax.ProcSubst:
		c.stmtList(p.Stmts)
	case *syntax.ParamExp:
		c.paramExp(p)
	case *syntax.ArithmExp:
		c.arithm(p.X)
	case *syntax.BraceExp:
		c.words(p.Elems)
	}
}

func (c *collector) paramExp(p *syntax.ParamExp) {
	if p.NestedParam != nil {
		c.part(p.NestedParam)
	}
	if p.Index != nil {
		c.arithm(p.Index)
	}
	if p.Slice != nil {
		c.arithm(p.Slice.Offset)
		c.arithm(p.Slice.Length)
	}
	if p.Repl != nil {
		c.word(p.Repl.Orig)
		c.word(p.Repl.With)
	}
	if p.Exp != nil {
		c.word(p.Exp.Word)
	}
}

func (c *collector) arithm(x syntax.ArithmExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		c.word(x)
	case *syntax.BinaryArithm:
		c.arithm(x.X)
		c.arithm(x.Y)
	case *syntax.UnaryArithm:
		c.arithm(x.X)
	case *syntax.ParenArithm:
		c.arithm(x.X)
	case *syntax.FlagsArithm:
		c.arithm(x.X)
	}
}

func (c *collector) test(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		c.word(x)
	case *syntax.BinaryTest:
		c.test(x.X)
		c.test(x.Y)
	case *syntax.UnaryTest:
		c.test(x.X)
	case *syntax.ParenTest:
		c.test(x.X)
	}
}

// isAssigningBuiltin reports the commands callAssigns looks at.
func isAssigningBuiltin(name string) bool {
	switch name {
	case "export", "readonly", "local", "declare", "typeset", "read", "mapfile", "readarray", "getopts", "printf":
		return true
	}
	return false
}

func isPipe(b *syntax.BinaryCmd) bool { return b.Op == syntax.Pipe || b.Op == syntax.PipeAll }

// innerPipe reports a pipeline stage that is itself a plain pipe (no redirections, not negated): its
// stages belong to the enclosing pipeline.
func innerPipe(st *syntax.Stmt) (*syntax.BinaryCmd, bool) {
	inner, ok := st.Cmd.(*syntax.BinaryCmd)
	if ok && isPipe(inner) && len(st.Redirs) == 0 && !st.Negated {
		return inner, true
	}
	return nil, false
}

func flattenPipe(b *syntax.BinaryCmd, out *[]*syntax.Stmt) {
	flattenStage(b.X, out)
	flattenStage(b.Y, out)
}

func flattenStage(st *syntax.Stmt, out *[]*syntax.Stmt) {
	if inner, ok := innerPipe(st); ok {
		flattenPipe(inner, out)
		return
	}
	*out = append(*out, st)
}
