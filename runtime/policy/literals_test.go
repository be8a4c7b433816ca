package policy

import (
	"regexp"
	"strings"
	"testing"
)

// TestLiterals: a text the literals rule out never matches the pattern (the condition is necessary), and
// the condition rules out the texts without the literals.
func TestLiterals(t *testing.T) {
	cases := []struct {
		pattern string
		texts   []string
		skipped []string // texts MayMatch must rule out
	}{
		{`\bsk-ant-[A-Za-z0-9_-]{20,}\b`, []string{"sk-ant-abcdefghijklmnopqrstuvwxyz", "no key"}, []string{"no key", strings.Repeat("a", 1<<16)}},
		{`(?i)\b(?:API_KEY|TOKEN)\s*=\s*\S+`, []string{"api_key=1", "Token = x", "nothing"}, []string{"nothing"}},
		{`-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----[\s\S]*?-----END`, []string{"-----BEGIN RSA PRIVATE KEY-----\nx\n-----END", "BEGIN"}, []string{"BEGIN"}},
		{`\d+`, []string{"12", "x"}, nil}, // no literal: every text may match
	}
	for _, c := range cases {
		l, re := NewLiterals(c.pattern), regexp.MustCompile(c.pattern)
		for _, text := range c.texts {
			if re.MatchString(text) && !l.MayMatch(text) {
				t.Errorf("%s: %q matches but MayMatch says no", c.pattern, text)
			}
		}
		for _, text := range c.skipped {
			if l.MayMatch(text) {
				t.Errorf("%s: %q is not ruled out", c.pattern, text)
			}
		}
	}
}
