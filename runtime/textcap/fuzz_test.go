package textcap

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// A reference implementation, deliberately simple and non-streaming, written from the Unicode standard's
// table 3-7 (well-formed byte sequences) and CPython's error ranges, to check the streaming one against.

var table37 = []struct{ lo, hi []byte }{
	{[]byte{0x00}, []byte{0x7F}},
	{[]byte{0xC2, 0x80}, []byte{0xDF, 0xBF}},
	{[]byte{0xE0, 0xA0, 0x80}, []byte{0xE0, 0xBF, 0xBF}},
	{[]byte{0xE1, 0x80, 0x80}, []byte{0xEC, 0xBF, 0xBF}},
	{[]byte{0xED, 0x80, 0x80}, []byte{0xED, 0x9F, 0xBF}},
	{[]byte{0xEE, 0x80, 0x80}, []byte{0xEF, 0xBF, 0xBF}},
	{[]byte{0xF0, 0x90, 0x80, 0x80}, []byte{0xF0, 0xBF, 0xBF, 0xBF}},
	{[]byte{0xF1, 0x80, 0x80, 0x80}, []byte{0xF3, 0xBF, 0xBF, 0xBF}},
	{[]byte{0xF4, 0x80, 0x80, 0x80}, []byte{0xF4, 0x8F, 0xBF, 0xBF}},
}

// refDecode decodes b whole. With Strict it returns the text before the first error and the error.
func refDecode(b []byte, d Decode) ([]byte, *DecodeError) {
	if d == Raw {
		return append([]byte(nil), b...), nil
	}
	var out []byte
	for i := 0; i < len(b); {
		matched, length := 0, 1
		for _, r := range table37 {
			if b[i] < r.lo[0] || b[i] > r.hi[0] {
				continue
			}
			length = len(r.lo)
			matched = 1
			for matched < length && i+matched < len(b) && b[i+matched] >= r.lo[matched] && b[i+matched] <= r.hi[matched] {
				matched++
			}
			break
		}
		if matched == length {
			out = append(out, b[i:i+length]...)
			i += length
			continue
		}
		var reason string
		switch {
		case matched == 0:
			reason, matched = "invalid start byte", 1
		case i+matched == len(b):
			reason = "unexpected end of data"
		default:
			reason = "invalid continuation byte"
		}
		switch d {
		case Strict:
			return out, &DecodeError{Start: int64(i), End: int64(i + matched), Byte: b[i], Reason: reason}
		case Replace:
			out = append(out, "\ufffd"...)
		}
		i += matched
	}
	return out, nil
}

// refSpace is Python's str.isspace(), listed.
var refSpace = map[rune]bool{
	'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, 0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true,
	' ': true, 0x85: true, 0xa0: true, 0x1680: true, 0x2000: true, 0x2001: true, 0x2002: true, 0x2003: true,
	0x2004: true, 0x2005: true, 0x2006: true, 0x2007: true, 0x2008: true, 0x2009: true, 0x200a: true,
	0x2028: true, 0x2029: true, 0x202f: true, 0x205f: true, 0x3000: true,
}

func refStrip(s string) string {
	for len(s) > 0 {
		r, w := utf8.DecodeRuneInString(s)
		if w == 1 && r == utf8.RuneError || !refSpace[r] {
			break
		}
		s = s[w:]
	}
	for len(s) > 0 {
		r, w := utf8.DecodeLastRuneInString(s)
		if w == 1 && r == utf8.RuneError || !refSpace[r] {
			break
		}
		s = s[:len(s)-w]
	}
	return s
}

func refText(cfg Config, data []byte) (string, *DecodeError) {
	d := cfg.Decode
	if d < Strict || d > Raw {
		d = Replace
	}
	b, err := refDecode(data, d)
	s := string(b)
	if cfg.Universal {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	if cfg.Strip {
		s = refStrip(s)
	}
	return s, err
}

func refHead(s string, u Unit, n int) string {
	if u == Bytes {
		return s[:min(n, len(s))]
	}
	i, c := 0, 0
	for i < len(s) && c < n {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		c++
	}
	return s[:i]
}

func refTail(s string, u Unit, n int) string {
	if u == Bytes {
		return s[len(s)-min(n, len(s)):]
	}
	if n <= 0 {
		return ""
	}
	rs := []int{}
	for i := range s {
		rs = append(rs, i)
	}
	if n >= len(rs) {
		return s
	}
	return s[rs[len(rs)-n]:]
}

func refSnapshot(cfg Config, data []byte) Snapshot {
	s, err := refText(cfg, data)
	u := cfg.Unit
	if u != Chars {
		u = Bytes
	}
	head, tail := max(cfg.Head, 0), max(cfg.Tail, 0)
	snap := Snapshot{
		Head:     refHead(s, u, head),
		Tail:     refTail(s, u, tail),
		Bytes:    int64(len(s)),
		Chars:    int64(utf8.RuneCountInString(s)),
		RawBytes: int64(len(data)),
		Err:      err,
		Unit:     u,
	}
	total := snap.Bytes
	if u == Chars {
		total = snap.Chars
	}
	snap.Complete = total <= int64(head)
	return snap
}

// refTruncate applies l to a whole text as the Python code of the variants does. The marker is given the
// text's length, the units kept (head and tail, each at most the text) and those elided, in l.Unit.
func refTruncate(s string, l Limit) string {
	total := len(s)
	if l.Unit == Chars {
		total = utf8.RuneCountInString(s)
	}
	if total <= l.Limit {
		return s
	}
	hk, tk := l.Head, l.Tail
	switch l.Keep {
	case Head:
		tk = 0
		if hk == 0 {
			hk = l.Limit
		}
	case Tail:
		hk = 0
		if tk == 0 {
			tk = l.Limit
		}
	case HeadTail:
		if total <= l.TailThreshold {
			tk = max(total-hk, 0)
		}
	}
	hk, tk = min(hk, total), min(tk, total)
	cut := func(p string) string {
		if l.CutDecode == Raw {
			return p
		}
		b, _ := refDecode([]byte(p), l.CutDecode)
		return string(b)
	}
	head := ""
	if hk > 0 {
		head = cut(refHead(s, l.Unit, hk))
	}
	tail := ""
	if tk > 0 {
		tail = cut(refTail(s, l.Unit, tk))
	}
	return head + l.Marker(int64(total), int64(hk+tk), int64(max(total-hk-tk, 0))) + tail
}

// countMarker is a marker that shows its counts, so that the fuzzer checks them.
func countMarker(total, kept, elided int64) string {
	return fmt.Sprintf("<cut total=%d kept=%d elided=%d>", total, kept, elided)
}

var fuzzCaps = [8]int{0, 1, 2, 3, 5, 8, 64, 1 << 20}

func fuzzConfig(bits uint16) Config {
	return Config{
		Decode:    Decode(bits & 3),
		Unit:      Unit(bits >> 2 & 1),
		Universal: bits>>3&1 == 1,
		Strip:     bits>>4&1 == 1,
		Head:      fuzzCaps[bits>>5&7],
		Tail:      fuzzCaps[bits>>8&7],
	}
}

func FuzzCapture(f *testing.F) {
	for i, tc := range decodeCases {
		f.Add([]byte(tc.in), uint16(i*37), uint16(i), uint16(len(tc.in)/2), uint8(i))
	}
	for i, in := range boundaryInputs {
		f.Add([]byte(in), uint16(i*1234), uint16(i+3), uint16(len(in)/3), uint8(i*7))
	}
	f.Fuzz(func(t *testing.T, data []byte, cfgBits, s1, s2 uint16, limBits uint8) {
		cfg := fuzzConfig(cfgBits)
		want := refSnapshot(cfg, data)

		whole := New(cfg)
		whole.Write(data)
		whole.Close()
		if got := whole.Snapshot(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v %+q whole:\n got %+v\nwant %+v", cfg, data, got, want)
		}

		i, j := int(s1)%(len(data)+1), int(s2)%(len(data)+1)
		if i > j {
			i, j = j, i
		}
		split := New(cfg)
		for _, part := range [][]byte{data[:i], data[i:j], data[j:]} {
			split.Write(part)
			_ = split.Snapshot() // polling between writes must not disturb anything
		}
		split.Close()
		if got := split.Snapshot(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v %+q split %d,%d:\n got %+v\nwant %+v", cfg, data, i, j, got, want)
		}

		if len(data) <= 1024 {
			one := New(cfg)
			for k := range data {
				one.Write(data[k : k+1])
			}
			one.Close()
			if got := one.Snapshot(); !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v %+q byte at a time:\n got %+v\nwant %+v", cfg, data, got, want)
			}
		}

		// Replace always yields valid UTF-8, equal to the reference decoder.
		rep, derr := DecodeBytes(data, Replace)
		ref, _ := refDecode(data, Replace)
		if derr != nil || !utf8.ValidString(rep) || rep != string(ref) {
			t.Fatalf("DecodeBytes Replace %+q = %+q, reference %+q", data, rep, ref)
		}
		if p := Sanitize(string(data), true); !utf8.ValidString(p) {
			t.Fatalf("Sanitize per byte invalid: %+q", p)
		}
		if cfg.Decode == Replace && cfg.Unit == Chars && !utf8.ValidString(want.Head+want.Tail) {
			t.Fatalf("Replace text not valid UTF-8")
		}

		// Truncation of what was kept equals truncation of the whole text, when enough was kept.
		l := Limit{
			Unit:      cfg.Unit,
			Limit:     fuzzCaps[limBits&7] / 2,
			Keep:      Keep((limBits >> 3 & 3) % 3),
			CutDecode: []Decode{Replace, Ignore, Raw, Replace}[limBits>>5&3],
			Head:      fuzzCaps[cfgBits>>11&3],
			Tail:      fuzzCaps[cfgBits>>13&3],
			Marker:    countMarker,
		}
		if limBits>>7 == 1 {
			l.TailThreshold = 6
		}
		if l.Unit != Chars {
			l.Unit = Bytes
		}
		got, _, err := want.Truncate(l)
		text, _ := refText(cfg, data)
		needHead := max(l.Head, l.Limit)
		needTail := max(l.Tail, l.Limit)
		if l.Keep == HeadTail && l.TailThreshold > 0 {
			needTail = max(needTail, l.TailThreshold) // text[Head:] of a text up to TailThreshold
		}
		if err != nil {
			if !errors.Is(err, ErrNotKept) {
				t.Fatalf("Truncate %+v: %v", l, err)
			}
			if cfg.Head >= needHead && cfg.Tail >= needTail {
				t.Fatalf("Truncate %+v with Head %d Tail %d: %v", l, cfg.Head, cfg.Tail, err)
			}
		} else if ref := refTruncate(text, l); got != ref {
			t.Fatalf("Truncate %+v of %+q:\n got %+q\nwant %+q", l, text, got, ref)
		}
		// The same through a rope with literals around it.
		rope := Rope{{Text: "["}, {Snap: &want}, {Text: "]"}}
		if got, _, err := rope.Truncate(l); err == nil {
			if ref := refTruncate("["+text+"]", l); got != ref {
				t.Fatalf("Rope Truncate %+v of %+q:\n got %+q\nwant %+q", l, text, got, ref)
			}
		} else if !errors.Is(err, ErrNotKept) {
			t.Fatalf("Rope Truncate: %v", err)
		}
	})
}
