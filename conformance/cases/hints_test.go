package cases_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/conformance/cases"
	"github.com/agentbash/agentbash/spec"
)

// hintsSpec has an exec tool with a parameter the suite must not vary (shell) and one with an enum
// (stream), and session tools whose empty write is not a poll.
const hintsSpec = `id: hints
title: Hints
shell: {argv: [/bin/sh, -c]}
sessions: {}
conformance:
  fixed: [shell]
  poll: read
tools:
  - name: run
    description: Run.
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: shell, type: string}
      - {name: stream, type: string, enum: [stdout, stderr]}
      - {name: note, type: string}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}"}
  - name: start
    description: Start.
    kind: session_start
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: shell, type: string, required: true, default: /bin/sh}
    session:
      yield: {default: 1000}
      stdin: open
    results: &window
      format: text
      cases:
        running: {text: "{{.SessionID}} {{.Output}}"}
        exit: {text: "{{.ExitCode}} {{.Output}}"}
  - name: write
    description: Write.
    kind: session_write
    params:
      - {name: id, type: integer, required: true, role: session_id}
      - {name: text, type: string, role: stdin}
    session:
      yield: {default: 1000}
    results: *window
  - name: read
    description: Read.
    kind: session_read
    params:
      - {name: id, type: integer, required: true, role: session_id}
    session:
      yield: {default: 1000}
    results: *window
`

func TestConformanceHints(t *testing.T) {
	for _, tc := range []struct {
		name       string
		old, new   string
		emptyWrite bool // the session cases poll with an empty write (else with a read)
		shellSet   bool // some case sends shell with a value of its own
	}{
		{"fixed shell, read polls", "", "", false, false},
		{"no conformance block", "conformance:\n  fixed: [shell]\n  poll: read\n", "", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := spec.Parse("hints.yaml", []byte(strings.Replace(hintsSpec, tc.old, tc.new, 1)))
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]cases.Case{}
			shellSet, emptyWrite, reads := false, false, 0
			for _, c := range cases.Cases(v) {
				byName[c.Name] = c
				calls := append([]cases.Step{{Tool: c.Tool, Params: c.Params}}, c.Steps...)
				for _, s := range calls {
					var p map[string]any
					if err := json.Unmarshal(s.Params, &p); err != nil {
						t.Fatal(err)
					}
					if sh, ok := p["shell"]; ok && sh != "/bin/sh" {
						shellSet = true
					}
					if !strings.Contains(string(s.Params), cases.SessionToken(0)) {
						continue // not a call on a session a case started (an unknown id, say)
					}
					emptyWrite = emptyWrite || s.Tool == "write" && (p["text"] == "" || p["text"] == nil)
					if s.Tool == "read" {
						reads++
					}
				}
			}
			if shellSet != tc.shellSet {
				t.Errorf("a case sends shell: %v, want %v", shellSet, tc.shellSet)
			}
			if emptyWrite != tc.emptyWrite || (!tc.emptyWrite && reads == 0) {
				t.Errorf("the session cases poll with an empty write: %v (reads of a session: %d), want %v", emptyWrite, reads, tc.emptyWrite)
			}
			for name, want := range map[string]string{
				"run/stream stdout":           `"stream":"stdout"`,
				"run/stream stderr":           `"stream":"stderr"`,
				"run/stream outside its enum": `"stream":"conformance-unlisted"`,
				"run/recorded parameters":     `"note":"conformance check"`,
			} {
				c, ok := byName[name]
				if !ok {
					t.Errorf("no case %s", name)
					continue
				}
				if !strings.Contains(string(c.Params), want) {
					t.Errorf("%s sends %s, want %s in it", name, c.Params, want)
				}
			}
			if rec := string(byName["run/recorded parameters"].Params); strings.Contains(rec, `"stream":"conformance check"`) {
				t.Errorf("an enum parameter is sent a value outside its enum: %s", rec)
			}
			if !strings.Contains(strings.Join(cases.Features(v), "\n"), "tool run enum stream") {
				t.Errorf("the features lack the enum: %q", cases.Features(v))
			}
		})
	}
}
