package runtime_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
)

// bgLogSpec keeps a log of each background shell; tail reads it as poll says (all or new), waiting up to
// delay_ms for the first new output.
const bgLogSpec = `
id: bglog
title: background log
source: {seed: none, repo: example/agent, path: tools.py, language: python}
shell: {argv: [/bin/sh, -c]}
background:
  ids: sequential
  stream_limit: 1024
  poll: %s
  log: {limit: 4096, strip_ansi: true}
tools:
  - name: bash
    description: run
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: background, type: boolean, role: background}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}"}
        background: {text: "{{.ShellID}}"}
  - name: tail
    description: tail
    kind: poll
    params:
      - {name: id, type: string, required: true, role: shell_id}
      - {name: lines, type: integer, role: lines}
      - {name: delay_ms, type: integer, role: yield}
    wait: {unit: ms, default: 0}
    read: {until: output}
    results:
      format: json
      cases:
        ok:
          fields:
            - {name: running, type: boolean, value: "{{.Running}}"}
            - {name: log, type: string, value: "{{.Log}}"}
            - {name: tail, type: string, value: "{{.LogTail}}"}
            - {name: lines, type: integer, value: "{{.LogLineCount}}"}
  - name: ps
    description: list
    kind: list
    params: []
    results:
      format: text
      cases:
        ok: {text: "{{range .Shells}}{{.ID}} {{if .Running}}running{{else}}exit {{.ExitCode}}{{end}} {{if ge .Age 0.0}}aged{{end}};{{end}}"}
`

type tailAnswer struct {
	Running bool   `json:"running"`
	Log     string `json:"log"`
	Tail    string `json:"tail"`
	Lines   int    `json:"lines"`
}

// TestBackgroundLog: the log holds stdout and stderr in the order they were written, a read with a long
// delay answers at the first new output (the command still running), poll: new reads from where the last
// read stopped, and the list tool describes the shells.
func TestBackgroundLog(t *testing.T) {
	for _, poll := range []string{"all", "new"} {
		t.Run(poll, func(t *testing.T) {
			eng, ws := newEngine(t, fmt.Sprintf(bgLogSpec, poll))
			call := func(tool, params string) string {
				t.Helper()
				res, err := eng.Call(bounded(t), tool, json.RawMessage(params))
				if err != nil {
					t.Fatalf("%s %s: %v", tool, params, err)
				}
				return string(res)
			}
			read := func(params string) tailAnswer {
				t.Helper()
				var a tailAnswer
				if err := json.Unmarshal([]byte(call("tail", params)), &a); err != nil {
					t.Fatal(err)
				}
				return a
			}
			// Each line is written after the gate the test opens, so the order across the pipes is known.
			gate := func(n string) string { return "while [ ! -e g" + n + " ]; do sleep 0.01; done; " }
			cmd := `printf 'out1\n'; ` + gate("1") + `printf 'err1\n' >&2; ` + gate("2") + `printf '\033[1mout2\033[0m\nerr2' >&2; exit 5`
			p, _ := json.Marshal(map[string]any{"command": cmd, "background": true})
			if id := call("bash", string(p)); id != `"1"` {
				t.Fatalf("id %s", id)
			}
			open := func(n string) {
				if err := os.WriteFile(filepath.Join(ws, "g"+n), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// A read of up to 10 minutes answers with the first output, the command still waiting at gate 1.
			a := read(`{"id": "1", "delay_ms": 600000}`)
			if !a.Running || a.Log != "out1\n" || a.Lines != 1 {
				t.Fatalf("first read %+v", a)
			}
			open("1")
			want := "out1\nerr1\n"
			if poll == "new" {
				want = "err1\n"
			}
			if a = read(`{"id": "1", "delay_ms": 600000}`); a.Log != want {
				t.Fatalf("second read %+v, want log %q", a, want)
			}
			open("2")
			if _, err := eng.WaitShell(bounded(t), "1"); err != nil {
				t.Fatal(err)
			}
			want = "out1\nerr1\nout2\nerr2"
			if poll == "new" {
				want = "out2\nerr2"
			}
			a = read(`{"id": "1", "lines": 2, "delay_ms": 600000}`)
			if a.Running || a.Log != want || a.Tail != "out2\nerr2" {
				t.Errorf("after the exit %+v, want log %q", a, want)
			}
			if got := call("ps", `{}`); got != `"1 exit 5 aged;"` {
				t.Errorf("list %s", got)
			}
		})
	}
}

// TestBackgroundLogNoSurvivors: a background shell with a log is killed and reaped by Close.
func TestBackgroundLogNoSurvivors(t *testing.T) {
	v := parseSpec(t, fmt.Sprintf(bgLogSpec, "all"))
	eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	sleep := proctest.UniqueSleep()
	p, _ := json.Marshal(map[string]any{"command": "echo x; sleep " + sleep, "background": true})
	if _, err := eng.Call(bounded(t), "bash", p); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	if left := proctest.WithCmdline("sleep " + sleep); len(left) > 0 {
		proctest.KillWithCmdline("sleep " + sleep)
		t.Fatalf("processes left: %v", left)
	}
}
