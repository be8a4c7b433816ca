package main

import (
	"math"
	"testing"
)

func TestJudgeAtLeast(t *testing.T) {
	for _, c := range []struct {
		ratio  float64
		status string
	}{
		{1.2, "met"},
		{0.9, "met"},
		{0.85, "gap (below)"},
		{0.75, "gap (below)"},
		{0.7, "**FAIL**: 0.70x, past even the known gap's bound 0.75x"},
		{math.NaN(), "**FAIL**: no figure"},
		{math.Inf(1), "**FAIL**: no figure"},
	} {
		r := judgeAtLeast(&row{}, c.ratio, throughputTarget)
		if got := r.status(); got != c.status {
			t.Errorf("ratio %v: %q, want %q", c.ratio, got, c.status)
		}
		if r.target != "≥ 0.9x" {
			t.Errorf("target %q", r.target)
		}
	}
}
