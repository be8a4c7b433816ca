package spec

import "strconv"

// ResultSpill cuts a text result that is longer than a bound (Results.Spill): the whole rendered text
// (the case's template, its truncate and the redaction applied) is saved to a file, and the model gets
// Header, the text's first Head units, Marker and its last Tail units instead. It is the cut Gemini CLI's
// scheduler makes of the result its shell tool returns (formatTruncatedToolOutput), whatever part of the
// result made it long; output.spill, by contrast, bounds and previews the output alone.
type ResultSpill struct {
	// Over is the bound: a text longer than Over.Limit units is cut.
	Over ResultBound `yaml:"over" json:"over"`
	// Cases are the result cases it applies to (default: every text case).
	Cases []Outcome `yaml:"cases,omitempty" json:"cases,omitempty" jsonschema:"uniqueItems=true"`
	// Path is a template of the file's path; data: the call's (.TempDir, .EngineID, .CallID, .CallSeq,
	// .Workspace, .Tool, ...). A relative path is relative to the workspace. Its directories are made.
	Path string `yaml:"path" json:"path"`
	// MaxBytes caps the file (default 64 MiB): the text past it is not saved (.SpillCapped).
	MaxBytes int64 `yaml:"max_bytes,omitempty" json:"max_bytes,omitempty" jsonschema:"minimum=0,maximum=17179869184"`
	// Lifetime is engine (the file is removed when the engine closes: the default) or keep.
	Lifetime SpillLifetime `yaml:"lifetime,omitempty" json:"lifetime,omitempty" jsonschema:"enum=engine,enum=keep"`
	// Head and Tail are the units kept at the start and at the end, cut anywhere (JavaScript's
	// slice(0, head) and slice(-tail)); together at most the limit.
	Head int `yaml:"head" json:"head" jsonschema:"minimum=0,maximum=268435456"`
	Tail int `yaml:"tail" json:"tail" jsonschema:"minimum=0,maximum=268435456"`
	// Header is a template put before the head; Marker one put between the head and the tail. Data: the
	// call's, with .SpillPath (the file; "" when it could not be started, .SpillError then says why; a write
	// that failed after it started leaves it short, with .SpillCapped and .SpillError),
	// .SpillCapped, .Total (the text's units), .Kept (Head + Tail) and .Elided (the units left out).
	Header string `yaml:"header,omitempty" json:"header,omitempty"`
	Marker string `yaml:"marker,omitempty" json:"marker,omitempty"`
}

// ResultBound is the size past which a result is cut.
type ResultBound struct {
	// Unit is chars (code points: the default), bytes (of the UTF-8 text) or utf16 (UTF-16 code units, a
	// JavaScript string's length). A utf16 cut inside a character outside the BMP leaves its half as
	// U+FFFD, as the lone surrogate JavaScript leaves reads in UTF-8.
	Unit SizeUnit `yaml:"unit,omitempty" json:"unit,omitempty" jsonschema:"enum=bytes,enum=chars,enum=utf16"`
	// Limit is a size in Unit: a longer text is cut.
	Limit int `yaml:"limit" json:"limit" jsonschema:"minimum=1,maximum=268435456"`
}

func (s *ResultSpill) fillDefaults() {
	if s == nil {
		return
	}
	if s.Over.Unit == "" {
		s.Over.Unit = Chars
	}
	if s.MaxBytes == 0 {
		s.MaxBytes = DefaultSpillMaxBytes
	}
	if s.Lifetime == "" {
		s.Lifetime = SpillEngine
	}
}

// Applies reports whether the spill cuts the text of a result case (a case's name, as Results.Case
// resolves it).
func (s *ResultSpill) Applies(name Outcome) bool {
	if s == nil {
		return false
	}
	if len(s.Cases) == 0 {
		return true
	}
	for _, o := range s.Cases {
		if o == name {
			return true
		}
	}
	return false
}

// resultSpill checks a tool's results.spill.
func (c *checker) resultSpill(ptr string, t *Tool) {
	s := t.Results.Spill
	if s == nil {
		return
	}
	if t.Results.Format != FormatText {
		c.errf(ptr, "spill applies to text results")
	}
	c.atMost(ptr+"/over/limit", "limit", float64(s.Over.Limit), MaxSize)
	if s.Head+s.Tail > s.Over.Limit {
		c.errf(ptr, "head (%d) and tail (%d) keep more than the limit (%d)", s.Head, s.Tail, s.Over.Limit)
	}
	if s.Head+s.Tail == 0 {
		c.errf(ptr, "the cut needs a head, a tail, or both")
	}
	c.template(ptr+"/path", s.Path)
	if s.Header != "" {
		c.template(ptr+"/header", s.Header)
	}
	if s.Marker != "" {
		c.template(ptr+"/marker", s.Marker)
	}
	for i, o := range s.Cases {
		sh, ok := t.Results.Cases[o]
		switch {
		case !ok:
			c.errf(ptr+"/cases/"+strconv.Itoa(i), "the tool has no result case %s", o)
		case sh.Text == nil:
			c.errf(ptr+"/cases/"+strconv.Itoa(i), "the result case %s is not a text", o)
		}
	}
}
