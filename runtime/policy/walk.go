package policy

import "mvdan.cc/sh/v3/syntax"

// walk visits a syntax tree in the order of syntax.Walk, without comments: pre is called on entering a
// node (its children are visited when it returns true), post on leaving a node whose pre returned true.
// syntax.Walk defers inside a loop, which makes every call pay for the defer machinery; this walker does
// not, and it is the shell policy's main cost after parsing.
func walk(n syntax.Node, pre func(syntax.Node) bool, post func(syntax.Node)) {
	w := walker{pre: pre, post: post}
	w.node(n)
}

type walker struct {
	pre  func(syntax.Node) bool
	post func(syntax.Node)
}

func (w *walker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		w.node(s)
	}
}

func (w *walker) words(list []*syntax.Word) {
	for _, x := range list {
		w.node(x)
	}
}

func (w *walker) node(n syntax.Node) {
	if !w.pre(n) {
		return
	}
	switch n := n.(type) {
	case *syntax.File:
		w.stmts(n.Stmts)
	case *syntax.Stmt:
		if n.Cmd != nil {
			w.node(n.Cmd)
		}
		for _, r := range n.Redirs {
			w.node(r)
		}
	case *syntax.Assign:
		if n.Name != nil {
			w.node(n.Name)
		}
		if n.Value != nil {
			w.node(n.Value)
		}
		if n.Index != nil {
			w.node(n.Index)
		}
		if n.Array != nil {
			w.node(n.Array)
		}
	case *syntax.Redirect:
		if n.N != nil {
			w.node(n.N)
		}
		w.node(n.Word)
		if n.Hdoc != nil {
			w.node(n.Hdoc)
		}
	case *syntax.CallExpr:
		for _, a := range n.Assigns {
			w.node(a)
		}
		w.words(n.Args)
	case *syntax.Subshell:
		w.stmts(n.Stmts)
	case *syntax.Block:
		w.stmts(n.Stmts)
	case *syntax.IfClause:
		w.stmts(n.Cond)
		w.stmts(n.Then)
		if n.Else != nil {
			w.node(n.Else)
		}
	case *syntax.WhileClause:
		w.stmts(n.Cond)
		w.stmts(n.Do)
	case *syntax.ForClause:
		w.node(n.Loop)
		w.stmts(n.Do)
	case *syntax.WordIter:
		w.node(n.Name)
		w.words(n.Items)
	case *syntax.CStyleLoop:
		for _, x := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
			if x != nil {
				w.node(x)
			}
		}
	case *syntax.BinaryCmd:
		w.node(n.X)
		w.node(n.Y)
	case *syntax.FuncDecl:
		if n.Name != nil {
			w.node(n.Name)
		}
		for _, l := range n.Names {
			w.node(l)
		}
		w.node(n.Body)
	case *syntax.Word:
		for _, p := range n.Parts {
			w.node(p)
		}
	case *syntax.Lit, *syntax.SglQuoted:
	case *syntax.DblQuoted:
		for _, p := range n.Parts {
			w.node(p)
		}
	case *syntax.CmdSubst:
		w.stmts(n.Stmts)
	case *syntax.ParamExp:
		if n.Flags != nil {
			w.node(n.Flags)
		}
		if n.Param != nil {
			w.node(n.Param)
		}
		if n.NestedParam != nil {
			w.node(n.NestedParam)
		}
		if n.Index != nil {
			w.node(n.Index)
		}
		if n.Slice != nil {
			if n.Slice.Offset != nil {
				w.node(n.Slice.Offset)
			}
			if n.Slice.Length != nil {
				w.node(n.Slice.Length)
			}
		}
		if n.Repl != nil {
			if n.Repl.Orig != nil {
				w.node(n.Repl.Orig)
			}
			if n.Repl.With != nil {
				w.node(n.Repl.With)
			}
		}
		if n.Exp != nil && n.Exp.Word != nil {
			w.node(n.Exp.Word)
		}
	case *syntax.ArithmExp:
		w.node(n.X)
	case *syntax.ArithmCmd:
		w.node(n.X)
	case *syntax.BinaryArithm:
		w.node(n.X)
		w.node(n.Y)
	case *syntax.BinaryTest:
		w.node(n.X)
		w.node(n.Y)
	case *syntax.UnaryArithm:
		w.node(n.X)
	case *syntax.UnaryTest:
		w.node(n.X)
	case *syntax.ParenArithm:
		w.node(n.X)
	case *syntax.FlagsArithm:
		w.node(n.Flags)
		if n.X != nil {
			w.node(n.X)
		}
	case *syntax.ParenTest:
		w.node(n.X)
	case *syntax.CaseClause:
		w.node(n.Word)
		for _, it := range n.Items {
			w.node(it)
		}
	case *syntax.CaseItem:
		w.words(n.Patterns)
		w.stmts(n.Stmts)
	case *syntax.TestClause:
		w.node(n.X)
	case *syntax.DeclClause:
		for _, a := range n.Args {
			w.node(a)
		}
	case *syntax.ArrayExpr:
		for _, e := range n.Elems {
			w.node(e)
		}
	case *syntax.ArrayElem:
		if n.Index != nil {
			w.node(n.Index)
		}
		if n.Value != nil {
			w.node(n.Value)
		}
	case *syntax.ExtGlob:
		w.node(n.Pattern)
	case *syntax.ProcSubst:
		w.stmts(n.Stmts)
	case *syntax.TimeClause:
		if n.Stmt != nil {
			w.node(n.Stmt)
		}
	case *syntax.CoprocClause:
		if n.Name != nil {
			w.node(n.Name)
		}
		w.node(n.Stmt)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			w.node(x)
		}
	case *syntax.TestDecl:
		w.node(n.Description)
		w.node(n.Body)
	case *syntax.BraceExp:
		w.words(n.Elems)
	}
	if w.post != nil {
		w.post(n)
	}
}
