package conformance

import (
	"regexp"
	"sync"
)

// lazyRE is a regular expression compiled on first use. The agentbash binary links this package for
// every command, and Go runs package initialisation at every start: compiled at init, the masks would
// cost every `agentbash run` their compilation (about a tenth of a millisecond) for nothing.
type lazyRE struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

func lazyRegexp(expr string) *lazyRE { return &lazyRE{expr: expr} }

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func (l *lazyRE) MatchString(s string) bool              { return l.get().MatchString(s) }
func (l *lazyRE) ReplaceAllString(s, repl string) string { return l.get().ReplaceAllString(s, repl) }
func (l *lazyRE) FindStringSubmatch(s string) []string   { return l.get().FindStringSubmatch(s) }
func (l *lazyRE) ReplaceAllStringFunc(s string, f func(string) string) string {
	return l.get().ReplaceAllStringFunc(s, f)
}
