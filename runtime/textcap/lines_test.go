package textcap

import (
	"strings"
	"testing"
)

// TestCountLines: with CountLines the snapshot counts the "\n" of the processed text, whatever was cut
// from what is kept: after universal newlines ("\r\n" and a lone "\r" are one newline each, across
// writes), after strip (leading and trailing white space are not text), and on the fast path that only
// counts once the head is full.
func TestCountLines(t *testing.T) {
	for _, c := range []struct {
		name   string
		cfg    Config
		chunks []string
		want   int64
	}{
		{"plain", Config{}, []string{"a\nb\n", "c"}, 2},
		{"none", Config{}, []string{"abc"}, 0},
		{"universal", Config{Universal: true}, []string{"a\r\nb\rc\r", "\nd\r"}, 4},
		{"universal, the head full", Config{Universal: true, Head: 1}, []string{"a\r\nb\rc\r", "\nd\r"}, 4},
		{"strip", Config{Strip: true}, []string{"\n\n a\n", "\nb\n\n  \n"}, 2},
		{"head and tail small", Config{Head: 2, Tail: 2}, []string{strings.Repeat("x\n", 1000)}, 1000},
		{"chars", Config{Unit: Chars, Head: 3}, []string{"é\né\n", "é"}, 2},
	} {
		c.cfg.CountLines = true
		if c.cfg.Decode == 0 {
			c.cfg.Decode = Replace
		}
		if got := capture(c.cfg, c.chunks...).Newlines; got != c.want {
			t.Errorf("%s: %d newlines, want %d", c.name, got, c.want)
		}
	}
	if got := capture(Config{Decode: Replace}, "a\nb\n").Newlines; got != 0 {
		t.Errorf("without CountLines: %d", got)
	}
}

// TestStripBlankLines: with StripBlankLines, strip removes at the start only the blank lines (the first
// line keeps its indentation) and at the end all white space, however the text is split into writes; a
// text of white space only is empty; the head and the counts are those of the kept text.
func TestStripBlankLines(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\n\n  one\ntwo  \n\n", "  one\ntwo"},
		{" \t\n \n  x", "  x"},
		{"  x  ", "  x"},
		{"x\n\n  y\n", "x\n\n  y"},
		{" \n \n ", ""},
		{"\r\n  é\r\n", "  é"},
		{"", ""},
	} {
		for cut := 0; cut <= len(c.in); cut++ {
			cfg := Config{Decode: Replace, Strip: true, StripBlankLines: true, Head: 100, CountLines: true}
			s := capture(cfg, c.in[:cut], c.in[cut:])
			if s.Head != c.want || s.Bytes != int64(len(c.want)) || s.Newlines != int64(strings.Count(c.want, "\n")) {
				t.Errorf("%q cut at %d: %q (%d bytes, %d newlines), want %q", c.in, cut, s.Head, s.Bytes, s.Newlines, c.want)
			}
		}
	}
}
