// Package textcap captures a process's output stream in bounded memory, decodes it exactly as the source
// language of a tool contract decodes it, and truncates it with markers.
//
// A Capture is an io.Writer placed on a pipe. Its pipeline is
//
//	raw bytes -> decode (Strict, Replace, Ignore or Raw) -> ANSI escapes -> universal newlines -> strip -> head + tail
//
// and it keeps only the first Head and the last Tail units of the processed text (a buffer and a ring),
// counting everything else, so any amount of output passes through in memory proportional to Head + Tail.
// Whatever the Config, the head and the tail each hold at most MaxKeep bytes: a capture caps, it never
// spills to disk, and a limit above MaxKeep cuts the text there (see MaxKeep).
// Snapshot reads the state at any time from any goroutine; Snapshot.Truncate and Rope.Truncate then apply a
// contract's limit and marker to what was kept.
//
// Decoding follows CPython's UTF-8 decoder (Objects/stringlib/codecs.h): an invalid sequence is a maximal
// valid prefix of a well-formed sequence (a "maximal subpart", Unicode 3.9 / WHATWG), so Replace produces one
// U+FFFD per maximal subpart, which is also what Node's Buffer.toString and WHATWG TextDecoder produce (Go's
// own decoding produces one per byte; Sanitize offers both).
package textcap

import (
	"bytes"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Decode says how raw bytes become text.
type Decode int

const (
	// Strict is Python's errors="strict": the first invalid sequence is recorded in Snapshot.Err and
	// nothing after it is processed (Python loses the whole output).
	Strict Decode = iota
	// Replace is Python's errors="replace" (also WHATWG TextDecoder and Node Buffer.toString): one U+FFFD
	// per maximal invalid subpart.
	Replace
	// Ignore is Python's errors="ignore": invalid bytes are dropped.
	Ignore
	// Raw keeps the bytes as they are, valid or not; characters are counted as Go's range over a string
	// counts them (one per invalid byte).
	Raw
)

// String returns the spec spelling of d: strict, replace, ignore or raw.
func (d Decode) String() string {
	switch d {
	case Strict:
		return "strict"
	case Replace:
		return "replace"
	case Ignore:
		return "ignore"
	case Raw:
		return "raw"
	}
	return "Decode(" + strconv.Itoa(int(d)) + ")"
}

// Unit is the unit of a capacity or a limit.
type Unit int

const (
	// Bytes counts bytes of the UTF-8 text (raw bytes with Raw).
	Bytes Unit = iota
	// Chars counts code points (with Raw, runes as Go's range over a string yields them).
	Chars
)

// String returns the spec spelling of u: bytes or chars.
func (u Unit) String() string {
	switch u {
	case Bytes:
		return "bytes"
	case Chars:
		return "chars"
	}
	return "Unit(" + strconv.Itoa(int(u)) + ")"
}

// Config configures a Capture.
type Config struct {
	// Decode is how bytes become text. A value outside the four constants is treated as Replace.
	Decode Decode
	// Universal applies Python's universal newlines after decoding: "\r\n" and a lone "\r" become "\n".
	// A "\r" at the end of one Write followed by "\n" at the start of the next is one newline. With Raw it
	// applies to the bytes.
	Universal bool
	// Strip removes leading and trailing white space as Python's str.strip() does (str.isspace: ASCII
	// \t\n\v\f\r, space, \x1c-\x1f, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
	// U+3000). A run of white space is held (bounded: its first Head and last Tail units, and its length)
	// until something that is not white space follows it; at the end it is dropped.
	Strip bool
	// StripBlankLines makes Strip remove at the start only whole blank lines: the white space up to the
	// last "\n" before the first other character (the white space after it stays, as the first line's
	// indentation).
	StripBlankLines bool
	// Unit is the unit of Head and Tail. A value other than Chars is treated as Bytes.
	Unit Unit
	// Head is how many units of the start of the processed text are kept (negative counts as 0, more than
	// MaxKeep bytes' worth as MaxKeep).
	Head int
	// Tail is how many units of the end of the processed text are kept, in a ring (negative counts as 0,
	// more than MaxKeep bytes' worth as MaxKeep).
	Tail int
	// CountLines counts the "\n" of the processed text (Snapshot.Newlines).
	CountLines bool

	// StripANSI removes ANSI escape sequences after decoding, as the strip-ansi package (v7) does: OSC
	// sequences up to their terminator and CSI-like sequences (ESC or U+009B, intermediates, numeric
	// parameters, a final character). The end of a write where a sequence may still be in progress is held
	// until the next write decides it (at most 4 KiB of it; Close ends it).
	StripANSI bool
	// BinarySniff, when positive, looks for a NUL byte among the stream's first BinarySniff bytes, as a host
	// that sniffs for binary output does: the write holding one and every later write are counted in
	// RawBytes but not processed (the text is what came before that write), and Snapshot.Binary is set.
	BinarySniff int
}

// Snapshot is the state of a Capture at one moment.
type Snapshot struct {
	// Head is the first min(total, Head) units of the processed text. With Unit Bytes it may end in the
	// middle of a UTF-8 sequence.
	Head string
	// Tail is the last min(total, Tail) units. With Unit Bytes it may start in the middle of a sequence.
	Tail string
	// Bytes is the total length in bytes of the processed text (UTF-8 after decoding; raw bytes with Raw,
	// after Universal and Strip if set).
	Bytes int64
	// Chars is the total number of code points of the processed text (with Raw: as Go's range over a string
	// counts them).
	Chars int64
	// RawBytes is the number of bytes written before Close.
	RawBytes int64
	// Complete reports that Head holds the whole processed text.
	Complete bool
	// Err is, with Strict, the first decode error; the text after it was not processed.
	Err *DecodeError
	// Unit is the unit of the capture's Head and Tail (Truncate uses it to know where they may be cut).
	Unit Unit
	// Newlines is the number of "\n" in the processed text, with Config.CountLines (else 0).
	Newlines int64
	// Binary reports that Config.BinarySniff found a NUL byte: the text ends before the write that held it.
	Binary bool
}

// Capture is a bounded-memory writer that decodes, normalises and keeps the head and tail of a stream.
// The zero value is New(Config{}) (Strict, nothing kept but the counts).
type Capture struct {
	mu sync.Mutex
	p  pipe
}

// New returns a Capture for cfg.
func New(cfg Config) *Capture {
	c := &Capture{}
	c.p.init(cfg)
	return c
}

// Write processes p. It always returns len(p), nil, never blocks on anything but a short internal lock, and
// copies only what Head and Tail keep. It is safe to call concurrently with Snapshot. Writes after Close are
// ignored.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.p.write(p)
	c.mu.Unlock()
	return len(p), nil
}

// WriteString is Write for a string.
func (c *Capture) WriteString(s string) (int, error) {
	// Small strings only in practice (tests, literal output); the conversion copies.
	return c.Write([]byte(s))
}

// LimitHead lowers the head bound to n units on a live capture (a bound of n or less already: nothing
// changes): the head keeps its first n units (whole characters with Chars), the memory that held more is
// released, and from then on at most n units are kept. The counts, the lines and the tail stay those of the
// whole text, and Snapshot.Complete is then whether the text is within n units. It is safe to call
// concurrently with Write and Snapshot.
func (c *Capture) LimitHead(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := &c.p
	n = clampCap(n, p.cfg.Unit)
	if n >= p.cfg.Head {
		return
	}
	p.cfg.Head = n
	p.out.limitHead(n)
	// Held white space that may be trailing was given the head's room when its run began.
	p.ws.limitHead(min(p.ws.headCap, p.out.headRoom()))
}

// Close marks the end of the stream: an incomplete trailing UTF-8 sequence becomes, by Decode, the error
// "unexpected end of data" (Strict), one U+FFFD (Replace), nothing (Ignore) or its bytes (Raw); held
// trailing white space is dropped (Strip). Close is idempotent.
func (c *Capture) Close() {
	c.mu.Lock()
	c.p.finish()
	c.mu.Unlock()
}

// Snapshot returns the current state; after Close it is final. Before Close, an incomplete trailing UTF-8
// sequence is not yet text (as with an incremental decoder), except with Raw, where its bytes are shown as
// Close would show them; trailing white space held by Strip is not shown.
func (c *Capture) Snapshot() Snapshot {
	c.mu.Lock()
	p := &c.p
	if p.cfg.Decode == Raw && p.npend > 0 && !p.closed {
		p = p.clone()
		p.finish()
	}
	snap, head := p.snapshot()
	c.mu.Unlock()
	// The head is append-only: the bytes below its current length never change, so they are copied
	// without holding the writer up (a head may be a megabyte).
	snap.Head = string(head)
	return snap
}

// pipe is the whole processing state of a Capture (so that Snapshot can clone it).
type pipe struct {
	cfg Config

	// decoder
	pend      [4]byte // an incomplete sequence carried to the next write
	npend     int
	pendStart int64 // raw position of pend[0]
	raw       int64 // raw bytes written
	err       *DecodeError
	dead      bool // Strict error seen: nothing more is processed
	closed    bool

	// universal newlines: the last text was "\r" (already emitted as "\n"); a following "\n" is dropped
	skipLF bool

	// strip
	leading bool // still skipping leading white space
	wsOn    bool // ws holds a run of white space that may be trailing
	ws      sink

	out sink

	// ansiHeld is text held by the ANSI stage while an escape sequence may be in progress (StripANSI).
	ansiHeld []byte
	// binary: BinarySniff found a NUL byte; nothing more is processed.
	binary bool
}

func (p *pipe) init(cfg Config) {
	if cfg.Decode < Strict || cfg.Decode > Raw {
		cfg.Decode = Replace
	}
	if cfg.Unit != Chars {
		cfg.Unit = Bytes
	}
	cfg.Head = clampCap(cfg.Head, cfg.Unit)
	cfg.Tail = clampCap(cfg.Tail, cfg.Unit)
	p.cfg = cfg
	p.leading = cfg.Strip
	p.out.init(cfg.Unit, cfg.Head, cfg.Tail)
	p.ws.init(cfg.Unit, 0, cfg.Tail)
	p.out.countLines, p.ws.countLines = cfg.CountLines, cfg.CountLines
}

// MaxKeep bounds the memory of a Capture, whatever its Config: its head and its tail each hold at most
// MaxKeep bytes. A capacity above it is MaxKeep units with Bytes, MaxKeep/4 with Chars (a character takes up
// to 4 bytes), and so is every count of a Limit (see Rope.Truncate). Output beyond is counted, not kept:
// the capture caps, it does not spill to disk, since a result holding more than this would not fit a model's
// context anyway, and would have to be in memory to be returned.
const MaxKeep = 16 << 20

// maxUnits is the largest capacity or limit in unit u.
func maxUnits(u Unit) int {
	if u == Chars {
		return MaxKeep / 4
	}
	return MaxKeep
}

// clampCap keeps a capacity in unit u within [0, maxUnits(u)].
func clampCap(n int, u Unit) int {
	return min(max(n, 0), maxUnits(u))
}

func (p *pipe) clone() *pipe {
	q := *p
	q.out = p.out.clone()
	q.ws = p.ws.clone()
	q.ansiHeld = bytes.Clone(p.ansiHeld)
	if p.err != nil {
		e := *p.err
		q.err = &e
	}
	return &q
}

func (p *pipe) write(b []byte) {
	if p.closed {
		return
	}
	pos := p.raw
	p.raw += int64(len(b))
	if p.dead || p.binary || len(b) == 0 || p.sniffBinary(b, pos) {
		return
	}
	p.decode(b, pos)
}

func (p *pipe) finish() {
	if p.closed {
		return
	}
	if p.npend > 0 && !p.dead && !p.binary {
		seq := p.pend[:p.npend]
		switch p.cfg.Decode {
		case Strict:
			p.err = &DecodeError{Start: p.pendStart, End: p.raw, Byte: seq[0], Reason: reasonEnd}
			p.dead = true
		case Replace:
			p.emit(replacement, kindUTF8)
		case Raw:
			p.emit(seq, kindInvalid)
		}
	}
	p.npend = 0
	p.flushANSI()
	p.closed = true
	p.wsOn = false
	p.ws.reset(0)
}

// snapshot returns the snapshot without its Head, and the head's bytes (to be copied by the caller).
func (p *pipe) snapshot() (Snapshot, []byte) {
	s := &p.out
	snap := Snapshot{
		Bytes:    s.bytes,
		Chars:    s.chars,
		RawBytes: p.raw,
		Complete: s.total() <= int64(s.headCap),
		Unit:     p.cfg.Unit,
		Newlines: s.newlines,
		Binary:   p.binary,
	}
	if s.tailCap > 0 {
		snap.Tail = string(s.tailBytes())
	}
	if p.err != nil {
		e := *p.err
		snap.Err = &e
	}
	return snap, s.head[:len(s.head):len(s.head)]
}

// kind classifies a segment passed down the pipeline. Every segment holds whole characters.
type kind uint8

const (
	kindASCII   kind = iota // bytes < 0x80 only
	kindUTF8                // valid UTF-8
	kindInvalid             // invalid bytes kept by Raw: each byte is one character
)

var replacement = []byte("\uFFFD")

// emit passes decoded text to the ANSI stage, or straight to the newline stage.
func (p *pipe) emit(seg []byte, k kind) {
	if p.cfg.StripANSI {
		p.stripANSI(seg, k)
		return
	}
	p.newlines(seg, k)
}

// newlines passes text to the strip stage, applying universal newlines.
func (p *pipe) newlines(seg []byte, k kind) {
	if !p.cfg.Universal {
		p.strip(seg, k)
		return
	}
	if k == kindInvalid {
		p.skipLF = false
		p.strip(seg, k)
		return
	}
	if !p.cfg.Strip && p.out.headUnits >= p.out.headCap && p.out.ringSize == 0 {
		// Nothing more is kept: only count what the translation leaves.
		p.countNewlines(seg, k)
		return
	}
	for len(seg) > 0 {
		if p.skipLF {
			p.skipLF = false
			if seg[0] == '\n' {
				seg = seg[1:]
				continue
			}
		}
		i := bytes.IndexByte(seg, '\r')
		if i < 0 {
			p.strip(seg, k)
			return
		}
		if i > 0 {
			p.strip(seg[:i], k)
		}
		p.strip(newline, kindASCII)
		p.skipLF = true
		seg = seg[i+1:]
	}
}

var newline = []byte{'\n'}

var crlf = []byte("\r\n")

var cr = []byte{'\r'}

// countNewlines counts a segment after universal newlines without copying it: each "\r\n" loses its "\r"
// (a lone "\r" becomes "\n", the same length), and a "\n" after a "\r" that ended the last segment is dropped.
func (p *pipe) countNewlines(seg []byte, k kind) {
	if len(seg) == 0 {
		return
	}
	drop := bytes.Count(seg, crlf)
	if p.skipLF && seg[0] == '\n' {
		drop++
	}
	p.skipLF = seg[len(seg)-1] == '\r'
	n := len(seg) - drop
	p.out.bytes += int64(n)
	if p.cfg.CountLines {
		p.out.newlines += int64(bytes.Count(seg, newline)) + int64(bytes.Count(seg, cr)) - int64(drop)
	}
	if k == kindUTF8 {
		p.out.chars += int64(countChars(seg) - drop)
	} else {
		p.out.chars += int64(n)
	}
}

// strip passes text to the output, holding white space that may be trailing.
func (p *pipe) strip(seg []byte, k kind) {
	if !p.cfg.Strip {
		p.out.write(seg, k)
		return
	}
	if p.leading {
		n := spacePrefix(seg, k)
		if p.cfg.StripBlankLines {
			// The white space after the last newline may be the first line's indentation: held as a run
			// that something else must follow; a newline drops it with the blank line it ended.
			ws := seg[:n]
			if i := bytes.LastIndexByte(ws, '\n'); i >= 0 {
				p.wsOn = false
				ws = ws[i+1:]
			}
			if len(ws) > 0 {
				if !p.wsOn {
					p.wsOn = true
					p.ws.reset(p.out.headRoom())
				}
				p.ws.write(ws, k)
			}
		}
		seg = seg[n:]
		if len(seg) == 0 {
			return
		}
		p.leading = false
	}
	j := spaceSuffixStart(seg, k)
	if j > 0 {
		if p.wsOn {
			p.commitSpace()
		}
		p.out.write(seg[:j], k)
	}
	if j < len(seg) {
		if !p.wsOn {
			p.wsOn = true
			p.ws.reset(p.out.headRoom())
		}
		p.ws.write(seg[j:], k)
	}
}

// commitSpace moves the held white-space run into the output: something other than white space follows.
func (p *pipe) commitSpace() {
	w := &p.ws
	p.out.appendHead(w.head, kindUTF8)
	if p.out.ringSize > 0 {
		p.out.appendRing(w.tailBytes())
	}
	p.out.bytes += w.bytes
	p.out.chars += w.chars
	p.out.newlines += w.newlines
	p.wsOn = false
}

// runeCount counts runes as Go's range over a string does.
func runeCount(s string) int64 { return int64(utf8.RuneCountInString(s)) }
