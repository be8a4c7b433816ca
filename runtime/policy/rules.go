package policy

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/agentbash/agentbash/spec"
)

// ruleEngine runs a regex or substring policy: blocks of rules over the whole command or its segments.
type ruleEngine struct {
	base
	d      dialect
	split  *dpattern
	strip  bool
	skip   bool
	blocks []ruleBlock
	lits   litSet // every prefilter literal, found in one pass per text
}

// ruleBlock is a run of consecutive rules with the same scope.
type ruleBlock struct {
	segments bool
	rules    []*rule
}

// rule is one compiled pattern or substring.
type rule struct {
	name       string
	reason     string
	source     string // the pattern or substring as written (.Pattern)
	re         *dpattern
	substring  bool
	ignoreCase bool
	unless     *dpattern
	msg        *message
}

// compileRules compiles a checked regex or substring policy (spec.Policy.Rules, its defaults filled).
func compileRules(b base, p spec.Policy) (Checker, error) {
	d := parseDialect(p.Dialect)
	e := &ruleEngine{base: b, d: d}
	if p.Split != nil {
		re, err := compileDialect(d, p.Split.Pattern, false)
		if err != nil {
			return nil, &Error{Policy: p.Name, Field: "split.pattern", Err: err}
		}
		e.split, e.strip, e.skip = &re, p.Split.Strip, p.Split.SkipEmpty
	}
	var errs []error
	for i := range p.Rules {
		r := &p.Rules[i]
		fail := func(sub string, err error) {
			errs = append(errs, &Error{Policy: p.Name, Field: fmt.Sprintf("rules[%d]", i) + sub, Err: err})
		}
		patterns, subs, _ := r.RuleTexts()
		segments := r.Scope == spec.ScopeSegments
		ic := r.IgnoresCase(&p)
		var unless *dpattern
		if r.Unless != "" {
			u, err := compileDialect(d, r.Unless, ic)
			if err != nil {
				fail(".unless", err)
				continue
			}
			unless = &u
		}
		var msg *message
		if r.Message != "" {
			m, err := compileMessage(p.Name, r.Message)
			if err != nil {
				fail(".message", err)
				continue
			}
			msg = m
		}
		add := func(cr *rule) {
			cr.msg = msg
			if cr.name == "" {
				cr.name = cr.source
			}
			if n := len(e.blocks); n == 0 || e.blocks[n-1].segments != segments {
				e.blocks = append(e.blocks, ruleBlock{segments: segments})
			}
			blk := &e.blocks[len(e.blocks)-1]
			blk.rules = append(blk.rules, cr)
		}
		for _, pat := range patterns {
			re, err := compileDialect(d, pat, ic)
			if err != nil {
				fail(".pattern", err)
				continue
			}
			add(&rule{name: r.Name, reason: r.Reason, source: pat, re: &re, ignoreCase: ic, unless: unless})
		}
		for _, s := range subs {
			add(&rule{name: r.Name, reason: r.Reason, source: s, substring: true, ignoreCase: ic, unless: unless})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if e.split != nil {
		e.lits.register(e.split.pf)
	}
	for _, blk := range e.blocks {
		for _, r := range blk.rules {
			if r.re != nil {
				e.lits.register(r.re.pf)
			}
		}
	}
	return e, nil
}

// span is a segment's mapped offsets in the command's subject.
type span struct{ i, j int }

// subjects maps one command lazily, once per mapping key (see dialect); every mapping has the same
// offsets, so segment spans computed on one apply to all.
type subjects struct {
	text  string
	d     dialect
	plain subject
	clean bool // the text maps to itself under every key
	dec   *decoded
	keys  []mapKey
	subs  []subject
	lits  *litSet
	// found caches, per mapped subject (index of subs, or -1 for plain) and span, the literals present.
	found []spanFound
}

type spanFound struct {
	idx   int
	sp    span
	found *litText
}

// keyIndex is the index of key's subject in subs, or -1 for a text every key maps alike.
func (ss *subjects) keyIndex(key mapKey) int {
	if ss.clean {
		return -1
	}
	for i, k := range ss.keys {
		if k == key {
			return i
		}
	}
	ss.get(key)
	for i, k := range ss.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// foundIn reports which prefilter literals span sp (j < 0: the whole text) of the mapped text under key
// contains.
func (ss *subjects) foundIn(key mapKey, sp span) *litText {
	idx := ss.keyIndex(key)
	s := ss.get(key)
	if sp.j < 0 {
		sp = span{0, len(s.mapped)}
	}
	for _, f := range ss.found {
		if f.idx == idx && f.sp == sp {
			return f.found
		}
	}
	found := newLitText(ss.lits, s.mapped[sp.i:sp.j])
	ss.found = append(ss.found, spanFound{idx, sp, found})
	return found
}

func newSubjects(text string, d dialect, lits *litSet) *subjects {
	clean := d == dialectRE2 || asciiClean(text, d)
	return &subjects{text: text, d: d, clean: clean, plain: subject{orig: text, mapped: text}, lits: lits}
}

func (ss *subjects) decoded() *decoded {
	if ss.dec == nil {
		ss.dec = decode(ss.text, ss.d)
	}
	return ss.dec
}

// origSpan is the original text of span sp (j < 0: the whole command).
func (ss *subjects) origSpan(sp span) string {
	switch {
	case sp.j < 0:
		return ss.text
	case ss.clean:
		return ss.text[sp.i:sp.j]
	}
	return ss.decoded().origSpan(sp.i, sp.j)
}

func (ss *subjects) get(key mapKey) subject {
	if ss.clean {
		return ss.plain
	}
	for i, k := range ss.keys {
		if k == key {
			return ss.subs[i]
		}
	}
	s := ss.decoded().subject(ss.d, key)
	ss.keys, ss.subs = append(ss.keys, key), append(ss.subs, s)
	return s
}

// Check implements Checker.
func (e *ruleEngine) Check(command string) Verdict {
	ss := newSubjects(command, e.d, &e.lits)
	var segs []span
	segsDone := false
	for _, blk := range e.blocks {
		if !blk.segments {
			for _, r := range blk.rules {
				if v, ok := e.try(r, command, ss, span{0, -1}); ok {
					return v
				}
			}
			continue
		}
		if !segsDone {
			segs, segsDone = e.segments(ss), true
		}
		for _, sg := range segs {
			for _, r := range blk.rules {
				if v, ok := e.try(r, command, ss, sg); ok {
					return v
				}
			}
		}
	}
	return e.allow()
}

// segments splits the subject on the split pattern (Python's re.split), strips and skips as configured.
func (e *ruleEngine) segments(ss *subjects) []span {
	s := ss.get(e.split.key)
	var out []span
	add := func(i, j int) {
		if e.strip {
			t := s.mapped[i:j]
			if e.d == dialectRE2 {
				l := strings.TrimLeftFunc(t, unicode.IsSpace)
				i += len(t) - len(l)
				j = i + len(strings.TrimRightFunc(l, unicode.IsSpace))
			} else {
				// Mapped subjects hold the dialect's white space as ASCII \t \n \f \r and space.
				for i < j && isMappedSpace(s.mapped[i]) {
					i++
				}
				for j > i && isMappedSpace(s.mapped[j-1]) {
					j--
				}
			}
		}
		if e.skip && i == j {
			return
		}
		out = append(out, span{i, j})
	}
	last := 0
	if e.split.pf.pass(ss.foundIn(e.split.key, span{0, -1})) {
		for _, m := range e.split.re.FindAllStringIndex(s.mapped, -1) {
			add(last, m[0])
			last = m[1]
		}
	}
	add(last, len(s.mapped))
	return out
}

func isMappedSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// try runs one rule on one span of the command (j < 0: the whole command).
func (e *ruleEngine) try(r *rule, command string, ss *subjects, sp span) (Verdict, bool) {
	cut := func(s subject) subject {
		if sp.j < 0 {
			return s
		}
		return s.slice(sp.i, sp.j)
	}
	var segText string
	var match string
	var groups []string
	if r.substring {
		segText = ss.origSpan(sp)
		text, needle := segText, r.source
		if r.ignoreCase {
			text, needle = strings.ToLower(text), strings.ToLower(needle)
		}
		k := strings.Index(text, needle)
		if k < 0 {
			return Verdict{}, false
		}
		match = r.source
		if !r.ignoreCase {
			match = segText[k : k+len(r.source)]
		}
		groups = []string{match}
	} else {
		if r.re.pf != nil && !r.re.pf.pass(ss.foundIn(r.re.key, sp)) {
			return Verdict{}, false
		}
		seg := cut(ss.get(r.re.key))
		segText = seg.orig
		if r.re.class != nil && !hasClassChar(seg.mapped, r.re.class) {
			return Verdict{}, false
		}
		m := r.re.re.FindStringSubmatchIndex(seg.mapped)
		if m == nil {
			return Verdict{}, false
		}
		groups = make([]string, len(m)/2)
		for g := range groups {
			groups[g] = seg.span(m[2*g], m[2*g+1])
		}
		match = groups[0]
	}
	if r.unless != nil && r.unless.re.MatchString(cut(ss.get(r.unless.key)).mapped) {
		return Verdict{}, false
	}
	d := Data{Command: command, Rule: r.name, Reason: r.reason, Pattern: r.source, Segment: segText,
		Match: match, Groups: groups, Char: charOf(match)}
	return e.block("deny", &d, r.msg), true
}
