package runtime

import (
	"strings"
	"testing"
)

// TestBgLogRing: whatever the chunks, the log holds the last limit bytes of what was written, in order,
// and since(from) returns the kept part from a position on, saying whether bytes after it were dropped.
func TestBgLogRing(t *testing.T) {
	cases := []struct {
		name   string
		limit  int
		chunks []string
	}{
		{"nothing", 8, nil},
		{"within the limit", 8, []string{"ab", "cd"}},
		{"exactly the limit", 4, []string{"ab", "cd"}},
		{"wraps once", 5, []string{"abc", "def", "g"}},
		{"wraps many times", 3, []string{"a", "bc", "def", "ghij", "k", "lm"}},
		{"a chunk over the limit", 4, []string{"ab", "cdefghij", "k"}},
		{"one byte", 1, []string{"ab", "c", "", "de"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newBgLog(tc.limit)
			all := ""
			for _, c := range tc.chunks {
				l.write([]byte(c))
				all += c
				want := all[max(0, len(all)-tc.limit):]
				got, dropped, total := l.since(0)
				if string(got) != want || total != int64(len(all)) || dropped != (len(all) > tc.limit) {
					t.Fatalf("after %q: since(0) = %q, %v, %d; want %q, %v, %d", all, got, dropped, total, want, len(all) > tc.limit, len(all))
				}
				if len(l.buf) > tc.limit {
					t.Fatalf("the ring holds %d bytes, limit %d", len(l.buf), tc.limit)
				}
				for from := 0; from <= len(all); from++ {
					first := max(0, len(all)-tc.limit)
					got, dropped, _ := l.since(int64(from))
					if w := all[max(from, first):]; string(got) != w || dropped != (from < first) {
						t.Fatalf("after %q: since(%d) = %q, %v; want %q, %v", all, from, got, dropped, w, from < first)
					}
				}
			}
			if l.size() != int64(len(strings.Join(tc.chunks, ""))) {
				t.Errorf("size %d", l.size())
			}
		})
	}
}

// TestBgLogChanged: a write closes the channel a reader took before it, and only that one.
func TestBgLogChanged(t *testing.T) {
	l := newBgLog(4)
	before := l.changed()
	select {
	case <-before:
		t.Fatal("closed before any write")
	default:
	}
	l.write([]byte("x"))
	select {
	case <-before:
	default:
		t.Fatal("a write did not signal")
	}
	select {
	case <-l.changed():
		t.Fatal("the next channel is closed already")
	default:
	}
}
