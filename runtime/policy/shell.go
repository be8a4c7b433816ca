package policy

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/agentbash/agentbash/runtime/policy/inlinecode"
	"github.com/agentbash/agentbash/runtime/policy/shellexpand"
	"github.com/agentbash/agentbash/runtime/policy/shellsyntax"
	"github.com/agentbash/agentbash/spec"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// shellEngine is a shell-parsing policy.
type shellEngine struct {
	base
	lang       syntax.LangVariant
	dynDeny    bool
	maxDepth   int
	wrappers   map[string]*wrapper
	remoteSrc  map[string]bool
	remoteSink map[string]bool
	forkBombs  bool
	reasons    spec.ShellReasons
	rules      []*shellRule
	// byName indexes the command rules by literal command name, in rule order; patRules are the command
	// rules with a name pattern (mkfs.*), tried on every name.
	byName   map[string][]int
	patRules []int
	// names are the literal command names of rules and wrappers, which a globbed command name is tried on.
	names    []string
	parsers  sync.Pool
	analyses sync.Pool
}

type wrapper struct {
	runs        spec.WrapperRuns
	valueOpts   map[string]bool
	positionals int
	assignments bool
	splitOpts   map[string]bool
	scriptOpts  map[string]bool
	noExecOpts  map[string]bool
	execOpts    map[string]bool
	appends     bool
	replaceOpts map[string]bool
	optOpts     map[string]bool // options with an optional, attached value
	optCmds     map[string][]*optCommand
	subCmds     []*optCommand // the option commands with subcommands
	code        *codeSpec
	inputSeps   map[string]bool
	// readsOptions: a wrapper that runs none of its operands has options that run something.
	readsOptions bool
}

type flagSpec struct {
	kind byte // 's' short (-r), 'l' long (--recursive), 'w' single-dash word (-delete)
	val  string
}

// cmdMatcher is a rule's command name: a literal, or a pattern (re) whose literal start is lit.
type cmdMatcher struct {
	lit string
	re  *regexp.Regexp
}

type shellRule struct {
	name, reason string
	cmds         []cmdMatcher
	subcommands  map[string]bool
	flags        [][]flagSpec
	valueOpts    map[string]bool
	voID         int // rules with the same options_with_value share an id (splitArgs cache)
	operands     []*regexp.Regexp
	dynOperands  bool
	args         []*regexp.Regexp
	redirects    []*regexp.Regexp
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

// compileShell compiles a checked shell policy (its defaults filled).
func compileShell(b base, p spec.Policy) (Checker, error) {
	sp := p.Shell
	e := &shellEngine{base: b, maxDepth: sp.MaxDepth, wrappers: map[string]*wrapper{}, forkBombs: sp.ForkBombs,
		reasons: sp.Reasons, remoteSrc: map[string]bool{}, remoteSink: map[string]bool{},
		dynDeny: sp.Dynamic == spec.DynamicDeny}
	switch sp.Dialect {
	case spec.ShellPOSIX:
		e.lang = syntax.LangPOSIX
	case spec.ShellMksh:
		e.lang = syntax.LangMirBSDKorn
	default:
		e.lang = syntax.LangBash
	}
	var errs []error
	fail := func(field string, err error) { errs = append(errs, &Error{Policy: p.Name, Field: field, Err: err}) }
	names := map[string]bool{}
	for i, w := range sp.Wrappers {
		cw := &wrapper{runs: w.Runs, valueOpts: set(w.OptionsWithValue), positionals: w.Positionals,
			assignments: w.Assignments, splitOpts: set(w.SplitOptions), scriptOpts: set(w.ScriptOptions),
			noExecOpts: set(w.NoExecOptions), execOpts: set(w.ExecOptions), appends: w.AppendsOperands,
			replaceOpts: set(w.ReplaceOptions), optOpts: set(w.OptionsWithOptionalValue)}
		if err := compileReach(cw, w, fmt.Sprintf("shell.wrappers[%d]", i)); err != nil {
			errs = append(errs, &Error{Policy: p.Name, Field: err.field, Err: err.err})
		}
		for _, n := range w.Names {
			e.wrappers[n] = cw
			names[n] = true
		}
	}
	if r := sp.Remote; r != nil {
		e.remoteSrc = set(r.Sources)
		e.remoteSink = set(r.Sinks)
	}
	for i, r := range sp.Rules {
		cr, err := compileShellRule(r)
		if err != nil {
			fail(fmt.Sprintf("shell.rules[%d]", i), err)
			continue
		}
		if cr.name == "" {
			cr.name = fmt.Sprintf("rules[%d]", i)
		}
		for _, c := range cr.cmds {
			if c.re == nil {
				names[c.lit] = true
			}
		}
		e.rules = append(e.rules, cr)
	}
	for n := range names {
		e.names = append(e.names, n)
	}
	voIDs := map[string]int{}
	for _, r := range e.rules {
		var k []string
		for o := range r.valueOpts {
			k = append(k, o)
		}
		sort.Strings(k)
		key := strings.Join(k, "\x00")
		if _, ok := voIDs[key]; !ok {
			voIDs[key] = len(voIDs)
		}
		r.voID = voIDs[key]
	}
	e.byName = map[string][]int{}
	for i, r := range e.rules {
		if len(r.redirects) > 0 {
			continue
		}
		for _, c := range r.cmds {
			switch {
			case c.re != nil:
				if len(e.patRules) == 0 || e.patRules[len(e.patRules)-1] != i {
					e.patRules = append(e.patRules, i)
				}
			case len(e.byName[c.lit]) == 0 || e.byName[c.lit][len(e.byName[c.lit])-1] != i:
				e.byName[c.lit] = append(e.byName[c.lit], i)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	lang := e.lang
	e.parsers.New = func() any { return syntax.NewParser(syntax.Variant(lang)) }
	e.analyses.New = func() any { return &analysis{e: e} }
	return e, nil
}

// literalStart is the text a command-name pattern's matches all start with: what comes before its first
// pattern, escape, brace or extended-glob character.
func literalStart(pat string) string {
	if i := strings.IndexAny(pat, "*?[\\{(@!+|"); i >= 0 {
		return pat[:i]
	}
	return ""
}

// compileShellRule compiles a checked shell rule.
func compileShellRule(r spec.ShellRule) (*shellRule, error) {
	cr := &shellRule{name: r.Name, reason: r.Reason, subcommands: set(r.Subcommands), valueOpts: set(r.OptionsWithValue),
		dynOperands: r.DynamicOperands}
	for _, c := range r.Commands {
		if pattern.HasMeta(c, 0) {
			re, ok := shellexpand.GlobRegexp(c)
			if !ok {
				return nil, fmt.Errorf("command pattern %q does not compile", c)
			}
			cr.cmds = append(cr.cmds, cmdMatcher{re: re, lit: literalStart(c)})
			continue
		}
		cr.cmds = append(cr.cmds, cmdMatcher{lit: c})
	}
	for _, g := range r.Flags {
		var group []flagSpec
		for _, f := range g {
			group = append(group, flagSpec{kind: spec.FlagKind(f), val: f})
		}
		cr.flags = append(cr.flags, group)
	}
	compile := func(list []string) ([]*regexp.Regexp, error) {
		var out []*regexp.Regexp
		for _, s := range list {
			re, err := regexp.Compile(s)
			if err != nil {
				return nil, fmt.Errorf("pattern %q: %v", s, err)
			}
			out = append(out, re)
		}
		return out, nil
	}
	var err error
	if cr.operands, err = compile(r.Operands); err != nil {
		return nil, err
	}
	if cr.args, err = compile(r.Args); err != nil {
		return nil, err
	}
	if cr.redirects, err = compile(r.Redirects); err != nil {
		return nil, err
	}
	return cr, nil
}

// finding is why a command is blocked.
type finding struct {
	rule, reason, name, segment, err string
}

// analysis is one Check. Analyses are pooled per engine so that their buffers are reused.
type analysis struct {
	e     *shellEngine
	found *finding
	// stmts and stages hold the statements and pipeline stages of the scripts being checked, the nested
	// scripts' after their parent's (see script).
	stmts  []shellsyntax.StmtInfo
	stages []*syntax.Stmt
	// arena holds the nodes of the trees FastParse builds during the check, eval the word expansions'
	// bookkeeping.
	arena shellsyntax.Arena
	eval  shellexpand.Arena
	// scopes are the scopes of the scripts being checked, by depth (see scopeAt).
	scopes []*scope
	// args splits the command line being matched against the rules.
	args argCache
	// code counts the inline code being read, one inside another (python -c running python -c ...); hops
	// the descriptors a script is read through (bash /dev/stdin < /dev/fd/3 ...).
	code, hops int
	// inline reads inline code (its buffers reused).
	inline inlinecode.Scanner
}

func (a *analysis) find(f finding) {
	if a.found == nil {
		a.found = &f
	}
}

// Check implements Checker.
func (e *shellEngine) Check(command string) Verdict {
	a := e.analyses.Get().(*analysis)
	a.script(command, 0, nil)
	f := a.found
	a.found = nil
	a.release()
	a.arena.Reset()
	a.eval.Reset()
	e.analyses.Put(a)
	if f == nil {
		return e.allow()
	}
	d := Data{Command: command, Rule: f.rule, Reason: f.reason, Name: f.name, Segment: f.segment, Error: f.err}
	return e.block("deny", &d, nil)
}

func (e *shellEngine) parse(a *analysis, src string) (*syntax.File, error) {
	if e.lang == syntax.LangBash {
		if f, ok := shellsyntax.FastParse(src, &a.arena); ok {
			return f, nil
		}
	}
	p := e.parsers.Get().(*syntax.Parser)
	defer e.parsers.Put(p)
	return p.Parse(strings.NewReader(src), "")
}
