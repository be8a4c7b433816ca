package textcap

import (
	"bytes"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func capture(cfg Config, chunks ...string) Snapshot {
	c := New(cfg)
	for _, ch := range chunks {
		c.Write([]byte(ch))
	}
	c.Close()
	return c.Snapshot()
}

func TestCaptureText(t *testing.T) {
	big := strings.Repeat("0123456789", 10)
	for _, tc := range []struct {
		name          string
		cfg           Config
		in            string
		head, tail    string
		bytes, chars  int64
		complete      bool
		wantRawBytes  int64
		checkRawBytes bool
	}{
		{"empty", Config{Decode: Replace, Head: 4, Tail: 4}, "", "", "", 0, 0, true, 0, true},
		{"head and tail bytes", Config{Decode: Replace, Head: 4, Tail: 3}, "abcdefgh", "abcd", "fgh", 8, 8, false, 8, true},
		{"exactly head", Config{Decode: Replace, Head: 8, Tail: 3}, "abcdefgh", "abcdefgh", "fgh", 8, 8, true, 8, true},
		{"no head no tail", Config{Decode: Replace}, big, "", "", 100, 100, false, 100, true},
		{"bytes head cuts a char", Config{Decode: Replace, Head: 2, Tail: 2}, "é€", "é", "\x82\xac", 5, 2, false, 5, true},
		{"bytes head mid char", Config{Decode: Replace, Head: 3, Tail: 4}, "é€", "é\xe2", "\xa9€", 5, 2, false, 5, true},
		{"chars head and tail", Config{Decode: Replace, Unit: Chars, Head: 2, Tail: 2}, "aé€😀z", "aé", "😀z", 11, 5, false, 11, true},
		{"chars exactly", Config{Decode: Replace, Unit: Chars, Head: 5, Tail: 9}, "aé€😀z", "aé€😀z", "aé€😀z", 11, 5, true, 11, true},
		{"chars replacement counts", Config{Decode: Replace, Unit: Chars, Head: 2, Tail: 2}, "\xffa\xe2\x82", "\ufffda", "a\ufffd", 7, 3, false, 4, true},
		{"replacement is 3 bytes", Config{Decode: Replace, Head: 10}, "\xff\xff", "\ufffd\ufffd", "", 6, 2, true, 2, true},
		{"raw keeps bytes", Config{Decode: Raw, Head: 10, Tail: 2}, "a\xe2\x82b\xff", "a\xe2\x82b\xff", "b\xff", 5, 5, true, 5, true},
		{"raw chars go range", Config{Decode: Raw, Unit: Chars, Head: 2, Tail: 2}, "€\xe2\x82", "€\xe2", "\xe2\x82", 5, 3, false, 5, true},
		{"raw chars tail continuation", Config{Decode: Raw, Unit: Chars, Head: 1, Tail: 2}, "€€\x80\x80", "€", "\x80\x80", 8, 4, false, 8, true},
		{"ignore", Config{Decode: Ignore, Head: 10, Tail: 10}, "a\xffb\xe2\x82", "ab", "ab", 2, 2, true, 5, true},
		{"universal", Config{Decode: Replace, Universal: true, Head: 20, Tail: 20}, "a\r\nb\rc\n\r\r\nd\r", "a\nb\nc\n\n\nd\n", "a\nb\nc\n\n\nd\n", 10, 10, true, 12, true},
		{"universal after replacement", Config{Decode: Replace, Universal: true, Head: 20}, "\r\xff\n", "\n\ufffd\n", "", 5, 3, true, 3, true},
		{"universal after ignored byte", Config{Decode: Ignore, Universal: true, Head: 20}, "\r\xff\nx", "\nx", "", 2, 2, true, 4, true},
		{"universal raw", Config{Decode: Raw, Universal: true, Head: 20}, "\r\xff\n\r\n", "\n\xff\n\n", "", 4, 4, true, 5, true},
		{"strip", Config{Decode: Replace, Strip: true, Head: 20, Tail: 20}, " \t\n\u3000 a b \u00a0\n ", "a b", "a b", 3, 3, true, 15, true},
		{"strip all space", Config{Decode: Replace, Strip: true, Head: 20, Tail: 20}, " \r\n \u2028", "", "", 0, 0, true, 7, true},
		{"strip keeps inner space", Config{Decode: Replace, Strip: true, Head: 3, Tail: 3}, "  a    b  ", "a  ", "  b", 6, 6, false, 10, true},
		{"strip not zwsp", Config{Decode: Replace, Strip: true, Head: 20}, "\u200b a \u200b", "\u200b a \u200b", "", 9, 5, true, 9, true},
		{"strip replacement is not space", Config{Decode: Replace, Strip: true, Head: 20}, " \x85 ", "\ufffd", "", 3, 1, true, 3, true},
		{"strip NEL is space", Config{Decode: Replace, Strip: true, Head: 20}, "\u0085a\u0085", "a", "", 1, 1, true, 5, true},
		{"strip universal", Config{Decode: Strict, Universal: true, Strip: true, Head: 20}, "\r\n x\r\ny\r\n\r", "x\ny", "", 3, 3, true, 10, true},
		{"strip chars head in space run", Config{Decode: Replace, Strip: true, Unit: Chars, Head: 3, Tail: 3}, "a\u3000\u3000\u3000\u3000b", "a\u3000\u3000", "\u3000\u3000b", 14, 6, false, 14, true},
		{"strip bytes head in space run", Config{Decode: Replace, Strip: true, Head: 3, Tail: 2}, "a\u3000\u3000b", "a\xe3\x80", "\x80b", 8, 4, false, 8, true},
		{"strip ignore", Config{Decode: Ignore, Strip: true, Head: 9}, " \xff a \xff ", "a", "", 1, 1, true, 7, true},
		{"strip raw", Config{Decode: Raw, Strip: true, Head: 9}, " \xff a \xe2\x82 ", "\xff a \xe2\x82", "", 6, 6, true, 8, true},
		{"negative caps", Config{Decode: Replace, Head: -1, Tail: -5}, "abc", "", "", 3, 3, false, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := capture(tc.cfg, tc.in)
			if s.Head != tc.head || s.Tail != tc.tail || s.Bytes != tc.bytes || s.Chars != tc.chars || s.Complete != tc.complete {
				t.Errorf("got Head %+q Tail %+q Bytes %d Chars %d Complete %v\nwant Head %+q Tail %+q Bytes %d Chars %d Complete %v",
					s.Head, s.Tail, s.Bytes, s.Chars, s.Complete, tc.head, tc.tail, tc.bytes, tc.chars, tc.complete)
			}
			if tc.checkRawBytes && s.RawBytes != tc.wantRawBytes {
				t.Errorf("RawBytes %d, want %d", s.RawBytes, tc.wantRawBytes)
			}
		})
	}
}

// boundaryInputs are inputs whose snapshots must not depend on how they are split into writes.
var boundaryInputs = []string{
	"",
	"plain ascii text\n",
	"a\r\nb\rc\r\r\n\rd\n\r",
	"€uro 😀 é \u3000\u2028",
	"  \t\n leading and trailing \u3000 \r\n ",
	"x\xe2\x82\xff\xed\xa0\x80\xf0\x9f\x98y\xc0\xaf\xf4\x90\x80\x80\xf0\x9f\x98",
	"\r\xe2\x82\n\r\xff\n ab \xe2\x80\x83 \xc2\x85",
	"a\xf1\x80\x80\xe1\x80\xc2b\x80c\x80\xbfd \r\n\xf0\x9f\x98\x80",
	"\xe3\x80\x80\xe3\x80\x80 mid \xe3\x80\x80\r\n\xe3\x80",
}

func boundaryConfigs() []Config {
	var cfgs []Config
	for _, d := range []Decode{Strict, Replace, Ignore, Raw} {
		for _, u := range []Unit{Bytes, Chars} {
			for _, uni := range []bool{false, true} {
				for _, strip := range []bool{false, true} {
					for _, ht := range [][2]int{{0, 0}, {1, 1}, {3, 5}, {7, 2}, {1000, 1000}} {
						cfgs = append(cfgs, Config{Decode: d, Unit: u, Universal: uni, Strip: strip, Head: ht[0], Tail: ht[1]})
					}
				}
			}
		}
	}
	return cfgs
}

// TestWriteBoundaries feeds each input whole, split at every pair of positions, and one byte at a time; the
// final Snapshot must be the same.
func TestWriteBoundaries(t *testing.T) {
	for _, cfg := range boundaryConfigs() {
		for _, in := range boundaryInputs {
			want := capture(cfg, in)
			b := []byte(in)
			var chunks []string
			for i := range b {
				chunks = append(chunks, string(b[i:i+1]))
			}
			if got := capture(cfg, chunks...); !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v %+q byte at a time:\n got %+v\nwant %+v", cfg, in, got, want)
			}
			for i := 0; i <= len(b); i++ {
				for j := i; j <= len(b); j++ {
					if got := capture(cfg, in[:i], in[i:j], in[j:]); !reflect.DeepEqual(got, want) {
						t.Fatalf("%+v %+q split %d,%d:\n got %+v\nwant %+v", cfg, in, i, j, got, want)
					}
				}
			}
		}
	}
}

func TestBoundaryExamples(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    Config
		chunks []string
		want   string
	}{
		{"CRLF split", Config{Decode: Strict, Universal: true, Head: 10}, []string{"a\r", "\nb"}, "a\nb"},
		{"CR then CR LF", Config{Decode: Strict, Universal: true, Head: 10}, []string{"a\r", "\r", "\n"}, "a\n\n"},
		{"CR at end", Config{Decode: Strict, Universal: true, Head: 10}, []string{"a\r"}, "a\n"},
		{"euro split 1+2", Config{Decode: Replace, Head: 10}, []string{"\xe2", "\x82\xac"}, "€"},
		{"euro split 2+1", Config{Decode: Replace, Head: 10}, []string{"\xe2\x82", "\xac"}, "€"},
		{"emoji split 1+1+1+1", Config{Decode: Strict, Head: 10}, []string{"\xf0", "\x9f", "\x98", "\x80"}, "😀"},
		{"split prefix then invalid", Config{Decode: Replace, Head: 10}, []string{"\xe2\x82", "A"}, "\ufffdA"},
		{"split prefix at EOF", Config{Decode: Replace, Head: 10}, []string{"a", "\xf0\x9f", "\x98"}, "a\ufffd"},
		{"strip across writes", Config{Decode: Replace, Strip: true, Head: 20}, []string{"  ", " a ", " ", "b", "  \n", " "}, "a  b"},
		{"strip ideographic space split", Config{Decode: Replace, Strip: true, Head: 20}, []string{"\xe3\x80", "\x80a\xe3", "\x80\x80"}, "a"},
	} {
		if s := capture(tc.cfg, tc.chunks...); s.Head != tc.want {
			t.Errorf("%s: got %+q, want %+q", tc.name, s.Head, tc.want)
		}
	}
}

// TestSnapshotBeforeClose: an incomplete sequence is not text yet (except with Raw), held trailing white
// space is not shown, and Close completes both.
func TestSnapshotBeforeClose(t *testing.T) {
	c := New(Config{Decode: Replace, Head: 10, Tail: 10})
	c.Write([]byte("ab\xe2\x82"))
	if s := c.Snapshot(); s.Head != "ab" || s.Bytes != 2 || s.RawBytes != 4 {
		t.Fatalf("before close: %+v", s)
	}
	c.Write([]byte("\xac"))
	if s := c.Snapshot(); s.Head != "ab€" || s.Bytes != 5 {
		t.Fatalf("completed: %+v", s)
	}
	c.Write([]byte("\xe2"))
	c.Close()
	c.Close() // idempotent
	if s := c.Snapshot(); s.Head != "ab€\ufffd" || s.Bytes != 8 || s.RawBytes != 6 {
		t.Fatalf("after close: %+v", s)
	}
	c.Write([]byte("ignored"))
	if s := c.Snapshot(); s.Head != "ab€\ufffd" || s.RawBytes != 6 {
		t.Fatalf("write after close: %+v", s)
	}

	r := New(Config{Decode: Raw, Unit: Chars, Head: 3, Tail: 2})
	r.Write([]byte("a\xe2\x82"))
	if s := r.Snapshot(); s.Head != "a\xe2\x82" || s.Tail != "\xe2\x82" || s.Bytes != 3 || s.Chars != 3 {
		t.Fatalf("raw before close: %+v", s)
	}
	r.Write([]byte("\xac"))
	if s := r.Snapshot(); s.Head != "a€" || s.Tail != "a€" || s.Bytes != 4 || s.Chars != 2 {
		t.Fatalf("raw completed: %+v", s)
	}

	st := New(Config{Decode: Replace, Strip: true, Head: 10})
	st.Write([]byte(" a  "))
	if s := st.Snapshot(); s.Head != "a" {
		t.Fatalf("strip before close: %+v", s)
	}
	st.Write([]byte("b"))
	if s := st.Snapshot(); s.Head != "a  b" {
		t.Fatalf("strip continued: %+v", s)
	}

	e := New(Config{Decode: Strict, Head: 10})
	e.Write([]byte("ok\xf0\x9f"))
	if s := e.Snapshot(); s.Err != nil || s.Head != "ok" {
		t.Fatalf("strict before close: %+v", s)
	}
	e.Close()
	want := "'utf-8' codec can't decode bytes in position 2-3: unexpected end of data"
	if s := e.Snapshot(); s.Err == nil || s.Err.Error() != want {
		t.Fatalf("strict after close: %+v", s)
	}
}

// TestStripHugeTrailingSpace: a long run of white space is held in bounded memory and dropped at the end,
// or kept (head and tail) when something follows it.
func TestStripHugeTrailingSpace(t *testing.T) {
	chunk := bytes.Repeat([]byte(" \t\n\u3000\r\n\u00a0"), 64<<10/10)
	rounds := 256 // 16 MiB of white space
	if raceEnabled {
		rounds = 16
	}
	runLen := int64(len(chunk) * rounds)
	for _, follow := range []string{"", "z"} {
		c := New(Config{Decode: Replace, Universal: true, Strip: true, Head: 100, Tail: 100})
		c.Write([]byte("\n\n  start"))
		var before, after runtimeMem
		before.read()
		for i := 0; i < rounds; i++ {
			c.Write(chunk)
		}
		after.read()
		c.Write([]byte(follow))
		c.Close()
		s := c.Snapshot()
		if grow := after.total - before.total; grow > 64<<10 {
			t.Errorf("follow %q: %d bytes allocated while writing %d bytes of white space", follow, grow, runLen)
		}
		if follow == "" {
			if s.Head != "start" || s.Tail != "start" || s.Bytes != 5 || !s.Complete {
				t.Errorf("trailing: %+v", s)
			}
			continue
		}
		// Universal turns each "\r\n" of the run into "\n": 2 bytes shorter per pattern.
		pattern := " \t\n\u3000\n\u00a0"
		wantBytes := 5 + int64(len(pattern))*int64(len(chunk)/10*rounds) + 1
		wantHead := "start" + strings.Repeat(pattern, 20)[:95]
		wantTail := strings.Repeat(pattern, 20)[len(strings.Repeat(pattern, 20))-99:] + "z"
		if s.Bytes != wantBytes || s.Head != wantHead || s.Tail != wantTail {
			t.Errorf("followed: Bytes %d (want %d)\nHead %+q\nwant %+q\nTail %+q\nwant %+q", s.Bytes, wantBytes, s.Head, wantHead, s.Tail, wantTail)
		}
	}
}

func TestStripLeading(t *testing.T) {
	c := New(Config{Decode: Replace, Strip: true, Head: 5, Tail: 5})
	for i := 0; i < 1000; i++ {
		c.Write([]byte(" \n\t\u3000"))
	}
	c.Write([]byte("hi"))
	c.Close()
	if s := c.Snapshot(); s.Head != "hi" || s.Tail != "hi" || s.Bytes != 2 || s.RawBytes != 6002 {
		t.Fatalf("%+v", s)
	}
}

// TestConcurrentSnapshot polls while another goroutine writes (run with -race).
func TestConcurrentSnapshot(t *testing.T) {
	c := New(Config{Decode: Replace, Universal: true, Head: 1 << 20, Tail: 64})
	line := []byte("line with € and \r\n a split \xe2")
	const lineText = "line with € and \n a split \ufffd"
	const n = 20000
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < n; i++ {
			c.Write(line)
		}
		c.Close()
	}()
	var last int64
	for {
		s := c.Snapshot()
		if s.RawBytes < last {
			t.Fatalf("RawBytes went back: %d < %d", s.RawBytes, last)
		}
		last = s.RawBytes
		// The head (copied outside the lock) matches the counts taken with it.
		if int64(len(s.Head)) != min(s.Bytes, 1<<20) || !strings.HasPrefix(strings.Repeat(lineText, 3), s.Head[:min(len(s.Head), 3*len(lineText))]) {
			t.Fatalf("inconsistent snapshot: Bytes %d, Head %d bytes %q...", s.Bytes, len(s.Head), s.Head[:min(len(s.Head), 80)])
		}
		if s.RawBytes == int64(n*len(line)) && s.Bytes > 0 {
			break
		}
	}
	wg.Wait()
	s := c.Snapshot()
	// Each line decodes to "line with € and \n a split " then the split \xe2 and the next line's "l"
	// make one U+FFFD, and the last \xe2 becomes one U+FFFD at Close.
	per := int64(len("line with € and \n a split ") + len("\ufffd"))
	if s.Bytes != per*n || !strings.HasPrefix(s.Head, "line with € and \n a split \ufffdline") || !strings.HasSuffix(s.Tail, " a split \ufffd") {
		t.Fatalf("%+v (want Bytes %d)", s, per*n)
	}
}

func TestDecodeString(t *testing.T) {
	for d, want := range map[Decode]string{Strict: "strict", Replace: "replace", Ignore: "ignore", Raw: "raw", 9: "Decode(9)"} {
		if d.String() != want {
			t.Errorf("%d: %s", int(d), d)
		}
	}
	for u, want := range map[Unit]string{Bytes: "bytes", Chars: "chars", 7: "Unit(7)"} {
		if u.String() != want {
			t.Errorf("%d: %s", int(u), u)
		}
	}
	for k, want := range map[Keep]string{Head: "head", Tail: "tail", HeadTail: "head_tail", 5: "Keep(5)"} {
		if k.String() != want {
			t.Errorf("%d: %s", int(k), k)
		}
	}
	// Out-of-range Decode behaves as Replace; out-of-range Unit as Bytes.
	if s := capture(Config{Decode: 42, Unit: 9, Head: 5}, "a\xffb"); s.Head != "a\ufffdb" || s.Bytes != 5 {
		t.Errorf("%+v", s)
	}
}

func TestZeroCapture(t *testing.T) {
	var c Capture // as New(Config{}): Strict, nothing kept
	c.WriteString("abc\xff")
	c.Close()
	s := c.Snapshot()
	if s.Bytes != 3 || s.Head != "" || s.Complete || s.Err == nil || s.Err.Error() != "'utf-8' codec can't decode byte 0xff in position 3: invalid start byte" {
		t.Fatalf("%+v", s)
	}
}
