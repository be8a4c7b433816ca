package policy

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentbash/agentbash/internal/shellcorpus"
	"mvdan.cc/sh/v3/syntax"
)

// Fuzz targets, one per engine: no panic, the same verdict twice, and properties of the verdict that a
// broken engine fails (a denied command appended to anything is denied; padding with white space the
// dialect ignores changes nothing). `go test -fuzz FuzzShell` (one target at a time) explores further; the
// seeds below run in every `go test`.

func fuzzCheckers(tb testing.TB, fragment string, names ...string) []Checker {
	cs := compileFragment(tb, fragment)
	var out []Checker
	for _, n := range names {
		out = append(out, cs[n])
	}
	return out
}

func checkStable(t *testing.T, c Checker, cmd string) Verdict {
	v1, v2 := c.Check(cmd), c.Check(cmd)
	if v1 != v2 {
		t.Fatalf("%q: %+v then %+v", cmd, v1, v2)
	}
	if v1.Allowed != (v1.Message == "") || v1.Allowed != (v1.Decision == "allow") {
		t.Fatalf("%q: inconsistent verdict %+v", cmd, v1)
	}
	return v1
}

// regexProperties are, per deny list, a command it denies wherever it stands after a separator, and
// whether the verdict is the same with blanks around the command: the toolregistry list strips its
// segments and the codegensandbox and agentrail patterns treat the start and end like blanks, while
// tunacode's `\$[^({a-zA-Z_]` sees a trailing blank after a final $.
var regexProperties = []struct {
	fragment, policy, denied string
	padding                  bool
}{
	{"toolregistry", "toolregistry_deny", "; sudo x", true},
	{"tunacode", "tunacode_security", " && rm x", false},
	{"codegensandbox", "codegensandbox_deny", "; sudo x", true},
	{"agentrail", "agentrail_dangerous", " ; mkfs x", true},
}

func FuzzRegex(f *testing.F) {
	for _, s := range shellcorpus.FuzzSeeds {
		f.Add(s)
	}
	f.Add("echo $")
	f.Add("rm -rf /  ")
	var cs []Checker
	for _, p := range regexProperties {
		cs = append(cs, fuzzCheckers(f, p.fragment, p.policy)...)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		for i, c := range cs {
			p := regexProperties[i]
			v := checkStable(t, c, cmd)
			if w := c.Check(cmd + p.denied); w.Allowed {
				t.Errorf("%s: %q is allowed, but %q is denied after anything", p.policy, cmd+p.denied, p.denied)
			}
			if p.padding {
				if w := c.Check(" \t" + cmd + "  "); w.Allowed != v.Allowed || w.Message != v.Message {
					t.Errorf("%s: %q gets %q, padded with blanks %q", p.policy, cmd, v.Message, w.Message)
				}
			}
		}
	})
}

// FuzzSubstring: a substring rule matches wherever its text stands, and a denied command stays denied
// inside any text.
func FuzzSubstring(f *testing.F) {
	for _, s := range shellcorpus.FuzzSeeds {
		f.Add(s, "x")
	}
	f.Add("mkf", "s")
	c := fuzzCheckers(f, "tunacode", "tunacode_destructive")[0]
	f.Fuzz(func(t *testing.T, cmd, around string) {
		v := checkStable(t, c, cmd)
		if w := c.Check(around + "fdisk" + cmd); w.Allowed {
			t.Errorf("%q contains fdisk and is allowed", around+"fdisk"+cmd)
		}
		if !v.Allowed {
			if w := c.Check(around + cmd + around); w.Allowed {
				t.Errorf("%q is denied, %q around it is allowed", cmd, around+cmd+around)
			}
		}
	})
}

// FuzzPermission checks the permission rules' order (bypassPermissions allows everything; deny, then ask,
// then allow; strict denies what no rule allows) on any rule and mode: the verdict of a rule in one list
// predicts the verdicts of the same rule in the others.
func FuzzPermission(f *testing.F) {
	f.Add("git status", "Bash(git:*)", "strict")
	f.Add("rm -rf x", "Bash(rm:**)", "default")
	f.Add("  x\u2028y", "Bash(*y)", "dontAsk")
	f.Add("a", "(", "acceptEdits")
	f.Add("ls", "Bash", "bypassPermissions")
	f.Add("ls", "Write(x)", "default")
	base := loadPolicies(f, "agentrail")[1]
	f.Fuzz(func(t *testing.T, cmd, rule, mode string) {
		_, perr := ParsePermissionRule(rule)
		check := func(h HostPermissions) (Verdict, bool) {
			c, err := Compile(base, WithPermissions(h))
			if err != nil {
				if perr == nil && permissionModes[mode] {
					t.Fatalf("rule %q mode %q: %v", rule, mode, err)
				}
				return Verdict{}, false
			}
			return checkStable(t, c, cmd), true
		}
		NormalizeBashCommand(cmd)
		deny, ok := check(HostPermissions{Mode: mode, Deny: []string{rule}})
		if !ok {
			return
		}
		ask, _ := check(HostPermissions{Mode: mode, Ask: []string{rule}})
		allow, _ := check(HostPermissions{Mode: mode, Allow: []string{rule}})
		all, _ := check(HostPermissions{Mode: mode, Deny: []string{rule}, Ask: []string{rule}, Allow: []string{rule}})
		askAllow, _ := check(HostPermissions{Mode: mode, Ask: []string{rule}, Allow: []string{rule}})
		none, _ := check(HostPermissions{Mode: mode})
		same := func(a, b Verdict) bool { return a.Decision == b.Decision && a.Message == b.Message }
		switch {
		case mode == "bypassPermissions":
			for _, v := range []Verdict{deny, ask, allow, all, askAllow, none} {
				if !v.Allowed {
					t.Errorf("bypassPermissions: %q with %q: %+v", cmd, rule, v)
				}
			}
			return
		case !same(all, deny):
			t.Errorf("%q with %q in every list: %s %q, in deny alone: %s %q", cmd, rule, all.Decision, all.Message, deny.Decision, deny.Message)
		case !same(askAllow, ask):
			t.Errorf("%q with %q in ask and allow: %s %q, in ask alone: %s %q", cmd, rule, askAllow.Decision, askAllow.Message, ask.Decision, ask.Message)
		}
		// The rule matches or it does not, whichever list it is in: a deny verdict that names it.
		matches := !deny.Allowed && deny.Rule == rule
		if !matches && !same(deny, none) {
			t.Errorf("%q: deny %q does not match, yet the verdict %+v is not the one without rules %+v", cmd, rule, deny, none)
		}
		if mode == "strict" && allow.Allowed != matches {
			t.Errorf("strict: %q with allow %q: allowed %v, with deny %q: denied %v", cmd, rule, allow.Allowed, rule, matches)
		}
		if matches && ask.Rule != rule {
			t.Errorf("%q matches %q in deny, not in ask: %+v", cmd, rule, ask)
		}
	})
}

// FuzzShell: besides stability, a command a top-level statement `sudo id` follows, or that follows
// `sudo id; `, is denied; a leading blank changes nothing; and a denied command stays denied as the
// script of bash -c --.
func FuzzShell(f *testing.F) {
	for _, s := range shellcorpus.FuzzSeeds {
		f.Add(s)
	}
	f.Add("# comment")
	f.Add("cat <<EOF")
	f.Add("echo \\")
	c := fuzzCheckers(f, "shell", "shell_guard")[0]
	p := syntax.NewParser()
	f.Fuzz(func(t *testing.T, cmd string) {
		v := checkStable(t, c, cmd)
		if w := c.Check(" " + cmd); w.Allowed != v.Allowed || w.Rule != v.Rule {
			t.Errorf("%q: %s %s, with a leading blank %s %s", cmd, v.Decision, v.Rule, w.Decision, w.Rule)
		}
		if w := c.Check("sudo id; " + cmd); w.Allowed {
			t.Errorf("%q is allowed", "sudo id; "+cmd)
		}
		joined := cmd + "\nsudo id"
		if lastStatementIs(p, joined, "sudo id") {
			if w := c.Check(joined); w.Allowed {
				t.Errorf("%q is allowed, its last statement is sudo id", joined)
			}
		}
		if !v.Allowed {
			// -- ends bash's options: a script starting with - or + is not read as one.
			nested := "bash -c -- '" + strings.ReplaceAll(cmd, "'", `'\''`) + "'"
			if w := c.Check(nested); w.Allowed {
				t.Errorf("%q is denied (%s), %q is allowed", cmd, v.Message, nested)
			}
		}
	})
}

// lastStatementIs reports that src parses (bash) and its last top-level statement is a plain simple
// command whose text is want, at the end of src.
func lastStatementIs(p *syntax.Parser, src, want string) bool {
	file, err := p.Parse(strings.NewReader(src), "")
	if err != nil || len(file.Stmts) == 0 {
		return false
	}
	st := file.Stmts[len(file.Stmts)-1]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 {
		return false
	}
	i, j := int(st.Pos().Offset()), int(st.End().Offset())
	return j == len(src) && i == len(src)-len(want) && src[i:j] == want
}

// FuzzDialect checks the subject mapping: one byte per character, offsets back to the original text.
func FuzzDialect(f *testing.F) {
	for _, s := range shellcorpus.FuzzSeeds {
		f.Add(s, `\b\w+\s`)
	}
	f.Fuzz(func(t *testing.T, s, pat string) {
		for _, d := range []dialect{dialectPython, dialectJS} {
			key := mapKey{fold: true, word: wordStandIn(pat, true)}
			sub := newSubject(s, d, key)
			if sub.span(0, len(sub.mapped)) != s {
				t.Fatalf("%q: span of everything is %q", s, sub.span(0, len(sub.mapped)))
			}
			if sub.offs != nil {
				if len(sub.mapped) != utf8.RuneCountInString(s) && utf8.ValidString(s) {
					t.Fatalf("%q: %d mapped bytes for %d characters", s, len(sub.mapped), utf8.RuneCountInString(s))
				}
				for i := 1; i < len(sub.offs); i++ {
					if sub.offs[i] <= sub.offs[i-1] {
						t.Fatalf("%q: offsets not increasing at %d", s, i)
					}
				}
			}
			if p, err := compileDialect(d, pat, true); err == nil {
				if m := p.re.FindStringIndex(sub.mapped); m != nil && !strings.Contains(s, sub.span(m[0], m[1])) {
					t.Fatalf("%q: match %q is not in the text", s, sub.span(m[0], m[1]))
				}
			}
		}
	})
}
