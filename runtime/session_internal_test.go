package runtime

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// TestHeadTail checks the between-calls buffer against its definition: of everything written since the
// last drain, the first capacity/2 bytes and the last capacity - capacity/2 bytes (all of it when it
// fits), whatever the sizes of the writes.
func TestHeadTail(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, capacity := range []int{0, 1, 2, 7, 64, 1000} {
		for round := range 200 {
			h := newHeadTail(capacity)
			var all []byte
			for range r.IntN(8) {
				chunk := make([]byte, r.IntN(3*capacity+3))
				for i := range chunk {
					chunk[i] = byte('a' + r.IntN(26))
				}
				h.write(chunk)
				all = append(all, chunk...)
			}
			want := all
			if head, tail := capacity/2, capacity-capacity/2; len(all) > capacity {
				want = append(append([]byte(nil), all[:head]...), all[len(all)-tail:]...)
			}
			if got := h.drain(); !bytes.Equal(got, want) {
				t.Fatalf("capacity %d round %d: drained %q, want %q (of %q)", capacity, round, got, want, all)
			}
			if got := h.drain(); len(got) != 0 {
				t.Fatalf("a second drain gave %q", got)
			}
		}
	}
}

// TestBudgetText checks the cut against its definition (the sources' truncate_middle_with_token_budget):
// within the budget the text is whole; past it, the head ends at the last character boundary within B/2
// bytes, the tail starts at the first boundary within the last B - B/2 bytes, and the marker counts the
// bytes over the budget in tokens, rounded up.
func TestBudgetText(t *testing.T) {
	tokens := &spec.Budget{Unit: spec.BudgetTokens, BytesPerToken: 4, Marker: "[{{.Elided}}/{{.Total}}]", Notice: "<{{.Total}} {{.Lines}}>"}
	bytesB := &spec.Budget{Unit: spec.BudgetBytes, Marker: "[{{.Elided}}]"}
	chars := &spec.Budget{Unit: spec.BudgetChars, Marker: "[{{.Elided}}]"}
	for _, tc := range []struct {
		name   string
		b      *spec.Budget
		n      int
		text   string
		want   string
		cut    bool
		units  int64
		lines  int64
		kLines int64
	}{
		{name: "empty", b: tokens, n: 0, text: "", want: "", units: 0, lines: 0},
		{name: "within", b: tokens, n: 2, text: "12345678", want: "12345678", units: 2, lines: 1, kLines: 1},
		{name: "one byte over", b: tokens, n: 2, text: "123456789", want: "<3 1>1234[1/3]6789", cut: true, units: 3, lines: 1, kLines: 1},
		{name: "zero budget", b: tokens, n: 0, text: "hello\n", want: "<2 1>[2/2]", cut: true, units: 2, lines: 1, kLines: 1},
		{name: "lines", b: tokens, n: 1, text: "a\nb\nc\nd\n", want: "<2 4>a\n[1/2]d\n", cut: true, units: 2, lines: 4, kLines: 2},
		// "é" is 2 bytes, so the text is 11 bytes: the 3-byte head keeps "aé" (both whole); the tail's 3 bytes
		// start at offset 8, a boundary: "éb". The 5 bytes between are cut.
		{name: "boundaries in bytes", b: bytesB, n: 6, text: "aééxyzéb", want: "aé[5]éb", cut: true, units: 11, lines: 1, kLines: 1},
		{name: "chars", b: chars, n: 4, text: "héllo wörld", want: "hé[7]ld", cut: true, units: 11, lines: 1, kLines: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, head, tail := budgetCapacity(tc.b, tc.n)
			w := newWindow(u, head, tail)
			// Written in small pieces, as a pipe delivers it.
			for i := 0; i < len(tc.text); i += 3 {
				w.write([]byte(tc.text[i:min(i+3, len(tc.text))]))
			}
			w.capture.Close()
			sn := w.capture.Snapshot()
			cl := newTestCall()
			got, cut := cl.budgetText(tc.b, tc.n, sn, w.lines(sn.Bytes))
			if got != tc.want || cut != tc.cut {
				t.Errorf("got %q (cut %t), want %q (cut %t)", got, cut, tc.want, tc.cut)
			}
			if cl.data.Units != tc.units || cl.data.Lines != tc.lines || cl.data.KeptLines != tc.kLines {
				t.Errorf("units %d, lines %d, kept lines %d; want %d, %d, %d", cl.data.Units, cl.data.Lines, cl.data.KeptLines, tc.units, tc.lines, tc.kLines)
			}
		})
	}
}

// TestBudgetTextLarge: a window keeps only what the cut needs, and cuts a long output as the whole would
// be cut.
func TestBudgetTextLarge(t *testing.T) {
	b := &spec.Budget{Unit: spec.BudgetTokens, BytesPerToken: 4, Marker: "…{{.Elided}} tokens truncated…"}
	var all strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&all, "line %d é\n", i)
	}
	text := all.String()
	u, head, tail := budgetCapacity(b, 100)
	w := newWindow(u, head, tail)
	for i := 0; i < len(text); i += 4096 {
		w.write([]byte(text[i:min(i+4096, len(text))]))
	}
	w.capture.Close()
	sn := w.capture.Snapshot()
	got, _ := newTestCall().budgetText(b, 100, sn, w.lines(sn.Bytes))
	// The definition on the whole text: 200-byte head and tail at character boundaries.
	hd := text[:200]
	for !utf8Start(text[len(hd)]) {
		hd = hd[:len(hd)-1]
	}
	start := len(text) - 200
	for !utf8Start(text[start]) {
		start++
	}
	want := hd + fmt.Sprintf("…%d tokens truncated…", (len(text)-400+3)/4) + text[start:]
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// newTestCall is a call with just what budgetText uses: its tool's templates.
func newTestCall() *call {
	return &call{t: &tool{tmpl: &templates{m: map[string]compiled{}, budget: 1 << 20}}}
}
