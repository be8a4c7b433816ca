package policy

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentbash/agentbash/spec"
)

// wildcardRegexp is a wildcard pattern as the table language matches it: backslashes read as `/`, `*` any
// text (new lines too), `?` one character, everything else literal, anchored at both ends; a trailing ` *`
// may also match nothing (`git *` matches `git`).
func wildcardRegexp(pattern string) *regexp.Regexp {
	pattern = strings.ToValidUTF8(strings.ReplaceAll(pattern, `\`, "/"), "\uFFFD")
	optionalTail := strings.HasSuffix(pattern, " *")
	if optionalTail {
		pattern = strings.TrimSuffix(pattern, " *")
	}
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for i, part := range strings.Split(pattern, "*") {
		if i > 0 {
			b.WriteString(`.*`)
		}
		for j, lit := range strings.Split(part, "?") {
			if j > 0 {
				b.WriteString(`.`)
			}
			b.WriteString(regexp.QuoteMeta(lit))
		}
	}
	if optionalTail {
		b.WriteString(`(?: .*)?`)
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// MatchWildcard reports whether command matches a wildcard-table pattern (spec.WildcardPolicy).
func MatchWildcard(pattern, command string) bool {
	return wildcardRegexp(pattern).MatchString(strings.ReplaceAll(command, `\`, "/"))
}

type wildcardRule struct {
	spec.WildcardRule
	re *regexp.Regexp
}

// wildcardEngine is a wildcard policy.
type wildcardEngine struct {
	base
	rules  []wildcardRule // in the order Select reads them: the last match decides
	table  []spec.WildcardRule
	def    spec.Decision
	skip   map[string]bool
	askMsg *message
	// allowsAll: the table allows every command (its deciding rule for any command is an allow: every
	// rule and the default allow, or the rule read last matches everything and allows).
	allowsAll bool
}

func compileWildcard(b base, p spec.Policy) (Checker, error) {
	wp := p.Wildcard
	e := &wildcardEngine{base: b, def: wp.Default, table: wp.Rules, skip: map[string]bool{}}
	for _, r := range wp.Rules {
		e.rules = append(e.rules, wildcardRule{WildcardRule: r, re: wildcardRegexp(r.Pattern)})
	}
	if wp.Select == spec.SelectLongest {
		// A stable sort by length, then text (JavaScript's sort compares the UTF-16 code units; for the
		// ASCII of command patterns that is the byte order).
		slices.SortStableFunc(e.rules, func(a, b wildcardRule) int {
			return cmp.Or(cmp.Compare(len(a.Pattern), len(b.Pattern)), strings.Compare(a.Pattern, b.Pattern))
		})
	}
	e.allowsAll = wp.Default == spec.DecisionAllow
	for _, r := range e.rules {
		e.allowsAll = e.allowsAll && r.Decision == spec.DecisionAllow
	}
	if n := len(e.rules); n > 0 && strings.Trim(e.rules[n-1].Pattern, "*") == "" && e.rules[n-1].Decision == spec.DecisionAllow {
		e.allowsAll = true
	}
	for _, s := range wp.Skip {
		e.skip[s] = true
	}
	if wp.AskMessage != "" {
		m, err := compileMessage(p.Name, wp.AskMessage)
		if err != nil {
			return nil, &Error{Policy: p.Name, Field: "wildcard.ask_message", Err: err}
		}
		e.askMsg = m
	}
	return e, nil
}

// decide is the decision of the table on one command, with the deciding pattern ("" for the default).
func (e *wildcardEngine) decide(command string) (spec.Decision, string) {
	subject := strings.ReplaceAll(command, `\`, "/")
	for i := len(e.rules) - 1; i >= 0; i-- {
		if e.rules[i].re.MatchString(subject) {
			return e.rules[i].Decision, e.rules[i].Pattern
		}
	}
	return e.def, ""
}

// Check implements Checker: every simple command is decided by the table; the first deny denies, else
// the first ask asks, else the command line is allowed.
func (e *wildcardEngine) Check(command string) Verdict {
	if e.allowsAll {
		// Every command is allowed, so the line is: nothing to parse.
		return e.allow()
	}
	return strictest(e.commands(command), func(part string) Verdict {
		switch d, pattern := e.decide(part); d {
		case spec.DecisionDeny:
			return e.block(d, e.data(command, part, pattern, d), nil)
		case spec.DecisionAsk:
			return e.block(d, e.data(command, part, pattern, d), e.askMsg)
		}
		return e.allow()
	}, e.allow)
}

func (e *wildcardEngine) data(command, part, pattern string, d spec.Decision) *Data {
	return &Data{Command: command, Segment: part, Content: part, Pattern: pattern, Rule: pattern,
		Decision: string(d), Rules: e.table}
}

// commands lists the simple commands of a command line to check, each as its source text (with the
// redirections of its statement when it has any), trimmed, in source order; the commands whose name is
// skipped are left out. A command line that does not parse is one command, itself.
func (e *wildcardEngine) commands(command string) []string {
	out, ok := commandTexts(command, true, e.skip)
	if !ok {
		return []string{strings.TrimSpace(command)}
	}
	return out
}

// commandTexts lists the simple commands of command with a name not in skip (withRedirs: a command's text
// includes the redirections of its statement); false when the command line does not parse.
func commandTexts(command string, withRedirs bool, skip map[string]bool) ([]string, bool) {
	bp := getBashParser()
	defer bp.put()
	f, err := bp.parse(command)
	if err != nil {
		return nil, false
	}
	var out []string
	text := func(from, to syntax.Pos) string {
		s, t := int(from.Offset()), int(to.Offset())
		if s < 0 || t > len(command) || s >= t {
			return ""
		}
		return strings.TrimSpace(command[s:t])
	}
	var stmt *syntax.Stmt
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			stmt = n
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			if name, ok := literal(n.Args[0]); ok && skip[name] {
				return true
			}
			s := text(n.Pos(), n.End())
			if withRedirs && stmt != nil && stmt.Cmd == n && len(stmt.Redirs) > 0 {
				end := stmt.End()
				if stmt.Semicolon.IsValid() && stmt.Semicolon.Offset() >= stmt.Pos().Offset() {
					end = stmt.Semicolon // the ;, & or |& that ends it is not part of it
				}
				s = text(stmt.Pos(), end)
			}
			if s != "" {
				out = append(out, s)
			}
		}
		return true
	})
	return out, true
}

// literal is a word's text when it is written without quotes, expansions or escapes.
func literal(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	return l.Value, true
}
