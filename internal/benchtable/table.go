package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// A row is one figure of the table, beside its baseline measured in the same run.
type row struct {
	measure  string
	figure   string
	baseline string
	ratio    float64 // figure / baseline, when the two compare; 0 otherwise
	target   string  // the target as it reads ("≤ 1.1x"), or "" for a figure without one
	// miss says why the row misses its target ("" when it meets it or has none).
	miss string
	// gap names a known cause for a target the row cannot meet; the row then fails only past bound.
	gap string
	// memory says the target bounds memory, not time: a bound that a busy machine does not move.
	memory bool
}

// limit is a target on a value: met when the value is at most max.
type limit struct {
	max  float64
	text string // how the target reads: "≤ 1.1x"
	// gap, with bound, is a target known to be missed for a stated cause: the row fails only past bound.
	gap   string
	bound float64
	// memory marks a bound on memory (see row.memory).
	memory bool
}

// judge fills r's target and verdict for value v (a ratio, or a figure in the limit's own unit).
func (r *row) judge(v float64, l limit) *row {
	r.target = l.text
	r.memory = l.memory
	switch {
	case math.IsNaN(v):
		r.miss = "no figure"
	case v <= l.max:
	case l.gap != "" && v <= l.bound:
		r.gap = l.gap
	case l.gap != "":
		r.miss = fmt.Sprintf("%.3g, past even the known gap's bound %.3g", v, l.bound)
	default:
		r.miss = fmt.Sprintf("%.3g misses %s", v, l.text)
	}
	return r
}

func (r *row) status() string {
	switch {
	case r.miss != "":
		return "**FAIL**: " + r.miss
	case r.gap != "":
		return "gap (below)"
	case r.target != "":
		return "met"
	}
	return ""
}

// A section is a group of rows measured together (and measured again together when one misses).
type section struct {
	title string
	rows  []*row
}

// failed says whether a row of s misses its target. With timingAdvisory, a missed time target does not
// count: only a missing figure or a missed memory bound does.
func (s *section) failed(timingAdvisory bool) bool {
	return len(s.misses(timingAdvisory)) > 0
}

// misses returns the rows of s that fail (see failed).
func (s *section) misses(timingAdvisory bool) []*row {
	var out []*row
	for _, r := range s.rows {
		if r.miss != "" && (!timingAdvisory || r.memory || r.miss == "no figure") {
			out = append(out, r)
		}
	}
	return out
}

// writeTable writes the sections as one Markdown table, then the known gaps with their causes.
func writeTable(w io.Writer, sections []*section) {
	fmt.Fprintln(w, "| measure | figure | baseline (same run) | ratio | target | status |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	var gaps []string
	for _, s := range sections {
		fmt.Fprintf(w, "| **%s** | | | | | |\n", s.title)
		for _, r := range s.rows {
			ratio := ""
			if r.ratio > 0 {
				ratio = fmt.Sprintf("%.2fx", r.ratio)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", r.measure, r.figure, r.baseline, ratio, r.target, r.status())
			if r.gap != "" && !slices.Contains(gaps, r.gap) {
				gaps = append(gaps, r.gap)
			}
		}
	}
	for i, g := range gaps {
		if i == 0 {
			fmt.Fprintln(w, "\nKnown gaps:")
		}
		fmt.Fprintf(w, "\n- %s\n", g)
	}
}

// median returns the median of xs (NaN for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// best returns the least of xs (NaN for none).
func best(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Min(xs)
}

// ms, us and secs format a duration (in seconds) for the table.
func ms(sec float64) string   { return fmt.Sprintf("%.2f ms", sec*1e3) }
func us(sec float64) string   { return fmt.Sprintf("%.1f µs", sec*1e6) }
func secs(sec float64) string { return fmt.Sprintf("%.2f s", sec) }
func mib(b int64) string      { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func seconds(d time.Duration) float64 { return d.Seconds() }

// code quotes a command for a table cell.
func code(s string) string { return "`" + strings.ReplaceAll(s, "|", `\|`) + "`" }
