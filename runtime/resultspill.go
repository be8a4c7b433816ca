package runtime

import (
	"fmt"

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
	total := units(text, u)
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
	}
	if path != "" { // a file whose writing failed after it started is kept, capped (spillFile.finish)
		d.Spilled, d.SpillPath, d.SpillCapped = true, path, capped
	}
	head, tail := prefixUnits(text, s.Head, u), suffixUnits(text, s.Tail, u)
	d.Total = total
	d.Kept = units(head, u) + units(tail, u)
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
