package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentbash/agentbash/spec"
)

// priorityRule is one compiled rule of a priority policy.
type priorityRule struct {
	decision spec.Decision
	priority float64
	pattern  string    // the prefix or regex as written (.Pattern)
	re       *dpattern // the condition, on `"command":<JSON of the command>`; nil: every command
	reason   string    // the deny message (.Reason)
	cond     bool      // the rule has a condition
}

// priorityEngine is a priority policy.
type priorityEngine struct {
	base
	rules          []priorityRule // highest priority first, ties in their order
	def            spec.Decision
	subcommands    bool
	yolo           bool
	nonInteractive bool
	allowsAll      bool
	askMsg         *message
}

// jsonCommand is `"command":` and the command as JSON.stringify writes a string: `"` and `\` escaped,
// \b \f \n \r \t and the other control characters as \u00XX, everything else as it is.
func jsonCommand(command string) string {
	var b strings.Builder
	b.WriteString(`"command":"`)
	for _, r := range command {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func compilePriority(b base, p spec.Policy) (Checker, error) {
	pp := p.Priority
	e := &priorityEngine{base: b, def: pp.Default, subcommands: pp.Subcommands, yolo: pp.Yolo, nonInteractive: pp.NonInteractive}
	if pp.AskMessage != "" {
		m, err := compileMessage(p.Name, pp.AskMessage)
		if err != nil {
			return nil, &Error{Policy: p.Name, Field: "priority.ask_message", Err: err}
		}
		e.askMsg = m
	}
	add := func(field string, r spec.PriorityRule) error {
		pr := priorityRule{decision: r.Decision, priority: r.Priority, reason: r.DenyMessage}
		var src string
		switch {
		case len(r.CommandPrefix) > 0:
			// buildArgsPatterns: one alternative per prefix, the JSON text up to its closing quote, then
			// white space, a quote or an escaped quote.
			alts := make([]string, len(r.CommandPrefix))
			for i, prefix := range r.CommandPrefix {
				enc := strings.TrimSuffix(strings.TrimPrefix(jsonCommand(prefix), `"command":`), `"`)
				alts[i] = regexp.QuoteMeta(`"command":` + enc)
			}
			src = `(?:` + strings.Join(alts, "|") + `)(?:[\s"]|\\")`
			pr.pattern = strings.Join(r.CommandPrefix, ", ")
		case r.CommandRegex != "":
			src = `"command":"` + r.CommandRegex
			pr.pattern = r.CommandRegex
		}
		if src != "" {
			re, err := compileDialect(dialectJS, src, false)
			if err != nil {
				return &Error{Policy: p.Name, Field: field, Err: err}
			}
			pr.re, pr.cond = &re, true
		}
		e.rules = append(e.rules, pr)
		return nil
	}
	for i, r := range pp.Rules {
		if err := add(fmt.Sprintf("priority.rules[%d]", i), r); err != nil {
			return nil, err
		}
	}
	// The legacy lists (the CLI's settings rules), after the policy's own rules.
	if len(pp.Core) > 0 {
		for _, entry := range pp.Core {
			name, prefix, narrowed := legacyEntry(entry)
			if name != pp.Tool {
				continue
			}
			r := spec.PriorityRule{Decision: spec.DecisionAllow, Priority: pp.CorePriority}
			if narrowed {
				r.CommandPrefix = []string{prefix}
			}
			if err := add("priority.core", r); err != nil {
				return nil, err
			}
		}
		_ = add("priority.core", spec.PriorityRule{Decision: spec.DecisionDeny, Priority: pp.CorePriority - 0.01})
	}
	for _, entry := range pp.Exclude {
		if entry == pp.Tool {
			_ = add("priority.exclude", spec.PriorityRule{Decision: spec.DecisionDeny, Priority: pp.ExcludePriority})
		}
	}
	slices.SortStableFunc(e.rules, func(a, b priorityRule) int {
		switch {
		case a.priority > b.priority:
			return -1
		case a.priority < b.priority:
			return 1
		}
		return 0
	})
	// Every command allowed: the first rule is an allow for every command (with Yolo, whatever parses or
	// not), or there is no rule and the default allows.
	if len(e.rules) > 0 {
		e.allowsAll = e.rules[0].decision == spec.DecisionAllow && !e.rules[0].cond && (e.yolo || !e.subcommands || e.def == spec.DecisionAllow)
	} else {
		e.allowsAll = e.def == spec.DecisionAllow || e.yolo
	}
	return e, nil
}

// legacyEntry reads a legacy list entry: `name` or `name(args)` (the CLI's /^([a-zA-Z0-9_-]+)\((.*)\)$/).
func legacyEntry(entry string) (name, args string, narrowed bool) {
	if strings.HasSuffix(entry, ")") {
		if i := strings.IndexByte(entry, '('); i > 0 && strings.Trim(entry[:i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == "" {
			return entry[:i], entry[i+1 : len(entry)-1], true
		}
	}
	return entry, "", false
}

// match is the first rule (by priority) that matches command, or nil.
func (e *priorityEngine) match(command string) *priorityRule {
	var subject string
	for i := range e.rules {
		r := &e.rules[i]
		if r.re == nil {
			return r
		}
		if subject == "" {
			subject = jsonCommand(command)
		}
		if r.re.re.MatchString(newSubject(subject, dialectJS, r.re.key).mapped) {
			return r
		}
	}
	return nil
}

// judged is a decision with the rule that made it (nil: the default) and the command it was made on.
type judged struct {
	decision spec.Decision
	rule     *priorityRule
	command  string
}

// decide is the CLI's check of one command: the rule, then (with subcommands) each command of it.
func (e *priorityEngine) decide(command string, depth int) judged {
	r := e.match(command)
	j := judged{decision: e.def, rule: r, command: command}
	if r != nil {
		j.decision = r.decision
	} else if e.yolo {
		j.decision = spec.DecisionAllow
	}
	if !e.subcommands || command == "" || depth > 0 {
		// A command of the line is atomic: its own commands are itself.
		return j
	}
	parts, ok := simpleCommands(command)
	if !ok || len(parts) == 0 {
		switch {
		case j.decision == spec.DecisionDeny:
		case e.yolo && r != nil && r.cond:
			j.decision = spec.DecisionDeny
		case e.yolo:
			j.decision = spec.DecisionAllow
		default:
			j.decision, j.rule = e.def, r
		}
		return j
	}
	if j.decision == spec.DecisionDeny {
		return j
	}
	agg := j
	for _, part := range parts {
		if part == strings.TrimSpace(command) {
			continue // atomic: the command itself
		}
		sub := e.decide(part, depth+1)
		switch sub.decision {
		case spec.DecisionDeny:
			return sub
		case spec.DecisionAsk:
			if agg.decision != spec.DecisionAsk {
				agg = sub
			}
		}
	}
	return agg
}

// Check implements Checker.
func (e *priorityEngine) Check(command string) Verdict {
	if e.allowsAll {
		return e.allow()
	}
	j := e.decide(command, 0)
	decision := j.decision
	if decision == spec.DecisionAllow {
		return e.allow()
	}
	var m *message
	if decision == spec.DecisionAsk {
		m = e.askMsg
		if e.nonInteractive {
			decision = spec.DecisionDeny
		}
	}
	d := Data{Command: command, Segment: j.command, Decision: string(decision)}
	if j.rule != nil {
		d.Pattern, d.Rule, d.Reason = j.rule.pattern, j.rule.pattern, j.rule.reason
	}
	return e.block(decision, &d, m)
}

// simpleCommands lists the simple commands of a command line (each as its source text, trimmed); false
// when it does not parse.
func simpleCommands(command string) ([]string, bool) { return commandTexts(command, false, nil) }
