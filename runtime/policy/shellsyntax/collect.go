package shellsyntax

import "mvdan.cc/sh/v3/syntax"

// Collector is a prepass over a parsed script. It visits the tree in the order of syntax.Walk and collects
// what a static analysis of the script needs: every statement in source order with the earlier stages of
// the pipeline it reads from, the assignments and assigning builtins (for a variable table), the for loops
// over word lists and the function declarations.
//
// It is a typed recursive descent rather than syntax.Walk with a callback: syntax.Walk defers inside a
// loop and calls the callback for every node, and this pass runs on every command a policy checks.
// Pipelines are flattened where they are met, so no node needs to be looked up later.
//
// Stmts and Stages are appended to: a caller that analyses nested scripts one inside the other may pass
// the outer script's slices in and cut them back after the inner one (its statements follow the outer's).
type Collector struct {
	// Stmts are the statements in source order, each with the earlier stages of its pipeline.
	Stmts []StmtInfo
	// Stages holds every pipeline's stages; the Prod of a StmtInfo is a part of it.
	Stages []*syntax.Stmt
	// Funcs are the function declarations.
	Funcs []*syntax.FuncDecl
	// Assigns are the assignments (before a command, in a declaration, of an array element).
	Assigns []*syntax.Assign
	// Calls are the simple commands named by an assigning builtin (IsAssigningBuiltin).
	Calls []*syntax.CallExpr
	// Fors are the for loops over words (or over the positional parameters: an invalid InPos).
	Fors []*syntax.WordIter
	// Namerefs are the names declared with declare -n / local -n: their values are not known.
	Namerefs []string
	// prod is the earlier stages of the pipeline whose stage is being visited.
	prod []*syntax.Stmt
}

// StmtInfo is a statement with the earlier stages of the pipeline it reads from (none outside a pipeline
// and for its first stage).
type StmtInfo struct {
	Stmt *syntax.Stmt
	Prod []*syntax.Stmt
}

// File collects a script.
func (c *Collector) File(f *syntax.File) { c.stmtList(f.Stmts) }

func (c *Collector) stmtList(list []*syntax.Stmt) {
	for _, s := range list {
		c.stmt(s)
	}
}

func (c *Collector) stmt(s *syntax.Stmt) {
	c.Stmts = append(c.Stmts, StmtInfo{Stmt: s, Prod: c.prod})
	if s.Cmd != nil {
		c.command(s.Cmd)
	}
	for _, r := range s.Redirs {
		c.redirect(r)
	}
}

// pipe visits a pipeline: its stages, flattened across nested pipes, each with the stages before it.
func (c *Collector) pipe(b *syntax.BinaryCmd) {
	start := len(c.Stages)
	flattenPipe(b, &c.Stages)
	list := c.Stages[start:len(c.Stages):len(c.Stages)]
	k := 0
	c.pipeSide(b.X, list, &k)
	c.pipeSide(b.Y, list, &k)
}

func (c *Collector) pipeSide(st *syntax.Stmt, list []*syntax.Stmt, k *int) {
	if inner, ok := innerPipe(st); ok {
		// The statement that only groups a nested pipe: it reads from what the whole pipeline reads from.
		c.Stmts = append(c.Stmts, StmtInfo{Stmt: st, Prod: c.prod})
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

func (c *Collector) command(cmd syntax.Command) {
	switch n := cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range n.Assigns {
			c.assign(a)
		}
		if len(n.Args) > 0 && IsAssigningBuiltin(n.Args[0].Lit()) {
			c.Calls = append(c.Calls, n)
		}
		c.words(n.Args)
	case *syntax.BinaryCmd:
		if IsPipe(n) {
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
				c.Fors = append(c.Fors, l)
			}
			c.words(l.Items)
		case *syntax.CStyleLoop:
			c.arithm(l.Init)
			c.arithm(l.Cond)
			c.arithm(l.Post)
		}
		c.stmtList(n.Do)
	case *syntax.FuncDecl:
		c.Funcs = append(c.Funcs, n)
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
				c.Namerefs = append(c.Namerefs, a.Name.Value)
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

func (c *Collector) ifClause(n *syntax.IfClause) {
	for ; n != nil; n = n.Else {
		c.stmtList(n.Cond)
		c.stmtList(n.Then)
	}
}

func (c *Collector) assign(a *syntax.Assign) {
	c.Assigns = append(c.Assigns, a)
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

func (c *Collector) redirect(r *syntax.Redirect) {
	c.word(r.Word)
	if r.Hdoc != nil {
		c.word(r.Hdoc)
	}
}

func (c *Collector) words(list []*syntax.Word) {
	for _, w := range list {
		c.word(w)
	}
}

func (c *Collector) word(w *syntax.Word) {
	if w == nil {
		return
	}
	c.parts(w.Parts)
}

func (c *Collector) parts(parts []syntax.WordPart) {
	for _, p := range parts {
		c.part(p)
	}
}

func (c *Collector) part(p syntax.WordPart) {
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

func (c *Collector) paramExp(p *syntax.ParamExp) {
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

func (c *Collector) arithm(x syntax.ArithmExpr) {
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

func (c *Collector) test(x syntax.TestExpr) {
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

// IsAssigningBuiltin reports the builtins that assign variables named in their arguments: export,
// readonly, local, declare and typeset (NAME=VALUE), and read, mapfile, readarray, getopts and printf -v,
// whose values are only known at run time.
func IsAssigningBuiltin(name string) bool {
	switch name {
	case "export", "readonly", "local", "declare", "typeset", "read", "mapfile", "readarray", "getopts", "printf":
		return true
	}
	return false
}

// IsPipe reports a pipeline operator, | or |&.
func IsPipe(b *syntax.BinaryCmd) bool { return b.Op == syntax.Pipe || b.Op == syntax.PipeAll }

// innerPipe reports a pipeline stage that is itself a plain pipe (no redirections, not negated): its
// stages belong to the enclosing pipeline.
func innerPipe(st *syntax.Stmt) (*syntax.BinaryCmd, bool) {
	inner, ok := st.Cmd.(*syntax.BinaryCmd)
	if ok && IsPipe(inner) && len(st.Redirs) == 0 && !st.Negated {
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
