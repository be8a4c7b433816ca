package shellsyntax

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/internal/shellcorpus"
	"mvdan.cc/sh/v3/syntax"
)

// The Collector must see what syntax.Walk sees: every statement in the same order with the same pipeline
// producers, and every assignment, assigning builtin, for loop, function and nameref. referenceCollect
// is the straightforward version over syntax.Walk, kept as the oracle.

// collected is what a prepass found, printed for comparison.
type collected struct {
	stmts, assigns, calls, fors, funcs, namerefs []string
}

func pos(n syntax.Node) string { return fmt.Sprintf("%d-%d", n.Pos().Offset(), n.End().Offset()) }

func stmtKeys(list []StmtInfo) []string {
	var out []string
	for _, si := range list {
		k := pos(si.Stmt) + " <"
		for _, p := range si.Prod {
			k += " " + pos(p)
		}
		out = append(out, k)
	}
	return out
}

func nodeKeys[T syntax.Node](list []T) []string {
	var out []string
	for _, n := range list {
		out = append(out, pos(n))
	}
	return out
}

func collectorResult(f *syntax.File) collected {
	var c Collector
	c.File(f)
	return collected{stmtKeys(c.Stmts), nodeKeys(c.Assigns), nodeKeys(c.Calls), nodeKeys(c.Fors), nodeKeys(c.Funcs), c.Namerefs}
}

func referenceCollect(f *syntax.File) collected {
	var stmts []StmtInfo
	var assigns []*syntax.Assign
	var calls []*syntax.CallExpr
	var fors []*syntax.WordIter
	var funcs []*syntax.FuncDecl
	var namerefs []string
	stages := map[*syntax.Stmt][]*syntax.Stmt{}
	flattened := map[*syntax.BinaryCmd]bool{}
	var flatten func(b *syntax.BinaryCmd, out *[]*syntax.Stmt)
	flatten = func(b *syntax.BinaryCmd, out *[]*syntax.Stmt) {
		flattened[b] = true
		for _, st := range []*syntax.Stmt{b.X, b.Y} {
			if inner, ok := st.Cmd.(*syntax.BinaryCmd); ok && IsPipe(inner) && len(st.Redirs) == 0 && !st.Negated {
				flatten(inner, out)
			} else {
				*out = append(*out, st)
			}
		}
	}
	var prodStack [][]*syntax.Stmt
	var entered []syntax.Node
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			last := entered[len(entered)-1]
			entered = entered[:len(entered)-1]
			if st, ok := last.(*syntax.Stmt); ok {
				if _, ok := stages[st]; ok {
					prodStack = prodStack[:len(prodStack)-1]
				}
			}
			return true
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			if p, ok := stages[n]; ok {
				prodStack = append(prodStack, p)
			}
			var prod []*syntax.Stmt
			if len(prodStack) > 0 {
				prod = prodStack[len(prodStack)-1]
			}
			stmts = append(stmts, StmtInfo{Stmt: n, Prod: prod})
		case *syntax.BinaryCmd:
			if IsPipe(n) && !flattened[n] {
				var list []*syntax.Stmt
				flatten(n, &list)
				for k := 1; k < len(list); k++ {
					stages[list[k]] = list[:k]
				}
			}
		case *syntax.Assign:
			assigns = append(assigns, n)
		case *syntax.DeclClause:
			if n.Variant != nil && n.Variant.Value == "nameref" {
				for _, as := range n.Args {
					if as.Name != nil {
						namerefs = append(namerefs, as.Name.Value)
					}
				}
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 && IsAssigningBuiltin(n.Args[0].Lit()) {
				calls = append(calls, n)
			}
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				fors = append(fors, wi)
			}
		case *syntax.FuncDecl:
			funcs = append(funcs, n)
		case *syntax.Comment:
			return false
		}
		entered = append(entered, n)
		return true
	})
	return collected{stmtKeys(stmts), nodeKeys(assigns), nodeKeys(calls), nodeKeys(fors), nodeKeys(funcs), namerefs}
}

// structuralCommands exercise every kind of node the Collector descends into.
var structuralCommands = []string{
	"a | b | c",
	"a | (b | c) | d",
	"! a | b",
	"{ a | b; } > out | c",
	"a | b > x | c",
	"a |& b | c 2>&1",
	"a && b || c | d; e & f",
	"x | { y | z; }",
	"if a | b; then c; elif d; then e | f; else g; fi",
	"while read -r l; do echo $l | tr a b; done < <(ls | sort)",
	"until false; do :; done",
	"for i in $(ls | head) a{1,2}; do echo $i; done",
	"for ((i=$(a|b); i<3; i++)); do echo; done",
	"f() { g | h; }; f",
	"case $(a) in x|$(b)) c | d;; *) e;; esac",
	"[[ $(a | b) == x && -n ${y:-$(c)} ]]",
	"(( x = $(a) + 1 ))",
	"let 'x = 1' y=$(b)",
	"declare -n r=v; local -n q; export A=$(b) B=2",
	"arr=( $(a) [3]=$(b | c) ); arr[$(d)]=e",
	"x=1 y=$(a | b) cmd ${z//$(c)/$(d)} ${w:$(e):2} ${!p} ${#q}",
	"cat <<EOF | sh\n$(a | b)\nEOF",
	"cat <<'EOF'\n$(not a command)\nEOF",
	"time a | b",
	"coproc c { a | b; }",
	"echo \"$(a \"$(b | c)\")\" `d | e`",
	"diff <(a | b) >(c)",
	"read -r x; mapfile y; printf -v z %s w; getopts ab o",
	"echo @(a|b) $((1 + $(c)))",
	"a | b | c | d | e | f",
	"{ a; b; } | (c; d) | e",
}

func TestCollectorMatchesSyntaxWalk(t *testing.T) {
	cmds := append([]string(nil), structuralCommands...)
	for _, b := range shellcorpus.Bypasses {
		cmds = append(cmds, b.Cmd)
	}
	cmds = append(cmds, shellcorpus.Benign...)
	cmds = append(cmds, shellcorpus.FuzzSeeds...)
	cmds = append(cmds, shellcorpus.Lists, shellcorpus.Nested)
	p := syntax.NewParser()
	for _, cmd := range cmds {
		f, err := p.Parse(strings.NewReader(cmd), "")
		if err != nil {
			continue
		}
		compareCollect(t, cmd, f)
	}
}

func compareCollect(t *testing.T, cmd string, f *syntax.File) {
	t.Helper()
	got, want := collectorResult(f), referenceCollect(f)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%q:\ncollector %v\nsyntax.Walk %v", cmd, got, want)
	}
}

func FuzzCollector(f *testing.F) {
	for _, c := range structuralCommands {
		f.Add(c)
	}
	for _, c := range shellcorpus.FuzzSeeds {
		f.Add(c)
	}
	p := syntax.NewParser()
	f.Fuzz(func(t *testing.T, cmd string) {
		file, err := p.Parse(strings.NewReader(cmd), "")
		if err != nil {
			return
		}
		compareCollect(t, cmd, file)
	})
}
