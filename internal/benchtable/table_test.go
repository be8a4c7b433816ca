package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	gap := limit{max: 3, text: "≤ 3x", gap: "the cause", bound: 8}
	plain := limit{max: 1.1, text: "≤ 1.1x"}
	mem := limit{max: 32, text: "< 32 MiB", memory: true}
	// failedAdvisory: whether the row still fails under -timing-advisory (memory bounds and missing
	// figures do; time targets do not).
	for _, c := range []struct {
		v                  float64
		l                  limit
		status             string
		failed, hasGapNote bool
		failedAdvisory     bool
	}{
		{1.0, plain, "met", false, false, false},
		{1.1, plain, "met", false, false, false},
		{1.2, plain, "**FAIL**: 1.2 misses ≤ 1.1x", true, false, false},
		{math.NaN(), plain, "**FAIL**: no figure", true, false, true},
		{2, gap, "met", false, false, false},
		{5, gap, "gap (below)", false, true, false},
		{9, gap, "**FAIL**: 9, past even the known gap's bound 8", true, false, false},
		{31, mem, "met", false, false, false},
		{33, mem, "**FAIL**: 33 misses < 32 MiB", true, false, true},
	} {
		r := (&row{measure: "m"}).judge(c.v, c.l)
		s := &section{title: "s", rows: []*row{r}}
		if r.status() != c.status || s.failed(false) != c.failed || (r.gap != "") != c.hasGapNote {
			t.Errorf("%v against %+v: status %q failed %v gap %q; want %q %v %v", c.v, c.l, r.status(), s.failed(false), r.gap, c.status, c.failed, c.hasGapNote)
		}
		if got := s.failed(true); got != c.failedAdvisory {
			t.Errorf("%v against %+v with -timing-advisory: failed %v, want %v", c.v, c.l, got, c.failedAdvisory)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is a number")
	}
}

// TestTable: one row per figure under its section, pipes in commands escaped, each gap's cause once.
func TestTable(t *testing.T) {
	l := limit{max: 1, text: "≤ 1x", gap: "because", bound: 2}
	var b bytes.Buffer
	writeTable(&b, []*section{{title: "a", rows: []*row{
		(&row{measure: code("x | y"), figure: "1 s", ratio: 1.5}).judge(1.5, l),
		(&row{measure: "z", figure: "2 s"}).judge(1.6, l),
	}}})
	got := b.String()
	for _, want := range []string{"| **a** |", "| `x \\| y` | 1 s |  | 1.50x | ≤ 1x | gap (below) |", "\n- because\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "because") != 1 {
		t.Errorf("the cause is not given once:\n%s", got)
	}
}
