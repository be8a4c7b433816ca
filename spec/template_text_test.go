package spec_test

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// TestTextFuncs checks the text functions on the cases their JavaScript originals decide.
func TestTextFuncs(t *testing.T) {
	tests := []struct {
		tmpl string
		data any
		want string
	}{
		{`{{trim .}}`, "\ufeff\u00a0x y\u2028\r\n", "x y"},
		{`{{trim .}}`, "\u0085x", "\u0085x"}, // U+0085 is not white space to JavaScript
		{`{{shquote .}}`, "", "''"},
		{`{{shquote .}}`, "a b", "'a b'"},
		{`{{shquote .}}`, `a\b`, `'a\b'`},
		{`{{shquote .}}`, "it's", `"it's"`},
		{`{{shquote .}}`, "it's $x", `"it's \$x"`},
		{`{{shquote .}}`, "a;b|c", `a\;b\|c`},
		{`{{shquote .}}`, "C:|x", `C:\|x`},
		{`{{shquote .}}`, "/tmp/x-1.txt", "/tmp/x-1.txt"},
		{`{{grouped .}}`, 1234567, "1,234,567"},
		{`{{grouped .}}`, -1000, "-1,000"},
		{`{{grouped .}}`, 100, "100"},
		{`{{grouped .}}`, 0, "0"},
		{`{{len (lines .)}}`, "", "0"},
		{`{{len (lines .)}}`, "\n", "1"},
		{`{{joinlist "|" (lines .)}}`, "a\n\nb\n", "a||b"},
		{`{{joinlist "|" (last 0 (lines .))}}`, "a\nb", ""},
		{`{{joinlist "|" (last -3 (lines .))}}`, "a\nb", ""},
		{`{{joinlist "|" (last 5 (lines .))}}`, "a\nb", "a|b"},
		{`{{joinlist "|" (first 1 (lines .))}}`, "a\nb", "a"},
		{`{{replace . "</x>" "<\\/x>"}}`, "1</x>2</x>", `1<\/x>2<\/x>`},
		{`{{replace . "" "-"}}`, "ab", "-a-b-"},
	}
	for _, tt := range tests {
		tmpl, err := spec.ParseTemplate("t", tt.tmpl)
		if err != nil {
			t.Fatalf("%s: %v", tt.tmpl, err)
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, tt.data); err != nil {
			t.Errorf("%s on %q: %v", tt.tmpl, tt.data, err)
			continue
		}
		if b.String() != tt.want {
			t.Errorf("%s on %q = %q, want %q", tt.tmpl, tt.data, b.String(), tt.want)
		}
	}
}

// TestTextFuncsBudget: the functions that build text are charged to the execution's output budget.
func TestTextFuncsBudget(t *testing.T) {
	big := strings.Repeat("x ", 1<<14)
	for _, tmpl := range []string{`{{replace . "x" "yyyy"}}`, `{{shquote .}}`, `{{joinlist "--" (lines (replace . " " "\n"))}}`} {
		p, err := spec.ParseTemplate("t", tmpl)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := spec.ExecuteLimit(p, big, 1024); err == nil {
			t.Errorf("%s on %d bytes with a 1024-byte limit: no error", tmpl, len(big))
		}
	}
}
