package policy

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentbash/agentbash/runtime/policy/internal/shellcorpus"
)

// Fuzz targets, one per engine: no panic, and the same verdict twice. `go test -fuzz FuzzShell` (one target
// at a time) explores further; the seeds below run in every `go test`.

func fuzzCheckers(tb testing.TB, fragment string, names ...string) []Checker {
	cs := compileFragment(tb, fragment)
	var out []Checker
	for _, n := range names {
		out = append(out, cs[n])
	}
	return out
}

func checkStable(t *testing.T, c Checker, cmd string) {
	v1, v2 := c.Check(cmd), c.Check(cmd)
	if v1 != v2 {
		t.Fatalf("%q: %+v then %+v", cmd, v1, v2)
	}
	if v1.Allowed != (v1.Message == "") || v1.Allowed != (v1.Decision == "allow") {
		t.Fatalf("%q: inconsistent verdict %+v", cmd, v1)
	}
}

func FuzzRegex(f *testing.F) {
	for _, s := range shellcorpus.FuzzSeeds {
		f.Add(s)
	}
	cs := append(fuzzCheckers(f, "toolregistry", "toolregistry_deny"), fuzzCheckers(f, "tunacode", "tunacode_security")...)
	cs = append(cs, fuzzCheckers(f, "codegensandbox", "codegensandbox_deny")...)
	cs = append(cs, fuzzCheckers(f, "agentrail", "agentrail_dangerous")...)
	f.Fuzz(func(t *testing.T, cmd string) {
		for _, c := range cs {
			checkStable(t, c, cmd)
		}
	})
}

func FuzzSubstring(f *testing.F) {
	for _, s := range shellcorpus.FuzzSeeds {
		f.Add(s)
	}
	cs := fuzzCheckers(f, "tunacode", "tunacode_destructive")
	f.Fuzz(func(t *testing.T, cmd string) {
		checkStable(t, cs[0], cmd)
	})
}

func FuzzPermission(f *testing.F) {
	f.Add("git status", "Bash(git:*)", "strict")
	f.Add("rm -rf x", "Bash(rm:**)", "default")
	f.Add("  x\u2028y", "Bash(*y)", "dontAsk")
	f.Add("a", "(", "acceptEdits")
	base := loadPolicies(f, "agentrail")[1]
	f.Fuzz(func(t *testing.T, cmd, rule, mode string) {
		_, perr := ParsePermissionRule(rule)
		for _, h := range []HostPermissions{{Mode: mode, Deny: []string{rule}}, {Mode: mode, Ask: []string{rule}}, {Mode: mode, Allow: []string{rule}}} {
			c, err := Compile(base, WithPermissions(h))
			if err != nil {
				if perr == nil && permissionModes[mode] {
					t.Fatalf("rule %q mode %q: %v", rule, mode, err)
				}
				continue
			}
			checkStable(t, c, cmd)
		}
		NormalizeBashCommand(cmd)
	})
}

func FuzzShell(f *testing.F) {
	for _, s := range shellcorpus.FuzzSeeds {
		f.Add(s)
	}
	c := fuzzCheckers(f, "shell", "shell_guard")[0]
	f.Fuzz(func(t *testing.T, cmd string) {
		checkStable(t, c, cmd)
	})
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
