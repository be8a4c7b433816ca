package textcap

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// decodeCases: expected values are CPython 3's bytes.decode("utf-8", errors=...) and str(UnicodeDecodeError),
// written by hand from CPython's decoder (Objects/stringlib/codecs.h, Objects/unicodeobject.c) and Unicode
// 15 §3.9 (maximal subparts).
var decodeCases = []struct {
	name    string
	in      string
	replace string
	ignore  string
	strict  string // "" when the input is valid
	prefix  string // Strict: the text before the error
}{
	{"empty", "", "", "", "", ""},
	{"ascii", "hello, world\n", "hello, world\n", "hello, world\n", "", ""},
	{"two-byte", "caf\xc3\xa9", "café", "café", "", ""},
	{"three-byte", "\xe2\x82\xac1", "€1", "€1", "", ""},
	{"four-byte", "a\xf0\x9f\x98\x80b", "a😀b", "a😀b", "", ""},
	{"edges valid", "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
		"\u007f\u0080\u07ff\u0800\ud7ff\ue000\uffff\U00010000\U0010ffff",
		"\u007f\u0080\u07ff\u0800\ud7ff\ue000\uffff\U00010000\U0010ffff", "", ""},
	{"U+FFFD itself is valid", "\xef\xbf\xbd", "\ufffd", "\ufffd", "", ""},

	// Invalid start bytes: one byte each.
	{"lone continuation", "\x80", "\ufffd", "", "'utf-8' codec can't decode byte 0x80 in position 0: invalid start byte", ""},
	{"lone continuation after ascii", "x\x80", "x\ufffd", "x", "'utf-8' codec can't decode byte 0x80 in position 1: invalid start byte", "x"},
	{"two continuations", "\x80\xbf", "\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0x80 in position 0: invalid start byte", ""},
	{"C0 overlong", "\xc0\x80", "\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xc0 in position 0: invalid start byte", ""},
	{"C1 overlong", "\xc1\xbf", "\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xc1 in position 0: invalid start byte", ""},
	{"F5", "\xf5", "\ufffd", "", "'utf-8' codec can't decode byte 0xf5 in position 0: invalid start byte", ""},
	{"F5 sequence", "\xf5\x80\x80\x80", "\ufffd\ufffd\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xf5 in position 0: invalid start byte", ""},
	{"F7 above max", "\xf7\xbf\xbf\xbf", "\ufffd\ufffd\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xf7 in position 0: invalid start byte", ""},
	{"FE", "ab\xfe", "ab\ufffd", "ab", "'utf-8' codec can't decode byte 0xfe in position 2: invalid start byte", "ab"},
	{"FF", "\xff", "\ufffd", "", "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte", ""},
	{"FF FE first error only", "\xff\xfe", "\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte", ""},

	// Truncated sequences in the middle: the maximal valid prefix is one error.
	{"2-byte cut mid", "\xc3A", "\ufffdA", "A", "'utf-8' codec can't decode byte 0xc3 in position 0: invalid continuation byte", ""},
	{"3-byte cut after 1", "\xe2A", "\ufffdA", "A", "'utf-8' codec can't decode byte 0xe2 in position 0: invalid continuation byte", ""},
	{"3-byte cut after 2", "\xe2\x82A", "\ufffdA", "A", "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte", ""},
	{"3-byte cut after 2 pos 4", "abcd\xe2\x82A", "abcd\ufffdA", "abcdA", "'utf-8' codec can't decode bytes in position 4-5: invalid continuation byte", "abcd"},
	{"4-byte cut after 2", "\xf0\x9fA", "\ufffdA", "A", "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte", ""},
	{"4-byte cut after 3", "\xf0\x9f\x98A", "\ufffdA", "A", "'utf-8' codec can't decode bytes in position 0-2: invalid continuation byte", ""},
	{"3-byte then lead", "\xe2\x82\xe2\x82\xac", "\ufffd€", "€", "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte", ""},

	// Truncated sequences at the end of data.
	{"2-byte at EOF", "\xc3", "\ufffd", "", "'utf-8' codec can't decode byte 0xc3 in position 0: unexpected end of data", ""},
	{"3-byte at EOF after 1", "abcdefg\xe2", "abcdefg\ufffd", "abcdefg", "'utf-8' codec can't decode byte 0xe2 in position 7: unexpected end of data", "abcdefg"},
	{"3-byte at EOF after 2", "\xe2\x82", "\ufffd", "", "'utf-8' codec can't decode bytes in position 0-1: unexpected end of data", ""},
	{"4-byte at EOF after 3", "\xf0\x9f\x98", "\ufffd", "", "'utf-8' codec can't decode bytes in position 0-2: unexpected end of data", ""},
	{"4-byte at EOF after 3 pos 2", "ab\xf0\x9f\x98", "ab\ufffd", "ab", "'utf-8' codec can't decode bytes in position 2-4: unexpected end of data", "ab"},

	// Surrogates, overlongs, above U+10FFFF: the lead byte alone, then each continuation byte.
	{"surrogate D800", "\xed\xa0\x80", "\ufffd\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte", ""},
	{"surrogate DFFF", "\xed\xbf\xbf", "\ufffd\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte", ""},
	{"surrogate cut at EOF", "\xed\xa0", "\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte", ""},
	{"overlong E0 80", "\xe0\x80\x80", "\ufffd\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xe0 in position 0: invalid continuation byte", ""},
	{"overlong E0 9F", "\xe0\x9f\xbf", "\ufffd\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xe0 in position 0: invalid continuation byte", ""},
	{"overlong F0 80", "\xf0\x80\x80\xaf", "\ufffd\ufffd\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xf0 in position 0: invalid continuation byte", ""},
	{"overlong F0 8F", "\xf0\x8f\xbf\xbf", "\ufffd\ufffd\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xf0 in position 0: invalid continuation byte", ""},
	{"overlong F0 80 at EOF", "\xf0\x80", "\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xf0 in position 0: invalid continuation byte", ""},
	{"above max F4 90", "\xf4\x90\x80\x80", "\ufffd\ufffd\ufffd\ufffd", "", "'utf-8' codec can't decode byte 0xf4 in position 0: invalid continuation byte", ""},

	// Unicode 15 table 3-8 (also the WHATWG example).
	{"table 3-8", "a\xf1\x80\x80\xe1\x80\xc2b\x80c\x80\xbfd", "a\ufffd\ufffd\ufffdb\ufffdc\ufffd\ufffdd", "abcd",
		"'utf-8' codec can't decode bytes in position 1-3: invalid continuation byte", "a"},
}

func TestDecodeBytes(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := DecodeBytes([]byte(tc.in), Replace); got != tc.replace || err != nil {
				t.Errorf("Replace: got %+q, %v; want %+q", got, err, tc.replace)
			}
			if got, err := DecodeBytes([]byte(tc.in), Ignore); got != tc.ignore || err != nil {
				t.Errorf("Ignore: got %+q, %v; want %+q", got, err, tc.ignore)
			}
			if got, err := DecodeBytes([]byte(tc.in), Raw); got != tc.in || err != nil {
				t.Errorf("Raw: got %+q, %v; want the input", got, err)
			}
			got, err := DecodeBytes([]byte(tc.in), Strict)
			switch {
			case tc.strict == "" && err != nil:
				t.Errorf("Strict: unexpected error %v", err)
			case tc.strict == "" && got != tc.replace:
				t.Errorf("Strict: got %+q, want %+q", got, tc.replace)
			case tc.strict != "" && (err == nil || err.Error() != tc.strict || got != tc.prefix):
				t.Errorf("Strict: got %+q, %v; want %+q, %s", got, err, tc.prefix, tc.strict)
			}
		})
	}
}

// TestCaptureDecode runs every decode case through a Capture, written whole and one byte at a time.
func TestCaptureDecode(t *testing.T) {
	for _, tc := range decodeCases {
		for _, d := range []Decode{Strict, Replace, Ignore, Raw} {
			want := map[Decode]string{Strict: tc.prefix, Replace: tc.replace, Ignore: tc.ignore, Raw: tc.in}[d]
			if d == Strict && tc.strict == "" {
				want = tc.replace
			}
			for _, bytewise := range []bool{false, true} {
				c := New(Config{Decode: d, Head: 1 << 10, Tail: 1 << 10})
				if bytewise {
					for i := 0; i < len(tc.in); i++ {
						c.Write([]byte{tc.in[i]})
					}
				} else {
					c.Write([]byte(tc.in))
				}
				c.Close()
				s := c.Snapshot()
				if s.Head != want || s.Tail != want || !s.Complete {
					t.Errorf("%s/%s bytewise=%v: Head %+q Tail %+q Complete %v; want %+q", tc.name, d, bytewise, s.Head, s.Tail, s.Complete, want)
				}
				if s.Bytes != int64(len(want)) || s.Chars != int64(utf8.RuneCountInString(want)) || s.RawBytes != int64(len(tc.in)) {
					t.Errorf("%s/%s: Bytes %d Chars %d RawBytes %d; want %d %d %d", tc.name, d, s.Bytes, s.Chars, s.RawBytes,
						len(want), utf8.RuneCountInString(want), len(tc.in))
				}
				gotErr := ""
				if s.Err != nil {
					gotErr = s.Err.Error()
				}
				if wantErr := map[bool]string{true: tc.strict}[d == Strict]; gotErr != wantErr {
					t.Errorf("%s/%s bytewise=%v: Err %q; want %q", tc.name, d, bytewise, gotErr, wantErr)
				}
			}
		}
	}
}

func TestReplaceCount(t *testing.T) {
	// The examples from the brief: Python's count of U+FFFD, not Go's one per byte.
	for in, n := range map[string]int{"\xe2\x82A": 1, "\xed\xa0\x80": 3, "\xf0\x9f\x98": 1, "\xf0\x9f\x98\xf0\x9f\x98": 2} {
		got, _ := DecodeBytes([]byte(in), Replace)
		if c := strings.Count(got, "\ufffd"); c != n {
			t.Errorf("%+q: %d U+FFFD, want %d", in, c, n)
		}
	}
}

func TestDecodeErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		e    DecodeError
		want string
	}{
		{DecodeError{0, 1, 0xff, "invalid start byte"}, "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"},
		{DecodeError{4, 6, 0xe2, "invalid continuation byte"}, "'utf-8' codec can't decode bytes in position 4-5: invalid continuation byte"},
		{DecodeError{7, 8, 0xe2, "unexpected end of data"}, "'utf-8' codec can't decode byte 0xe2 in position 7: unexpected end of data"},
		{DecodeError{1 << 33, 1<<33 + 3, 0xf0, "unexpected end of data"}, "'utf-8' codec can't decode bytes in position 8589934592-8589934594: unexpected end of data"},
		{DecodeError{9, 10, 0x0a, "x"}, "'utf-8' codec can't decode byte 0x0a in position 9: x"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestStrictPositions: positions count raw bytes across writes, before newline translation.
func TestStrictPositions(t *testing.T) {
	c := New(Config{Decode: Strict, Universal: true, Head: 100})
	c.Write([]byte("a\r\n"))
	c.Write([]byte("b\xe2"))
	c.Write([]byte("\x82"))
	c.Write([]byte("Z and more \xff"))
	c.Close()
	s := c.Snapshot()
	want := "'utf-8' codec can't decode bytes in position 4-5: invalid continuation byte"
	if s.Err == nil || s.Err.Error() != want || s.Head != "a\nb" || s.RawBytes != 18 {
		t.Fatalf("got %+v (err %v); want Head \"a\\nb\", RawBytes 18, %s", s, s.Err, want)
	}
	if *s.Err != (DecodeError{Start: 4, End: 6, Byte: 0xe2, Reason: "invalid continuation byte"}) {
		t.Fatalf("Err %+v", *s.Err)
	}
}

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, perByte, subpart string }{
		{"ok", "ok", "ok"},
		{"a\xe2\x82b", "a\ufffd\ufffdb", "a\ufffdb"},
		{"\xed\xa0\x80", "\ufffd\ufffd\ufffd", "\ufffd\ufffd\ufffd"},
		{"\xf0\x9f\x98", "\ufffd\ufffd\ufffd", "\ufffd"},
		{"\ufffd\xff", "\ufffd\ufffd", "\ufffd\ufffd"},
	} {
		if got := Sanitize(tc.in, true); got != tc.perByte {
			t.Errorf("Sanitize(%+q, true) = %+q, want %+q", tc.in, got, tc.perByte)
		}
		if got := Sanitize(tc.in, false); got != tc.subpart {
			t.Errorf("Sanitize(%+q, false) = %+q, want %+q", tc.in, got, tc.subpart)
		}
	}
}

func TestPyStrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{" \t\n\v\f\r x \r\n", "x"},
		{"\x1c\x1d\x1e\x1fx\x1f", "x"},
		{"\u0085\u00a0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000x\u3000", "x"},
		// Not white space for Python: zero width space, Mongolian vowel separator, BOM, NUL, U+FFFD.
		{"\u200bx\u200b", "\u200bx\u200b"},
		{"\u180ex\u180e", "\u180ex\u180e"},
		{"\ufeffx\ufeff", "\ufeffx\ufeff"},
		{"\x00x\x00", "\x00x\x00"},
		{" \xff ", "\xff"},
		{" \u00a0 ", ""},
	} {
		if got := pyStrip(tc.in); got != tc.want {
			t.Errorf("pyStrip(%+q) = %+q, want %+q", tc.in, got, tc.want)
		}
	}
}

func TestIsSpaceTable(t *testing.T) {
	// Python: [c for c in range(0x110000) if chr(c).isspace()]
	want := map[rune]bool{}
	for _, r := range []rune{9, 10, 11, 12, 13, 28, 29, 30, 31, 32, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000} {
		want[r] = true
	}
	for r := rune(0x2000); r <= 0x200a; r++ {
		want[r] = true
	}
	for r := rune(-1); r <= utf8.MaxRune+1; r++ {
		if IsSpace(r) != want[r] {
			t.Fatalf("IsSpace(%U) = %v", r, IsSpace(r))
		}
	}
}

// pyStrip removes leading and trailing white space as Python's str.strip() does (see IsSpace). Invalid
// bytes are not white space.
func pyStrip(s string) string { return strings.TrimFunc(s, IsSpace) }
