package policy

import (
	"github.com/agentbash/agentbash/runtime/policy/shellexpand"
	"github.com/agentbash/agentbash/runtime/policy/shellsyntax"
	"mvdan.cc/sh/v3/syntax"
)

// scope is one parsed script being checked: its expansion scope (source, variables) and nesting depth.
type scope struct {
	shellexpand.Scope
	a     *analysis
	depth int
	// argvBuf is reused for the command lines of this script's statements, one statement at a time.
	argvBuf []shellexpand.Field
}

// scopeAt is the scope of the script being checked at depth: the scripts being checked at one time are
// nested one in another, one per depth, so each depth's scope (and its buffers) is reused by the scripts
// checked there one after another, in this check and the next.
func (a *analysis) scopeAt(depth int) *scope {
	for len(a.scopes) <= depth {
		a.scopes = append(a.scopes, &scope{a: a, depth: len(a.scopes)})
	}
	return a.scopes[depth]
}

// release drops what the scopes hold of the check, keeping their memory.
func (a *analysis) release() {
	for _, sc := range a.scopes {
		clear(sc.argvBuf[:cap(sc.argvBuf)])
		sc.argvBuf = sc.argvBuf[:0]
		sc.Clear()
	}
	a.args.release()
}

// script parses and checks shell source nested depth levels deep.
func (a *analysis) script(src string, depth int, parent *shellexpand.Vars) {
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
	sc := a.scopeAt(depth)
	sc.Init(&a.eval, src, parent)
	// This script's statements and stages go after those of the scripts it is nested in, and are dropped
	// (and cleared, so that no tree outlives its check) when it is done.
	nStmts, nStages := len(a.stmts), len(a.stages)
	defer func() {
		clear(a.stmts[nStmts:])
		clear(a.stages[nStages:])
		a.stmts, a.stages = a.stmts[:nStmts], a.stages[:nStages]
	}()
	c := shellsyntax.Collector{Stmts: a.stmts, Stages: a.stages}
	c.File(f)
	a.stmts, a.stages = c.Stmts, c.Stages
	sc.Prepass(&c)
	if e.forkBombs && len(c.Funcs) > 0 {
		if seg, name := sc.forkBomb(c.Funcs); seg != "" {
			a.find(finding{rule: "fork_bomb", reason: e.reasons.ForkBomb, name: name, segment: seg})
			return
		}
	}
	for _, si := range c.Stmts[nStmts:] {
		if a.found != nil {
			return
		}
		sc.stmt(si)
	}
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
				if shellsyntax.IsPipe(m) && (self(m.X) || self(m.Y)) {
					segment, name = sc.Text(fd), fd.Name.Value
				}
			case *syntax.Stmt:
				if m.Background && self(m) {
					segment, name = sc.Text(fd), fd.Name.Value
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
