package runtime

import (
	"fmt"
	"unicode/utf8"

	"github.com/agentbash/agentbash/spec"
)

// Result spill (spec Results.Spill): a text result longer than its bound is saved whole to a file (the
// spill writer of output.spill, its lifetime the same) and the model gets the header, the text's head,
// the marker and its tail.

// spillResult applies the results' spill to the rendered text of a case.
func (c *call) spillResult(name spec.Outcome, text string) (string, error) {
	s := c.resultCases().Spill
	if !s.Applies(name) {
		return text, nil
	}
	u := s.Over.Unit
	total := measure(text, u)
	if total <= int64(s.Over.Limit) {
		return text, nil
	}
	d := c.data
	d.SpillSize = total
	sf, err := c.newSpillFile("results.spill.path", s.Path, s.MaxBytes, s.Lifetime, 0)
	if err != nil {
		return "", err
	}
	// In pieces: a copy of the whole text as bytes would double what the call holds at its peak.
	for rest := text; len(rest) > 0; {
		n := min(len(rest), 64<<10)
		_, _ = sf.Write([]byte(rest[:n]))
		rest = rest[n:]
	}
	path, capped, ferr := sf.finish(true)
	if ferr != nil {
		d.SpillError = ferr.Error()
	} else {
		d.Spilled, d.SpillPath, d.SpillCapped = true, path, capped
	}
	head, tail := headOf(text, s.Head, u), tailOf(text, s.Tail, u)
	d.Total = total
	d.Kept = measure(head, u) + measure(tail, u)
	d.Elided = total - d.Kept
	d.SpillElided = d.Elided
	var header, marker string
	if s.Header != "" {
		if header, err = c.t.tmpl.render(s.Header, &d); err != nil {
			return "", fmt.Errorf("agentbash: rendering results.spill.header: %w", err)
		}
	}
	if s.Marker != "" {
		if marker, err = c.t.tmpl.render(s.Marker, &d); err != nil {
			return "", fmt.Errorf("agentbash: rendering results.spill.marker: %w", err)
		}
	}
	return header + head + marker + tail, nil
}

// measure counts s in unit u: bytes, code points, or UTF-16 code units.
func measure(s string, u spec.SizeUnit) int64 {
	if u != spec.UTF16 {
		return units(s, u)
	}
	n := int64(0)
	for _, r := range s {
		n += int64(utf16Len(r))
	}
	return n
}

// utf16Len is the UTF-16 code units of r (an invalid byte, read as U+FFFD, is one).
func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// headOf is the first n units of s (JavaScript's slice(0, n) in utf16; whole characters in bytes).
func headOf(s string, n int, u spec.SizeUnit) string {
	if u != spec.UTF16 {
		return prefixUnits(s, n, u)
	}
	k := 0
	for i, r := range s {
		w := utf16Len(r)
		if k+w > n {
			if k < n { // the pair's high half: a lone surrogate, U+FFFD in UTF-8
				return s[:i] + string(utf8.RuneError)
			}
			return s[:i]
		}
		k += w
	}
	return s
}

// tailOf is the last n units of s (JavaScript's slice(-n) in utf16; whole characters in bytes).
func tailOf(s string, n int, u spec.SizeUnit) string {
	if n <= 0 {
		return ""
	}
	if u != spec.UTF16 {
		return suffixUnits(s, n, u)
	}
	k, i := 0, len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		w := utf16Len(r)
		if k+w > n {
			if k < n { // the pair's low half
				return string(utf8.RuneError) + s[i:]
			}
			break
		}
		k += w
		i -= size
	}
	return s[i:]
}
