package spec

import (
	"math"
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

// ResolvedTimeout is what a timeout comes to under a tool's timeout rules (Timeout.Resolve).
type ResolvedTimeout struct {
	// Value is the timeout in the tool's unit after the rules (.TimeoutValue).
	Value float64
	// Ranged says that the range rule applied (range_skips_zero exempts 0): .Min and .Max are its bounds.
	Ranged bool
	// OutOfRange says that the value is outside min..max and out_of_range is fail: Timeout.Fail is raised
	// (Value is then the value before the range rule).
	OutOfRange bool
	// Expire says that the timeout is over before the command runs: a value <= 0 with non_positive:
	// expire.
	Expire bool
	// None says that the command has no timeout: a value <= 0 with non_positive: none (or with
	// non_positive: default and a default of 0).
	None bool
	// Duration is Value as a time.Duration when Value > 0; Unbounded says it is longer than any run can
	// last, which is no timeout at all.
	Duration  time.Duration
	Unbounded bool
}

// Resolve applies a tool's timeout rules, in their order, to a value in its unit (the value a model sent,
// or the default): truncate_fraction, then the range rule (fail or clamp, 0 exempt with
// range_skips_zero), then the host timer's overflow, then non_positive (a value <= 0 expires at once or
// becomes the default). It is the one reading of the rules: the runtime times calls with it, conformance
// derives its timeout cases from it.
func (tm *Timeout) Resolve(value float64) ResolvedTimeout {
	var r ResolvedTimeout
	if tm.TruncateFraction {
		value = math.Trunc(value)
	}
	if !(tm.RangeSkipsZero && value == 0) && (tm.Min != nil || tm.Max != nil) {
		r.Ranged = true
		if c := tm.Clamp(value); c != value {
			if tm.OutOfRange == OutOfRangeFail {
				r.Value, r.OutOfRange = value, true
				return r
			}
			value = c
		}
	}
	if o := tm.Overflow; o != nil && value > o.Above {
		value = o.Use // the host's timer runs a delay it cannot hold as this
	}
	if value <= 0 {
		switch tm.NonPositive {
		case NonPositiveDefault:
			value = tm.Default
			r.None = value <= 0
		case NonPositiveNone:
			value, r.None = 0, true
		default:
			r.Expire = true
		}
	}
	r.Value = value
	if value > 0 {
		d, ok := tm.Duration(value)
		r.Duration, r.Unbounded = d, !ok
	}
	return r
}

// Clamp brings a value in the tool's unit into its range min..max (the range rule's clamp).
func (tm *Timeout) Clamp(v float64) float64 {
	if tm.Max != nil && v > *tm.Max {
		v = *tm.Max
	}
	if tm.Min != nil && v < *tm.Min {
		v = *tm.Min
	}
	return v
}

// Grace is the shell grace as a time.Duration.
func (s *Shell) GraceDuration() time.Duration { return s.Grace.D() }
