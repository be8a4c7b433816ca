package runtime

import (
	"encoding/json"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// An output budget (spec.Budget) keeps the first half and the last half of the budget with a marker
// between them, and counts the whole output (units and lines) for the templates. A capture sized by
// budgetCapacity keeps exactly what the cut needs, whatever the output's size.

// budgetValue is the call's budget: the budget parameter as sent (a non-negative integer), or the
// default, capped by the budget's max.
func (c *call) budgetValue() (int, error) {
	b := c.t.spec.Output.Budget
	p := c.t.spec.Param(spec.RoleBudget)
	requested := -1
	if p != nil {
		if n, ok := c.params[p.Name].(json.Number); ok {
			f, err := n.Float64()
			if err != nil || f < 0 || f != math.Trunc(f) || f > spec.MaxSize {
				return 0, c.invalid(p.Name, "must be a non-negative integer")
			}
			requested = int(f)
		}
	}
	return b.Effective(requested), nil
}

// budgetUnits is the budget in the capture's unit: bytes (tokens times bytes_per_token) or chars.
func budgetUnits(b *spec.Budget, n int) int {
	if b.Unit == spec.BudgetTokens {
		return min(n*b.BytesPerToken, textcap.MaxKeep)
	}
	return n
}

// budgetCapacity is what a capture keeps for a budget of n: the whole text up to the budget, and the
// tail the cut keeps (a few bytes more, for a character split by the cut).
func budgetCapacity(b *spec.Budget, n int) (unit textcap.Unit, head, tail int) {
	u := budgetUnits(b, n)
	unit = textcap.Bytes
	if b.Unit == spec.BudgetChars {
		unit = textcap.Chars
	}
	return unit, u + utf8.UTFMax, u - u/2 + utf8.UTFMax
}

// sizeIn is a text's size in the budget's unit.
func sizeIn(b *spec.Budget, bytes, chars int64) int64 {
	switch b.Unit {
	case spec.BudgetTokens:
		return ceilDiv(bytes, int64(b.BytesPerToken))
	case spec.BudgetChars:
		return chars
	}
	return bytes
}

func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return a
	}
	return (a + b - 1) / b
}

// budgetText cuts a captured text to a budget of n and sets .Units, .Lines and .KeptLines: a text
// within the budget is whole; a longer one keeps its first half and last half of the budget (at
// character boundaries: the head ends at the last boundary within its half, the tail starts at the first
// boundary within its half), with the marker between them and the notice, if any, before.
func (c *call) budgetText(b *spec.Budget, n int, sn textcap.Snapshot, lines int64) (string, bool) {
	c.data.Units, c.data.Lines = sizeIn(b, sn.Bytes, sn.Chars), lines
	limit := int64(budgetUnits(b, n))
	total := sn.Bytes
	if b.Unit == spec.BudgetChars {
		total = sn.Chars
	}
	live := c.data.Running
	if total <= limit && sn.Complete {
		c.data.KeptLines = countLines(sn.Head)
		text, carry := c.redactPiece(piece{text: sn.Head, carry: c.carry, open: live})
		c.carry = carry
		return text, false
	}
	left := limit / 2
	right := limit - left
	var prefix, suffix string
	if b.Unit == spec.BudgetChars {
		prefix = firstChars(sn.Head, int(left))
		suffix = lastChars(sn.Tail, int(right))
	} else {
		prefix = sn.Head[:floorBoundary(sn.Head, int(min(left, int64(len(sn.Head)))))]
		tail := sn.Tail
		off := int(max(0, total-right-(total-int64(len(tail)))))
		for off < len(tail) && !utf8.RuneStart(tail[off]) {
			off++
		}
		suffix = tail[off:]
	}
	keptBytes, keptChars := int64(len(prefix)+len(suffix)), int64(utf8.RuneCountInString(prefix)+utf8.RuneCountInString(suffix))
	d := spec.Data{Total: c.data.Units, Kept: sizeIn(b, keptBytes, keptChars), Lines: lines}
	switch b.Unit {
	case spec.BudgetTokens:
		// The bytes over the budget, in tokens (what the sources count, not the bytes a boundary moved).
		d.Elided = ceilDiv(total-limit, int64(b.BytesPerToken))
	case spec.BudgetChars:
		d.Elided = total - keptChars
	default:
		d.Elided = total - keptBytes
	}
	marker, _ := c.t.tmpl.render(b.Marker, &d)
	var out strings.Builder
	if b.Notice != "" {
		notice, _ := c.t.tmpl.render(b.Notice, &d)
		out.WriteString(notice)
	}
	c.data.KeptLines = countLinesOf(out.String(), prefix, marker, suffix)
	// The cut is between prefix and suffix: each is redacted knowing it.
	prefix, _ = c.redactPiece(piece{text: prefix, carry: c.carry, open: true})
	suffix, c.carry = c.redactPiece(piece{text: suffix, after: true, open: live})
	out.WriteString(prefix)
	out.WriteString(marker)
	out.WriteString(suffix)
	return out.String(), true
}

// floorBoundary is the largest character boundary of s at or below i.
func floorBoundary(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

func firstChars(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

func lastChars(s string, n int) string {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

// countLinesOf counts the lines of the concatenation of parts.
func countLinesOf(parts ...string) int64 {
	var n int64
	last := ""
	for _, p := range parts {
		n += int64(strings.Count(p, "\n"))
		if p != "" {
			last = p
		}
	}
	if last != "" && !strings.HasSuffix(last, "\n") {
		n++
	}
	return n
}

// countLines counts lines as Rust's str::lines does: a last line without "\n" counts.
func countLines(s string) int64 {
	n := int64(strings.Count(s, "\n"))
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// budgeted makes the streams a combined capture sized for a budget of n, with its lines counted.
func (s *streams) budgeted(b *spec.Budget, n int) {
	u, h, t := budgetCapacity(b, n)
	if s.seq != nil {
		s.budgetedSequential(u, h, t)
		return
	}
	s.window = newWindow(u, h, t)
	s.combined, s.stdout, s.stderr, s.output = true, nil, nil, s.window.capture
}

// Write writes to the window (a process writes a budgeted run's output here).
func (w *window) Write(b []byte) (int, error) {
	w.write(b)
	return len(b), nil
}
