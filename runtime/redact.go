package runtime

import (
	"regexp"
	"slices"
	"text/template"

	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/spec"
)

// redactor applies a spec's redaction rules (spec.Redact) to the texts its tools answer.
type redactor struct {
	rules  []redactRule
	tools  []string // empty: every tool
	errors bool
}

type redactRule struct {
	name    string
	re      *regexp.Regexp
	lits    *policy.Literals // a text without them is skipped: a rule costs a scan, not a regexp run
	replace *template.Template
}

// newRedactor compiles the rules (the loader checked that they compile).
func newRedactor(r *spec.Redact) (*redactor, error) {
	if r == nil {
		return nil, nil
	}
	out := &redactor{tools: r.Tools, errors: r.Errors}
	for _, rule := range r.Rules {
		re, err := regexp.Compile(rule.Pattern)
		if err != nil {
			return nil, err
		}
		t, err := spec.ParseTemplate("redact "+rule.Name, rule.Replace)
		if err != nil {
			return nil, err
		}
		out.rules = append(out.rules, redactRule{name: rule.Name, re: re, lits: policy.NewLiterals(rule.Pattern), replace: t})
	}
	return out, nil
}

// applies reports whether the rules apply to a tool's answers.
func (r *redactor) applies(tool string) bool {
	return r != nil && (len(r.tools) == 0 || slices.Contains(r.tools, tool))
}

// text applies every rule in order, each to what the rules before it left.
func (r *redactor) text(s string) string {
	for _, rule := range r.rules {
		if !rule.lits.MayMatch(s) || !rule.re.MatchString(s) {
			continue
		}
		s = rule.re.ReplaceAllStringFunc(s, func(m string) string {
			out, err := spec.Execute(rule.replace, &spec.Data{Name: rule.name, Match: m})
			if err != nil {
				return "[REDACTED]" // a replacement that fails never leaks the match
			}
			return out
		})
	}
	return s
}

// redact applies the variant's redaction to a text this call answers.
func (c *call) redact(s string) string {
	if !c.e.redact.applies(c.t.spec.Name) {
		return s
	}
	return c.e.redact.text(s)
}
