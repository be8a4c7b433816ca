package textcap

import (
	"reflect"
	"strings"
	"sync"
	"testing"
)

// TestLimitHead: a capture whose head bound is lowered to n after any prefix of its input ends as a
// capture made with head n from the start (the head, the tail, the counts, the lines, Complete), both at
// the moment of the call and after the rest; its head's memory is then at most n units' worth; a bound
// that is not lower changes nothing.
func TestLimitHead(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		in   string
		n    []int
	}{
		{"bytes", Config{Decode: Replace, Head: 64, Tail: 4}, "abcdefghij\nklmnopqrst\nuvwxyz", []int{0, 1, 5, 11, 30, 64, 100}},
		{"bytes cut inside a character", Config{Decode: Replace, Head: 64, Tail: 3}, "é€😀é€😀", []int{1, 2, 3, 4, 6, 9}},
		{"chars multi-byte cut at the bound", Config{Decode: Replace, Unit: Chars, Head: 40, Tail: 2}, "aé€😀z\né€😀", []int{0, 1, 2, 3, 4, 5, 9, 40}},
		{"chars replacement", Config{Decode: Replace, Unit: Chars, Head: 40, Tail: 2}, "\xffa\xe2\x82b\xf0\x9f", []int{1, 2, 3, 4}},
		{"raw chars invalid bytes", Config{Decode: Raw, Unit: Chars, Head: 40, Tail: 3}, "€\x80\xe2\x82b\xed\xa0\x80€\xe2", []int{1, 2, 3, 4, 6, 8}},
		{"raw bytes", Config{Decode: Raw, Head: 40, Tail: 3}, "€\x80\xe2\x82b€\xe2", []int{1, 2, 4}},
		{"strip: trailing space held across the call", Config{Decode: Replace, Strip: true, Head: 40, Tail: 4}, "  ab   \u3000  cd  \u3000 ", []int{1, 2, 3, 5, 8}},
		{"strip chars", Config{Decode: Replace, Strip: true, Unit: Chars, Head: 40, Tail: 4}, "\n a\u3000\u3000\u3000\u3000b \u3000", []int{1, 2, 3, 5}},
		{"strip blank lines", Config{Decode: Replace, Strip: true, StripBlankLines: true, Head: 40, Tail: 4}, "\n\n  x  \n y ", []int{1, 2, 3, 4}},
		{"universal newlines", Config{Decode: Replace, Universal: true, Head: 40, Tail: 3}, "a\r\nb\r\r\nc\rd\r", []int{0, 1, 2, 3, 5}},
		{"ansi", Config{Decode: Replace, StripANSI: true, Head: 40, Tail: 3}, "a\x1b[31mbc\x1b[0mdef\x1b]0;t\x07g", []int{1, 2, 4}},
		{"no tail", Config{Decode: Strict, Head: 40}, "0123456789", []int{0, 3, 9, 10}},
	} {
		tc.cfg.CountLines = true
		for _, n := range tc.n {
			want := tc.cfg
			want.Head = min(n, tc.cfg.Head)
			for i := 0; i <= len(tc.in); i++ {
				c := New(tc.cfg)
				c.WriteString(tc.in[:i])
				c.LimitHead(n)
				ref := New(want)
				ref.WriteString(tc.in[:i])
				if got, w := c.Snapshot(), ref.Snapshot(); !reflect.DeepEqual(got, w) {
					t.Fatalf("%s: n %d after %q:\n got %+v\nwant %+v", tc.name, n, tc.in[:i], got, w)
				}
				if held := c.p.out.headMax; cap(c.p.out.head) > held || cap(c.p.ws.head) > max(held, cap(ref.p.ws.head)) {
					t.Fatalf("%s: n %d after %q: head holds %d bytes (ws %d), bound %d", tc.name, n, tc.in[:i], cap(c.p.out.head), cap(c.p.ws.head), held)
				}
				c.WriteString(tc.in[i:])
				c.Close()
				ref.WriteString(tc.in[i:])
				ref.Close()
				if got, w := c.Snapshot(), ref.Snapshot(); !reflect.DeepEqual(got, w) {
					t.Fatalf("%s: n %d at %d, at the end:\n got %+v\nwant %+v", tc.name, n, i, got, w)
				}
			}
			// After Close: the final snapshot is cut the same way.
			c := New(tc.cfg)
			c.WriteString(tc.in)
			c.Close()
			c.LimitHead(n)
			if got, w := c.Snapshot(), capture(want, tc.in); !reflect.DeepEqual(got, w) {
				t.Fatalf("%s: n %d after Close:\n got %+v\nwant %+v", tc.name, n, got, w)
			}
		}
	}
}

// TestLimitHeadReleases: a head of a megabyte lowered to a kilobyte holds a kilobyte (its buffer is new),
// and a later bound that is higher does not raise it again.
func TestLimitHeadReleases(t *testing.T) {
	for _, u := range []Unit{Bytes, Chars} {
		c := New(Config{Decode: Replace, Unit: u, Head: 1 << 20, Tail: 16})
		c.WriteString(strings.Repeat("€", 1<<19))
		old := c.p.out.head
		c.LimitHead(1 << 10)
		c.LimitHead(1 << 20)
		want := 1 << 10
		if u == Chars {
			want *= 3 // 1024 euro signs
		}
		if len(c.p.out.head) != want || cap(c.p.out.head) > c.p.out.headMax || &c.p.out.head[0] == &old[0] {
			t.Errorf("%v: head %d bytes, capacity %d, bound %d", u, len(c.p.out.head), cap(c.p.out.head), c.p.out.headMax)
		}
		c.WriteString("x")
		if s := c.Snapshot(); len(s.Head) != want || s.Complete || s.Bytes != 3<<19+1 {
			t.Errorf("%v: after a write: head %d bytes, complete %v, %d bytes", u, len(s.Head), s.Complete, s.Bytes)
		}
	}
}

// TestLimitHeadConcurrent: LimitHead during writes and snapshots (run with -race): every snapshot's head
// is a prefix of the text no longer than the bound in force, and the end is the same as a capture made
// with the lower bound.
func TestLimitHeadConcurrent(t *testing.T) {
	line := []byte("line with € and \r\n a split \xe2")
	n := 5000
	if raceEnabled {
		n = 1000
	}
	cfg := Config{Decode: Replace, Universal: true, CountLines: true, Unit: Chars, Head: 1 << 20, Tail: 64}
	c := New(cfg)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range n {
			c.Write(line)
		}
		c.Close()
	}()
	go func() {
		defer wg.Done()
		for c.Snapshot().RawBytes < int64(n*len(line)/2) {
		}
		c.LimitHead(100)
	}()
	var text strings.Builder
	for range 3 * n {
		text.WriteString("line with € and \n a split \ufffd")
	}
	for {
		s := c.Snapshot()
		if !strings.HasPrefix(text.String(), s.Head) {
			t.Fatalf("head not a prefix of the text: %q...", s.Head[:min(len(s.Head), 80)])
		}
		if s.RawBytes == int64(n*len(line)) && len(s.Head) < 1000 {
			break
		}
	}
	wg.Wait()
	want := cfg
	want.Head = 100
	ref := New(want)
	for range n {
		ref.Write(line)
	}
	ref.Close()
	if got, w := c.Snapshot(), ref.Snapshot(); !reflect.DeepEqual(got, w) {
		t.Fatalf("got %+v\nwant %+v", got, w)
	}
}
