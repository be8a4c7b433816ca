package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// spillTool is a variant whose one tool spills its combined output as spill says (timeout and outcomes
// added by extra).
func spillTool(t *testing.T, spill, extra string) *spec.Variant {
	t.Helper()
	v, err := spec.Parse("spill.yaml", []byte(`
id: spill
title: t
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    `+extra+`
    output:
      capture: combined
      spill:
        `+strings.ReplaceAll(spill, "\n", "\n        ")+`
    results:
      format: text
      cases:
        exit:
          text: '{{.Output}}'
        timeout:
          text: '{{.Output}}'
`))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSpillHeadHeld: once a spilling output's file has started, the capture holds no more of its head than
// the bound and the preview need, and the preview is the one the whole text gives; an output that may
// still be answered whole (a bound in lines only, an outcome that does not spill, a file that cannot be
// started) keeps its head up to the safety bound; an output whose raw size passed the bound but whose text
// is within it is answered whole.
func TestSpillHeadHeld(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name, spill, extra, command string
		spilled                     bool
		maxHead                     int // bytes of the capture's head at the end
		whole                       bool
		universal                   bool // output.newlines: universal
	}{
		{
			name:    "tail in bytes and lines",
			spill:   "over: {unit: bytes, limit: 51200, lines: 2000}\npath: out.txt\npreview: {keep: tail, tail: 51200, lines: 2000}",
			command: "yes abcdefghi | head -c 1048576",
			spilled: true, maxHead: 51201,
		},
		{
			name:    "tail on one long line",
			spill:   "over: {unit: bytes, limit: 51200, lines: 2000}\npath: out.txt\npreview: {keep: tail, tail: 51200, lines: 2000}",
			command: "yes abcdefghi | head -c 1048576 | tr -d '\\n'",
			spilled: true, maxHead: 51201,
		},
		{
			name:    "head in chars, multi-byte",
			spill:   "over: {unit: bytes, limit: 30000}\npath: out.txt\npreview: {keep: head, unit: chars, head: 2000, line_cut: 0.5}",
			command: "yes 'é€😀 abc' | head -n 75000",
			spilled: true, maxHead: 4 * 30001,
		},
		{
			name:    "head and tail in chars",
			spill:   "over: {limit: 29900}\npath: out.txt\npreview: {keep: head_tail, head: 792, line_cut: 0.01, tail: 3169, marker: '<{{.Elided}}>'}",
			command: "yes 'é€😀 abc' | head -n 75000",
			spilled: true, maxHead: 4 * 29901,
		},
		{
			name:    "bound in chars, preview in bytes",
			spill:   "over: {unit: chars, limit: 40000}\npath: out.txt\npreview: {keep: head, unit: bytes, head: 100}",
			command: "yes 'é€😀 abc' | head -n 75000",
			spilled: true, maxHead: 4 * 40001,
		},
		{
			name:    "within the bound once newlines are read: whole",
			spill:   "over: {unit: bytes, limit: 60000}\npath: out.txt\npreview: {keep: head, head: 10}",
			extra:   "timeout: {unit: s, default: 20, expiry: kill}",
			command: "yes '' | head -n 50000 | sed 's/$/\\r/'",
			maxHead: 50000, whole: true, universal: true,
		},
		{
			name:    "a bound in lines only: held up to the safety bound",
			spill:   "over: {lines: 100}\npath: out.txt\npreview: {keep: head, head: 10}",
			command: "yes abcdefghi | head -c 1048576",
			spilled: true, maxHead: mib,
		},
		{
			name:    "an outcome that does not spill: held up to the safety bound",
			spill:   "over: {limit: 100}\noutcomes: [success]\npath: out.txt\npreview: {keep: head, head: 10}",
			command: "yes abcdefghi | head -c 1048576; exit 3",
			maxHead: mib, whole: true,
		},
		{
			name:    "the file cannot be started: the whole output",
			spill:   "over: {limit: 100}\npath: afile/out.txt\npreview: {keep: head, head: 10}",
			command: "yes abcdefghi | head -c 1048576",
			maxHead: mib, whole: true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := spillTool(t, c.spill, c.extra)
			if c.universal {
				v.Tools[0].Output.Newlines = spec.NewlinesUniversal
			}
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "afile"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			e, err := New(v, WithWorkspace(ws))
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			params, _ := json.Marshal(map[string]string{"command": c.command})
			_, call, err := e.call(ctx, "bash", params)
			if err != nil {
				t.Fatal(err)
			}
			sn := call.snaps.output
			if call.data.Spilled != c.spilled || len(sn.Head) > c.maxHead || len(sn.Head) < min(c.maxHead, 1000) {
				t.Fatalf("spilled %v (%s), head %d bytes of %d; want spilled %v, head at most %d", call.data.Spilled,
					call.data.SpillError, len(sn.Head), sn.Bytes, c.spilled, c.maxHead)
			}
			file, ferr := os.ReadFile(filepath.Join(ws, "out.txt"))
			if c.whole {
				if call.data.Output != sn.Head || int64(len(sn.Head)) != sn.Bytes || (ferr == nil) != c.spilled {
					t.Errorf("not whole: %d bytes of %d (file: %v)", len(call.data.Output), sn.Bytes, ferr)
				}
				return
			}
			if ferr != nil || int64(len(file)) != sn.RawBytes {
				t.Fatalf("the file: %d bytes, %v", len(file), ferr)
			}
			// The preview the whole text gives (the file holds it: no option changes the text here).
			sp := &v.Tools[0].Output.Spill.Preview
			whole := textcap.Snapshot{Head: string(file), Complete: true, Bytes: int64(len(file)), Chars: int64(utf8.RuneCount(file))}
			total := whole.Bytes
			if sp.Unit == spec.Chars {
				total = whole.Chars
			}
			want, _, err := call.preview(sp, whole, total)
			if err != nil || call.data.Output != want || want == "" {
				t.Errorf("preview %d bytes %q...\nwant %d bytes %q... (%v)", len(call.data.Output),
					call.data.Output[:min(len(call.data.Output), 60)], len(want), want[:min(len(want), 60)], err)
			}
		})
	}
}

// TestSpillWriteFailsMidway: a file that started and then could not be written on (a full disk, here
// /dev/full in its place) is kept with what went in before the failure; the output still spills, its file
// capped, and .SpillError says why; a file that cannot be started leaves nothing and the output whole.
func TestSpillWriteFailsMidway(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	v := spillTool(t, "over: {unit: bytes, limit: 100}\npath: out.txt\nlifetime: keep\npreview: {keep: head, head: 5}", "")
	tl := compileTool(v, &v.Tools[0])
	chunk := []byte(strings.Repeat("0123456789", 10<<10)) // 100 KiB: past what memory holds
	for _, c := range []struct {
		name    string
		fail    bool // the file is replaced by /dev/full once it started
		spilled bool
		file    int // bytes in the file; -1: none
	}{
		{"written whole", false, true, 2 * len(chunk)},
		{"full midway", true, true, len(chunk)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.txt")
			sf := &spillFile{e: &Engine{}, path: path, max: 1 << 30, memory: spillMemory, lifetime: spec.SpillKeep}
			capture := textcap.New(textcap.Config{Decode: textcap.Replace, Head: safetyCap, CountLines: true})
			started := 0
			sf.started = func() { started++; capture.LimitHead(200) }
			for i := range 2 {
				_, _ = capture.Write(chunk)
				_, _ = sf.Write(chunk)
				if i == 0 && c.fail {
					full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
					if err != nil {
						t.Skip(err)
					}
					_ = sf.f.Close()
					sf.f = full
				}
			}
			capture.Close()
			sn := capture.Snapshot()
			call := &call{t: tl, spill: sf}
			call.snaps.output = &sn
			if err := call.applySpill(spec.OutcomeSuccess); err != nil {
				t.Fatal(err)
			}
			d := call.data
			b, err := os.ReadFile(path)
			if started != 1 || d.Spilled != c.spilled || d.SpillCapped != c.fail || (d.SpillError != "") != c.fail ||
				d.SpillPath != path || d.Output != "01234" || err != nil || len(b) != c.file || len(sn.Head) != 200 {
				t.Errorf("started %d, spilled %v capped %v error %q path %q output %q; file %d bytes (%v), head %d",
					started, d.Spilled, d.SpillCapped, d.SpillError, d.SpillPath, d.Output, len(b), err, len(sn.Head))
			}
		})
	}
	// Not started (its directory is a file): nothing is left, the error is returned, and the output stays.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sf := &spillFile{e: &Engine{}, path: filepath.Join(dir, "f", "out.txt"), max: 1 << 30, memory: 10, lifetime: spec.SpillKeep}
	sf.started = func() { t.Error("started called for a file that did not start") }
	_, _ = sf.Write(chunk)
	if path, capped, err := sf.finish(true); path != "" || capped || err == nil {
		t.Errorf("not started: %q %v %v", path, capped, err)
	}
}
