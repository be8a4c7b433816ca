package spec

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/pattern"
)

// PolicyData is what a policy's message templates see (runtime/policy fills it for each verdict).
type PolicyData struct {
	// Command is the whole command as checked.
	Command string
	// Policy is the policy's name; Rule the matching rule's name (or its pattern).
	Policy, Rule string
	// Reason is the rule's reason, or the shell policy's finding.
	Reason string
	// Pattern is the source text of the matching pattern or substring.
	Pattern string
	// Match is the matched text; Groups are the submatches ([0] is the whole match, unmatched groups are
	// empty); Char is Match when it is one character.
	Match  string
	Groups []string
	Char   string
	// Segment is the text the rule was tried on: a segment of a split policy, the command for a
	// command-scope rule, the offending simple command for a shell policy.
	Segment string
	// Name is the command name a shell policy blocked (after folding and path reduction).
	Name string
	// Error is the parser's message for a command a shell policy could not parse.
	Error string
	// Tool, Decision, Content (the normalised command), PermissionRule (the matching rule as written) and
	// Mode describe a permission verdict.
	Tool, Decision, Content, PermissionRule, Mode string
	// Rules is the table of a wildcard policy, in its order.
	Rules []WildcardRule
}

// samplePolicyData fills every field so that executing a message template once finds unknown fields;
// groups is the number of capture groups of the rule the template belongs to.
func samplePolicyData(groups int) PolicyData {
	g := make([]string, groups+1)
	for i := range g {
		g[i] = "g" + strconv.Itoa(i)
	}
	return PolicyData{Command: "c", Policy: "p", Rule: "r", Reason: "r", Pattern: "p", Match: "m", Groups: g,
		Char: "c", Segment: "s", Name: "n", Error: "e", Tool: "t", Decision: "deny", Content: "c",
		PermissionRule: "r", Mode: "default", Rules: []WildcardRule{{Pattern: "*", Decision: DecisionAllow}}}
}

// policyMessageGroups is the number of capture groups a policy's own message is first executed with.
const policyMessageGroups = 9

// PolicyError is a problem with one policy: found by its checks (CheckPolicy, Variant.Complete), its
// compilation or its examples (runtime/policy).
type PolicyError struct {
	// Policy is the policy's name.
	Policy string
	// Field locates the problem in the policy (rules[3].pattern, examples.blocked[2]), when known.
	Field string
	// Err is the problem.
	Err error
}

func (e *PolicyError) Error() string {
	s := "policy " + strconv.Quote(e.Policy) + ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Err.Error()
}

func (e *PolicyError) Unwrap() error { return e.Err }

// CheckPolicy checks a policy outside a variant (runtime/policy's Compile of a single policy) as Complete
// checks each policy of a variant, and returns it with its defaults filled: a policy that uses a library
// policy is resolved, then checked, then completed (Policy.Fail stays as given: a variant fills it). The
// policy given is not changed. The error joins *PolicyError values.
func CheckPolicy(p Policy) (Policy, error) {
	if p.Use != "" {
		r, err := ResolvePolicy(p)
		if err != nil {
			return Policy{}, &PolicyError{Policy: p.Use, Field: "use", Err: err}
		}
		p = r
	}
	if errs := p.problems(); len(errs) > 0 {
		out := make([]error, len(errs))
		for i, e := range errs {
			out[i] = e
		}
		return Policy{}, errors.Join(out...)
	}
	p = p.clone()
	p.fillDefaults()
	return p, nil
}

// policies checks every policy of the variant (resolved from the library by now) with the positions of
// the fields at fault. A policy whose enumerated fields are not in their enumerations (reported by enums)
// is not checked further.
func (c *checker) policies() {
	for i := range c.v.Policies {
		ptr := "/policies/" + strconv.Itoa(i)
		field := pointerToField(ptr)
		if slices.ContainsFunc(c.errs, func(e *Error) bool { return e.Field == field || strings.HasPrefix(e.Field, field+".") }) {
			continue
		}
		p := &c.v.Policies[i]
		for _, e := range p.problems() {
			c.errs = append(c.errs, c.v.ErrorAt(ptr+FieldPointer(e.Field), "policy %q: %v", e.Policy, e.Err))
		}
	}
}

// checkMessage checks a message template (named after its policy, as the engine names it): it parses,
// and executes on sample data with groups capture groups.
func checkMessage(name, text string, groups int) error {
	t, err := ParseTemplateFor(name, text, PolicyData{})
	if err != nil {
		return fmt.Errorf("message template %q does not parse: %v", text, err)
	}
	if _, err := Execute(t, samplePolicyData(groups)); err != nil {
		return fmt.Errorf("message template %q fails on sample data: %v", text, err)
	}
	return nil
}

// messageFails is the error of executing a message template that parses on sample data with groups
// capture groups, without an output budget when plain.
func messageFails(name, text string, groups int, plain bool) error {
	t, err := ParseTemplateFor(name, text, PolicyData{})
	if err != nil {
		return err
	}
	if plain {
		return t.Execute(io.Discard, samplePolicyData(groups))
	}
	_, err = Execute(t, samplePolicyData(groups))
	return err
}

// problems are the problems of one policy (with no use left), in the order the engine used to find them:
// a problem that makes the rest meaningless ends the check.
func (p *Policy) problems() []*PolicyError {
	fail := func(field string, err error) []*PolicyError {
		return []*PolicyError{{Policy: p.Name, Field: field, Err: err}}
	}
	if p.Name == "" {
		return fail("name", errors.New("a policy needs a name"))
	}
	if p.Message != "" {
		if err := checkMessage(p.Name, p.Message, policyMessageGroups); err != nil {
			return fail("message", err)
		}
	}
	var errs []*PolicyError
	misplaced := func(field string, set bool) {
		if set {
			errs = append(errs, &PolicyError{Policy: p.Name, Field: field, Err: fmt.Errorf("does not apply to kind %s", p.Kind)})
		}
	}
	// noGroups checks that the policy's message works without capture groups (permission and shell
	// verdicts have none).
	noGroups := func() {
		if p.Message == "" {
			return
		}
		if err := messageFails(p.Name, p.Message, 0, false); err != nil {
			errs = append(errs, &PolicyError{Policy: p.Name, Field: "message", Err: fmt.Errorf("message template %q fails without capture groups: %v", p.Message, err)})
		}
	}
	switch p.Kind {
	case PolicyRegex, PolicySubstring:
		misplaced("permission", p.Permission != nil)
		misplaced("shell", p.Shell != nil)
		misplaced("wildcard", p.Wildcard != nil)
		misplaced("priority", p.Priority != nil)
		if len(errs) > 0 {
			return errs
		}
		return p.ruleProblems()
	case PolicyPermission:
		misplaced("rules", len(p.Rules) > 0)
		misplaced("shell", p.Shell != nil)
		misplaced("split", p.Split != nil)
		misplaced("wildcard", p.Wildcard != nil)
		misplaced("priority", p.Priority != nil)
		if noGroups(); len(errs) > 0 {
			return errs
		}
		return p.permissionProblems()
	case PolicyShell:
		misplaced("rules", len(p.Rules) > 0)
		misplaced("permission", p.Permission != nil)
		misplaced("split", p.Split != nil)
		misplaced("wildcard", p.Wildcard != nil)
		misplaced("priority", p.Priority != nil)
		if noGroups(); len(errs) > 0 {
			return errs
		}
		return p.shellProblems()
	case PolicyWildcard:
		misplaced("rules", len(p.Rules) > 0)
		misplaced("permission", p.Permission != nil)
		misplaced("shell", p.Shell != nil)
		misplaced("split", p.Split != nil)
		misplaced("priority", p.Priority != nil)
		if noGroups(); len(errs) > 0 {
			return errs
		}
		return p.wildcardProblems()
	case PolicyPriority:
		misplaced("rules", len(p.Rules) > 0)
		misplaced("permission", p.Permission != nil)
		misplaced("shell", p.Shell != nil)
		misplaced("split", p.Split != nil)
		misplaced("wildcard", p.Wildcard != nil)
		if noGroups(); len(errs) > 0 {
			return errs
		}
		return p.priorityProblems()
	}
	return fail("kind", fmt.Errorf("unknown kind %q (regex, substring, permission, shell, wildcard, priority)", p.Kind))
}

// dialect is the policy's regex dialect: "" and go (an earlier name) are re2.
func (p *Policy) dialect() (RegexDialect, error) {
	switch p.Dialect {
	case "", "go", DialectRE2:
		return DialectRE2, nil
	case DialectPython, DialectJavaScript:
		return p.Dialect, nil
	}
	return "", fmt.Errorf("unknown dialect %q (re2, python, javascript)", p.Dialect)
}

// RuleTexts are a regex or substring rule's patterns and substrings, each a rule of its own that shares
// the rule's other fields; n counts the fields of pattern, patterns, substring and substrings that are set
// (exactly one must be).
func (r *PolicyRule) RuleTexts() (patterns, substrings []string, n int) {
	if r.Pattern != "" {
		patterns, n = append(patterns, r.Pattern), n+1
	}
	if len(r.Patterns) > 0 {
		patterns, n = append(patterns, r.Patterns...), n+1
	}
	if r.Substring != "" {
		substrings, n = append(substrings, r.Substring), n+1
	}
	if len(r.Substrings) > 0 {
		substrings, n = append(substrings, r.Substrings...), n+1
	}
	return patterns, substrings, n
}

// IgnoresCase reports whether the rule is case-insensitive in policy p.
func (r *PolicyRule) IgnoresCase(p *Policy) bool {
	if r.IgnoreCase != nil {
		return *r.IgnoreCase
	}
	return p.IgnoreCase
}

func (p *Policy) ruleProblems() []*PolicyError {
	fail := func(field string, err error) []*PolicyError {
		return []*PolicyError{{Policy: p.Name, Field: field, Err: err}}
	}
	d, err := p.dialect()
	if err != nil {
		return fail("dialect", err)
	}
	if p.Split != nil {
		re, err := d.Regexp(p.Split.Pattern, false)
		if err != nil {
			return fail("split.pattern", err)
		}
		if re.MatchString("") {
			return fail("split.pattern", fmt.Errorf("pattern %q matches the empty string", p.Split.Pattern))
		}
	}
	if len(p.Rules) == 0 {
		return fail("rules", errors.New("a "+string(p.Kind)+" policy needs rules"))
	}
	var errs []*PolicyError
	for i := range p.Rules {
		r := &p.Rules[i]
		field := fmt.Sprintf("rules[%d]", i)
		add := func(sub string, err error) {
			errs = append(errs, &PolicyError{Policy: p.Name, Field: field + sub, Err: err})
		}
		patterns, subs, n := r.RuleTexts()
		if n != 1 {
			add("", errors.New("a rule has exactly one of pattern, patterns, substring, substrings"))
			continue
		}
		if p.Kind == PolicySubstring && len(patterns) > 0 {
			add("", errors.New("a substring policy has substring rules only (use kind regex)"))
			continue
		}
		switch r.Scope {
		case "", ScopeCommand:
		case ScopeSegments:
			if p.Split == nil {
				add(".scope", errors.New("scope segments needs the policy's split"))
				continue
			}
		default:
			add(".scope", fmt.Errorf("unknown scope %q (command, segments)", r.Scope))
			continue
		}
		ic := r.IgnoresCase(p)
		if r.Unless != "" {
			if _, err := d.Regexp(r.Unless, ic); err != nil {
				add(".unless", err)
				continue
			}
		}
		// Each text is a rule of its own: its message is checked with its capture groups.
		message := func(groups int) {
			switch {
			case r.Message != "":
				if err := checkMessage(p.Name, r.Message, groups); err != nil {
					add(".message", err)
				}
			case p.Message != "":
				if err := messageFails(p.Name, p.Message, groups, true); err != nil {
					add("", fmt.Errorf("the policy's message fails on this rule: %v", err))
				}
			case r.Reason == "":
				add("", errors.New("a rule needs a message or a reason when the policy has no message"))
			}
		}
		for _, pat := range patterns {
			re, err := d.Regexp(pat, ic)
			if err != nil {
				add(".pattern", err)
				continue
			}
			message(re.NumSubexp())
		}
		for range subs {
			message(0)
		}
	}
	return errs
}

func (p *Policy) permissionProblems() []*PolicyError {
	fail := func(field string, err error) []*PolicyError {
		return []*PolicyError{{Policy: p.Name, Field: field, Err: err}}
	}
	pp := p.Permission
	if pp == nil {
		return fail("permission", errors.New("a permission policy needs a permission block"))
	}
	if pp.Tool == "" {
		return fail("permission.tool", errors.New("needs the tool name the rules are written for"))
	}
	switch pp.Match {
	case "", MatchPath, MatchCommand, MatchPrefix:
	default:
		return fail("permission.match", fmt.Errorf("unknown match %q (path, command, prefix)", pp.Match))
	}
	switch pp.Normalize {
	case "", NormalizeNone, NormalizeVerbColon, NormalizeFirstSpace:
	default:
		return fail("permission.normalize", fmt.Errorf("unknown normalize %q (none, verb_colon, first_space)", pp.Normalize))
	}
	if err := pp.Mode.Check(); err != nil {
		return fail("permission.mode", err)
	}
	var errs []*PolicyError
	for _, list := range []struct {
		name  string
		rules []string
	}{{"allow", pp.Allow}, {"deny", pp.Deny}, {"ask", pp.Ask}} {
		if _, err := ParsePermissionRules(list.rules); err != nil {
			errs = append(errs, &PolicyError{Policy: p.Name, Field: "permission." + list.name, Err: err})
		}
	}
	if pp.AskMessage != "" {
		if err := checkMessage(p.Name, pp.AskMessage, 0); err != nil {
			errs = append(errs, &PolicyError{Policy: p.Name, Field: "permission.ask_message", Err: err})
		}
	}
	if p.Message == "" {
		errs = append(errs, &PolicyError{Policy: p.Name, Field: "message", Err: errors.New("a permission policy needs a message")})
	}
	return errs
}

// wildcardProblems checks a wildcard policy: its block, each rule's pattern and decision, the select rule,
// the default, the ask message, and a message for its deny verdicts.
func (p *Policy) wildcardProblems() []*PolicyError {
	wp := p.Wildcard
	if wp == nil {
		return []*PolicyError{{Policy: p.Name, Field: "wildcard", Err: errors.New("a wildcard policy needs a wildcard block")}}
	}
	var errs []*PolicyError
	add := func(field string, err error) {
		errs = append(errs, &PolicyError{Policy: p.Name, Field: field, Err: err})
	}
	for i, r := range wp.Rules {
		if r.Pattern == "" {
			add(fmt.Sprintf("wildcard.rules[%d].pattern", i), errors.New("is empty"))
		}
		if err := r.Decision.checkTable(); err != nil {
			add(fmt.Sprintf("wildcard.rules[%d].decision", i), err)
		}
	}
	switch wp.Select {
	case "", SelectLast, SelectLongest:
	default:
		add("wildcard.select", fmt.Errorf("unknown select %q (last, longest)", wp.Select))
	}
	if wp.Default != "" {
		if err := wp.Default.checkTable(); err != nil {
			add("wildcard.default", err)
		}
	}
	if wp.AskMessage != "" {
		if err := checkMessage(p.Name, wp.AskMessage, 0); err != nil {
			add("wildcard.ask_message", err)
		}
	}
	if p.Message == "" {
		add("message", errors.New("a wildcard policy needs a message"))
	}
	return errs
}

// priorityProblems checks a priority policy: its block, each rule (one condition at most, a regular
// expression that compiles as JavaScript's, a decision), the default, the legacy lists and a message.
func (p *Policy) priorityProblems() []*PolicyError {
	pp := p.Priority
	if pp == nil {
		return []*PolicyError{{Policy: p.Name, Field: "priority", Err: errors.New("a priority policy needs a priority block")}}
	}
	var errs []*PolicyError
	add := func(field string, err error) {
		errs = append(errs, &PolicyError{Policy: p.Name, Field: field, Err: err})
	}
	for i, r := range pp.Rules {
		f := fmt.Sprintf("priority.rules[%d]", i)
		if len(r.CommandPrefix) > 0 && r.CommandRegex != "" {
			add(f, errors.New("command_prefix and command_regex cannot be used in the same rule"))
		}
		if r.CommandRegex != "" {
			if _, err := DialectJavaScript.Regexp(`"command":"`+r.CommandRegex, false); err != nil {
				add(f+".command_regex", err)
			}
		}
		if err := r.Decision.checkPriority(); err != nil {
			add(f+".decision", err)
		}
	}
	if pp.Default != "" {
		if err := pp.Default.checkPriority(); err != nil {
			add("priority.default", err)
		}
	}
	if pp.AskMessage != "" {
		if err := checkMessage(p.Name, pp.AskMessage, 0); err != nil {
			add("priority.ask_message", err)
		}
	}
	if (len(pp.Core) > 0 || len(pp.Exclude) > 0) && pp.Tool == "" {
		add("priority.tool", errors.New("core and exclude need the tool name they are written for"))
	}
	if p.Message == "" {
		add("message", errors.New("a priority policy needs a message"))
	}
	return errs
}

// checkPriority reports a decision a priority rule cannot hold (allow, deny, ask and ask_user).
func (d Decision) checkPriority() error {
	if d == DecisionAskUser {
		return nil
	}
	if err := d.checkTable(); err != nil {
		return fmt.Errorf("unknown decision %q (allow, deny, ask, ask_user)", d)
	}
	return nil
}

// checkTable reports a decision a wildcard table cannot hold (allow, ask and deny only).
func (d Decision) checkTable() error {
	switch d {
	case DecisionAllow, DecisionAsk, DecisionDeny:
		return nil
	}
	return fmt.Errorf("unknown decision %q (allow, ask, deny)", d)
}

// Check reports a mode outside the enumeration ("" is the default mode).
func (m PermissionMode) Check() error {
	if m == "" || slices.Contains(PermissionModes, m) {
		return nil
	}
	return fmt.Errorf("unknown mode %q (default, acceptEdits, bypassPermissions, dontAsk, strict)", m)
}

func (p *Policy) shellProblems() []*PolicyError {
	var errs []*PolicyError
	fail := func(field string, err error) {
		errs = append(errs, &PolicyError{Policy: p.Name, Field: field, Err: err})
	}
	sp := p.Shell
	if sp == nil {
		fail("shell", errors.New("a shell policy needs a shell block"))
		return errs
	}
	if p.Message == "" {
		fail("message", errors.New("a shell policy needs a message"))
		return errs
	}
	switch sp.Dialect {
	case "", ShellBash, ShellPOSIX, ShellMksh:
	default:
		fail("shell.dialect", fmt.Errorf("unknown dialect %q (bash, posix, mksh)", sp.Dialect))
	}
	switch sp.Dynamic {
	case "", DynamicDeny, DynamicAllow:
	default:
		fail("shell.dynamic", fmt.Errorf("unknown dynamic %q (deny, allow)", sp.Dynamic))
	}
	described := map[string]bool{}
	for i := range sp.Wrappers {
		w := &sp.Wrappers[i]
		field := fmt.Sprintf("shell.wrappers[%d]", i)
		switch w.Runs {
		case "", RunsCommand, RunsScript, RunsFirstScript, RunsShell, RunsAlias, RunsSource, RunsStdin, RunsNone:
		default:
			fail(field+".runs", fmt.Errorf("unknown runs %q", w.Runs))
		}
		if f, err := w.reachProblem(field); err != nil {
			fail(f, err)
		}
		if len(w.Names) == 0 {
			fail(field+".names", errors.New("a wrapper needs names"))
		}
		for _, o := range w.ReplaceOptions {
			if !slices.Contains(w.OptionsWithValue, o) && !slices.Contains(w.OptionsWithOptionalValue, o) {
				fail(field+".replace_options", fmt.Errorf("%s is not in options_with_value or options_with_optional_value", o))
			}
		}
		for _, n := range w.Names {
			if described[n] {
				fail(field+".names", fmt.Errorf("wrapper %q is described twice", n))
			}
			described[n] = true
		}
	}
	for i := range sp.Rules {
		if err := sp.Rules[i].problem(); err != nil {
			fail(fmt.Sprintf("shell.rules[%d]", i), err)
		}
	}
	return errs
}

// CodeLanguages are the languages whose inline code a shell policy reads.
var CodeLanguages = []CodeLanguage{CodePython, CodePerl, CodeRuby, CodeJavaScript, CodePHP, CodeLua, CodeAwk, CodeSed, CodeEx}

// runs is the wrapper's Runs, command when empty.
func (w *ShellWrapper) runs() WrapperRuns {
	if w.Runs == "" {
		return RunsCommand
	}
	return w.Runs
}

// reachProblem is the first problem of a wrapper's option commands, code and input separators, with its
// field.
func (w *ShellWrapper) reachProblem(field string) (string, error) {
	for i, oc := range w.OptionCommands {
		f := fmt.Sprintf("%s.option_commands[%d]", field, i)
		if len(oc.Options) == 0 {
			return f + ".options", errors.New("an option command needs options")
		}
		for _, k := range oc.Keys {
			if !globCompiles(strings.ToLower(k)) {
				return f + ".keys", fmt.Errorf("key pattern %q does not compile", k)
			}
		}
		if len(oc.Subcommands) > 0 && len(oc.Keys) == 0 {
			return f + ".subcommands", errors.New("subcommands read KEY VALUE operands: they need keys")
		}
	}
	if c := w.Code; c != nil {
		if !slices.Contains(CodeLanguages, c.Language) {
			return field + ".code.language", fmt.Errorf("unknown language %q (%v)", c.Language, CodeLanguages)
		}
		if len(c.Options) == 0 && !c.Operand && !c.PlusOperands && !c.Stdin {
			return field + ".code", errors.New("code needs options, operand, plus_operands or stdin")
		}
		if w.runs() != RunsNone {
			return field + ".code", errors.New("a program that takes code runs none of its operands as a command (runs: none)")
		}
	}
	if len(w.InputSeparators) > 0 && w.runs() != RunsScript {
		return field + ".input_separators", errors.New("input separators end the command of runs: script")
	}
	return "", nil
}

// globCompiles reports whether a shell pattern (extended operators allowed) matches as a whole text.
func globCompiles(pat string) bool {
	src, err := pattern.Regexp(pat, pattern.EntireString|pattern.ExtendedOperators)
	if err != nil {
		return false
	}
	_, err = regexp.Compile(src)
	return err == nil
}

// FlagKind classifies a spelling of a shell rule's flag: 's' a short option (-r), 'l' a long option
// (--recursive), 'w' a single-dash word option (-delete), 0 none of them.
func FlagKind(f string) byte {
	switch {
	case strings.HasPrefix(f, "--") && len(f) > 2:
		return 'l'
	case strings.HasPrefix(f, "-") && len(f) == 2:
		return 's'
	case strings.HasPrefix(f, "-") && len(f) > 2:
		return 'w'
	}
	return 0
}

// problem is the first problem of a shell rule.
func (r *ShellRule) problem() error {
	if r.Reason == "" {
		return errors.New("a rule needs a reason")
	}
	for _, c := range r.Commands {
		if pattern.HasMeta(c, 0) && !globCompiles(c) {
			return fmt.Errorf("command pattern %q does not compile", c)
		}
	}
	for _, g := range r.Flags {
		if len(g) == 0 {
			return errors.New("an empty flag group")
		}
		for _, f := range g {
			if FlagKind(f) == 0 {
				return fmt.Errorf("flag %q is not -x, --long or -word", f)
			}
		}
	}
	for _, list := range [][]string{r.Operands, r.Args, r.Redirects} {
		for _, s := range list {
			if _, err := regexp.Compile(s); err != nil {
				return fmt.Errorf("pattern %q: %v", s, err)
			}
		}
	}
	if len(r.Commands) == 0 && len(r.Redirects) == 0 {
		return errors.New("a rule needs commands or redirects")
	}
	return nil
}

// fillDefaults fills what a policy leaves out (Complete and CheckPolicy): the regex dialect, each rule's
// scope, the permission match, normalisation, mode and edit tools, the shell dialect, dynamic rule,
// max_depth, finding reasons and each wrapper's runs, and each blocked example's decision.
func (p *Policy) fillDefaults() {
	if d, err := p.dialect(); err == nil {
		p.Dialect = d
	}
	if p.Kind == PolicyRegex || p.Kind == PolicySubstring {
		for i := range p.Rules {
			if r := &p.Rules[i]; r.Scope == "" {
				r.Scope = ScopeCommand
				if p.Split != nil {
					r.Scope = ScopeSegments
				}
			}
		}
	}
	if pp := p.Permission; pp != nil {
		if pp.Match == "" {
			pp.Match = MatchPath
		}
		if pp.Normalize == "" {
			pp.Normalize = NormalizeNone
		}
		if pp.Mode == "" {
			pp.Mode = ModeDefault
		}
		if len(pp.EditTools) == 0 {
			pp.EditTools = slices.Clone(DefaultEditTools)
		}
	}
	if wp := p.Wildcard; wp != nil {
		if wp.Select == "" {
			wp.Select = SelectLast
		}
		if wp.Default == "" {
			wp.Default = DecisionAsk
		}
	}
	if pp := p.Priority; pp != nil {
		if pp.Default == "" || pp.Default == DecisionAskUser {
			pp.Default = DecisionAsk
		}
		for i := range pp.Rules {
			if pp.Rules[i].Decision == DecisionAskUser {
				pp.Rules[i].Decision = DecisionAsk
			}
		}
		if pp.CorePriority == 0 {
			pp.CorePriority = DefaultCorePriority
		}
		if pp.ExcludePriority == 0 {
			pp.ExcludePriority = DefaultExcludePriority
		}
	}
	if sp := p.Shell; sp != nil {
		if sp.Dialect == "" {
			sp.Dialect = ShellBash
		}
		if sp.Dynamic == "" {
			sp.Dynamic = DynamicDeny
		}
		if sp.MaxDepth <= 0 {
			sp.MaxDepth = DefaultShellMaxDepth
		}
		rs := &sp.Reasons
		for _, f := range []struct {
			s   *string
			def string
		}{{&rs.Unparsable, DefaultReasonUnparsable}, {&rs.Dynamic, DefaultReasonDynamic}, {&rs.TooDeep, DefaultReasonTooDeep},
			{&rs.ForkBomb, DefaultReasonForkBomb}, {&rs.Remote, DefaultReasonRemote}} {
			if *f.s == "" {
				*f.s = f.def
			}
		}
		for i := range sp.Wrappers {
			sp.Wrappers[i].Runs = sp.Wrappers[i].runs()
		}
	}
	if ex := p.Examples; ex != nil {
		for i := range ex.Blocked {
			if ex.Blocked[i].Decision == "" {
				ex.Blocked[i].Decision = DecisionDeny
			}
		}
	}
}

// clone copies what fillDefaults changes, so that filling the copy leaves p as it is.
func (p Policy) clone() Policy {
	p.Rules = slices.Clone(p.Rules)
	if p.Permission != nil {
		pp := *p.Permission
		p.Permission = &pp
	}
	if p.Shell != nil {
		sp := *p.Shell
		sp.Wrappers = slices.Clone(sp.Wrappers)
		p.Shell = &sp
	}
	if p.Priority != nil {
		pp := *p.Priority
		pp.Rules = slices.Clone(pp.Rules)
		p.Priority = &pp
	}
	if p.Wildcard != nil {
		wp := *p.Wildcard
		wp.Rules = slices.Clone(wp.Rules)
		p.Wildcard = &wp
	}
	if p.Examples != nil {
		ex := *p.Examples
		ex.Blocked = slices.Clone(ex.Blocked)
		p.Examples = &ex
	}
	return p
}
