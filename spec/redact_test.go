package spec_test

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// TestRedactRuleErrors: a rule's open, close and partial patterns compile, never match the empty string,
// and close comes with open; each error has the position of the key at fault.
func TestRedactRuleErrors(t *testing.T) {
	const okTrunc, okTimeout = `{unit: bytes, limit: 100, keep: head, marker: "[cut]"}`, `{unit: s, default: 10, expiry: kill}`
	for _, c := range []struct{ rule, want string }{
		{`{name: k, pattern: 'a-b', close: 'b'}`, "hostile.yaml:3:44: redact.rules[0].close: close needs open"},
		{`{name: k, pattern: 'a-b', open: 'a', close: '(b'}`, "redact.rules[0].close: close does not compile"},
		{`{name: k, pattern: 'ab+', partial: 'a?b*'}`, "redact.rules[0].partial: partial matches the empty string"},
		{`{name: k, pattern: 'ab+', open: '[a'}`, "redact.rules[0].open: open does not compile"},
	} {
		data := strings.Replace(hostileTool(`{{.Stdout}}`, okTrunc, okTimeout), "title: t\n", "title: t\nredact: {rules: ["+c.rule+"]}\n", 1)
		_, err := spec.Parse("hostile.yaml", []byte(data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.rule, err, c.want)
		}
	}
	ok := strings.Replace(hostileTool(`{{.Stdout}}`, okTrunc, okTimeout), "title: t\n", "title: t\nredact: {rules: [{name: k, pattern: 'a-b', open: 'a', close: 'b', partial: 'a-?'}]}\n", 1)
	if _, err := spec.Parse("ok.yaml", []byte(ok)); err != nil {
		t.Error(err)
	}
}
