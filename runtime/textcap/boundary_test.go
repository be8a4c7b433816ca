package textcap

import (
	"fmt"
	"testing"
)

// referenceTruncate is the truncation rule as Limit documents it, on a slice of units (bytes or
// characters), with the marker "[total kept elided]": whole when total <= Limit; else the head (Head, or
// Limit for keep head), the tail (Tail, or Limit for keep tail), and for head_tail the tail only when total
// > TailThreshold (or TailThreshold is 0), everything after the head otherwise.
func referenceTruncate[E any](units []E, l Limit) (head, tail []E, marker string, truncated bool) {
	n := len(units)
	if n <= l.Limit {
		return units, nil, "", false
	}
	hk, tk := 0, 0
	switch l.Keep {
	case Head:
		hk = l.Head
		if hk == 0 {
			hk = l.Limit
		}
	case Tail:
		tk = l.Tail
		if tk == 0 {
			tk = l.Limit
		}
	case HeadTail:
		hk, tk = l.Head, l.Tail
		if l.TailThreshold > 0 && n <= l.TailThreshold {
			tk = max(n-hk, 0)
		}
	}
	hk, tk = min(hk, n), min(tk, n)
	return units[:hk], units[n-tk:], fmt.Sprintf("[%d %d %d]", n, hk+tk, max(n-hk-tk, 0)), true
}

// TestThresholdBoundaries: every threshold of a truncation rule (the limit, and a head_tail rule's tail
// threshold), each unit, each keep: a text of exactly the threshold, one unit less and one unit more,
// against the documented rule. The thresholds are chosen so that each side of each boundary renders
// differently (a tail threshold apart from head + tail).
func TestThresholdBoundaries(t *testing.T) {
	marker := func(total, kept, elided int64) string { return fmt.Sprintf("[%d %d %d]", total, kept, elided) }
	type rule struct {
		name       string
		l          Limit
		boundaries []int
	}
	var rules []rule
	for _, u := range []Unit{Bytes, Chars} {
		rules = append(rules,
			rule{"head", Limit{Unit: u, Limit: 10, Keep: Head}, []int{10}},
			rule{"head 4", Limit{Unit: u, Limit: 10, Keep: Head, Head: 4}, []int{10}},
			rule{"tail", Limit{Unit: u, Limit: 10, Keep: Tail}, []int{10}},
			rule{"tail 3", Limit{Unit: u, Limit: 10, Keep: Tail, Tail: 3}, []int{10}},
			rule{"head_tail", Limit{Unit: u, Limit: 10, Keep: HeadTail, Head: 4, Tail: 3}, []int{10}},
			// tunacode's shape (local mode): the limit below the threshold, the threshold above head + tail.
			rule{"head_tail threshold", Limit{Unit: u, Limit: 6, Keep: HeadTail, Head: 4, Tail: 3, TailThreshold: 12}, []int{6, 12}},
			// A threshold below the limit never applies: every truncated text is longer than it.
			rule{"head_tail low threshold", Limit{Unit: u, Limit: 10, Keep: HeadTail, Head: 4, Tail: 3, TailThreshold: 5}, []int{10, 5}},
		)
	}
	for _, r := range rules {
		for _, b := range r.boundaries {
			for _, n := range []int{b - 1, b, b + 1} {
				name := fmt.Sprintf("%s %s n=%d", r.l.Unit, r.name, n)
				l := r.l
				l.Marker = marker
				var in, want string
				var wantCut bool
				if l.Unit == Chars {
					units := runesOf(n) // multi-byte characters of each length: a cut in bytes shows
					h, tl, m, cut := referenceTruncate(units, l)
					in, want, wantCut = string(units), string(h)+m+string(tl), cut
				} else {
					units := make([]byte, n)
					for i := range units {
						units[i] = byte('a' + i%26)
					}
					h, tl, m, cut := referenceTruncate(units, l)
					in, want, wantCut = string(units), string(h)+m+string(tl), cut
				}
				if !wantCut {
					want = in
				}
				s := capture(Config{Decode: Replace, Unit: l.Unit, Head: 64, Tail: 64}, in)
				got, cut, err := s.Truncate(l)
				if err != nil || got != want || cut != wantCut {
					t.Errorf("%s: %q, %v, %v; want %q, %v", name, got, cut, err, want, wantCut)
				}
				got, cut, err = Rope{{Text: in}}.Truncate(l)
				if err != nil || got != want || cut != wantCut {
					t.Errorf("%s, literal: %q, %v, %v; want %q, %v", name, got, cut, err, want, wantCut)
				}
			}
		}
	}
}
