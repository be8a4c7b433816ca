package textcap

import (
	"strings"
	"testing"
)

// The ANSI stage removes what strip-ansi removes (the expected texts are strip-ansi 7's answers, read from
// its pattern: node -e 'console.log(JSON.stringify(require("strip-ansi")(s)))'), however the text is cut
// into writes.
func TestStripANSI(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "no escapes\n", "no escapes\n"},
		{"sgr", "\x1b[31mred\x1b[0m plain", "red plain"},
		{"sgr with parameters", "\x1b[1;38;5;196mbold\x1b[m", "bold"},
		{"c1 csi", "a\u009b32mb", "ab"},
		{"osc title bel", "\x1b]0;title\x07after", "after"},
		{"osc hyperlink st", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"osc c1 st", "\x1b]2;t\u009cz", "z"},
		{"cursor moves", "a\x1b[2Kb\x1b[1Gc\x1b[?25ld", "abcd"},
		{"charset", "\x1b(Bx", "x"},
		{"five digits: the fifth is the final", "\x1b[12345m", "m"},
		{"unterminated osc is a csi", "\x1b]0;title", "itle"},
		{"lone escape", "a\x1b", "a\x1b"},
		{"escape then a letter that is no final", "a\x1bz", "a\x1bz"},
		{"escape then a final letter", "a\x1by", "a"},
		{"escape then non-final", "a\x1b\x01b", "a\x1b\x01b"},
		{"utf-8 around", "é\x1b[1m€\x1b[0m😀", "é€😀"},
		{"keypad", "\x1b=x\x1b>", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Decode: Replace, StripANSI: true, Head: 1 << 10}
			whole := capture(cfg, tc.in)
			if whole.Head != tc.want {
				t.Errorf("one write: %q, want %q", whole.Head, tc.want)
			}
			if whole.Bytes != int64(len(tc.want)) {
				t.Errorf("one write: %d bytes counted, want %d", whole.Bytes, len(tc.want))
			}
			// Byte by byte: a sequence split across writes is held until it is decided.
			var bytes []string
			for i := 0; i < len(tc.in); i++ {
				bytes = append(bytes, tc.in[i:i+1])
			}
			if got := capture(cfg, bytes...).Head; got != tc.want {
				t.Errorf("byte by byte: %q, want %q", got, tc.want)
			}
			// Every cut into two writes.
			for i := 1; i < len(tc.in); i++ {
				if got := capture(cfg, tc.in[:i], tc.in[i:]).Head; got != tc.want {
					t.Errorf("cut at %d: %q, want %q", i, got, tc.want)
				}
			}
		})
	}
}

// A sequence in progress is not shown before it is decided, and a held text stays bounded.
func TestStripANSIHeld(t *testing.T) {
	c := New(Config{Decode: Replace, StripANSI: true, Head: 1 << 20})
	c.Write([]byte("ab\x1b]0;ti"))
	if s := c.Snapshot(); s.Head != "ab" {
		t.Fatalf("an OSC in progress shows: %q", s.Head)
	}
	c.Write([]byte("tle\x07cd"))
	if s := c.Snapshot(); s.Head != "abcd" {
		t.Fatalf("after the terminator: %q", s.Head)
	}
	// An OSC that never ends is taken as it is once it passes the bound.
	c.Write([]byte("\x1b]" + strings.Repeat("x", 2*maxANSIHold)))
	if s := c.Snapshot(); s.Bytes < int64(maxANSIHold) {
		t.Fatalf("an endless OSC is held whole: %d bytes shown", s.Bytes)
	}
	if n := len(c.p.ansiHeld); n > maxANSIHold {
		t.Fatalf("%d bytes held", n)
	}
	c.Close()
}

// With strip: the white space an escape sequence stood between is trimmed (strip-ansi, then trim).
func TestStripANSIThenStrip(t *testing.T) {
	got := capture(Config{Decode: Replace, StripANSI: true, Strip: true, Head: 100}, "\x1b[0m \n out \x1b[K\n")
	if got.Head != "out" {
		t.Fatalf("%q", got.Head)
	}
}

// A NUL byte among the first BinarySniff bytes ends the text before the write that held it; one past
// them does not.
func TestBinarySniff(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sniff  int
		writes []string
		want   string
		binary bool
	}{
		{"no sniff", 0, []string{"a\x00b"}, "a\x00b", false},
		{"nul in the first write", 512, []string{"abc\x00def"}, "", true},
		{"nul in a later write", 512, []string{"hi\n", "x\x00y", "after"}, "hi\n", true},
		{"nul past the sample", 4, []string{"abcd\x00"}, "abcd\x00", false},
		{"nul at the last sampled byte", 4, []string{"ab", "c\x00"}, "ab", true},
		{"nul in a write straddling the sample", 4, []string{"abc", "de\x00"}, "abcde\x00", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := capture(Config{Decode: Replace, BinarySniff: tc.sniff, Head: 100}, tc.writes...)
			if s.Head != tc.want || s.Binary != tc.binary {
				t.Fatalf("%q binary %v, want %q binary %v", s.Head, s.Binary, tc.want, tc.binary)
			}
			var raw int64
			for _, w := range tc.writes {
				raw += int64(len(w))
			}
			if s.RawBytes != raw {
				t.Fatalf("raw bytes %d, want %d", s.RawBytes, raw)
			}
		})
	}
}
