package cases

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"

	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/spec"
)

// ruleEntry is one rule of a policy as a target could leave it out: one pattern or substring of a regex or
// substring policy (a rule's list counts entry by entry), or one deny or ask rule of a permission policy.
type ruleEntry struct {
	// label names it in reports: "rule NAME", "rule NAME[2]" for the third entry of a list, or the
	// permission rule.
	label string
	// text is the pattern, substring or permission rule.
	text string
	// substring marks a literal substring.
	substring bool
	// without is the policy with this entry removed (and no examples), compiled; nil if it does not compile.
	without policy.Checker
}

// feature is the name of a rule entry in the spec features a run exercises.
func (e *ruleEntry) feature(pol string) string { return "policy " + pol + " " + e.label }

// ruleEntries lists the entries of a policy, each with the policy compiled without it.
func ruleEntries(p *spec.Policy) []*ruleEntry {
	var out []*ruleEntry
	switch string(p.Kind) {
	case "regex", "substring":
		for i, r := range p.Rules {
			texts, sub := entryTexts(r)
			for j, text := range texts {
				label := "rule " + ruleName(r, i)
				if len(texts) > 1 {
					label += fmt.Sprintf("[%d]", j)
				}
				cp := *p
				cp.Examples = nil
				cp.Rules = slices.Clone(p.Rules)
				if len(texts) == 1 {
					cp.Rules = slices.Delete(cp.Rules, i, i+1)
				} else {
					cp.Rules[i] = withoutEntry(r, j)
				}
				out = append(out, &ruleEntry{label: label, text: text, substring: sub, without: compileQuiet(cp)})
			}
		}
	case "permission":
		if p.Permission == nil {
			return nil
		}
		for _, list := range []struct {
			name  string
			rules []string
		}{{"deny", p.Permission.Deny}, {"ask", p.Permission.Ask}} {
			for j, text := range list.rules {
				cp := *p
				cp.Examples = nil
				perm := *p.Permission
				if list.name == "deny" {
					perm.Deny = slices.Delete(slices.Clone(perm.Deny), j, j+1)
				} else {
					perm.Ask = slices.Delete(slices.Clone(perm.Ask), j, j+1)
				}
				cp.Permission = &perm
				out = append(out, &ruleEntry{label: list.name + " rule " + text, text: text, without: compileQuiet(cp)})
			}
		}
	}
	return out
}

func ruleName(r spec.PolicyRule, i int) string {
	if r.Name != "" {
		return r.Name
	}
	return fmt.Sprintf("#%d", i)
}

func entryTexts(r spec.PolicyRule) ([]string, bool) {
	switch {
	case r.Pattern != "":
		return []string{r.Pattern}, false
	case len(r.Patterns) > 0:
		return r.Patterns, false
	case r.Substring != "":
		return []string{r.Substring}, true
	}
	return r.Substrings, true
}

func withoutEntry(r spec.PolicyRule, j int) spec.PolicyRule {
	if len(r.Patterns) > 0 {
		r.Patterns = slices.Delete(slices.Clone(r.Patterns), j, j+1)
	} else {
		r.Substrings = slices.Delete(slices.Clone(r.Substrings), j, j+1)
	}
	return r
}

// compileQuiet compiles a policy without one of its entries; a policy left with no rule, which may not
// compile, allows everything.
func compileQuiet(p spec.Policy) policy.Checker {
	c, err := policy.Compile(p, policy.SkipExamples())
	if err != nil {
		if len(p.Rules) == 0 && p.Permission == nil {
			return allowAll{}
		}
		return nil
	}
	return c
}

type allowAll struct{}

func (allowAll) Check(string) policy.Verdict { return policy.Verdict{Allowed: true, Decision: "allow"} }

// exercises reports whether command tells a policy from the policy without the entry: a target that
// left the entry out answers it differently.
func (e *ruleEntry) exercises(full policy.Checker, command string) bool {
	if e.without == nil {
		return false
	}
	a, b := full.Check(command), e.without.Check(command)
	return a.Allowed != b.Allowed || a.Message != b.Message || a.Decision != b.Decision
}

// derive makes commands that the entry alone blocks, from its text: the substring itself, a string the
// pattern matches (the shortest choice at each step, white space as a space), or a permission rule's
// pattern with its wildcards filled. It returns the first candidate that exercises the entry, or "".
func (e *ruleEntry) derive(full policy.Checker) string {
	for _, c := range e.candidates() {
		if !full.Check(c).Allowed && e.exercises(full, c) {
			return c
		}
	}
	return ""
}

func (e *ruleEntry) candidates() []string {
	if e.substring {
		return []string{e.text, "echo " + e.text}
	}
	if open := strings.IndexByte(e.text, '('); open > 0 && strings.HasSuffix(e.text, ")") && !strings.ContainsAny(e.text[:open], `\[`) {
		// A permission rule Tool(pattern): "git push:*" is "git push x" once normalized back.
		pat := e.text[open+1 : len(e.text)-1]
		pat = strings.ReplaceAll(pat, ":*", " x")
		pat = strings.ReplaceAll(pat, "**", "x")
		pat = strings.ReplaceAll(pat, "*", "x")
		return []string{pat, strings.Replace(pat, ":", " ", 1)}
	}
	// Python's \Z is the end of the text, Go's \z.
	re, err := syntax.Parse(strings.ReplaceAll(e.text, `\Z`, `\z`), syntax.Perl)
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range generate(re.Simplify(), 64) {
		out = append(out, s, "echo x "+s, s+" x")
	}
	return out
}

// matchingText is a short text a Go regular expression matches as a whole, without a line break, or "".
func matchingText(pattern string) string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return ""
	}
	full, err := regexp.Compile(`^(?:` + pattern + `)$`)
	if err != nil {
		return ""
	}
	for _, s := range generate(re.Simplify(), 64) {
		if s != "" && !strings.ContainsAny(s, "\n\r\x00") && full.MatchString(s) {
			return s
		}
	}
	return ""
}

// generate returns up to n short strings the expression matches: the shortest choices first (a star or an
// optional part absent, then present once), the first alternatives first.
func generate(re *syntax.Regexp, n int) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}
	case syntax.OpCharClass:
		return []string{string(pickRune(re.Rune))}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return []string{" "} // a space keeps word boundaries on both sides
	case syntax.OpCapture:
		return generate(re.Sub[0], n)
	case syntax.OpStar, syntax.OpQuest:
		return append([]string{""}, generate(re.Sub[0], n-1)...)
	case syntax.OpPlus:
		return generate(re.Sub[0], n)
	case syntax.OpRepeat:
		subs := generate(re.Sub[0], n)
		for i := range subs {
			subs[i] = strings.Repeat(subs[i], re.Min)
		}
		return subs
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			var next []string
			for _, prefix := range out {
				for _, s := range generate(sub, n) {
					if len(next) < n {
						next = append(next, prefix+s)
					}
				}
			}
			out = next
		}
		return out
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			for _, s := range generate(sub, n) {
				if len(out) < n {
					out = append(out, s)
				}
			}
		}
		return out
	}
	return []string{""} // empty matches, anchors and word boundaries
}

// pickRune chooses a rune of a class: a space for white space, else a plain letter, digit or slash, else
// the first printable rune.
func pickRune(ranges []rune) rune {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	for _, r := range " axz0/-." {
		if in(r) {
			return r
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < ranges[i]+256; r++ {
			if unicode.IsPrint(r) {
				return r
			}
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'x'
}
