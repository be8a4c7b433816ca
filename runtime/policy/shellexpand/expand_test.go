package shellexpand

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime/policy/shellsyntax"
	"mvdan.cc/sh/v3/syntax"
)

// lastLine expands the words of the script's last command (of the body of a loop that ends it) after
// recording what the script assigns, and prints each alternative as its fields separated by spaces: a known field as its text, a
// dynamic one as <known text before|known text after>.
func lastLine(t *testing.T, src string) string {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	var c shellsyntax.Collector
	c.File(f)
	var ar Arena
	var sc Scope
	sc.Init(&ar, src, nil)
	sc.Prepass(&c)
	st := f.Stmts[len(f.Stmts)-1]
	if fc, ok := st.Cmd.(*syntax.ForClause); ok {
		st = fc.Do[len(fc.Do)-1]
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		t.Fatalf("%q: the last statement is not a command", src)
	}
	var alts []string
	for _, argv := range sc.Words(call.Args) {
		var fs []string
		for _, fl := range argv {
			if fl.Dyn {
				fs = append(fs, "<"+fl.Prefix()+"|"+fl.Suffix()+">")
			} else {
				fs = append(fs, fl.Val)
			}
		}
		alts = append(alts, strings.Join(fs, " "))
	}
	return strings.Join(alts, " / ")
}

// TestWords pins what the static expansion makes of the spellings the shell policy must see through.
// The expected command lines, alternatives separated by " / ", were worked out by reading the bash
// manual's EXPANSION section (nothing is run): bash's own, or, where a value is only known at run time,
// each value the expansion must keep; "... / X / ..." asks for X among other alternatives.
func TestWords(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`'r''m' -rf /`, `rm -rf /`},
		{`r\m -rf /`, `rm -rf /`},
		{`$'\x72m' -rf /`, `rm -rf /`},
		{`$'\163udo' id`, `sudo id`},
		{`"s"'u'do id`, `sudo id`},
		{`x=su; ${x}do id`, `sudo id`},
		// Flow-insensitive: x is su, sudo or, from the append applied on each settling pass, more.
		{`x=su; x+=do; $x id`, `... / sudo id / ...`},
		{`x=a; x=b; $x`, `a / b`},
		{`rm${IFS}-rf${IFS}/`, `rm -rf /`},
		{`IFS=,; c=rm,-rf,/; $c`, `rm -rf /`},
		{`r${IFS:0:0}m`, `rm`},
		{`{rm,-rf,/}`, `rm -rf /`},
		{`/usr/bin/{sudo,ls} id`, `/usr/bin/sudo /usr/bin/ls id`},
		{`$(echo su)do id`, `sudo id`},
		{`"$(printf 'su%s' do)" id`, `sudo id`},
		{`a=(sudo id); "${a[@]}"`, `sudo id`},
		{`y=REBOOT; ${y,,}`, `reboot`},
		{`x=xudo; ${x/x/s} id`, `sudo id`},
		{`for c in sudo ls; do $c; done`, `sudo / ls`},
		{`echo $1 "$HOME/x" pre$(date)post`, `echo <|> <|/x> <pre|post>`},
		{`read x; $x`, `<|>`},
		{`echo "${u:-dflt}"`, `echo <|> / echo dflt`},
		{`echo "${u:+alt}"`, `echo <|> / echo  / echo alt`},
		{`echo $((1 + 2)) $(( $n + 1 ))`, `echo 3 <|>`},
	} {
		got := lastLine(t, tc.src)
		if inner, ok := strings.CutPrefix(tc.want, "... / "); ok {
			// Among others: the alternatives include this one.
			if inner = strings.TrimSuffix(inner, " / ..."); !slices.Contains(strings.Split(got, " / "), inner) {
				t.Errorf("%q: %q, want %q among the alternatives", tc.src, got, inner)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestNestedVars: a nested script's scope sees its parent's variables and adds its own.
func TestNestedVars(t *testing.T) {
	var ar Arena
	var outer, inner Scope
	src := `x=su`
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	var c shellsyntax.Collector
	c.File(f)
	outer.Init(&ar, src, nil)
	outer.Prepass(&c)
	inner.Init(&ar, "", outer.Vars())
	w := &syntax.Word{Parts: []syntax.WordPart{&syntax.ParamExp{Short: true, Param: &syntax.Lit{Value: "x"}}, &syntax.Lit{Value: "do"}}}
	got := inner.Word(w, MaxAlts)
	if len(got) != 1 || len(got[0]) != 1 || got[0][0].Dyn || got[0][0].Val != "sudo" {
		t.Errorf("nested $x\"do\": %+v", got)
	}
}
