package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// redactor applies a spec's redaction rules (spec.Redact) to the texts its tools answer.
//
// A rule's pattern matches a whole secret; what a cut leaves of one is matched by the rule's open and
// partial patterns. So a command's output is redacted in pieces, each knowing its edges, before the
// result is rendered (a truncated stream's kept head, which ends at the cut, and its kept tail, which starts
// after it; a poll of a background shell or a read of a session, which ends where the command is still
// writing and continues what an earlier poll ended in), and the rendered text is then redacted whole, as
// the host does.
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
	// open, close and partial are the rule's patterns for a secret a cut or a poll splits (nil: none);
	// partial is anchored at the end of the text.
	open, close, partial  *regexp.Regexp
	openLits, partialLits *policy.Literals
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
		rr := redactRule{name: rule.Name, re: re, lits: policy.NewLiterals(rule.Pattern), replace: t}
		if rule.Open != "" {
			if rr.open, err = regexp.Compile(rule.Open); err != nil {
				return nil, err
			}
			rr.openLits = policy.NewLiterals(rule.Open)
		}
		if rule.Close != "" {
			if rr.close, err = regexp.Compile(rule.Close); err != nil {
				return nil, err
			}
		}
		if rule.Partial != "" {
			if rr.partial, err = regexp.Compile(`(?:` + rule.Partial + `)\z`); err != nil {
				return nil, err
			}
			rr.partialLits = policy.NewLiterals(rule.Partial)
		}
		out.rules = append(out.rules, rr)
	}
	return out, nil
}

// applies reports whether the rules apply to a tool's answers.
func (r *redactor) applies(tool string) bool {
	return r != nil && (len(r.tools) == 0 || slices.Contains(r.tools, tool))
}

// text applies every rule in order, each to what the rules before it left; an open secret (a rule's open
// with no end) is redacted to the end of the text.
func (r *redactor) text(s string) string {
	out, _ := r.piece(piece{text: s})
	return out
}

// piece is a text of a command's output and what lies at its edges.
type piece struct {
	text string
	// carry is the end of the previous text of the same stream (its last carryContext bytes, or from the
	// start of a secret it ended in): the text continues it.
	carry string
	// after reports a text that starts after a cut, with nothing known of what came before.
	after bool
	// open reports a text that ends where the stream goes on: at a cut, or where a running command is
	// still writing.
	open bool
}

// carryContext is how much of a text's end the next text of its stream is read after, so that a secret
// split between two polls (its prefix in one, its body in the next) is found whole.
const carryContext = 1024

// carryMax bounds a carry that holds the start of an open secret: its first carryMax bytes and its last
// carryContext.
const carryMax = 4096

// piece redacts a text with its edges known, and returns what the next text of the stream continues.
func (r *redactor) piece(p piece) (string, string) {
	t, k := p.carry+p.text, len(p.carry)
	// A text that starts after a cut may start inside a secret: through the first close no open precedes.
	start, startRule := 0, -1
	if p.after && k == 0 {
		for i := range r.rules {
			rule := &r.rules[i]
			if rule.close == nil || rule.open == nil {
				continue
			}
			if loc := rule.close.FindStringIndex(t); loc != nil && loc[1] > start && !rule.open.MatchString(t[:loc[0]]) {
				start, startRule = loc[1], i
			}
		}
	}
	// Where the text ends inside a secret, from the secret's start: an open that no match covers, or, at an
	// open end, what a cut leaves of a secret.
	end, endRule := len(t), -1
	for i := range r.rules {
		rule := &r.rules[i]
		if rule.open != nil && rule.openLits.MayMatch(t[start:]) {
			if at := openAt(rule, t[start:]); at >= 0 && start+at < end {
				end, endRule = start+at, i
			}
		}
		if rule.partial != nil && p.open {
			// A piece of a secret at the end is short (a longer one matches the rule's pattern): only the
			// text's last carryMax bytes are searched.
			w := max(start, len(t)-carryMax)
			if !rule.partialLits.MayMatch(t[w:]) {
				continue
			}
			if loc := rule.partial.FindStringIndex(t[w:]); loc != nil && loc[1] > loc[0] && w+loc[0] < end {
				end, endRule = w+loc[0], i
			}
		}
	}
	var b strings.Builder
	if startRule >= 0 && k < start {
		b.WriteString(r.rules[startRule].replacement(t[:start]))
	}
	if start < end {
		mid, kb := r.rulesFrom(t[start:end], min(max(k-start, 0), end-start))
		b.WriteString(mid[kb:])
	}
	if endRule >= 0 && len(t) > max(k, end) {
		b.WriteString(r.rules[endRule].replacement(t[end:]))
	}
	// What the next text continues: the last carryContext bytes, or from the start of an open secret.
	from := max(0, len(t)-carryContext)
	if endRule >= 0 {
		from = min(from, end)
	}
	carry := t[from:]
	if len(carry) > carryMax+carryContext {
		carry = carry[:carryMax] + carry[len(carry)-carryContext:]
	}
	return b.String(), strings.Clone(carry)
}

// openAt is where the first open of rule in s starts that no match of its pattern covers, or -1.
func openAt(rule *redactRule, s string) int {
	opens := rule.open.FindAllStringIndex(s, -1)
	if opens == nil {
		return -1
	}
	whole := rule.re.FindAllStringIndex(s, -1)
	for _, o := range opens {
		if !slices.ContainsFunc(whole, func(m []int) bool { return m[0] <= o[0] && o[0] < m[1] }) {
			return o[0]
		}
	}
	return -1
}

// rulesFrom applies every rule in order to s, and returns where in the result what followed s[:k] starts:
// a match that spans k is replaced whole and kept, one before k is dropped with s[:k].
func (r *redactor) rulesFrom(s string, k int) (string, int) {
	for i := range r.rules {
		rule := &r.rules[i]
		// mutate: redact-last-rule
		if !rule.lits.MayMatch(s) {
			continue
		}
		locs := rule.re.FindAllStringIndex(s, -1)
		if locs == nil {
			continue
		}
		var b strings.Builder
		last, nk := 0, k
		for _, m := range locs {
			b.WriteString(s[last:m[0]])
			if m[0] < k && k < m[1] {
				nk = b.Len() // the match spans k: its replacement is kept
			}
			b.WriteString(rule.replacement(s[m[0]:m[1]]))
			if m[1] <= k {
				nk = b.Len() + k - m[1] // before k: k moves with what the replacements changed
			}
			last = m[1]
		}
		b.WriteString(s[last:])
		s, k = b.String(), nk
	}
	return s, k
}

// replacement is what a match of the rule (or what a cut or a poll left of one) becomes.
func (rule *redactRule) replacement(m string) string {
	out, err := spec.Execute(rule.replace, &spec.Data{Name: rule.name, Match: m})
	if err != nil {
		return "[REDACTED]" // a replacement that fails never leaks the match
	}
	return out
}

// redact applies the variant's redaction to a text this call answers.
func (c *call) redact(s string) string {
	if !c.redacts() {
		return s
	}
	return c.e.redact.text(s)
}

// redacts reports whether the variant redacts this call's answers.
func (c *call) redacts() bool {
	return c.e != nil && c.e.redact.applies(c.t.spec.Name)
}

// redactPiece redacts a piece of output the call answers, when the variant redacts it.
func (c *call) redactPiece(p piece) (string, string) {
	if !c.redacts() {
		return p.text, ""
	}
	return c.e.redact.piece(p)
}

// cut truncates with l through truncate and, when the call redacts, redacts what the cut leaves of a
// secret on either side of it: the kept head ends at the cut, the kept tail starts after it (and ends where
// the command is still writing, when live). sanitize, if any, is applied to each kept part.
func (c *call) cut(l textcap.Limit, truncate func(textcap.Limit) (string, bool, error), sanitize func(string) string, live bool) (string, bool, error) {
	if sanitize == nil {
		sanitize = func(s string) string { return s }
	}
	if !c.redacts() {
		text, truncated, err := truncate(l)
		return sanitize(text), truncated, err
	}
	var marker string
	mark := l.Marker
	tag := make([]byte, 12)
	_, _ = rand.Read(tag)
	tok := "\x00agentbash-cut-" + hex.EncodeToString(tag) + "\x00"
	l.Marker = func(total, kept, elided int64) string {
		if mark != nil {
			marker = mark(total, kept, elided)
		}
		return tok
	}
	text, truncated, err := truncate(l)
	if err != nil {
		return sanitize(text), truncated, err
	}
	head, tail, found := strings.Cut(text, tok)
	if !truncated || !found {
		text, _ = c.e.redact.piece(piece{text: sanitize(text), open: live})
		return text, truncated, nil
	}
	head, _ = c.e.redact.piece(piece{text: sanitize(head), open: true})
	tail, _ = c.e.redact.piece(piece{text: sanitize(tail), after: true, open: live})
	return head + marker + tail, true, nil
}
