package textcap

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func ryeMarker(total, _, _ int64) string {
	return fmt.Sprintf("\n... [output truncated, %d bytes total]", total)
}
func fixedMarker(s string) func(int64, int64, int64) string {
	return func(int64, int64, int64) string { return s }
}

const tunaMarker = "\n...\n[truncated]\n...\n"

func TestTruncate(t *testing.T) {
	head10 := Limit{Unit: Bytes, Limit: 10, Keep: Head, CutDecode: Replace, Marker: ryeMarker}
	head10ignore := head10
	head10ignore.CutDecode = Ignore
	head10raw := head10
	head10raw.CutDecode = Raw
	chars4 := Limit{Unit: Chars, Limit: 4, Keep: Head, Marker: func(_, _, e int64) string { return fmt.Sprintf("[+%d]", e) }}
	tail10 := Limit{Unit: Bytes, Limit: 10, Keep: Tail, CutDecode: Replace, Marker: fixedMarker("[cut]")}
	tail10ignore := tail10
	tail10ignore.CutDecode = Ignore
	tail4 := tail10
	tail4.Tail = 4
	ht := Limit{Unit: Bytes, Limit: 6, Keep: HeadTail, Head: 2, Tail: 3, Marker: func(total, kept, elided int64) string {
		return fmt.Sprintf("|%d,%d,%d|", total, kept, elided)
	}}
	for _, tc := range []struct {
		name      string
		l         Limit
		in        string
		want      string
		truncated bool
	}{
		{"bytes limit-1", head10, "123456789", "123456789", false},
		{"bytes limit", head10, "1234567890", "1234567890", false},
		{"bytes limit+1", head10, "1234567890A", "1234567890\n... [output truncated, 11 bytes total]", true},
		{"cut 1 of 3 replace", head10, "123456789€", "123456789\ufffd\n... [output truncated, 12 bytes total]", true},
		{"cut 2 of 3 replace", head10, "12345678€", "12345678\ufffd\n... [output truncated, 11 bytes total]", true},
		{"cut ignore", head10ignore, "123456789€", "123456789\n... [output truncated, 12 bytes total]", true},
		{"cut raw", head10raw, "123456789€", "123456789\xe2\n... [output truncated, 12 bytes total]", true},
		{"no cut in char", head10, "1234567€90", "1234567€\n... [output truncated, 12 bytes total]", true},
		{"chars limit-1", chars4, "ééé", "ééé", false},
		{"chars limit", chars4, "éééé", "éééé", false},
		{"chars limit+1", chars4, "é€😀aZ", "é€😀a[+1]", true},
		{"tail", tail10, "0123456789AB", "[cut]23456789AB", true},
		{"tail limit", tail10, "0123456789", "0123456789", false},
		{"tail cut replace", tail10, "€123456789", "[cut]\ufffd123456789", true},
		{"tail cut 2 replace", tail10, "x€12345678", "[cut]\ufffd\ufffd12345678", true},
		{"tail cut ignore", tail10ignore, "€123456789", "[cut]123456789", true},
		{"tail explicit", tail4, "0123456789AB", "[cut]89AB", true},
		{"head tail", ht, "abcdefghij", "ab|10,5,5|hij", true},
		{"head tail limit", ht, "abcdef", "abcdef", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A capture that keeps exactly what the limit needs, and a generous one.
			need := max(tc.l.Limit, tc.l.Head)
			for _, cfg := range []Config{
				{Decode: Replace, Unit: tc.l.Unit, Head: need, Tail: max(tc.l.Limit, tc.l.Tail)},
				{Decode: Replace, Head: 1000, Tail: 1000},
				{Decode: Replace, Unit: Chars, Head: 1000, Tail: 1000},
			} {
				s := capture(cfg, tc.in)
				got, truncated, err := s.Truncate(tc.l)
				if err != nil || got != tc.want || truncated != tc.truncated {
					t.Errorf("%+v: got %+q, %v, %v; want %+q, %v", cfg, got, truncated, err, tc.want, tc.truncated)
				}
			}
			got, truncated, err := Rope{{Text: tc.in}}.Truncate(tc.l)
			if err != nil || got != tc.want || truncated != tc.truncated {
				t.Errorf("literal: got %+q, %v, %v; want %+q", got, truncated, err, tc.want)
			}
		})
	}
}

// tunaLimit is tunacode's whole-result truncation: text[:2500] + marker + (text[-1000:] if len(text) > 3500
// else text[2500:]) when len(text) > limit (5000, or 1500 in local mode).
func tunaLimit(limit int) Limit {
	return Limit{Unit: Chars, Limit: limit, Keep: HeadTail, Head: 2500, Tail: 1000, TailThreshold: 3500,
		Marker: fixedMarker(tunaMarker)}
}

// tunaPython is the Python expression, on runes.
func tunaPython(text []rune, limit int) string {
	if len(text) <= limit {
		return string(text)
	}
	head := text[:min(2500, len(text))]
	var rest []rune
	if len(text) > 3500 {
		rest = text[len(text)-1000:]
	} else if len(text) > 2500 {
		rest = text[2500:]
	}
	return string(head) + tunaMarker + string(rest)
}

func runesOf(n int) []rune {
	pattern := []rune("aé€😀 line\n")
	out := make([]rune, n)
	for i := range out {
		out[i] = pattern[i%len(pattern)]
	}
	return out
}

func TestTruncateTunacodeQuirk(t *testing.T) {
	for _, tc := range []struct{ limit, n, wantLen int }{
		{5000, 4999, 4999}, {5000, 5000, 5000}, {5000, 5001, 3521}, {5000, 20000, 3521},
		// Local mode (limit 1500): below the threshold everything after the head follows the marker.
		{1500, 1500, 1500}, {1500, 1501, 1522}, {1500, 2500, 2521}, {1500, 3000, 3021}, {1500, 3500, 3521}, {1500, 3501, 3521},
	} {
		text := runesOf(tc.n)
		want := tunaPython(text, tc.limit)
		if len([]rune(want)) != tc.wantLen {
			t.Fatalf("reference length %d, want %d", len([]rune(want)), tc.wantLen)
		}
		s := capture(Config{Decode: Replace, Unit: Chars, Head: max(tc.limit, 2500), Tail: 1000}, string(text))
		got, truncated, err := s.Truncate(tunaLimit(tc.limit))
		if err != nil || got != want || truncated != (tc.n > tc.limit) {
			t.Errorf("limit %d n %d: got %d chars, %v, %v; want %d chars", tc.limit, tc.n, len([]rune(got)), truncated, err, tc.wantLen)
		}
	}
}

func TestRopeTunacode(t *testing.T) {
	const before = "Command: seq 1 100000\nExit Code: 0\nWorking Directory: /work\n\nSTDOUT:\n"
	const between = "\n\nSTDERR:\n"
	for _, tc := range []struct{ out, errs int }{
		{6000, 4}, {100, 6000}, {4900, 50}, {10, 10}, {4000, 900}, {0, 0},
	} {
		stdout, stderr := runesOf(tc.out), runesOf(tc.errs)
		// tunacode strips each stream; the capture does it too.
		cfg := Config{Decode: Replace, Strip: true, Unit: Chars, Head: 5000, Tail: 5000}
		so := capture(cfg, "  \n"+string(stdout)+" \n\n")
		se := capture(cfg, "\t"+string(stderr)+"\n")
		full := []rune(before + pyStrip(string(stdout)) + between + pyStrip(string(stderr)))
		rope := Rope{{Text: before}, {Snap: &so}, {Text: between}, {Snap: &se}}
		if n := rope.Len(Chars); n != int64(len(full)) {
			t.Errorf("%v: Len %d, want %d", tc, n, len(full))
		}
		if n := rope.Len(Bytes); n != int64(len(string(full))) {
			t.Errorf("%v: Len(Bytes) %d, want %d", tc, n, len(string(full)))
		}
		got, truncated, err := rope.Truncate(tunaLimit(5000))
		if want := tunaPython(full, 5000); err != nil || got != want || truncated != (len(full) > 5000) {
			t.Errorf("%v: got %d chars (truncated %v, err %v), want %d", tc, len([]rune(got)), truncated, err, len([]rune(want)))
		}
	}
}

func TestRopeBytesAcrossPieces(t *testing.T) {
	a := capture(Config{Decode: Replace, Head: 4, Tail: 4}, "0123456789")
	b := capture(Config{Decode: Replace, Head: 4, Tail: 4}, "abcdefghij")
	rope := Rope{{Text: "<"}, {Snap: &a}, {Text: "|"}, {Snap: &b}, {Text: ">"}}
	l := Limit{Unit: Bytes, Limit: 8, Keep: HeadTail, Head: 5, Tail: 5, Marker: fixedMarker("~")}
	got, truncated, err := rope.Truncate(l)
	if want := "<0123~ghij>"; err != nil || !truncated || got != want {
		t.Fatalf("got %q %v %v, want %q", got, truncated, err, want)
	}
	// The last 7 bytes need 6 of b's tail, which kept only 4.
	l.Tail = 7
	if _, _, err := rope.Truncate(l); !errors.Is(err, ErrNotKept) {
		t.Fatalf("err %v, want ErrNotKept", err)
	}
	if _, err := rope.String(); !errors.Is(err, ErrNotKept) {
		t.Fatalf("String err %v, want ErrNotKept", err)
	}
	whole := capture(Config{Decode: Replace, Head: 4, Tail: 20}, "0123456789")
	if s, err := (Rope{{Text: "x"}, {Snap: &whole}}).String(); err != nil || s != "x0123456789" {
		t.Fatalf("String from a whole tail: %q %v", s, err)
	}
}

func TestTruncateNotKept(t *testing.T) {
	s := capture(Config{Decode: Replace, Head: 5, Tail: 3}, "0123456789abcdefghij")
	for _, l := range []Limit{
		{Unit: Bytes, Limit: 10, Keep: Head},                                          // needs 10 head bytes
		{Unit: Bytes, Limit: 10, Keep: Tail},                                          // needs 10 tail bytes
		{Unit: Bytes, Limit: 30, Keep: Head},                                          // needs everything
		{Unit: Bytes, Limit: 5, Keep: HeadTail, Head: 5, Tail: 4},                     // tail 4 > 3
		{Unit: Bytes, Limit: 5, Keep: HeadTail, Head: 5, Tail: 3, TailThreshold: 100}, // needs text[5:]
	} {
		if _, _, err := s.Truncate(l); !errors.Is(err, ErrNotKept) {
			t.Errorf("%+v: err %v, want ErrNotKept", l, err)
		}
	}
	if _, _, err := s.Truncate(Limit{Unit: Bytes, Limit: 5, Keep: HeadTail, Head: 5, Tail: 3}); err != nil {
		t.Errorf("enough kept: %v", err)
	}
	if _, _, err := s.Truncate(Limit{Limit: -1}); err == nil {
		t.Errorf("negative limit accepted")
	}
	if _, _, err := s.Truncate(Limit{Limit: 1, Keep: 9}); err == nil {
		t.Errorf("unknown Keep accepted")
	}
	// Strict CutDecode fails on a split character.
	e := capture(Config{Decode: Replace, Head: 10}, "12345678€")
	if _, _, err := e.Truncate(Limit{Unit: Bytes, Limit: 9, Keep: Head, CutDecode: Strict}); err == nil ||
		err.Error() != "'utf-8' codec can't decode byte 0xe2 in position 8: unexpected end of data" {
		t.Errorf("strict cut: %v", err)
	}
}

// TestTruncateMixedUnits: a byte-capped capture truncated in characters uses only the whole characters it
// kept.
func TestTruncateMixedUnits(t *testing.T) {
	s := capture(Config{Decode: Replace, Head: 5, Tail: 5}, "ééééééé") // 14 bytes; Head "éé\xc3", Tail "\xa9éé"
	l := Limit{Unit: Chars, Limit: 4, Keep: HeadTail, Head: 2, Tail: 2, Marker: fixedMarker("…")}
	if got, _, err := s.Truncate(l); err != nil || got != "éé…éé" {
		t.Fatalf("got %q %v", got, err)
	}
	l.Head, l.Tail = 3, 2
	if _, _, err := s.Truncate(l); !errors.Is(err, ErrNotKept) {
		t.Fatalf("3 head chars from 5 bytes: %v", err)
	}
	l.Head, l.Tail = 2, 3
	if _, _, err := s.Truncate(l); !errors.Is(err, ErrNotKept) {
		t.Fatalf("3 tail chars from 5 bytes: %v", err)
	}
	// A char-capped capture truncated in bytes.
	c := capture(Config{Decode: Replace, Unit: Chars, Head: 3, Tail: 3}, "ééééééé")
	if got, _, err := c.Truncate(Limit{Unit: Bytes, Limit: 6, Keep: HeadTail, Head: 3, Tail: 3, CutDecode: Replace}); err != nil || got != "é\ufffd\ufffdé" {
		t.Fatalf("got %+q %v", got, err)
	}
}

// Upstream behaviours (docs/upstream-facts.md).

func TestUpstreamRye(t *testing.T) {
	const max = 51200
	l := Limit{Unit: Bytes, Limit: max, Keep: Head, CutDecode: Replace, Marker: ryeMarker}
	cfg := Config{Decode: Strict, Universal: true, Head: max}
	// 17066 "xy\r\n" become 51198 bytes, "z" ends at 51199 and "€" straddles the cut; "tail\r\n" adds 5.
	in := strings.Repeat("xy\r\n", 17066) + "z€tail\r\n"
	want := strings.Repeat("xy\n", 17066) + "z\ufffd\n... [output truncated, 51207 bytes total]"
	c := New(cfg)
	for b := []byte(in); len(b) > 0; {
		n := min(4093, len(b)) // odd chunks split CRLF and the euro sign somewhere
		c.Write(b[:n])
		b = b[n:]
	}
	c.Close()
	s := c.Snapshot()
	got, truncated, err := s.Truncate(l)
	if err != nil || !truncated || got != want || s.Bytes != 51207 || s.Err != nil {
		t.Fatalf("got %d bytes (truncated %v, err %v, Bytes %d), tail %q", len(got), truncated, err, s.Bytes, got[len(got)-60:])
	}
	// Exactly 51200 bytes after translation: not truncated.
	in = strings.Repeat("xy\r\n", 17066) + "zz"
	s = capture(cfg, in)
	if got, truncated, err := s.Truncate(l); err != nil || truncated || got != strings.Repeat("xy\n", 17066)+"zz" {
		t.Fatalf("at the limit: %d bytes, %v, %v", len(got), truncated, err)
	}
	// Invalid UTF-8 anywhere: the message Python gives.
	s = capture(cfg, "ok\r\n", strings.Repeat("x", 100000), "\xff")
	if s.Err == nil || s.Err.Error() != "'utf-8' codec can't decode byte 0xff in position 100004: invalid start byte" {
		t.Fatalf("err %v", s.Err)
	}
}

func TestUpstreamAgentrail(t *testing.T) {
	const max = 1048576
	l := Limit{Unit: Bytes, Limit: max, Keep: Head, CutDecode: Replace, Marker: fixedMarker("\n[output truncated]")}
	cfg := Config{Decode: Replace, Head: max}
	// U+FFFD counts 3 bytes in Buffer.byteLength: 1048575 + 3 > 1048576.
	s := capture(cfg, strings.Repeat("a", max-1), "\xff")
	got, truncated, err := s.Truncate(l)
	if want := strings.Repeat("a", max-1) + "\ufffd\n[output truncated]"; err != nil || !truncated || got != want || s.Bytes != max+2 {
		t.Fatalf("got %d bytes, %v, %v, Bytes %d", len(got), truncated, err, s.Bytes)
	}
	s = capture(cfg, strings.Repeat("a", max-3), "\xff")
	if got, truncated, err := s.Truncate(l); err != nil || truncated || got != strings.Repeat("a", max-3)+"\ufffd" {
		t.Fatalf("at the limit: %d, %v, %v", len(got), truncated, err)
	}
}

func TestUpstreamToolregistry(t *testing.T) {
	const max = 65536
	l := Limit{Unit: Bytes, Limit: max, Keep: Head, CutDecode: Ignore, Marker: fixedMarker("\n... [output truncated]")}
	s := capture(Config{Decode: Strict, Universal: true, Head: max}, strings.Repeat("a", max-1), "éb")
	got, truncated, err := s.Truncate(l)
	if want := strings.Repeat("a", max-1) + "\n... [output truncated]"; err != nil || !truncated || got != want {
		t.Fatalf("got %d bytes %q, %v, %v", len(got), got[len(got)-30:], truncated, err)
	}
}

func TestUpstreamCodegensandbox(t *testing.T) {
	const max = 102400
	l := Limit{Unit: Bytes, Limit: max, Keep: Head, CutDecode: Raw, Marker: func(_, _, elided int64) string {
		return fmt.Sprintf("\n... (output truncated, %d bytes elided)", elided)
	}}
	s := capture(Config{Decode: Raw, Head: max}, strings.Repeat("a", max-1), "\xe2\x82\xac", strings.Repeat("\xff", 10))
	got, truncated, err := s.Truncate(l)
	if err != nil || !truncated || got != strings.Repeat("a", max-1)+"\xe2\n... (output truncated, 12 bytes elided)" {
		t.Fatalf("got %q, %v, %v", got[max-4:], truncated, err)
	}
	if want := strings.Repeat("a", max-1) + "\ufffd\n... (output truncated, 12 bytes elided)"; Sanitize(got, true) != want {
		t.Fatalf("sanitized %q", Sanitize(got, true)[max-4:])
	}
}

func TestUpstreamTunacodeStreams(t *testing.T) {
	// Replace, no newline translation, strip: "\r\n" stays, surrounding white space goes.
	s := capture(Config{Decode: Replace, Strip: true, Unit: Chars, Head: 5000, Tail: 5000}, "\r\n  a\r\nb\xe2\x82 \r\n")
	if s.Head != "a\r\nb\ufffd" || s.Chars != 5 {
		t.Fatalf("%+v", s)
	}
}
