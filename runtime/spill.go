package runtime

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// Spilled output (spec Output.Spill): a run whose output may spill writes it, as it comes, through a
// spillFile, which holds the first bytes in memory and, past them, writes everything to the file (up to
// max_bytes). When the run ends the call decides from the processed text (its size and lines, which the
// capture counts) whether the output spilled: then the file is completed and kept, and the result shows a
// preview of the text the capture kept (its head and tail); otherwise the file, if one was started, is
// removed. A file whose lifetime is the engine's is removed by Close, and so is the engine's temporary
// directory (.TempDir) with all it holds.

// spillMemory is how much output a spillFile holds in memory before it starts the file, at least.
const spillMemory = 64 << 10

// spillFile is the writer a spilling run's output also goes to.
type spillFile struct {
	e        *Engine
	path     string // absolute
	max      int64  // the file's cap
	memory   int    // bytes held before the file starts
	lifetime spec.SpillLifetime

	// started, when set, is called once the file has started (its memory written to it): the captures
	// then need keep no more of the output than the preview and the bound need.
	started func()

	mu      sync.Mutex
	buf     []byte
	f       *os.File
	opened  bool  // the file started: what memory held is in it
	written int64 // bytes in buf or the file
	raw     int64 // bytes seen
	err     error
	done    bool
}

// newSpill makes the spill writer of a call, its path rendered from the call's data; nil when the tool
// does not spill.
func (c *call) newSpill() (*spillFile, error) {
	s := c.t.spec.Output.Spill
	if s == nil {
		return nil, nil
	}
	memory := spillMemory
	if s.Over.Unit == spec.Bytes || s.Over.Unit == spec.Chars {
		// chars <= raw bytes: an output of at most this many bytes is within the bound's size.
		memory = max(memory, s.Over.Limit+1)
	}
	return c.newSpillFile("spill.path", s.Path, s.MaxBytes, s.Lifetime, memory)
}

// newSpillFile makes a spill writer: its path rendered from the call's data (what names the template in
// an error), capped at maxBytes, holding up to memory bytes before it starts the file.
func (c *call) newSpillFile(what, pathTmpl string, maxBytes int64, lifetime spec.SpillLifetime, memory int) (*spillFile, error) {
	path, err := c.t.tmpl.render(pathTmpl, &c.data)
	if err != nil {
		return nil, fmt.Errorf("agentbash: rendering %s: %w", what, err)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.workspace, path)
	}
	memory = int(min(int64(memory), maxBytes))
	return &spillFile{e: c.e, path: filepath.Clean(path), max: maxBytes, memory: memory, lifetime: lifetime}, nil
}

// Write keeps p, in memory or in the file; it never fails (a file that cannot be written is reported by
// finish).
func (s *spillFile) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	s.raw += int64(n)
	if s.done || s.err != nil {
		return n, nil
	}
	if room := s.max - s.written; int64(len(p)) > room {
		p = p[:max(room, 0)]
	}
	if len(p) == 0 {
		return n, nil
	}
	if s.f == nil {
		if len(s.buf)+len(p) <= s.memory {
			s.buf = append(s.buf, p...)
			s.written += int64(len(p))
			return n, nil
		}
		if s.err = s.open(); s.err != nil {
			s.buf = nil
			return n, nil
		}
		if s.started != nil {
			s.started()
		}
	}
	if m, err := s.f.Write(p); err != nil {
		s.written += int64(m) // the file keeps what went in before the failure
		s.err = err
		return n, nil
	}
	s.written += int64(len(p))
	return n, nil
}

// open creates the file (and its directories) and writes what memory held.
func (s *spillFile) open() error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	s.f = f
	if s.lifetime == spec.SpillEngine {
		s.e.keepSpill(s.path)
	}
	if len(s.buf) > 0 {
		if _, err := f.Write(s.buf); err != nil {
			return err
		}
	}
	s.buf = nil
	s.opened = true
	return nil
}

// finish ends the writer: with keep, the file is completed and kept (path returned, capped reporting a
// file cut at its cap); otherwise a file started is removed. Writes after it are ignored. With keep, a
// file that could not be started is removed and only the error returned; one whose writing failed after
// it started is kept as it is, with its path, capped and the error (the output spilled, its file is short).
func (s *spillFile) finish(keep bool) (path string, capped bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return "", false, nil
	}
	s.done = true
	if keep && s.err == nil && s.f == nil {
		s.err = s.open()
	}
	if s.f != nil {
		if cerr := s.f.Close(); s.err == nil {
			s.err = cerr
		}
	}
	s.buf = nil
	if keep && s.err != nil && s.opened {
		return s.path, true, s.err
	}
	if !keep || s.err != nil {
		if s.f != nil {
			_ = os.Remove(s.path)
			s.e.forgetSpill(s.path)
		}
		if keep {
			return "", false, s.err
		}
		return "", false, nil
	}
	return s.path, s.raw > s.written, nil
}

// applySpill decides, once the run ended with an outcome and its streams are filled, whether the output
// spilled; if it did, the data gets the file and .Output the preview.
func (c *call) applySpill(outcome spec.Outcome) error {
	sf := c.spill
	if sf == nil {
		return nil
	}
	s := c.t.spec.Output.Spill
	sn := c.snaps.output
	if sn == nil {
		_, _, _ = sf.finish(false)
		return nil
	}
	size := sn.Bytes
	if s.Over.Unit == spec.Chars {
		size = sn.Chars
	}
	lines := sn.Newlines + 1
	over := s.Spills(outcome) && (s.Over.Limit > 0 && size > int64(s.Over.Limit) || s.Over.Lines > 0 && lines > int64(s.Over.Lines))
	path, capped, err := sf.finish(over)
	if !over {
		return nil
	}
	c.data.SpillSize, c.data.SpillLines = size, lines
	if err != nil {
		c.data.SpillError = err.Error()
		if path == "" {
			return nil // not started: the output did not spill, and the capture holds it whole
		}
	}
	c.data.Spilled, c.data.SpillPath, c.data.SpillCapped = true, path, capped
	total := sn.Bytes // the text's size in the preview's unit
	if s.Preview.Unit == spec.Chars {
		total = sn.Chars
	}
	text, elided, err := c.preview(&s.Preview, *sn, total)
	if err != nil {
		return err
	}
	c.data.Output, c.data.SpillElided = text, elided
	c.data.OutputTruncated, c.data.Truncated = true, true
	return nil
}

// preview is what the model sees of a spilled output: the snapshot's head and tail cut as the preview
// says, with its marker; elided counts the units left out.
func (c *call) preview(p *spec.Preview, sn textcap.Snapshot, total int64) (string, int64, error) {
	u := p.Unit
	var head, tail string
	switch p.Keep {
	case spec.KeepHead, spec.KeepHeadTail:
		head = previewHead(sn.Head, p.Head, p.LineCut, u)
	}
	switch p.Keep {
	case spec.KeepTail, spec.KeepHeadTail:
		whole := sn.Complete
		text := sn.Tail
		if whole {
			text = sn.Head
		}
		if p.ExactTail {
			tail = suffixUnits(text, p.Tail, u)
		} else {
			tail = previewTail(text, whole, p.Tail, p.Lines, u)
		}
	}
	kept := units(head, u) + units(tail, u)
	if p.Keep == spec.KeepHeadTail && kept >= total {
		return sn.Head, 0, nil // the two parts meet: the whole text
	}
	elided := max(total-kept, 0)
	if elided == 0 || p.Marker == "" {
		return head + tail, elided, nil
	}
	d := spec.Data{Total: total, Kept: kept, Elided: elided}
	marker, err := c.t.tmpl.render(p.Marker, &d)
	if err != nil {
		return "", 0, fmt.Errorf("agentbash: rendering spill.preview.marker: %w", err)
	}
	return head + marker + tail, elided, nil
}

// units counts s in unit u (chars: code points, as Go's range counts them; utf16: UTF-16 code units, as
// JavaScript's length counts them).
func units(s string, u spec.SizeUnit) int64 {
	switch u {
	case spec.Chars:
		return int64(utf8.RuneCountInString(s))
	case spec.UTF16:
		n := int64(0)
		for _, r := range s {
			n += int64(utf16Len(r))
		}
		return n
	}
	return int64(len(s))
}

// utf16Len is the UTF-16 code units of r (an invalid byte, read as U+FFFD, is one).
func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// prefixUnits is the first n units of s, whole characters only, but in utf16, where it is JavaScript's
// slice(0, n): a cut inside a surrogate pair leaves its high half, U+FFFD in UTF-8.
func prefixUnits(s string, n int, u spec.SizeUnit) string {
	if u == spec.UTF16 {
		k := 0
		for i, r := range s {
			w := utf16Len(r)
			if k+w > n {
				if k < n {
					return s[:i] + string(utf8.RuneError)
				}
				return s[:i]
			}
			k += w
		}
		return s
	}
	if u == spec.Chars {
		i := 0
		for k := range s {
			if i == n {
				return s[:k]
			}
			i++
		}
		return s
	}
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// suffixUnits is the last n units of s, whole characters only, but in utf16, where it is JavaScript's
// slice(-n): a cut inside a surrogate pair leaves its low half, U+FFFD in UTF-8.
func suffixUnits(s string, n int, u spec.SizeUnit) string {
	if n <= 0 {
		return ""
	}
	if u == spec.UTF16 {
		k, i := 0, len(s)
		for i > 0 {
			r, size := utf8.DecodeLastRuneInString(s[:i])
			w := utf16Len(r)
			if k+w > n {
				if k < n {
					return string(utf8.RuneError) + s[i:]
				}
				break
			}
			k += w
			i -= size
		}
		return s[i:]
	}
	if u == spec.Chars {
		i := len(s)
		for c := 0; c < n && i > 0; c++ {
			_, w := utf8.DecodeLastRuneInString(s[:i])
			i -= w
		}
		return s[i:]
	}
	if n >= len(s) {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// previewHead is the first n units of a text, cut back to its last "\n" (which goes too) when that is
// further in than cut × n units (JavaScript's slice(0, n), then lastIndexOf("\n") > n*cut).
func previewHead(text string, n int, cut float64, u spec.SizeUnit) string {
	if units(text, u) <= int64(n) {
		return text
	}
	h := prefixUnits(text, n, u)
	if cut <= 0 {
		return h
	}
	i := strings.LastIndexByte(h, '\n')
	if i >= 0 && float64(units(h[:i], u)) > cut*float64(n) {
		return h[:i]
	}
	return h
}

// previewTail is the last whole lines of a text within n units and lines lines (0: any number), the text
// being the whole (whole) or its last n+1 units or more; when its last line alone is longer than n units,
// that line's last n units (the lines from the end, while they fit).
func previewTail(text string, whole bool, n, lines int, u spec.SizeUnit) string {
	pieces := strings.Split(text, "\n")
	first := 0
	if !whole {
		first = 1 // the first piece may be the end of a longer line: it never fits whole
	}
	y0, size := len(pieces), int64(0)
	for y := len(pieces) - 1; y >= 0 && (lines <= 0 || len(pieces)-y0 < lines); y-- {
		w := units(pieces[y], u)
		if y0 < len(pieces) {
			w++ // the "\n" after it
		}
		if y < first || size+w > int64(n) {
			if y0 == len(pieces) {
				return suffixUnits(pieces[y], n, u)
			}
			break
		}
		size += w
		y0 = y
	}
	return strings.Join(pieces[y0:], "\n")
}

// keepSpill records a file whose lifetime is the engine's; forgetSpill drops it.
func (e *Engine) keepSpill(path string) {
	e.spillMu.Lock()
	defer e.spillMu.Unlock()
	if e.spills == nil {
		e.spills = map[string]bool{}
	}
	e.spills[path] = true
}

func (e *Engine) forgetSpill(path string) {
	e.spillMu.Lock()
	defer e.spillMu.Unlock()
	delete(e.spills, path)
}

// closeSpills removes the files whose lifetime is the engine's, and the engine's temporary directory.
func (e *Engine) closeSpills() {
	e.spillMu.Lock()
	defer e.spillMu.Unlock()
	for p := range e.spills {
		_ = os.Remove(p)
	}
	e.spills = nil
	if e.tempDir != "" {
		_ = os.RemoveAll(e.tempDir)
	}
}

// spills reports whether any tool of the variant spills its output or its results.
func spills(v *spec.Variant) bool {
	for i := range v.Tools {
		if o := v.Tools[i].Output; o != nil && o.Spill != nil {
			return true
		}
		if v.Tools[i].Results.Spill != nil {
			return true
		}
	}
	return false
}

// newUUID is a random (version 4) uuid.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// callID is 16 random characters of [0-9a-z].
func callID() string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	var b [16]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = digits[int(b[i])%len(digits)]
	}
	return string(b[:])
}
