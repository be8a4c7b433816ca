package textcap

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

type runtimeMem struct{ total, heap uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.total, m.heap = ms.TotalAlloc, ms.HeapAlloc
}

// chunk64K is 64 KiB of mixed output: ASCII lines, multi-byte characters, CRLF, an invalid byte.
func chunk64K(ascii bool) []byte {
	line := "2024-01-01T00:00:00Z INFO building package github.com/agentbash/agentbash/runtime ok\r\n"
	if !ascii {
		line = "Größe: 12 € — 日本語のテキスト 😀 \xff done\r\n"
	}
	b := bytes.Repeat([]byte(line), 64<<10/len(line)+1)
	return b[:64<<10]
}

// allocatedWhileWriting returns the bytes allocated by writing n bytes (64 KiB chunks) to a new Capture.
func allocatedWhileWriting(cfg Config, chunk []byte, n int) uint64 {
	runtime.GC()
	var before, after runtimeMem
	before.read()
	c := New(cfg)
	for w := 0; w < n; w += len(chunk) {
		c.Write(chunk)
	}
	c.Close()
	_ = c.Snapshot()
	after.read()
	return after.total - before.total
}

// TestMemoryBounded: memory does not grow with the input (1 MiB vs 64 MiB; 8 MiB under -race), for each decoding mode and the
// variant configurations.
func TestMemoryBounded(t *testing.T) {
	cfgs := map[string]Config{
		"rye":            {Decode: Strict, Universal: true, Head: 51200},
		"agentrail":      {Decode: Replace, Head: 1 << 20},
		"toolregistry":   {Decode: Strict, Universal: true, Head: 65536},
		"tunacode":       {Decode: Replace, Strip: true, Unit: Chars, Head: 5000, Tail: 5000},
		"codegensandbox": {Decode: Raw, Head: 102400},
		"ignore tail":    {Decode: Ignore, Universal: true, Strip: true, Head: 4096, Tail: 4096},
	}
	largeInput := 64 << 20
	if raceEnabled {
		largeInput = 8 << 20
	}
	for name, cfg := range cfgs {
		for _, ascii := range []bool{true, false} {
			if name == "rye" || name == "toolregistry" {
				ascii = true // strict stops at the first invalid byte
			}
			chunk := chunk64K(ascii)
			small := allocatedWhileWriting(cfg, chunk, 1<<20)
			large := allocatedWhileWriting(cfg, chunk, largeInput)
			// The head buffer, the ring and the snapshot's copies; nothing per chunk.
			limit := uint64(3*(cfg.Head+4*cfg.Tail)) + 64<<10
			if large > limit || large > small+16<<10 {
				t.Errorf("%s ascii=%v: allocated %d bytes for 1 MiB, %d for %d MiB (limit %d)", name, ascii, small, large, largeInput>>20, limit)
			}
		}
	}
}

// TestWriteAllocs: once the head is full, Write allocates nothing.
func TestWriteAllocs(t *testing.T) {
	for _, cfg := range []Config{
		{Decode: Replace, Head: 51200},
		{Decode: Strict, Universal: true, Head: 51200},
		{Decode: Raw, Head: 102400, Tail: 4096},
		{Decode: Replace, Strip: true, Unit: Chars, Head: 5000, Tail: 5000},
	} {
		c := New(cfg)
		chunk := chunk64K(cfg.Decode != Strict)
		for i := 0; i < 4; i++ {
			c.Write(chunk)
		}
		if a := testing.AllocsPerRun(100, func() { c.Write(chunk) }); a != 0 {
			t.Errorf("%+v: %v allocations per Write", cfg, a)
		}
	}
}

// BenchmarkCapture256MiB writes a 256 MiB stream in 64 KiB chunks per operation: MB/s is the throughput
// and allocs/op, B/op are per 256 MiB stream.
func BenchmarkCapture256MiB(b *testing.B) {
	for _, bc := range []struct {
		name  string
		cfg   Config
		ascii bool
	}{
		{"ascii/raw/head51200", Config{Decode: Raw, Head: 51200}, true},
		{"ascii/replace/head51200", Config{Decode: Replace, Head: 51200}, true},
		{"ascii/strict-universal/rye", Config{Decode: Strict, Universal: true, Head: 51200}, true},
		{"ascii/raw/codegensandbox", Config{Decode: Raw, Head: 102400}, true},
		{"ascii/replace-strip-chars/tunacode", Config{Decode: Replace, Strip: true, Unit: Chars, Head: 5000, Tail: 5000}, true},
		{"mixed/replace/head51200", Config{Decode: Replace, Head: 51200}, false},
		{"mixed/replace-universal-tail", Config{Decode: Replace, Universal: true, Head: 51200, Tail: 51200}, false},
		{"mixed/replace-strip-chars/tunacode", Config{Decode: Replace, Strip: true, Unit: Chars, Head: 5000, Tail: 5000}, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			chunk := chunk64K(bc.ascii)
			const total = 256 << 20
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				c := New(bc.cfg)
				for w := 0; w < total; w += len(chunk) {
					c.Write(chunk)
				}
				c.Close()
				_ = c.Snapshot()
			}
		})
	}
}

// BenchmarkWrite64KiB measures one 64 KiB Write on a capture whose head is already full.
func BenchmarkWrite64KiB(b *testing.B) {
	for _, bc := range []struct {
		name  string
		cfg   Config
		ascii bool
	}{
		{"ascii/raw", Config{Decode: Raw, Head: 51200}, true},
		{"ascii/replace", Config{Decode: Replace, Head: 51200}, true},
		{"mixed/replace", Config{Decode: Replace, Head: 51200}, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			chunk := chunk64K(bc.ascii)
			c := New(bc.cfg)
			c.Write(chunk)
			b.SetBytes(int64(len(chunk)))
			b.ReportAllocs()
			for b.Loop() {
				c.Write(chunk)
			}
		})
	}
}

func BenchmarkSnapshot(b *testing.B) {
	c := New(Config{Decode: Replace, Unit: Chars, Head: 5000, Tail: 5000})
	c.Write([]byte(strings.Repeat("日本語 text ", 10000)))
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Snapshot()
	}
}

// TestMaxKeepBoundsMemory: a capacity without bound (a spec's limit of 1e18) keeps MaxKeep bytes of the
// head and of the tail, whatever passes through (here twice MaxKeep and more; 1 GiB in the benchmark
// below), and a truncation to such a limit cuts the text at MaxKeep with the marker's counts those of the
// whole text.
func TestMaxKeepBoundsMemory(t *testing.T) {
	const huge = 1_000_000_000_000_000_000
	cfgs := []Config{
		{Decode: Raw, Head: huge},
		{Decode: Raw, Head: huge, Tail: huge},
		{Decode: Replace, Unit: Chars, Head: huge, Tail: huge},
	}
	if raceEnabled {
		cfgs = cfgs[:2] // decoding is instrumented byte by byte: 40 times slower
	}
	for _, cfg := range cfgs {
		chunk := chunk64K(true)
		n := 2*MaxKeep + 3*len(chunk)
		runtime.GC()
		var before, after runtimeMem
		before.read()
		c := New(cfg)
		for w := 0; w < n; w += len(chunk) {
			c.Write(chunk)
		}
		c.Close()
		s := c.Snapshot()
		after.read()
		// The head and the ring, each grown geometrically to at most MaxKeep (twice that allocated), and
		// the snapshot's copies (a wrapped ring is copied twice): nothing per chunk.
		allocated := after.total - before.total
		if limit := uint64(8*MaxKeep) + 1<<20; allocated > limit {
			t.Errorf("%+v: allocated %d MiB for %d MiB of output (limit %d MiB)", cfg, allocated>>20, n>>20, limit>>20)
		}
		units, total := maxUnits(cfg.Unit), s.Bytes
		if cfg.Unit == Chars {
			total = s.Chars
		}
		if s.Complete || s.RawBytes != int64(n) || total != int64(n) {
			t.Errorf("%+v: Complete %v, %d bytes %d chars of %d", cfg, s.Complete, s.Bytes, s.Chars, n)
		}
		if len(s.Head) != units || (cfg.Tail > 0 && len(s.Tail) != units) {
			t.Errorf("%+v: kept %d bytes of head, %d of tail; want %d each", cfg, len(s.Head), len(s.Tail), units)
		}
		var counts [3]int64
		l := Limit{Unit: cfg.Unit, Limit: huge, Keep: Head, CutDecode: Raw, Marker: func(total, kept, elided int64) string {
			counts = [3]int64{total, kept, elided}
			return "[cut]"
		}}
		text, truncated, err := s.Truncate(l)
		if err != nil || !truncated || len(text) != units+len("[cut]") || counts != [3]int64{total, int64(units), total - int64(units)} {
			t.Errorf("%+v: Truncate to %d: %d bytes, truncated %v, %v, counts %v", cfg, l.Limit, len(text), truncated, err, counts)
		}
	}
}

// BenchmarkGiBUnboundedLimit writes 1 GiB into a capture whose capacity has no bound: B/op stays about
// twice MaxKeep (the head, and the snapshot's copy of it).
func BenchmarkGiBUnboundedLimit(b *testing.B) {
	chunk := chunk64K(true)
	const total = 1 << 30
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		c := New(Config{Decode: Replace, Head: 1 << 60})
		for w := 0; w < total; w += len(chunk) {
			c.Write(chunk)
		}
		c.Close()
		if s := c.Snapshot(); len(s.Head) != MaxKeep {
			b.Fatalf("kept %d", len(s.Head))
		}
	}
}
