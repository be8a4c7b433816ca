package cases

// What the external tests of this package (ci_test.go, which runs the check) see of a policy's rule entries.
type RuleEntry = ruleEntry

var (
	RuleEntries  = ruleEntries
	EntryTexts   = entryTexts
	RuleName     = ruleName
	WithoutEntry = withoutEntry
)

func (e *ruleEntry) Feature(pol string) string { return e.feature(pol) }
func (e *ruleEntry) Label() string             { return e.label }
func (e *ruleEntry) Text() string              { return e.text }
