package policy

import (
	"errors"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentbash/agentbash/spec"
)

// PermissionRule is a parsed `Tool` or `Tool(pattern)` rule (the spec checks a policy's rules).
type PermissionRule = spec.PermissionRule

// RuleError is a permission rule that does not parse, in the rule language's own words.
type RuleError = spec.RuleError

// ParsePermissionRule parses `Tool` or `Tool(pattern)` (spec.ParsePermissionRule).
func ParsePermissionRule(s string) (PermissionRule, error) { return spec.ParsePermissionRule(s) }

// ParsePermissionRules parses a list of rules (spec.ParsePermissionRules).
func ParsePermissionRules(rules []string) ([]PermissionRule, error) {
	return spec.ParsePermissionRules(rules)
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

// NormalizeFirstSpace is an earlier form of the rule language's normalisation: trim leading white space
// (JavaScript's trimStart), then replace the first space character, and only it, with `:`
// (`git  status` -> `git: status`; a tab does not count).
func NormalizeFirstSpace(command string) string {
	t := jsTrimStart(command)
	if i := strings.IndexByte(t, ' '); i >= 0 {
		// mutate: permission-first-space
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
	mode      spec.PermissionMode
	deny      []permRule
	ask       []permRule
	allows    []permRule
	editTools map[string]bool
	askMsg    *message
	split     bool // check each subcommand apart
	// allowsAll: no deny or ask rule for the tool and a mode that allows what no rule decides (every mode
	// but strict), or bypassPermissions: every command, and every subcommand, is allowed.
	allowsAll bool
}

// permissionModes are the modes a host may give (HostPermissions.Mode), "" being the default.
var permissionModes = func() map[string]bool {
	m := map[string]bool{}
	for _, mode := range spec.PermissionModes {
		m[string(mode)] = true
	}
	return m
}()

// compilePermission compiles a checked permission policy (its defaults filled), with the host's mode and
// rules instead of its own when host is given.
func compilePermission(b base, p spec.Policy, host *HostPermissions) (Checker, error) {
	pp := p.Permission
	e := &permEngine{base: b, tool: pp.Tool, mode: pp.Mode, command: pp.Match == spec.MatchCommand || pp.Match == spec.MatchPrefix,
		editTools: map[string]bool{}, split: pp.Subcommands}
	switch pp.Normalize {
	case spec.NormalizeVerbColon:
		e.normalize = NormalizeBashCommand
	case spec.NormalizeFirstSpace:
		e.normalize = NormalizeFirstSpace
	}
	allow, deny, ask := pp.Allow, pp.Deny, pp.Ask
	src := "permission."
	if host != nil {
		e.mode, allow, deny, ask = spec.PermissionMode(host.Mode), host.Allow, host.Deny, host.Ask
		src = "host."
		if e.mode == "" {
			e.mode = spec.ModeDefault
		}
		if err := e.mode.Check(); err != nil {
			return nil, &Error{Policy: p.Name, Field: src + "mode", Err: err}
		}
	}
	for _, t := range pp.EditTools {
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
			switch {
			case r.Pattern == "":
			case pp.Match == spec.MatchPrefix && strings.HasSuffix(r.Pattern, ":*"):
				// A word prefix: the text before ":*", alone or followed by white space.
				p := strings.ToValidUTF8(strings.TrimSuffix(r.Pattern, ":*"), "\uFFFD")
				out[i].re = regexp.MustCompile(`^` + regexp.QuoteMeta(p) + `(?:$|\s)`)
			default:
				out[i].re = permissionPatternRegexp(r.Pattern, e.command)
			}
		}
		return out
	}
	e.allows, e.deny, e.ask = parse("allow", allow), parse("deny", deny), parse("ask", ask)
	forTool := func(rules []permRule) bool {
		for _, r := range rules {
			if r.Tool == e.tool {
				return true
			}
		}
		return false
	}
	e.allowsAll = e.mode == spec.ModeBypassPermissions || (e.mode != spec.ModeStrict && !forTool(e.deny) && !forTool(e.ask))
	if pp.AskMessage != "" {
		m, err := compileMessage(p.Name, pp.AskMessage)
		if err != nil {
			errs = append(errs, &Error{Policy: p.Name, Field: "permission.ask_message", Err: err})
		}
		e.askMsg = m
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
//
// With subcommands, each command of a compound command is checked so: the first deny denies, else the
// first ask asks, else the command is allowed.
func (e *permEngine) Check(command string) Verdict {
	if e.allowsAll {
		// What check answers for every command (and every subcommand), without parsing.
		return e.allow()
	}
	if !e.split {
		return e.check(command, command)
	}
	parts := subcommands(command)
	if len(parts) <= 1 {
		return e.check(command, command)
	}
	return strictest(parts, func(part string) Verdict { return e.check(command, part) }, e.allow)
}

// strictest is the verdict on a command line whose parts are checked one by one: the first part denied
// denies the line, else the first asked for asks, else the line is allowed.
func strictest(parts []string, check func(part string) Verdict, allow func() Verdict) Verdict {
	var ask *Verdict
	for _, part := range parts {
		v := check(part)
		switch {
		case v.Allowed:
		case v.Decision == spec.DecisionAsk:
			if ask == nil {
				ask = &v
			}
		default:
			return v
		}
	}
	if ask != nil {
		return *ask
	}
	return allow()
}

// subcommands lists the commands a compound command joins with ;, &, &&, ||, | and newlines, each as
// written (its source text); nil when the command does not parse.
func subcommands(command string) []string {
	bp := getBashParser()
	defer bp.put()
	f, err := bp.parse(command)
	if err != nil {
		return nil
	}
	var out []string
	var walk func(s *syntax.Stmt)
	walk = func(s *syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && len(s.Redirs) == 0 && !s.Negated {
			walk(b.X)
			walk(b.Y)
			return
		}
		start, end := s.Pos().Offset(), s.End().Offset()
		if s.Semicolon.IsValid() && s.Semicolon.Offset() >= start {
			end = s.Semicolon.Offset() // the ;, & or |& that ends it is not part of it
		}
		if int(end) <= len(command) && start < end {
			out = append(out, strings.TrimSpace(command[start:end]))
		}
	}
	for _, s := range f.Stmts {
		walk(s)
	}
	return out
}

// check checks one command (part, the whole command or one of its subcommands).
func (e *permEngine) check(command, part string) Verdict {
	content := part
	if e.normalize != nil {
		content = e.normalize(part)
	}
	d := Data{Command: command, Tool: e.tool, Content: content, Mode: string(e.mode), Segment: content}
	if e.mode == spec.ModeBypassPermissions {
		return e.allow()
	}
	if rule, ok := e.match(e.deny, content); ok {
		d.PermissionRule, d.Rule, d.Decision = rule, rule, string(spec.DecisionDeny)
		return e.block(spec.DecisionDeny, &d, nil)
	}
	if rule, ok := e.match(e.ask, content); ok {
		d.PermissionRule, d.Rule = rule, rule
		switch {
		case e.mode == spec.ModeDontAsk:
			d.Decision = string(spec.DecisionDeny)
			return e.block(spec.DecisionDeny, &d, nil)
		case e.mode == spec.ModeAcceptEdits && e.editTools[e.tool]:
			return e.allow()
		}
		d.Decision = string(spec.DecisionAsk)
		return e.block(spec.DecisionAsk, &d, e.askMsg)
	}
	if _, ok := e.match(e.allows, content); ok {
		return e.allow()
	}
	if e.mode == spec.ModeStrict {
		d.Decision = string(spec.DecisionDeny)
		return e.block(spec.DecisionDeny, &d, nil)
	}
	return e.allow()
}
