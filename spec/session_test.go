package spec_test

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// sessionSpec is a valid spec with every session tool; the cases below break one thing each.
const sessionSpec = `id: sessions_check
title: Session checks
shell: {argv: [/bin/sh, -c]}
sessions:
  ids: random
  first_id: 1000
  last_id: 99999
  max_live: 8
  on_full: prune
  protect_recent: 2
  prune_exited_first: true
tools:
  - name: start
    description: Start.
    kind: session_start
    params:
      - {name: cmd, type: string, required: true, role: command}
      - {name: wait, type: integer, role: yield}
      - {name: tty, type: boolean, role: tty}
      - {name: tokens, type: integer, role: budget}
    session:
      yield: {unit: ms, default: 1000, min: 100, max: 5000}
      stdin: open
    output:
      budget: {unit: tokens, default: 100, max: 1000, marker: "[{{.Elided}} cut]"}
    results:
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
      yield: {default: 250, min: 250, max: 30000, empty: {min: 5000, max: 300000}}
      settle: 100ms
    results:
      format: text
      cases:
        running: {text: "{{.Output}}"}
        exit: {text: "{{.Output}}"}
  - name: read
    description: Read.
    kind: session_read
    params:
      - {name: id, type: integer, required: true, role: session_id}
    session:
      yield: {default: 250}
    results:
      format: text
      cases:
        running: {text: "{{.Output}}"}
        exit: {text: "{{.Output}}"}
  - name: stop
    description: Stop.
    kind: session_kill
    params:
      - {name: id, type: integer, required: true, role: session_id}
    results:
      format: text
      cases:
        ok: {text: "{{.ExitCode}}"}
  - name: list
    description: List.
    kind: session_list
    params: []
    results:
      format: text
      cases:
        ok: {text: "{{range .Sessions}}{{.ID}}{{end}}"}
`

// TestSessionChecks: each broken session spec is rejected with the position of what is wrong and a
// message that says it.
func TestSessionChecks(t *testing.T) {
	if _, err := spec.Parse("ok.yaml", []byte(sessionSpec)); err != nil {
		t.Fatalf("the base spec: %v", err)
	}
	for _, tc := range []struct {
		name     string
		old, new string
		want     string // a substring of the error, with its position
	}{
		{"no sessions block", "sessions:\n  ids: random\n  first_id: 1000\n  last_id: 99999\n  max_live: 8\n  on_full: prune\n  protect_recent: 2\n  prune_exited_first: true\n", "",
			"a session_start tool needs the variant's sessions block"},
		{"too few random ids", "last_id: 99999", "last_id: 1010", "7:3: sessions.last_id: random ids from 1000 to 1010 are too few for max_live 8"},
		{"ids reversed", "last_id: 99999", "last_id: 999", "last_id 999 is below first_id 1000"},
		{"protect without prune", "on_full: prune", "on_full: fail", "protect_recent and prune_exited_first go with on_full: prune"},
		{"protect everything", "protect_recent: 2", "protect_recent: 8", "protect_recent 8 leaves nothing to prune"},
		{"a write without stdin", "      - {name: text, type: string, role: stdin}\n", "", "a session_write tool needs a parameter with role: stdin"},
		{"a start without a yield", "      yield: {unit: ms, default: 1000, min: 100, max: 5000}\n", "", "a session_start tool needs session.yield"},
		{"min over max", "min: 100, max: 5000", "min: 6000, max: 5000", "min 6000 is greater than max 5000"},
		{"a poll range on a start", "min: 100, max: 5000}", "min: 100, max: 5000, empty: {min: 1}}", "empty is the range of a write with nothing to write"},
		{"settle on a start", "      stdin: open\n", "      stdin: open\n      settle: 1s\n", "settle is the wait after a write"},
		{"a tty on a write", "      - {name: text, type: string, role: stdin}\n", "      - {name: text, type: string, role: stdin}\n      - {name: t, type: boolean, role: tty}\n", "has role tty, which only a session_start tool has"},
		{"a session id on an exec tool", "kind: session_start", "kind: exec", "has role yield, which only a session_start, session_write or session_read tool has"},
		{"a timeout on a session tool", "      stdin: open\n", "      stdin: open\n    timeout: {unit: s, default: 1, expiry: kill}\n", "has no timeout: its yield window (session.yield) bounds each call"},
		{"no running case", "        running: {text: \"{{.SessionID}} {{.Output}}\"}\n", "", "a session_start tool needs a running case"},
		{"budget over max", "default: 100, max: 1000", "default: 2000, max: 1000", "default 2000 is above max 1000"},
		{"budget with bytes_per_token in bytes", "unit: tokens, default: 100", "unit: bytes, bytes_per_token: 4, default: 100", "bytes_per_token goes with unit tokens"},
		{"budget marker template", `marker: "[{{.Elided}} cut]"`, `marker: "[{{.Elidd}} cut]"`, "did you mean .Elided?"},
		{"budget without its block", "    output:\n      budget: {unit: tokens, default: 100, max: 1000, marker: \"[{{.Elided}} cut]\"}\n", "", "has role budget but the tool has no output.budget"},
		{"a session template field", "{{range .Sessions}}{{.ID}}{{end}}", "{{.SessionIDs}}", "did you mean .SessionID?"},
		{"pty on the embedded shell", "shell: {argv: [/bin/sh, -c]}", "shell: {embedded: true}", "the embedded shell has no terminal and no stdin to write to"},
		{"a kill without an id", "      - {name: id, type: integer, required: true, role: session_id}\n    results:\n      format: text\n      cases:\n        ok: {text: \"{{.ExitCode}}\"}", "      - {name: id, type: integer, required: true}\n    results:\n      format: text\n      cases:\n        ok: {text: \"{{.ExitCode}}\"}", "a session_kill tool needs a parameter with role: session_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(sessionSpec, tc.old) {
				t.Fatalf("the base spec has no %q", tc.old)
			}
			_, err := spec.Parse("bad.yaml", []byte(strings.Replace(sessionSpec, tc.old, tc.new, 1)))
			if err == nil {
				t.Fatal("loaded without error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%v\ndoes not say %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "bad.yaml:") {
				t.Errorf("error has no position: %v", err)
			}
		})
	}
}
