package policy

// Literals is the literal condition a regular expression (Go syntax) needs in a text to match: the
// prefilter the regex engines use, for other callers that run a pattern over large texts (the runtime's
// redaction). A text that lacks the literals cannot match, and the pattern need not run on it.
type Literals struct {
	p   *prefilter
	set litSet
}

// NewLiterals derives the condition from a pattern; one it cannot derive lets every text through.
func NewLiterals(pattern string) *Literals {
	l := &Literals{p: buildPrefilter(pattern)}
	l.set.register(l.p)
	return l
}

// MayMatch reports whether the pattern may match text (false only when it cannot).
func (l *Literals) MayMatch(text string) bool {
	if l == nil || l.p == nil {
		return true
	}
	return l.p.pass(newLitText(&l.set, text))
}
