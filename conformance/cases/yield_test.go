package cases_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/conformance/cases"
	"github.com/agentbash/agentbash/spec"
)

// yieldSpec has a session tool whose yield window is a required parameter (issue 30, fault 5: the basic
// cases sent it as 1 ms, so a command that needs a moment was cut before its output).
const yieldSpec = `id: yield
title: Yield
shell: {argv: [/bin/sh, -c]}
sessions: {}
tools:
  - name: start
    description: Start.
    kind: session_start
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: wait, type: integer, required: true, role: yield}
    session:
      yield: YIELD
      stdin: open
    results:
      format: text
      cases:
        running: {text: "{{.SessionID}} {{.Output}}"}
        exit: {text: "{{.ExitCode}} {{.Output}}"}
`

// TestRequiredYieldLetsTheCommandFinish: a basic case that does not set the yield window sends its default
// when that is long enough for the command to finish, else four seconds, within the window's range.
func TestRequiredYieldLetsTheCommandFinish(t *testing.T) {
	for _, tc := range []struct {
		name  string
		yield string
		want  float64
	}{
		{"short default in ms", "{default: 1000}", 4000},
		{"long default in ms", "{default: 10000}", 10000},
		{"default under a max below four seconds", "{default: 500, max: 2000}", 2000},
		{"seconds", "{unit: s, default: 1}", 4},
		{"no default, min above four seconds", "{default: 0, min: 5000}", 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := spec.Parse("yield.yaml", []byte(strings.Replace(yieldSpec, "YIELD", tc.yield, 1)))
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, c := range cases.Cases(v) {
				if c.Group != "basics" || c.Tool != "start" {
					continue
				}
				var p map[string]any
				if err := json.Unmarshal(c.Params, &p); err != nil {
					t.Fatal(err)
				}
				if got, ok := p["wait"].(float64); !ok || got != tc.want {
					t.Errorf("%s sends wait %v, want %v", c.Name, p["wait"], tc.want)
				}
				seen++
			}
			if seen == 0 {
				t.Fatal("no basic case of start")
			}
		})
	}
}
