package spec

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Spill saves the whole output of a run to a file when it is longer than a bound, and gives the result
// templates a preview of it instead of the output (Output.Spill): the hosts that keep a long output on
// disk for the model to read back (Claude Code's <persisted-output>, OpenCode's "Full output saved to",
// Qwen Code's saved output; Gemini CLI cuts the whole result instead: Results.Spill).
//
// The file holds the command's output as it came (bytes, both streams interleaved), up to MaxBytes; the
// bound and the preview apply to the processed text (decoded, newlines and trimming applied). An output
// within the bound is not spilled, and its text is what output.truncate makes of it.
type Spill struct {
	// Over is the bound: the output spills when it is longer than Over.Limit units, or has more lines
	// than Over.Lines.
	Over SpillBound `yaml:"over" json:"over"`
	// Outcomes are the outcomes whose output may spill (default: success, failure and timeout); in the
	// others the output is what output.truncate makes of it.
	Outcomes []Outcome `yaml:"outcomes,omitempty" json:"outcomes,omitempty" jsonschema:"uniqueItems=true,enum=success,enum=failure,enum=timeout"`
	// Path is a template of the file's path; data: the call's (.TempDir, .EngineID, .CallID, .CallSeq,
	// .Workspace, .Tool, ...). A relative path is relative to the workspace. Its directories are made.
	Path string `yaml:"path" json:"path"`
	// MaxBytes caps the file (default 64 MiB): the output past it is not saved (.SpillCapped).
	MaxBytes int64 `yaml:"max_bytes,omitempty" json:"max_bytes,omitempty" jsonschema:"minimum=0,maximum=17179869184"`
	// Lifetime is engine (the file is removed when the engine closes: the default) or keep (left where it
	// is, as the hosts leave theirs).
	Lifetime SpillLifetime `yaml:"lifetime,omitempty" json:"lifetime,omitempty" jsonschema:"enum=engine,enum=keep"`
	// Preview is what the model sees of a spilled output (as .Output).
	Preview Preview `yaml:"preview" json:"preview"`
}

// SpillBound is a size in units and in lines; zero leaves either out.
type SpillBound struct {
	// Unit is the unit of Limit: chars (the default) or bytes.
	Unit SizeUnit `yaml:"unit,omitempty" json:"unit,omitempty" jsonschema:"enum=bytes,enum=chars"`
	// Limit is a size in Unit: more spills.
	Limit int `yaml:"limit,omitempty" json:"limit,omitempty" jsonschema:"minimum=0,maximum=268435456"`
	// Lines is a number of lines: more spills. Lines are the pieces of the text between "\n" (as
	// JavaScript's text.split("\n") makes them): a text ending in "\n" has an empty last line.
	Lines int `yaml:"lines,omitempty" json:"lines,omitempty" jsonschema:"minimum=0,maximum=268435456"`
}

// Preview is the part of a spilled output the model sees.
type Preview struct {
	// Keep is head, tail or head_tail.
	Keep Keep `yaml:"keep" json:"keep" jsonschema:"enum=head,enum=tail,enum=head_tail"`
	// Unit is the unit of Head and Tail: the spill bound's unit by default.
	Unit SizeUnit `yaml:"unit,omitempty" json:"unit,omitempty" jsonschema:"enum=bytes,enum=chars"`
	// Head is the units kept at the start (head, head_tail).
	Head int `yaml:"head,omitempty" json:"head,omitempty" jsonschema:"minimum=0,maximum=268435456"`
	// LineCut (head): the head is cut back to its last "\n" (which goes too) when that "\n" is further in
	// than LineCut × Head units (Claude Code's 0.5); 0 leaves the head as it is.
	LineCut float64 `yaml:"line_cut,omitempty" json:"line_cut,omitempty" jsonschema:"minimum=0,maximum=1"`
	// Tail is the units kept at the end (tail, head_tail): the last whole lines within Tail units and
	// Lines lines; when the last line alone is longer, its last Tail units (whole characters).
	Tail int `yaml:"tail,omitempty" json:"tail,omitempty" jsonschema:"minimum=0,maximum=268435456"`
	// Lines bounds the tail in lines (0: no bound).
	Lines int `yaml:"lines,omitempty" json:"lines,omitempty" jsonschema:"minimum=0,maximum=268435456"`
	// ExactTail makes the tail the text's last Tail units exactly, cut anywhere in a line (JavaScript's
	// slice(-n)), not its last whole lines; Lines does not apply with it.
	ExactTail bool `yaml:"exact_tail,omitempty" json:"exact_tail,omitempty"`
	// Marker is a template put where the text was cut (after the head, before the tail, between them);
	// data: .Total (units of the whole text), .Kept, .Elided. May be "".
	Marker string `yaml:"marker,omitempty" json:"marker,omitempty"`
}

// SpillLifetime says how long a spilled file is kept.
type SpillLifetime string

const (
	SpillEngine SpillLifetime = "engine" // removed when the engine closes (the default)
	SpillKeep   SpillLifetime = "keep"   // left in place
)

// DefaultSpillMaxBytes is Spill.MaxBytes by default (64 MiB, Claude Code's cap).
const DefaultSpillMaxBytes = 64 << 20

// MaxSpillBytes bounds Spill.MaxBytes (16 GiB).
const MaxSpillBytes = 16 << 30

func (s *Spill) fillDefaults() {
	if s == nil {
		return
	}
	if s.Over.Unit == "" {
		s.Over.Unit = Chars
	}
	if s.Preview.Unit == "" {
		s.Preview.Unit = s.Over.Unit
	}
	if len(s.Outcomes) == 0 {
		s.Outcomes = []Outcome{OutcomeSuccess, OutcomeFailure, OutcomeTimeout}
	}
	if s.MaxBytes == 0 {
		s.MaxBytes = DefaultSpillMaxBytes
	}
	if s.Lifetime == "" {
		s.Lifetime = SpillEngine
	}
}

// Spills reports whether a run of this outcome may spill its output.
func (s *Spill) Spills(o Outcome) bool { return s != nil && slices.Contains(s.Outcomes, o) }

// spill checks a tool's output.spill (before the defaults are filled).
func (c *checker) spill(ptr string, t *Tool, kind Kind) {
	s := t.Output.Spill
	if s == nil {
		return
	}
	unit, punit := s.Over.Unit, s.Preview.Unit
	if unit == "" {
		unit = Chars
	}
	if punit == "" {
		punit = unit
	}
	if kind != KindExec {
		c.errf(ptr, "spill applies to exec tools, not %s", kind)
	}
	if t.Output.Capture != CaptureCombined {
		c.errf(ptr, "spill needs capture: combined (the file holds both streams as they came)")
	}
	if t.Output.Budget != nil {
		c.errf(ptr, "spill and budget exclude each other")
	}
	if s.Over.Limit == 0 && s.Over.Lines == 0 {
		c.errf(ptr+"/over", "the bound needs a limit, lines, or both")
	}
	// The capture counts bytes and characters whatever its unit, so the bound may be in either; the
	// preview is cut from what the capture keeps, so it shares the capture's unit.
	if tr := t.Output.Truncate; tr != nil && tr.Unit != punit {
		c.errf(ptr+"/preview/unit", "the preview is in %s and output.truncate in %s: they share the capture's unit", punit, tr.Unit)
	}
	if len(t.ResultTruncates()) > 0 && t.Output.Truncate == nil {
		for _, tr := range t.ResultTruncates() {
			if tr.Unit != punit {
				c.errf(ptr+"/preview/unit", "the preview is in %s and a result-level truncation in %s: they share the capture's unit", punit, tr.Unit)
				break
			}
		}
	}
	p := s.Preview
	switch p.Keep {
	case KeepHead:
		if p.Head <= 0 {
			c.errf(ptr+"/preview", "keep head needs head")
		}
	case KeepTail:
		if p.Tail <= 0 {
			c.errf(ptr+"/preview", "keep tail needs tail")
		}
	case KeepHeadTail:
		if p.Head <= 0 || p.Tail <= 0 {
			c.errf(ptr+"/preview", "keep head_tail needs head and tail")
		}
	}
	if p.LineCut != 0 && p.Keep == KeepTail {
		c.errf(ptr+"/preview/line_cut", "line_cut applies to the head")
	}
	if p.Lines != 0 && p.Keep == KeepHead {
		c.errf(ptr+"/preview/lines", "lines applies to the tail")
	}
	if p.ExactTail && (p.Keep == KeepHead || p.Lines != 0) {
		c.errf(ptr+"/preview/exact_tail", "exact_tail applies to a tail without lines")
	}
	c.atMost(ptr+"/over/limit", "limit", float64(s.Over.Limit), MaxSize)
	c.atMost(ptr+"/preview/head", "head", float64(p.Head), MaxSize)
	c.atMost(ptr+"/preview/tail", "tail", float64(p.Tail), MaxSize)
	c.template(ptr+"/path", s.Path)
	if p.Marker != "" {
		c.template(ptr+"/preview/marker", p.Marker)
	}
	for i, o := range s.Outcomes {
		if _, _, ok := t.Results.Case(o); !ok {
			c.errf(ptr+"/outcomes/"+strconv.Itoa(i), "the tool has no result case for %s", o)
		}
	}
}

// HumanSize writes a size in bytes as Claude Code does: "512 bytes", "39.1KB", "1.5MB", "2GB" (1024 per
// step, one decimal as JavaScript's toFixed(1) rounds it, ".0" dropped).
func HumanSize(n int64) string {
	kb := float64(n) / 1024
	if kb < 1 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	one := func(x float64, unit string) string { return strings.TrimSuffix(toFixed1(x), ".0") + unit }
	if kb < 1024 {
		return one(kb, "KB")
	}
	mb := kb / 1024
	if mb < 1024 {
		return one(mb, "MB")
	}
	return one(mb/1024, "GB")
}

// toFixed1 is JavaScript's x.toFixed(1) for x >= 0: the decimal with one digit nearest to the exact binary
// value, the larger on a tie. The values it is given (a count of bytes over a power of two) have at most
// 40 binary digits after the point, so 40 decimal digits hold them exactly.
func toFixed1(x float64) string {
	s := strconv.FormatFloat(math.Abs(x), 'f', 40, 64)
	ip, frac, _ := strings.Cut(s, ".")
	n, _ := strconv.ParseInt(ip+frac[:1], 10, 64)
	if frac[1] >= '5' {
		n++
	}
	out := strconv.FormatInt(n/10, 10) + "." + strconv.FormatInt(n%10, 10)
	if x < 0 {
		out = "-" + out
	}
	return out
}

// HumanDuration writes a duration in milliseconds as Claude Code's formatDuration does: "0s", "0.5s"
// under a millisecond... "59s" (whole seconds, rounded down) under a minute, then "2m 0s", "1h 0m 5s",
// "1d 2h 3m" (the seconds rounded).
func HumanDuration(ms float64) string {
	if ms < 60000 {
		switch {
		case ms == 0:
			return "0s"
		case ms < 1:
			return toFixed1(ms/1000) + "s"
		}
		return strconv.FormatInt(int64(math.Floor(ms/1000)), 10) + "s"
	}
	d := int64(math.Floor(ms / 86400000))
	h := int64(math.Floor(math.Mod(ms, 86400000) / 3600000))
	m := int64(math.Floor(math.Mod(ms, 3600000) / 60000))
	s := int64(math.Round(math.Mod(ms, 60000) / 1000))
	if s == 60 {
		s, m = 0, m+1
	}
	if m == 60 {
		m, h = 0, h+1
	}
	if h == 24 {
		h, d = 0, d+1
	}
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	switch {
	case d > 0:
		return i(d) + "d " + i(h) + "h " + i(m) + "m"
	case h > 0:
		return i(h) + "h " + i(m) + "m " + i(s) + "s"
	}
	return i(m) + "m " + i(s) + "s"
}
