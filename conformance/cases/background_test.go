package cases

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate"
)

// bgSpec starts commands in the background with a wait, and has a list tool and a poll tool that reads the
// log with a delay that ends at the first output.
const bgSpec = `
id: bg
title: bg
source: {seed: none, repo: example/agent, path: tools.ts, language: typescript}
shell: {argv: [/bin/sh, -c]}
background:
  ids: pid
  stream_limit: 4096
  log: {limit: 4096}
tools:
  - name: run
    description: run
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: bg, type: boolean, role: background}
      - {name: wait_ms, type: integer, role: yield}
    wait: {unit: ms, default: 200}
    results:
      format: text
      cases:
        exit: {text: "{{.Output}}"}
        background: {text: "started as {{.Pid}}"}
  - name: ps
    description: list
    kind: list
    params: []
    results: {format: text, cases: {ok: {text: "{{range .Shells}}{{.Pid}} {{.Running}}{{end}}"}}}
  - name: tail
    description: tail
    kind: poll
    params:
      - {name: pid, type: integer, required: true, role: shell_id}
      - {name: n, type: integer, role: lines}
      - {name: delay, type: integer, role: yield}
    wait: {unit: ms, default: 0}
    read: {lines: 5}
    results: {format: text, cases: {ok: {text: "{{.LogTail}}"}}}
  - name: watch
    description: watch
    kind: poll
    params:
      - {name: pid, type: integer, required: true, role: shell_id}
      - {name: delay, type: integer, role: yield}
    wait: {unit: ms, default: 0}
    read: {until: output}
    results: {format: text, cases: {ok: {text: "{{if .Running}}running {{end}}{{.LogTail}}"}}}
`

func TestBackgroundToolCases(t *testing.T) {
	v, err := spec.Parse("bg.yaml", []byte(bgSpec))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Case{}
	for _, c := range Cases(v) {
		byName[c.Name] = c
	}
	cases := []struct {
		name, first string
		steps       []string // each step's tool and parameters
	}{
		{"run/background: list", `{"command":"echo one; sleep 2; echo two; exit 3","bg":true,"wait_ms":1000}`,
			[]string{`tail {"pid":"<SESSION:0>","delay":4000}`, `ps {}`}},
		{"run/background: tail after the exit", `{"command":"echo one; sleep 2; echo two; exit 3","bg":true,"wait_ms":1000}`,
			[]string{`tail {"pid":"<SESSION:0>","delay":4000}`, `tail {"pid":"<SESSION:0>","n":1}`}},
		{"run/background: watch answers at the first output", `{"command":"sleep 1; echo late; sleep 2","bg":true,"wait_ms":0}`,
			[]string{`watch {"pid":"<SESSION:0>","delay":10000}`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := byName[tc.name]
			if !ok {
				t.Fatalf("no case %q", tc.name)
			}
			if c.Group != "background" || string(c.Params) != tc.first {
				t.Errorf("group %q, params %s", c.Group, c.Params)
			}
			var got []string
			for _, s := range c.Steps {
				got = append(got, s.Tool+" "+string(s.Params))
			}
			if strings.Join(got, "\n") != strings.Join(tc.steps, "\n") {
				t.Errorf("steps\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.steps, "\n"))
			}
		})
	}
}
