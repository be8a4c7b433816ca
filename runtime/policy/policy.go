// Package policy compiles and evaluates the command policies of a spec (spec.Policy): the deny lists of
// the sources exactly as they match (whole-string and per-segment regular expressions in the sources' own
// regex dialects, substrings, Tool(pattern) permission rules) and a shell-parsing policy that checks every
// command of a script after parsing it with mvdan.cc/sh/v3/syntax.
//
// Nothing here runs a command: a Checker only computes a Verdict. Policies are generic: everything a
// source does is data in its YAML (patterns, order, case, split rule, messages), and a spec may combine
// several policies by listing several `- policy:` checks.
//
// A policy's configuration is the spec's: its types, its checks (patterns in their dialect, rule syntax,
// templates, the blocks each kind needs) and its defaults are in package spec, which checks and fills
// the policies of a variant in Complete (with positions) and a policy given alone in CheckPolicy. This
// package is the engine that compiles and evaluates a completed policy, as runtime/textcap is for
// output. Each policy's examples are checked when it compiles (CompileVariant, as runtime.New, `agentbash
// spec validate` and `agentbash gen` do), the one check only the engine can make, so a spec whose deny
// list disagrees with its own examples does not load.
//
// The engines, by kind:
//
//   - regex and substring (rules.go): ordered rules, scoped to the whole command or to the segments of a
//     split; Python and JavaScript patterns run on RE2 through a dialect layer (dialect.go) that maps the
//     subject so that \s, \w, \b, . and case folding behave as in the source language, and a literal
//     prefilter (prefilter.go) skips the patterns whose required text is absent.
//   - permission (permission.go): the Tool(pattern) permission-rule language, its modes and normalisation, with the
//     host's own configuration through WithPermissions.
//   - wildcard (wildcard.go): a table of wildcard patterns with allow, ask or deny, decided per simple
//     command of the parsed command line, the strictest verdict winning.
//   - priority (priority.go): prefix and regular-expression rules with priorities, the highest matching
//     deciding for the command line and each of its commands.
//   - shell (shell*.go): parses with shellsyntax.FastParse, or mvdan.cc/sh/v3/syntax for what it declines;
//     collects the statements with shellsyntax.Collector; expands words statically with shellexpand
//     (quotes, escapes, ANSI-C strings, variables assigned in the script, ${IFS}, brace expansion,
//     constant substitutions); and checks every simple command against the rules, unwrapping wrappers,
//     parsing nested scripts and scripts read from standard input, and following what programs run from
//     their options (shell_reach.go: option commands, parallel) and from inline code in other languages
//     (inlinecode). The analyser packages know nothing of policies; the rules, wrappers and findings are
//     here. A policy may start from a library policy (spec.Policy.Use), which the spec loader resolves.
//
// Messages are text/template strings (spec.Funcs, so goquote is Go's %q) over Data. A verdict carries the
// rendered message and the policy's declared Failure; the host renders the Failure's own message with the
// verdict message as .Message.
package policy

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"text/template"
	"unicode/utf8"

	"github.com/agentbash/agentbash/spec"
)

// Verdict is the outcome of checking one command against one policy.
type Verdict struct {
	// Allowed reports that the policy lets the command run.
	Allowed bool
	// Policy is the policy's name.
	Policy string
	// Rule names the rule that blocked the command (its name, or its pattern), if any.
	Rule string
	// Reason is the blocking rule's reason.
	Reason string
	// Message is the rendered verdict message (empty when allowed). The host reports it through Fail: it is
	// .Message in Fail's message template.
	Message string
	// Fail is the policy's failure as declared in the spec (its message is a template, not rendered here).
	Fail *spec.Failure
	// Decision is allow, deny or ask (ask only from permission and wildcard policies).
	Decision spec.Decision
}

// String renders a verdict on one line for people: "allow", or the decision, policy and message.
func (v Verdict) String() string {
	if v.Allowed {
		if v.Policy == "" {
			return "allow"
		}
		return "allow (" + v.Policy + ")"
	}
	return string(v.Decision) + " (" + v.Policy + "): " + v.Message
}

// Checker decides whether a command may run. Implementations are safe for concurrent use.
type Checker interface {
	Check(command string) Verdict
}

// Data is what a policy's message templates see.
type Data = spec.PolicyData

// Error is a policy that does not compile, or whose examples disagree with it.
type Error = spec.PolicyError

// message is a compiled message template.
type message struct {
	t    *template.Template
	text string
}

// compileMessage compiles a message template with the spec's template functions (goquote is Go's %q);
// the spec's checks executed it on sample data.
func compileMessage(name, text string) (*message, error) {
	t, err := spec.ParseTemplateFor(name, text, Data{})
	if err != nil {
		return nil, fmt.Errorf("message template %q does not parse: %v", text, err)
	}
	return &message{t: t, text: text}, nil
}

func (m *message) render(d *Data) string {
	if m == nil {
		return d.Reason
	}
	out, err := spec.Execute(m.t, d)
	if err != nil {
		// A template that executed on sample data can still fail on real data (an index out of range);
		// the command stays blocked and the message says why it is not the declared one.
		return fmt.Sprintf("command blocked by policy %s (message template failed: %v)", d.Policy, err)
	}
	return out
}

// base is what every engine shares: the policy's name, its failure and its default message.
type base struct {
	name string
	fail *spec.Failure
	msg  *message
}

func (b *base) allow() Verdict {
	return Verdict{Allowed: true, Policy: b.name, Decision: spec.DecisionAllow}
}

// block renders a deny (or ask) verdict with the rule's message, or the policy's.
func (b *base) block(decision spec.Decision, d *Data, m *message) Verdict {
	d.Policy = b.name
	if m == nil {
		m = b.msg
	}
	rule := d.Rule
	if rule == "" {
		rule = d.Pattern
	}
	return Verdict{Policy: b.name, Rule: rule, Reason: d.Reason, Message: m.render(d), Fail: b.fail,
		Decision: decision}
}

// HostPermissions is a host's own permission configuration (a framework's `permissions:` block), replacing
// the mode and every rule list of a permission policy.
type HostPermissions struct {
	// Mode is default (also when empty), acceptEdits, bypassPermissions, dontAsk or strict.
	Mode string
	// Allow, Deny and Ask are rules `Tool` or `Tool(pattern)`.
	Allow, Deny, Ask []string
}

// Option configures Compile.
type Option func(*options)

type options struct {
	all          *HostPermissions
	byName       map[string]*HostPermissions
	skipExamples bool
	tables       map[string][]spec.WildcardRule
	priorities   map[string][]spec.PriorityRule
}

// WithWildcardRules appends rules to the table of the wildcard policy named name, as a host adds its
// user's configuration to the policy's defaults (permission tables in the style of agent CLIs: the user's entries come
// last, so they win under select: last). The spec's examples are still checked against the spec's own
// table.
func WithWildcardRules(name string, rules ...spec.WildcardRule) Option {
	return func(o *options) {
		if o.tables == nil {
			o.tables = map[string][]spec.WildcardRule{}
		}
		o.tables[name] = append(o.tables[name], rules...)
	}
}

// WithPriorityRules adds rules to the priority policy named name, as a host adds its user's policy files
// (their priorities as the policy reads them: tier + priority/1000). The spec's examples are still checked
// against the spec's own rules.
func WithPriorityRules(name string, rules ...spec.PriorityRule) Option {
	return func(o *options) {
		if o.priorities == nil {
			o.priorities = map[string][]spec.PriorityRule{}
		}
		o.priorities[name] = append(o.priorities[name], rules...)
	}
}

// WithPermissions makes every permission policy use the host's mode and rules instead of the spec's. The
// spec's examples are still checked against the spec's own configuration.
func WithPermissions(h HostPermissions) Option {
	return func(o *options) { o.all = &h }
}

// WithPolicyPermissions is WithPermissions for the permission policy named name only; it takes precedence
// over WithPermissions.
func WithPolicyPermissions(name string, h HostPermissions) Option {
	return func(o *options) {
		if o.byName == nil {
			o.byName = map[string]*HostPermissions{}
		}
		o.byName[name] = &h
	}
}

// SkipExamples compiles without checking the policy's examples (for hosts that compiled the same spec
// before, and for fuzzing).
func SkipExamples() Option {
	return func(o *options) { o.skipExamples = true }
}

func collect(opts []Option) *options {
	o := &options{}
	for _, f := range opts {
		f(o)
	}
	return o
}

func (o *options) permissionsFor(name string) *HostPermissions {
	if h, ok := o.byName[name]; ok {
		return h
	}
	return o.all
}

// Compile compiles a policy given on its own: spec.CheckPolicy checks it and fills its defaults, as
// spec.Variant.Complete does for the policies of a variant; then its patterns, templates and rules are
// compiled, its examples checked against the spec's own configuration, and the host's options applied.
func Compile(p spec.Policy, opts ...Option) (Checker, error) {
	p, err := spec.CheckPolicy(p)
	if err != nil {
		return nil, err
	}
	return compileChecked(p, collect(opts))
}

// compileChecked compiles a checked policy with its defaults filled.
func compileChecked(p spec.Policy, o *options) (Checker, error) {
	c, err := build(p, nil)
	if err != nil {
		return nil, err
	}
	if !o.skipExamples {
		if err := checkExamples(p, c); err != nil {
			return nil, err
		}
	}
	if p.Kind == spec.PolicyPermission {
		if h := o.permissionsFor(p.Name); h != nil {
			return build(p, h)
		}
	}
	if rules, ok := o.tables[p.Name]; ok && p.Kind == spec.PolicyWildcard {
		wp := *p.Wildcard
		wp.Rules = append(slices.Clone(wp.Rules), rules...)
		p.Wildcard = &wp
		return checkedBuild(p)
	}
	if rules, ok := o.priorities[p.Name]; ok && p.Kind == spec.PolicyPriority {
		pp := *p.Priority
		pp.Rules = append(slices.Clone(pp.Rules), rules...)
		p.Priority = &pp
		return checkedBuild(p)
	}
	return c, nil
}

// checkedBuild checks a policy a host's rules changed (their decisions, patterns) and compiles it.
func checkedBuild(p spec.Policy) (Checker, error) {
	p.Examples = nil
	checked, err := spec.CheckPolicy(p)
	if err != nil {
		return nil, err
	}
	return build(checked, nil)
}

// CompileAll compiles every policy of a list given on its own (as Compile does), keyed by name; the error
// joins every policy's errors.
func CompileAll(ps []spec.Policy, opts ...Option) (map[string]Checker, error) {
	out := make(map[string]Checker, len(ps))
	var errs []error
	for _, p := range ps {
		p, err := resolve(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, dup := out[p.Name]; dup {
			errs = append(errs, &Error{Policy: p.Name, Err: errors.New("declared twice")})
			continue
		}
		c, err := Compile(p, opts...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[p.Name] = c
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// CompileVariant compiles the policies of a variant, keyed by name, and checks their examples. The
// policies of a completed variant (spec.Load's, runtime.New's) are compiled as Complete checked and
// filled them, and every error (an example that disagrees, a host's option) is a spec.Error at the
// position of the policy's field in the spec file; those of a variant built in Go and not completed are
// compiled as CompileAll compiles them.
func CompileVariant(v *spec.Variant, opts ...Option) (map[string]Checker, error) {
	if !v.Completed() {
		return CompileAll(v.Policies, opts...)
	}
	o := collect(opts)
	out := make(map[string]Checker, len(v.Policies))
	var errs spec.Errors
	for i, p := range v.Policies {
		c, err := compileChecked(p, o)
		if err == nil {
			out[p.Name] = c
			continue
		}
		var joined []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			joined = j.Unwrap()
		} else {
			joined = []error{err}
		}
		for _, e := range joined {
			var pe *Error
			if !errors.As(e, &pe) {
				return nil, fmt.Errorf("%s: %w", v.File, err)
			}
			errs = append(errs, v.ErrorAt("/policies/"+strconv.Itoa(i)+spec.FieldPointer(pe.Field), "policy %q: %v", pe.Policy, pe.Err))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// resolve takes a policy that uses a library policy (a spec the loader has completed has none left).
func resolve(p spec.Policy) (spec.Policy, error) {
	if p.Use == "" {
		return p, nil
	}
	r, err := spec.ResolvePolicy(p)
	if err != nil {
		return spec.Policy{}, &Error{Policy: p.Use, Field: "use", Err: err}
	}
	return r, nil
}

// build compiles a checked policy (spec.CheckPolicy, spec.Variant.Complete) with the host's permissions.
func build(p spec.Policy, host *HostPermissions) (Checker, error) {
	b := base{name: p.Name, fail: p.Fail}
	if p.Message != "" {
		m, err := compileMessage(p.Name, p.Message)
		if err != nil {
			return nil, &Error{Policy: p.Name, Field: "message", Err: err}
		}
		b.msg = m
	}
	switch p.Kind {
	case spec.PolicyRegex, spec.PolicySubstring:
		return compileRules(b, p)
	case spec.PolicyPermission:
		return compilePermission(b, p, host)
	case spec.PolicyShell:
		return compileShell(b, p)
	case spec.PolicyWildcard:
		return compileWildcard(b, p)
	case spec.PolicyPriority:
		return compilePriority(b, p)
	}
	return nil, &Error{Policy: p.Name, Field: "kind", Err: fmt.Errorf("unknown kind %q (regex, substring, permission, shell, wildcard, priority)", p.Kind)}
}

// checkExamples runs the policy's examples: each blocked one must be blocked with its decision and exact
// message, each allowed one allowed.
func checkExamples(p spec.Policy, c Checker) error {
	if p.Examples == nil {
		return nil
	}
	var errs []error
	for i, ex := range p.Examples.Blocked {
		field := fmt.Sprintf("examples.blocked[%d]", i)
		v := c.Check(ex.Command)
		want := ex.Decision
		switch {
		case v.Allowed:
			errs = append(errs, &Error{Policy: p.Name, Field: field, Err: fmt.Errorf("%q is allowed, the example says %s", ex.Command, want)})
		case v.Decision != want:
			errs = append(errs, &Error{Policy: p.Name, Field: field, Err: fmt.Errorf("%q gets %s, the example says %s", ex.Command, v.Decision, want)})
		case ex.Message != "" && v.Message != ex.Message:
			errs = append(errs, &Error{Policy: p.Name, Field: field, Err: fmt.Errorf("%q is blocked with message %q, the example says %q", ex.Command, v.Message, ex.Message)})
		}
	}
	for i, cmd := range p.Examples.Allowed {
		if v := c.Check(cmd); !v.Allowed {
			errs = append(errs, &Error{Policy: p.Name, Field: fmt.Sprintf("examples.allowed[%d]", i), Err: fmt.Errorf("%q is blocked (%s), the example says allowed", cmd, v.Message)})
		}
	}
	return errors.Join(errs...)
}

// First is the first verdict that blocks, or an allowing verdict.
func First(vs []Verdict) Verdict {
	for _, vd := range vs {
		if !vd.Allowed {
			return vd
		}
	}
	return Verdict{Allowed: true, Decision: spec.DecisionAllow}
}

// CheckVariantAll runs the policy checks of a variant's tool (the first exec tool when tool is empty) on
// command and returns every verdict, in the tool's order, without stopping at the first that blocks (a
// host stops there; this shows what each policy says: `agentbash policy check`). Checks that are not
// policies (required, not_blank, timeout, workdir) are skipped.
func CheckVariantAll(v *spec.Variant, tool, command string, opts ...Option) ([]Verdict, error) {
	var t *spec.Tool
	for i := range v.Tools {
		if (tool == "" && v.Tools[i].Kind == spec.KindExec) || (tool != "" && v.Tools[i].Name == tool) {
			t = &v.Tools[i]
			break
		}
	}
	if t == nil {
		if tool == "" {
			return nil, fmt.Errorf("variant %s has no exec tool", v.ID)
		}
		return nil, fmt.Errorf("variant %s has no tool %q", v.ID, tool)
	}
	var names []string
	for _, ch := range t.Checks {
		if ch.Policy == "" {
			continue
		}
		if !slices.ContainsFunc(v.Policies, func(p spec.Policy) bool { return p.Name == ch.Policy }) {
			return nil, fmt.Errorf("tool %s checks policy %q, which the variant does not declare", t.Name, ch.Policy)
		}
		names = append(names, ch.Policy)
	}
	return CheckPolicies(v, names, command, opts...)
}

// CheckPolicies runs the variant's policies named, in this order, on command and returns their verdicts.
// The variant's policies are compiled (CompileVariant) and their examples checked first.
func CheckPolicies(v *spec.Variant, names []string, command string, opts ...Option) ([]Verdict, error) {
	checkers, err := CompileVariant(v, opts...)
	if err != nil {
		return nil, err
	}
	out := make([]Verdict, 0, len(names))
	for _, n := range names {
		c, ok := checkers[n]
		if !ok {
			return nil, fmt.Errorf("variant %s has no policy %q", v.ID, n)
		}
		out = append(out, c.Check(command))
	}
	return out, nil
}

// charOf returns s when it is a single character, else "".
func charOf(s string) string {
	if utf8.RuneCountInString(s) == 1 {
		return s
	}
	return ""
}
