package shellsyntax

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/internal/shellcorpus"
	"mvdan.cc/sh/v3/syntax"
)

// FastParse must build exactly the tree mvdan.cc/sh builds, or decline.

var fastParseAccepts = []string{
	"ls",
	"ls -la",
	"git log --oneline -5 && echo \"hello world\" | grep -v foo; ",
	"a b && c \"d e\" | f 'g'; h || i",
	"a|b|c",
	"a | b | c | d",
	"a && b || c && d",
	"a || b | c && d | e",
	"a; b; c;",
	"  a  ;  b  ",
	"echo ''",
	"echo \"\"",
	"echo a\"b\"'c'd",
	"awk '{print $2}' file",
	"echo 'a;b|c&&d'",
	"echo \"x y\" 'z w'",
	"npm run build -- --prod",
	"git commit -m 'fix: a \"b\" c' --author=\"A B <a@b.c>\"",
	"\"if\" x",
	"echo if then fi",
	"x --opt=1",
	"echo a%b^c,d@e+f:g/h.i_j-k=l",
	"echo a=b=c +x @y ^z %w",
	"ls *.go src/*_test.go a?c ~ ~/x ~root/y a~b",
	"echo * ? ** *? ?* a*b*c",
	"go test ./... 2>&1 | tail -20",
	"a > f", "a >> f", "a < f", "a 2> f", "a 2>> f", "a 0< f", "a >&2", "a 2>&1", "a 1>&2", "a <&0",
	"a &> f", "a &>> f", "a >f b", "a 2>/dev/null && b", "a > 'f g' \"h\"", "a>f", "a2>f", "12 > f",
	"a 10>f", "a >& f", "> f a", "a 2&> f",
	"echo $HOME ${HOME} $a_1 ${_b2} $HOME/x ${A}b x$A \"$HOME\" \"a $B c\" \"${C}d$E\" \"$F\"$G'h'",
	"mkdir -p \"$X\" && cp -r ./dist/* \"$X/\" && ls -la \"$X\"", "a >$f", "a 2>\"$LOG\"",
	"A=1 b", "A=1", "A=1 B=2 c d=3", "X=$HOME/build; mkdir -p \"$X\"", "A=b\"c d\"$E'f' g", "_x9=1 y", "A=1 > f b",
	"a $(b)", "a \"$(b)\"", "a $(b $(c))", "echo \"$(date +%s) $(whoami) $(pwd)\" >> log.txt",
	"x=$(date) y", "a $(b; c)", "a $(b | c && d || e)", "a $( b )", "a $(b;)", "a $(b ;) c",
	"echo \"$(echo \"a b\")\"", "$(echo su)do id", "a x$(b)y\"$(c)\"", "cd $(git rev-parse --show-toplevel) && ls",
	"for f in a b; do c \"$f\"; d; done; e", "for f in src/*.go; do gofmt -l \"$f\" | tee -a out.txt; done;",
	"for x in 1; do for y in 2; do echo $x$y; done; done", "for i in $(ls); do echo $i; done | sort",
	"a && for i in x; do b; done || c", "for f in a;do b;done", "for  f  in  a  b ;  do  c ;  done",
	"echo for in do done", "fora b", "for f in a; do echo done; done", "x=$(for f in a; do b; done)",
	"A=1 B=x", "NODE_ENV=production node server.js", "A=~/x b", "A=\"x\" b", "A=$x b", "A='x' b", "A=${x}y", "cat < in.txt | sort > out.txt; wc -l < out.txt",
	"a\tb\t&&\tc\t|\td\t;\te",
	"echo 'x'\"y\"z'w' \"\" '' \"a b\"c",
	"echo \"(a) {b} [c] <d> #e ~f *g ?h &i |j ;k\"",
	"echo '$x `y` \\z !w \"v\"'",
}

var fastParseDeclines = []string{
	"", "   ", ";", "; a", "a;;", "a ;; b", "a &&", "a ||", "a |", "| a", "&& a", "a & b", "a &", "> f", "a >", "a > ;", "a > | b", "a <<EOF", "a <<< x", "a <> f", "a >| f",
	"a >(b)", "a <(b)", "a 2>&", "a &>", "a 2>&1 &",
	"a $1", "a $@", "a $?", "a $$", "a $#", "a ${x:-y}", "a ${#x}", "a ${x[1]}", "a ${!x}",
	"a $()", "a $((1+2))", "a $(b", "a)", "a $(b))", "$(if x)", "a $( (b) )", "a \"$(b\"", "a $(b &)",
	"for f; do a; done", "for f in; do a; done", "for f in a do b; done", "for f in a; do; done", "for f in a; do b done",
	"for f in a; do b; done c", "for f in a; do b; done > o", "for ((i=0;i<2;i++)); do a; done", "for 1 in a; do b; done",
	"for f in a;; do b; done", "for f in a; b; done", "for f in a; do b; done&", "for",
	"a $", "a \"$\"", "a \"a$\"", "a ${", "a ${x", "a ${1}", "a $'x'", "a $\"x\"", "a ${x}y}",
	"a && && b", "a | | b", "a |& b", "if x", "for x", "time a", "export A=1", "declare x", "let x=1",
	"a `b`", "A= b", "A+=1 b", "A[1]=2 b", "A=(1 2)", "1A=2 b", "A=1 if", "a \\b", "a [x]", "a *(x)", "a ?(x)", "a @(x)", "a +(x)", "a !(x)",
	"a {b,c}", "a # c", "(a)", "{ a; }", "a\nb", "a 'b", "a \"b", "a é", "a \"é\"", "! a",
	"a \"!x\"", "coproc a", "function f", "select x", "nameref x", "readonly x", "local x", "typeset x",
	"while x", "until x", "case x", "a;\tb\r", "a-b=c",
}

func TestFastParse(t *testing.T) {
	for _, src := range fastParseAccepts {
		if _, ok := FastParse(src, &Arena{}); !ok {
			t.Errorf("%q: declined", src)
		}
		compareFastParse(t, src)
	}
	for _, src := range fastParseDeclines {
		if _, ok := FastParse(src, &Arena{}); ok {
			t.Errorf("%q: accepted", src)
		}
	}
	for _, s := range shellcorpus.Shapes {
		compareFastParse(t, s.Cmd)
	}
	for _, b := range shellcorpus.Bypasses {
		compareFastParse(t, b.Cmd)
	}
	for _, c := range shellcorpus.Benign {
		compareFastParse(t, c)
	}
}

// TestFastParseSharedArena builds many trees in one arena, as nested scripts do within a check, and reuses
// it after a reset, as the next check does: every tree must still be mvdan.cc/sh's when the batch is done.
func TestFastParseSharedArena(t *testing.T) {
	var srcs []string
	for _, s := range shellcorpus.Shapes {
		srcs = append(srcs, s.Cmd)
	}
	srcs = append(srcs, fastParseAccepts...)
	srcs = append(srcs, shellcorpus.Benign...)
	var ar Arena
	for round := 0; round < 3; round++ {
		var batch []string
		var trees []*syntax.File
		for i, src := range srcs {
			if f, ok := FastParse(src, &ar); ok {
				batch, trees = append(batch, src), append(trees, f)
			}
			if len(batch) == 8 || i == len(srcs)-1 {
				for k, f := range trees {
					want, err := syntax.NewParser().Parse(strings.NewReader(batch[k]), "")
					if err != nil || !reflect.DeepEqual(f, want) {
						t.Fatalf("round %d: %q: the tree changed after later parses in the same arena (%v)", round, batch[k], err)
					}
				}
				batch, trees = nil, nil
				ar.Reset()
			}
		}
	}
}

// compareFastParse fails when FastParse accepts src and its tree is not mvdan.cc/sh's.
func compareFastParse(t *testing.T, src string) {
	t.Helper()
	got, ok := FastParse(src, &Arena{})
	if !ok {
		return
	}
	want, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		t.Errorf("%q: FastParse accepts what mvdan.cc/sh rejects: %v", src, err)
		return
	}
	if !reflect.DeepEqual(got, want) {
		var g, w bytes.Buffer
		syntax.DebugPrint(&g, got)
		syntax.DebugPrint(&w, want)
		gl, wl := strings.Split(g.String(), "\n"), strings.Split(w.String(), "\n")
		k := 0
		for k < len(gl) && k < len(wl) && gl[k] == wl[k] {
			k++
		}
		from := max(k-6, 0)
		t.Errorf("%q: trees differ at line %d\nFastParse:\n%s\nmvdan.cc/sh:\n%s", src, k+1,
			strings.Join(gl[from:min(k+3, len(gl))], "\n"), strings.Join(wl[from:min(k+3, len(wl))], "\n"))
	}
}

func FuzzFastParse(f *testing.F) {
	for _, s := range append(append([]string(nil), fastParseAccepts...), fastParseDeclines...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) { compareFastParse(t, src) })
}

func BenchmarkFastParse1KB(b *testing.B) {
	var ar Arena
	b.ReportAllocs()
	for b.Loop() {
		ar.Reset()
		if _, ok := FastParse(shellcorpus.Lists, &ar); !ok {
			b.Fatal("declined")
		}
	}
}
