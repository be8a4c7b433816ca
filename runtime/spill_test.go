package runtime_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// spillSpec is a tool whose output spills: its result text shows whether it did, the size in human
// units, the file and the preview.
func spillSpec(t *testing.T, spill, truncate string) *spec.Variant {
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
    timeout: {unit: s, default: 1, expiry: kill}
    output:
      capture: combined
      `+truncate+`
      spill:
        `+strings.ReplaceAll(spill, "\n", "\n        ")+`
    results:
      format: text
      cases:
        exit:
          text: '{{if .Spilled}}[{{humansize .SpillSize}} {{.SpillSize}} {{.SpillLines}} lines -{{.SpillElided}}{{if .SpillCapped}} capped{{end}} {{.SpillPath}}]{{end}}{{if .SpillError}}[error]{{end}}{{.Output}}'
        timeout:
          text: 'timeout {{if .Spilled}}[{{.SpillSize}}]{{end}}{{.Output}}'
`))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSpill: an output over the bound (in size or in lines) is saved whole to the file the path names,
// and the result shows the preview (head cut back to a line, or the last lines within a size and a
// count, or both ends with the marker); an output within the bound is shown as output.truncate makes it,
// and no file is left; the outcomes not listed do not spill; the file is cut at max_bytes.
func TestSpill(t *testing.T) {
	for _, c := range []struct {
		name, spill, truncate, command string
		want                           string // the result, the file's path as FILE
		file                           string // the file's content ("" when none must exist)
	}{
		{
			name:    "within the bound: as it is, no file",
			spill:   "over: {limit: 20}\npath: out.txt\npreview: {keep: head, head: 5}",
			command: "printf '0123456789\\n'",
			want:    "0123456789\n",
		},
		{
			name:    "one char over: spilled, the head",
			spill:   "over: {limit: 10}\npath: out.txt\npreview: {keep: head, head: 5}",
			command: "printf '0123456789a'",
			want:    "[11 bytes 11 1 lines -6 FILE]01234",
			file:    "0123456789a",
		},
		{
			name:    "the head cut back to its last newline past half",
			spill:   "over: {limit: 10}\npath: out.txt\npreview: {keep: head, head: 8, line_cut: 0.5}",
			command: "printf 'ab\\ncdef\\nghijkl\\n'",
			want:    "[15 bytes 15 4 lines -8 FILE]ab\ncdef",
			file:    "ab\ncdef\nghijkl\n",
		},
		{
			name:    "a newline before half is not a cut",
			spill:   "over: {limit: 10}\npath: out.txt\npreview: {keep: head, head: 8, line_cut: 0.5}",
			command: "printf 'ab\\ncdefghijkl\\n'",
			want:    "[14 bytes 14 3 lines -6 FILE]ab\ncdefg",
			file:    "ab\ncdefghijkl\n",
		},
		{
			name:    "over in lines only",
			spill:   "over: {lines: 3}\npath: out.txt\npreview: {keep: tail, tail: 100, lines: 2}",
			command: "printf 'a\\nb\\nc\\n'",
			want:    "[6 bytes 6 4 lines -4 FILE]c\n",
			file:    "a\nb\nc\n",
		},
		{
			name:    "the tail within units: whole lines",
			spill:   "over: {unit: bytes, limit: 8}\npath: out.txt\npreview: {keep: tail, tail: 6}",
			command: "printf 'one\\ntwo\\nthree\\nfour'",
			want:    "[18 bytes 18 4 lines -14 FILE]four",
			file:    "one\ntwo\nthree\nfour",
		},
		{
			name:    "an exact tail: cut inside a line",
			spill:   "over: {unit: bytes, limit: 8}\npath: out.txt\npreview: {keep: tail, tail: 6, exact_tail: true}",
			command: "printf 'one\\ntwo\\nthree\\nfour'",
			want:    "[18 bytes 18 4 lines -12 FILE]e\nfour",
			file:    "one\ntwo\nthree\nfour",
		},
		{
			name:    "the last line alone too long: its end, whole characters",
			spill:   "over: {unit: bytes, limit: 8}\npath: out.txt\npreview: {keep: tail, tail: 5}",
			command: "printf 'a\\nxxxxx\\303\\251yy'",
			want:    "[11 bytes 11 2 lines -6 FILE]x\u00e9yy",
			file:    "a\nxxxxx\u00e9yy",
		},
		{
			name:    "head and tail with the marker",
			spill:   "over: {limit: 10}\npath: out.txt\npreview: {keep: head_tail, head: 3, tail: 4, marker: '<{{.Elided}} of {{.Total}}>'}",
			command: "printf 'abcdefghijklmno'",
			want:    "[15 bytes 15 1 lines -8 FILE]abc<8 of 15>lmno",
			file:    "abcdefghijklmno",
		},
		{
			name:    "chars: the size and the cut count characters",
			spill:   "over: {limit: 4}\npath: out.txt\npreview: {keep: head, head: 2}",
			command: "printf '\\303\\251\\303\\251\\303\\251\\303\\251\\303\\251'",
			want:    "[5 bytes 5 1 lines -3 FILE]\u00e9\u00e9",
			file:    "\u00e9\u00e9\u00e9\u00e9\u00e9",
		},
		{
			name:    "the bound in bytes, the preview in chars",
			spill:   "over: {unit: bytes, limit: 5}\npath: out.txt\npreview: {keep: head, head: 2, unit: chars}",
			command: "printf '\\303\\251\\303\\251\\303\\251'",
			want:    "[6 bytes 6 1 lines -1 FILE]\u00e9\u00e9",
			file:    "\u00e9\u00e9\u00e9",
		},
		{
			name:    "within the bound in bytes, however many chars",
			spill:   "over: {unit: bytes, limit: 6}\npath: out.txt\npreview: {keep: head, head: 2, unit: chars}",
			command: "printf '\\303\\251\\303\\251\\303\\251'",
			want:    "\u00e9\u00e9\u00e9",
		},
		{
			name:     "not spilled: output.truncate applies",
			spill:    "over: {limit: 100}\npath: out.txt\npreview: {keep: head, head: 5}",
			truncate: "truncate: {unit: chars, limit: 4, keep: head, marker: '+'}",
			command:  "printf 0123456789",
			want:     "0123+",
		},
		{
			name:    "a failure not among the outcomes does not spill",
			spill:   "over: {limit: 4}\noutcomes: [success]\npath: out.txt\npreview: {keep: head, head: 2}",
			command: "printf 0123456789; exit 1",
			want:    "0123456789",
		},
		{
			name:    "the file cut at max_bytes",
			spill:   "over: {limit: 4}\nmax_bytes: 6\npath: out.txt\npreview: {keep: head, head: 2}",
			command: "printf 0123456789",
			want:    "[10 bytes 10 1 lines -8 capped FILE]01",
			file:    "012345",
		},
		{
			name:    "the timeout outcome spills",
			spill:   "over: {limit: 4}\npath: out.txt\npreview: {keep: head, head: 2}",
			command: "printf 0123456789; sleep 5",
			want:    "timeout [10]01",
			file:    "0123456789",
		},
		{
			name:    "a file that cannot be made: the output as it is, and the error",
			spill:   "over: {limit: 4}\npath: notes.txt/out.txt\npreview: {keep: head, head: 2}",
			command: "printf 0123456789",
			want:    "[error]0123456789",
		},
		{
			name:    "more than memory holds: the file gets it all",
			spill:   "over: {unit: bytes, limit: 10}\npath: out.txt\npreview: {keep: tail, tail: 7}",
			command: "seq 1 100000",
			want:    "[575.1KB 588895 100001 lines -588888 FILE]100000\n",
			file:    "SEQ",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			eng, err := runtime.New(spillSpec(t, c.spill, c.truncate), runtime.WithWorkspace(ws))
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			raw, _ := json.Marshal(map[string]string{"command": c.command})
			res, err := eng.Call(bounded(t), "bash", raw)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if err := json.Unmarshal(res, &got); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(ws, "out.txt")
			got = strings.ReplaceAll(got, path, "FILE")
			if got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
			b, err := os.ReadFile(path)
			switch {
			case c.file == "" && err == nil:
				t.Errorf("a file was left: %q", b)
			case c.file == "SEQ":
				if err != nil || !strings.HasPrefix(string(b), "1\n2\n") || !strings.HasSuffix(string(b), "\n100000\n") || len(b) != 588895 {
					t.Errorf("the file: %d bytes, %v", len(b), err)
				}
			case c.file != "" && (err != nil || string(b) != c.file):
				t.Errorf("the file: %q, %v; want %q", b, err, c.file)
			}
		})
	}
}

// TestSpillLifetime: a file whose lifetime is the engine's goes when the engine closes, with the engine's
// temporary directory; one kept stays. .TempDir, .EngineID, .CallID and .CallSeq make the path.
func TestSpillLifetime(t *testing.T) {
	for _, c := range []struct {
		lifetime, path string
		stays          bool
	}{
		{"engine", "{{.TempDir}}/{{.EngineID}}/{{.CallID}}.txt", false},
		{"engine", "kept/{{.CallSeq}}.txt", false},
		{"keep", "kept/{{.CallSeq}}.txt", true},
	} {
		t.Run(c.lifetime+" "+c.path, func(t *testing.T) {
			ws := t.TempDir()
			eng, err := runtime.New(spillSpec(t, "over: {limit: 2}\nlifetime: "+c.lifetime+"\npath: '"+c.path+"'\npreview: {keep: head, head: 1}", ""), runtime.WithWorkspace(ws))
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for range 2 {
				res, err := eng.Call(bounded(t), "bash", json.RawMessage(`{"command":"echo 12345"}`))
				if err != nil {
					eng.Close()
					t.Fatal(err)
				}
				var text string
				_ = json.Unmarshal(res, &text)
				m := regexp.MustCompile(`\d+ lines -\d+ (\S+)\]`).FindStringSubmatch(text)
				if m == nil {
					eng.Close()
					t.Fatalf("not spilled: %q", text)
				}
				files = append(files, m[1])
			}
			if files[0] == files[1] {
				t.Errorf("two calls, one file: %s", files[0])
			}
			if strings.Contains(c.path, "CallSeq") && files[1] != filepath.Join(ws, "kept/2.txt") {
				t.Errorf("the second call's file is %s", files[1])
			}
			for _, f := range files {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("%s before Close: %v", f, err)
				}
			}
			eng.Close()
			for _, f := range files {
				_, err := os.Stat(f)
				if stays := err == nil; stays != c.stays {
					t.Errorf("%s after Close: stays %v, want %v", f, stays, c.stays)
				}
			}
			if strings.Contains(c.path, "TempDir") {
				if _, err := os.Stat(filepath.Dir(filepath.Dir(files[0]))); err == nil {
					t.Errorf("the engine's temporary directory stays")
				}
			}
		})
	}
}

// TestSpillChecks: the spec refuses a spill that cannot work.
func TestSpillChecks(t *testing.T) {
	for _, c := range []struct{ output, want string }{
		{"spill: {over: {limit: 4}, path: x, preview: {keep: head, head: 2}}", "spill needs capture: combined"},
		{"capture: combined\n      spill: {over: {}, path: x, preview: {keep: head, head: 2}}", "the bound needs a limit, lines, or both"},
		{"capture: combined\n      spill: {over: {limit: 4}, path: x, preview: {keep: tail}}", "keep tail needs tail"},
		{"capture: combined\n      truncate: {unit: bytes, limit: 4, keep: head, marker: ''}\n      spill: {over: {limit: 4}, path: x, preview: {keep: head, head: 2}}", "the preview is in chars and output.truncate in bytes"},
		{"capture: combined\n      spill: {over: {limit: 4}, path: '{{.Nope}}', preview: {keep: head, head: 2}}", "no field Nope"},
		{"capture: combined\n      spill: {over: {limit: 4}, outcomes: [timeout], path: x, preview: {keep: head, head: 2}}", "no result case for timeout"},
		{"capture: combined\n      spill: {over: {limit: 4}, path: x, preview: {keep: tail, tail: 2, lines: 1, exact_tail: true}}", "exact_tail applies to a tail without lines"},
	} {
		_, err := spec.Parse("bad.yaml", []byte(`
id: bad
title: t
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    output:
      `+c.output+`
    results:
      format: text
      cases:
        exit: {text: '{{.Output}}'}
`))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.output, err, c.want)
		}
	}
}
