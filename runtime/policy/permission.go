package policy

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentbash/agentbash/spec"
)

// PermissionRule is a parsed `Tool` or `Tool(pattern)` rule.
type PermissionRule struct {
	// Tool is the tool name (case-sensitive).
	Tool string
	// Pattern is the content pattern; empty means every call of the tool.
	Pattern string
}

// RuleError is a permission rule that does not parse. Its text is the rule language's own, exactly:
// `Invalid permission rule: empty string`, `Invalid permission rule "<rule>": <problem>`, and for a list
// `Permission rule at index <i> is invalid: <that text>`.
type RuleError struct {
	// Rule is the rule as written.
	Rule string
	// Problem is empty string, missing closing parenthesis, tool name is empty, or pattern inside
	// parentheses is empty.
	Problem string
	// Index is the rule's place in its list, or -1 for a rule parsed alone.
	Index int
}

func (e *RuleError) Error() string {
	msg := "Invalid permission rule \"" + e.Rule + "\": " + e.Problem
	if e.Problem == "empty string" {
		msg = "Invalid permission rule: empty string"
	}
	if e.Index >= 0 {
		return "Permission rule at index " + strconv.Itoa(e.Index) + " is invalid: " + msg
	}
	return msg
}

// ParsePermissionRule parses `Tool` or `Tool(pattern)` with the rule language's parsing and exact error messages
// (a *RuleError): the text is trimmed; without `(` it is a bare tool name; otherwise it must end with `)`,
// and both the tool name before `(` and the pattern inside (each trimmed) must be non-empty.
func ParsePermissionRule(s string) (PermissionRule, error) {
	fail := func(problem string) (PermissionRule, error) {
		return PermissionRule{}, &RuleError{Rule: s, Problem: problem, Index: -1}
	}
	trimmed := jsTrim(s)
	if trimmed == "" {
		return fail("empty string")
	}
	open := strings.IndexByte(trimmed, '(')
	if open < 0 {
		return PermissionRule{Tool: trimmed}, nil
	}
	if !strings.HasSuffix(trimmed, ")") {
		return fail("missing closing parenthesis")
	}
	tool := jsTrim(trimmed[:open])
	if tool == "" {
		return fail("tool name is empty")
	}
	// The text ends with ")" and has "(" before it, so open+1 <= len-1.
	pattern := jsTrim(trimmed[open+1 : len(trimmed)-1])
	if pattern == "" {
		return fail("pattern inside parentheses is empty")
	}
	return PermissionRule{Tool: tool, Pattern: pattern}, nil
}

// ParsePermissionRules parses a list of rules; an error (a *RuleError) names the index:
// `Permission rule at index <i> is invalid: <message>`.
func ParsePermissionRules(rules []string) ([]PermissionRule, error) {
	out := make([]PermissionRule, 0, len(rules))
	for i, s := range rules {
		r, err := ParsePermissionRule(s)
		if err != nil {
			re := *err.(*RuleError)
			re.Index = i
			return nil, &re
		}
		out = append(out, r)
	}
	return out, nil
}

// permissionPatternRegexp is the rule language's glob: prefix-anchored; `**` is any text, `*` any text but `/` in
// path mode and any text in command mode; everything else literal. "Any text" is JavaScript's `.*`, which
// stops at line terminators (\n, \r, U+2028, U+2029); `[^/]` crosses them.
func permissionPatternRegexp(pattern string, command bool) *regexp.Regexp {
	const anyText = `[^\n\r\x{2028}\x{2029}]*`
	single := `[^/]*`
	if command {
		single = anyText
	}
	// The match is prefix-anchored, so trailing stars (which can match nothing) change nothing; dropping
	// them keeps RE2 from scanning the rest of the command.
	pattern = strings.TrimRight(pattern, "*")
	var b strings.Builder
	b.WriteString(`^`)
	for i, seg := range strings.Split(pattern, "**") {
		if i > 0 {
			b.WriteString(anyText)
		}
		for j, part := range strings.Split(seg, "*") {
			if j > 0 {
				b.WriteString(single)
			}
			// Rules reach JavaScript as strings, invalid UTF-8 already decoded to U+FFFD; doing the same
			// keeps RE2 (which rejects invalid UTF-8 in a pattern) from failing.
			b.WriteString(regexp.QuoteMeta(strings.ToValidUTF8(part, "\uFFFD")))
		}
	}
	return regexp.MustCompile(b.String())
}

// MatchPermissionPattern reports whether content matches a permission glob pattern (command selects
// command mode, where `*` also matches `/`).
func MatchPermissionPattern(pattern, content string, command bool) bool {
	return permissionPatternRegexp(pattern, command).MatchString(content)
}

var verbColon = regexp.MustCompile(`^([^\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]+)[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]+`)

// NormalizeBashCommand is the rule language's normalisation: trim leading white space (JavaScript's trimStart), then
// replace the first run of white space after the first word with `:` (`git status` -> `git:status`).
// White space is JavaScript's \s.
func NormalizeBashCommand(command string) string {
	t := jsTrimStart(command)
	if m := verbColon.FindStringSubmatchIndex(t); m != nil {
		return t[:m[3]] + ":" + t[m[1]:]
	}
	return t
}

// NormalizeFirstSpace is the earlier normalisation (agentrail at eb5ebc18): trim leading white space
// (JavaScript's trimStart), then replace the first space character, and only it, with `:`
// (`git  status` -> `git: status`; a tab does not count).
func NormalizeFirstSpace(command string) string {
	t := jsTrimStart(command)
	if i := strings.IndexByte(t, ' '); i >= 0 {
		return t[:i] + ":" + t[i+1:]
	}
	return t
}

type permRule struct {
	text string
	PermissionRule
	re *regexp.Regexp
}

// permEngine is a permission policy.
type permEngine struct {
	base
	tool      string
	command   bool
	normalize func(string) string
	mode      string
	deny      []permRule
	ask       []permRule
	allows    []permRule
	editTools map[string]bool
	askMsg    *message
}

var permissionModes = map[string]bool{"default": true, "acceptEdits": true, "bypassPermissions": true, "dontAsk": true, "strict": true}

func compilePermission(b base, p spec.Policy, host *HostPermissions) (Checker, error) {
	pp := p.Permission
	if pp == nil {
		return nil, &Error{Policy: p.Name, Field: "permission", Err: errors.New("a permission policy needs a permission block")}
	}
	if pp.Tool == "" {
		return nil, &Error{Policy: p.Name, Field: "permission.tool", Err: errors.New("needs the tool name the rules are written for")}
	}
	e := &permEngine{base: b, tool: pp.Tool, mode: pp.Mode, editTools: map[string]bool{}}
	switch pp.Match {
	case "", "path":
	case "command":
		e.command = true
	default:
		return nil, &Error{Policy: p.Name, Field: "permission.match", Err: fmt.Errorf("unknown match %q (path, command)", pp.Match)}
	}
	switch pp.Normalize {
	case "", "none":
	case "verb_colon":
		e.normalize = NormalizeBashCommand
	case "first_space":
		e.normalize = NormalizeFirstSpace
	default:
		return nil, &Error{Policy: p.Name, Field: "permission.normalize", Err: fmt.Errorf("unknown normalize %q (none, verb_colon, first_space)", pp.Normalize)}
	}
	allow, deny, ask := pp.Allow, pp.Deny, pp.Ask
	src := "permission."
	if host != nil {
		e.mode, allow, deny, ask = host.Mode, host.Allow, host.Deny, host.Ask
		src = "host."
	}
	if e.mode == "" {
		e.mode = "default"
	}
	if !permissionModes[e.mode] {
		return nil, &Error{Policy: p.Name, Field: src + "mode", Err: fmt.Errorf("unknown mode %q (default, acceptEdits, bypassPermissions, dontAsk, strict)", e.mode)}
	}
	tools := pp.EditTools
	if len(tools) == 0 {
		tools = []string{"Write", "Edit"}
	}
	for _, t := range tools {
		e.editTools[t] = true
	}
	var errs []error
	parse := func(list string, rules []string) []permRule {
		parsed, err := ParsePermissionRules(rules)
		if err != nil {
			errs = append(errs, &Error{Policy: p.Name, Field: src + list, Err: err})
			return nil
		}
		out := make([]permRule, len(parsed))
		for i, r := range parsed {
			out[i] = permRule{text: rules[i], PermissionRule: r}
			if r.Pattern != "" {
				out[i].re = permissionPatternRegexp(r.Pattern, e.command)
			}
		}
		return out
	}
	e.allows, e.deny, e.ask = parse("allow", allow), parse("deny", deny), parse("ask", ask)
	if pp.AskMessage != "" {
		m, err := compileMessage(p.Name, pp.AskMessage, 0)
		if err != nil {
			errs = append(errs, &Error{Policy: p.Name, Field: "permission.ask_message", Err: err})
		}
		e.askMsg = m
	}
	if b.msg == nil {
		errs = append(errs, &Error{Policy: p.Name, Field: "message", Err: errors.New("a permission policy needs a message")})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *permEngine) match(rules []permRule, content string) (string, bool) {
	for _, r := range rules {
		if r.Tool != e.tool {
			continue
		}
		if r.Pattern == "" || r.re.MatchString(content) {
			return r.text, true
		}
	}
	return "", false
}

// Check implements Checker: bypassPermissions allows; then deny rules; then ask rules (dontAsk makes
// them deny, acceptEdits makes them allow for edit tools); then allow rules; then strict denies and every
// other mode allows.
func (e *permEngine) Check(command string) Verdict {
	content := command
	if e.normalize != nil {
		content = e.normalize(command)
	}
	d := Data{Command: command, Tool: e.tool, Content: content, Mode: e.mode, Segment: content}
	if e.mode == "bypassPermissions" {
		return e.allow()
	}
	if rule, ok := e.match(e.deny, content); ok {
		d.PermissionRule, d.Rule, d.Decision = rule, rule, "deny"
		return e.block("deny", &d, nil)
	}
	if rule, ok := e.match(e.ask, content); ok {
		d.PermissionRule, d.Rule = rule, rule
		switch {
		case e.mode == "dontAsk":
			d.Decision = "deny"
			return e.block("deny", &d, nil)
		case e.mode == "acceptEdits" && e.editTools[e.tool]:
			return e.allow()
		}
		d.Decision = "ask"
		return e.block("ask", &d, e.askMsg)
	}
	if _, ok := e.match(e.allows, content); ok {
		return e.allow()
	}
	if e.mode == "strict" {
		d.Decision = "deny"
		return e.block("deny", &d, nil)
	}
	return e.allow()
}
