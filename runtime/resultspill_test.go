package runtime_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// resultSpillSpec is a tool whose rendered result (the output between R< and >) may be cut by
// results.spill; the header shows the cut's data.
func resultSpillSpec(t *testing.T, spill string) *spec.Variant {
	t.Helper()
	v, err := spec.Parse("rspill.yaml", []byte(`
id: rspill
title: t
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    timeout: {unit: s, default: 1, expiry: kill}
    output: {capture: combined}
    results:
      format: text
      spill:
        header: '[{{.Total}} -{{.Elided}} {{.SpillPath}}{{if .SpillError}}error{{end}}]'
        marker: '|{{.Elided}}|'
        `+strings.ReplaceAll(spill, "\n", "\n        ")+`
      cases:
        exit: {text: 'R<{{.Output}}>'}
        timeout: {text: 'T<{{.Output}}>'}
`))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestResultSpill: a rendered result over the bound, in its unit, is saved whole and shown as the header,
// its head, the marker and its tail (a UTF-16 cut inside a pair leaves U+FFFD, a byte cut whole
// characters); a result within the bound, or of a case not listed, is as it is and no file is made; a
// file that cannot be written is reported in the header; the file goes with the engine unless kept.
func TestResultSpill(t *testing.T) {
	const emoji = "\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600"
	for _, c := range []struct {
		name, spill, command string
		want                 string // the result, the file's path as FILE
		file                 string // the file's content ("" when none must exist)
		stays                bool   // the file is left after Close
	}{
		{
			name:    "within the bound",
			spill:   "over: {limit: 13}\npath: out.txt\nhead: 3\ntail: 4",
			command: "printf 0123456789",
			want:    "R<0123456789>",
		},
		{
			name:    "over the bound: the rendered text cut",
			spill:   "over: {limit: 12}\npath: out.txt\nhead: 3\ntail: 4",
			command: "printf 0123456789",
			want:    "[13 -6 FILE]R<0|6|789>",
			file:    "R<0123456789>",
		},
		{
			name:    "utf16: pairs count two, a cut pair leaves U+FFFD",
			spill:   "over: {unit: utf16, limit: 10}\npath: out.txt\nhead: 3\ntail: 4",
			command: "printf '" + emoji + "'",
			want:    "[13 -6 FILE]R<\uFFFD|6|\uFFFD\U0001F600>",
			file:    "R<" + emoji + ">",
		},
		{
			name:    "chars: the same text within the bound",
			spill:   "over: {unit: chars, limit: 10}\npath: out.txt\nhead: 3\ntail: 4",
			command: "printf '" + emoji + "'",
			want:    "R<" + emoji + ">",
		},
		{
			name:    "bytes: whole characters",
			spill:   "over: {unit: bytes, limit: 10}\npath: out.txt\nhead: 3\ntail: 4",
			command: "printf '" + emoji + "'",
			want:    "[23 -20 FILE]R<|20|>",
			file:    "R<" + emoji + ">",
		},
		{
			name:    "a case not listed",
			spill:   "over: {limit: 4}\ncases: [timeout]\npath: out.txt\nhead: 1\ntail: 1",
			command: "printf 0123456789",
			want:    "R<0123456789>",
		},
		{
			name:    "a case listed",
			spill:   "over: {limit: 4}\ncases: [timeout]\npath: out.txt\nhead: 1\ntail: 1",
			command: "printf 0123456789; sleep 5",
			want:    "[13 -11 FILE]T|11|>",
			file:    "T<0123456789>",
		},
		{
			name:    "a file that cannot be made",
			spill:   "over: {limit: 4}\npath: notes.txt/out.txt\nhead: 1\ntail: 1",
			command: "printf 0123456789",
			want:    "[13 -11 error]R|11|>",
		},
		{
			// The output is kept to the runtime's bound (8 MiB = 8388608 bytes, its END cut off): the
			// rendered result is R< + those bytes + > (8388611), of which 7 are shown.
			name:    "an output past the runtime's bound is kept to its first 8 MiB",
			spill:   "over: {limit: 10}\npath: out.txt\nhead: 2\ntail: 5",
			command: "head -c 9000000 /dev/zero | tr '\\0' a; printf END",
			want:    "[8388611 -8388604 FILE]R<|8388604|aaaa>",
			file:    "SIZE 8388611",
		},
		{
			name:    "kept after Close",
			spill:   "over: {limit: 4}\nlifetime: keep\npath: out.txt\nhead: 1\ntail: 1",
			command: "printf 0123456789",
			want:    "[13 -11 FILE]R|11|>",
			file:    "R<0123456789>",
			stays:   true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			eng, err := runtime.New(resultSpillSpec(t, c.spill), runtime.WithWorkspace(ws))
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
			if got = strings.ReplaceAll(got, path, "FILE"); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
			b, err := os.ReadFile(path)
			switch {
			case c.file == "" && err == nil:
				t.Errorf("a file was made: %q", b)
			case strings.HasPrefix(c.file, "SIZE "):
				if want := strings.TrimPrefix(c.file, "SIZE "); err != nil || strconv.Itoa(len(b)) != want || !strings.HasSuffix(string(b), "aaaa>") {
					t.Errorf("the file: %d bytes, %v; want %s", len(b), err, want)
				}
			case c.file != "" && (err != nil || string(b) != c.file):
				t.Errorf("the file: %q, %v; want %q", b, err, c.file)
			}
			eng.Close()
			if _, err := os.Stat(path); c.file != "" && (err == nil) != c.stays {
				t.Errorf("after Close: the file stays %v, want %v", err == nil, c.stays)
			}
		})
	}
}

// TestResultSpillChecks: the spec refuses a results.spill that cannot work.
func TestResultSpillChecks(t *testing.T) {
	for _, c := range []struct{ format, spill, want string }{
		{"json", "{over: {limit: 4}, path: x, head: 1, tail: 1}", "spill applies to text results"},
		{"text", "{over: {limit: 4}, path: x, head: 3, tail: 2}", "keep more than the limit"},
		{"text", "{over: {limit: 4}, path: x, head: 0, tail: 0}", "needs a head, a tail, or both"},
		{"text", "{over: {limit: 4}, cases: [timeout], path: x, head: 1, tail: 1}", "no result case timeout"},
		{"text", "{over: {limit: 4}, path: '{{.Nope}}', head: 1, tail: 1}", "no field Nope"},
		{"text", "{over: {limit: 4}, path: x, head: 1, tail: 1, marker: '{{.Nope}}'}", "no field Nope"},
		{"text", "{over: {unit: runes, limit: 4}, path: x, head: 1, tail: 1}", "unit"},
	} {
		cases := "exit: {text: '{{.Output}}'}"
		if c.format == "json" {
			cases = "exit: {fields: [{name: output, type: string, value: '{{.Output}}'}]}"
		}
		_, err := spec.Parse("bad.yaml", []byte(`
id: bad
title: t
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    results:
      format: `+c.format+`
      spill: `+c.spill+`
      cases:
        `+cases+`
`))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.spill, err, c.want)
		}
	}
	// utf16 is results.spill's alone: output.truncate refuses it.
	_, err := spec.Parse("bad.yaml", []byte(`
id: bad
title: t
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    output: {truncate: {unit: utf16, limit: 4, keep: head, marker: ''}}
    results:
      format: text
      cases:
        exit: {text: '{{.Output}}'}
`))
	if err == nil || !strings.Contains(err.Error(), "must be one of 'bytes', 'chars'") {
		t.Errorf("output.truncate in utf16: %v", err)
	}
}
