package spec

import (
	"strings"
	"time"
)

// Tool returns the tool with this name, or nil.
func (v *Variant) Tool(name string) *Tool {
	for i := range v.Tools {
		if v.Tools[i].Name == name {
			return &v.Tools[i]
		}
	}
	return nil
}

// ToolNames lists the tool names, the primary tool first.
func (v *Variant) ToolNames() []string {
	names := make([]string, len(v.Tools))
	for i := range v.Tools {
		names[i] = v.Tools[i].Name
	}
	return names
}

// Param returns the parameter with this role, or nil (RoleNone is never returned: several may have it).
func (t *Tool) Param(r Role) *Param {
	if r == RoleNone || r == "" {
		return nil
	}
	for i := range t.Params {
		if t.Params[i].Role == r {
			return &t.Params[i]
		}
	}
	return nil
}

// ParamNamed returns the parameter with this name, or nil.
func (t *Tool) ParamNamed(name string) *Param {
	for i := range t.Params {
		if t.Params[i].Name == name {
			return &t.Params[i]
		}
	}
	return nil
}

// Case returns the result case that shapes an outcome: success and failure fall back to exit, and
// spawn_error.<ERRNO> to spawn_error. The second result is the outcome of the case found.
func (r *Results) Case(o Outcome) (*Shape, Outcome, bool) {
	if sh, ok := r.Cases[o]; ok {
		return &sh, o, true
	}
	switch {
	case o == OutcomeSuccess || o == OutcomeFailure:
		return r.Case(OutcomeExit)
	case strings.HasPrefix(string(o), string(OutcomeSpawnError)+"."):
		return r.Case(OutcomeSpawnError)
	}
	return nil, "", false
}

// ResultTruncates returns the result-level truncations of the tool's cases (they share one unit), in
// outcome order.
func (t *Tool) ResultTruncates() []*Truncate {
	var out []*Truncate
	for _, o := range t.Outcomes() {
		if sh := t.Results.Cases[o]; sh.Truncate != nil {
			out = append(out, sh.Truncate)
		}
	}
	return out
}

// Outcomes lists the tool's result cases in file order (by their line; by name for a spec built in Go).
func (t *Tool) Outcomes() []Outcome {
	if t.outcomes != nil {
		return t.outcomes
	}
	return sortedOutcomes(t.Results.Cases, nil)
}

// Param names the parameter a required, not_empty or not_blank check tests, or "".
func (c *Check) Param() string {
	switch {
	case c.Required != "":
		return c.Required
	case c.NotEmpty != "":
		return c.NotEmpty
	case c.NotBlank != "":
		return c.NotBlank
	}
	return ""
}

// Duration converts a timeout value in the tool's unit; ok is false when it is longer than any run can
// last (no timeout at all).
func (tm *Timeout) Duration(value float64) (d time.Duration, ok bool) {
	f := value * float64(tm.Unit.Duration())
	if f >= float64(1<<63-1) {
		return 0, false
	}
	return time.Duration(f), true
}

// Grace is the shell grace as a time.Duration.
func (s *Shell) GraceDuration() time.Duration { return s.Grace.D() }
