package runtime

import (
	"strings"
	"testing"
)

// nodeInspectString matches Node 20's util.inspect of a string: these answers were printed by node
// v20.20.2 (util.inspect(s) of each input).
func TestNodeInspectString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\u0000b", "'a\\x00b'"},
		{"it's", "\"it's\""},
		{"it's \"q\"", "`it's \"q\"`"},
		{"it's \"q\" `b`", "'it\\'s \"q\" `b`'"},
		{"it's \"q\" ${x}", "'it\\'s \"q\" ${x}'"},
		{"\u007f\u0085 é", "'\\x7F\\x85 é'"},
		{"😀 x", "'😀 x'"},
		{"line one\nline two\nzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "'line one\\n' +\n  'line two\\n' +\n  'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz'"},
		{"tab\there\r\n\u001b[0m", "'tab\\there\\r\\n\\x1B[0m'"},
		{"short\nnl", "'short\\nnl'"},
		{"\\back\\", "'\\\\back\\\\'"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\n'"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nb", "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\n' +\n  'b'"},
	} {
		if got := nodeInspectString(tc.in); got != tc.want {
			t.Errorf("inspect(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Past maxStringLength (10000 UTF-16 units) the rest is counted, not shown.
	long := nodeInspectString(strings.Repeat("x", 10005))
	if want := "'" + strings.Repeat("x", 10000) + "'... 5 more characters"; long != want {
		t.Errorf("a long string: %q...", long[len(long)-40:])
	}
	// The message cuts the inspected value at 128 UTF-16 units.
	msg := nodeArgValue("args[1]", "must be a string without null bytes", "echo "+strings.Repeat("\x00", 40))
	if want := "The argument 'args[1]' must be a string without null bytes. Received 'echo " + strings.Repeat(`\x00`, 40)[:122] + "..."; msg != want {
		t.Errorf("message %q, want %q", msg, want)
	}
}
