package conformance

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentbash/agentbash/conformance/cases"
	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate"
)

// A later call of a case names a background shell by the id the start answered with: where the
// background case puts .ShellID, or .Pid when the registry names shells by pid.
func TestSessionIDOfBackgroundShell(t *testing.T) {
	gemini := mustVariant(t, "gemini-cli")
	seq, err := spec.Parse("bg.yaml", []byte(bgStepsSpec))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		v      *spec.Variant
		tool   string
		answer string
		want   string
	}{
		{"pid in a text", gemini, "run_shell_command", "<untrusted_context>\nCommand moved to background (PID: 4242). Output hidden. Press Ctrl+B to view.\n</untrusted_context>", "4242"},
		{"a shell id in a text", seq, "run", "started 7", "7"},
		{"an exit: no id", seq, "run", "one\n", ""},
		{"a tool that starts nothing", seq, "tail", "started 7", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := json.Marshal(tc.answer)
			if got := idOf(tc.v, tc.tool, target.Answer{Result: res}, true); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if got := sessionIDOf(tc.v, tc.tool, target.Answer{Result: res}); got != "" {
				t.Errorf("a shell id %q masked as a session's", got)
			}
		})
	}
}

const bgStepsSpec = `
id: bg
title: bg
source: {seed: none, repo: example/agent, path: tools.ts, language: typescript}
shell: {argv: [/bin/sh, -c]}
background:
  ids: sequential
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
        background: {text: "started {{.ShellID}}"}
  - name: ps
    description: list
    kind: list
    params: []
    results: {format: text, cases: {ok: {text: "{{range .Shells}}{{.ID}} {{.Running}} {{.ExitCode}};{{end}}"}}}
  - name: tail
    description: tail
    kind: poll
    params:
      - {name: id, type: string, required: true, role: shell_id}
      - {name: n, type: integer, role: lines}
      - {name: delay, type: integer, role: yield}
    wait: {unit: ms, default: 0}
    read: {lines: 5}
    results: {format: text, cases: {ok: {text: "{{if .Running}}running {{end}}{{.LogTail}}"}}}
  - name: watch
    description: watch
    kind: poll
    params:
      - {name: id, type: string, required: true, role: shell_id}
      - {name: delay, type: integer, role: yield}
    wait: {unit: ms, default: 0}
    read: {until: output}
    results: {format: text, cases: {ok: {text: "{{if .Running}}running {{end}}{{.LogTail}}"}}}
`

// The background cases' calls, played on an engine, reach the shell the start answered with (not an
// unknown id), and answer what the spec says.
func TestBackgroundCasesPlayed(t *testing.T) {
	v, err := spec.Parse("bg.yaml", []byte(bgStepsSpec))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"run/background: list":                              "1 false 3;",
		"run/background: tail after the exit":               "two", // the second read asks for one line
		"run/background: watch answers at the first output": "running late",
	}
	n := 0
	for _, c := range cases.Cases(v) {
		w, ok := want[c.Name]
		if !ok {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			ws := t.TempDir()
			eng, err := runtime.New(v, runtime.WithWorkspace(ws))
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			do := func(ctx context.Context, tool string, params json.RawMessage) (target.Answer, error) {
				return target.AnswerOf(eng.Call(ctx, tool, params))
			}
			s := &Session{v: v}
			answers, _, err := s.play(ctx, c, c.Params, ws, do, nil)
			if err != nil {
				t.Fatal(err)
			}
			last := answers[len(answers)-1]
			var text string
			if last.Error != nil || json.Unmarshal(last.Result, &text) != nil || text != w {
				t.Errorf("the last answer %s (error %v), want %q", last.Result, last.Error, w)
			}
		})
	}
	if n != len(want) {
		t.Errorf("%d of the %d background cases", n, len(want))
	}
}
