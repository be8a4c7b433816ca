package policy

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A prefilter is a necessary condition for a regular expression to match, made of literal substrings:
// when the text does not contain them, the regular expression cannot match and is not run. RE2 in Go has
// no lazy DFA, so a deny list of a dozen patterns with `.*` over a 1 KB command costs milliseconds;
// skipping the patterns whose literals are absent keeps a check within microseconds.
type prefilter struct {
	op   byte // 'l' literal, '&' all of kids, '|' any of kids
	lit  string
	fold bool // ASCII case-insensitive literal
	idx  int  // the literal's index in its engine's litSet
	kids []*prefilter
}

// buildPrefilter derives a prefilter from a compiled pattern's source; nil means none (always run).
func buildPrefilter(src string) *prefilter {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	return prefilterOf(re.Simplify())
}

func prefilterOf(re *syntax.Regexp) *prefilter {
	switch re.Op {
	case syntax.OpLiteral:
		lit := string(re.Rune)
		fold := re.Flags&syntax.FoldCase != 0
		for _, r := range re.Rune {
			// Only ASCII literals: Unicode case folding (K, ſ) is not a byte-wise comparison.
			if r >= utf8.RuneSelf {
				return nil
			}
		}
		if fold {
			lit = strings.ToLower(lit)
		}
		return &prefilter{op: 'l', lit: lit, fold: fold}
	case syntax.OpCapture, syntax.OpPlus:
		return prefilterOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return prefilterOf(re.Sub[0])
		}
	case syntax.OpConcat:
		var kids []*prefilter
		for _, s := range re.Sub {
			if k := prefilterOf(s); k != nil {
				kids = append(kids, k)
			}
		}
		switch len(kids) {
		case 0:
			return nil
		case 1:
			return kids[0]
		}
		return &prefilter{op: '&', kids: kids}
	case syntax.OpAlternate:
		var kids []*prefilter
		for _, s := range re.Sub {
			k := prefilterOf(s)
			if k == nil {
				return nil
			}
			kids = append(kids, k)
		}
		return &prefilter{op: '|', kids: kids}
	}
	return nil
}

// pass reports whether a text may match; t answers which literals of the engine's litSet it contains.
func (p *prefilter) pass(t *litText) bool {
	if p == nil {
		return true
	}
	switch p.op {
	case 'l':
		return t.has(p.idx)
	case '&':
		for _, k := range p.kids {
			if !k.pass(t) {
				return false
			}
		}
		return true
	default:
		for _, k := range p.kids {
			if k.pass(t) {
				return true
			}
		}
		return false
	}
}

// litSet holds every literal of an engine's prefilters, numbered, so that a text's answers can be kept
// in a slice (rules share literals).
type litSet struct {
	lits []litKey
}

type litKey struct {
	lit  string
	fold bool
}

// register gives every literal of p its index, sharing equal literals.
func (ls *litSet) register(p *prefilter) {
	if p == nil {
		return
	}
	if p.op != 'l' {
		for _, k := range p.kids {
			ls.register(k)
		}
		return
	}
	key := litKey{p.lit, p.fold}
	for i, l := range ls.lits {
		if l == key {
			p.idx = i
			return
		}
	}
	p.idx = len(ls.lits)
	ls.lits = append(ls.lits, key)
}

// litText answers, for one text, which literals of a litSet it contains, searching each literal once.
type litText struct {
	set   *litSet
	text  string
	lower string
	state []uint8 // per literal: 0 not searched yet, 1 present, 2 absent
	// folded is 0 before the lower-case text is computed, 1 when it is, 2 when the text is not ASCII
	// (case-insensitive literals then count as present: Unicode folding is left to RE2).
	folded uint8
}

func newLitText(set *litSet, text string) *litText {
	return &litText{set: set, text: text, state: make([]uint8, len(set.lits))}
}

func (t *litText) has(i int) bool {
	switch t.state[i] {
	case 1:
		return true
	case 2:
		return false
	}
	l := t.set.lits[i]
	var v bool
	if l.fold {
		if t.folded == 0 {
			t.folded = 2
			if asciiText(t.text) {
				t.lower, t.folded = strings.ToLower(t.text), 1
			}
		}
		v = t.folded == 2 || strings.Contains(t.lower, l.lit)
	} else {
		v = strings.Contains(t.text, l.lit)
	}
	t.state[i] = 2
	if v {
		t.state[i] = 1
	}
	return v
}

func asciiText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// classOf returns the ranges of a pattern that is one character class (a capture of one included), as
// regexp/syntax reads it: the pattern matches a text exactly when some character of the text is in them.
// nil for any other pattern.
func classOf(src string) []rune {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpCharClass:
		return re.Rune
	case syntax.OpLiteral:
		if len(re.Rune) == 1 && re.Flags&syntax.FoldCase == 0 {
			return []rune{re.Rune[0], re.Rune[0]}
		}
	}
	return nil
}

// hasClassChar reports whether s holds a character in the ranges (lo, hi pairs), reading s as Go's
// regexp reads it (an invalid byte is U+FFFD).
func hasClassChar(s string, ranges []rune) bool {
	for _, c := range s {
		for i := 0; i < len(ranges); i += 2 {
			if c >= ranges[i] && c <= ranges[i+1] {
				return true
			}
		}
	}
	return false
}
