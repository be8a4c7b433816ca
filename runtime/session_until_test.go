package runtime_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
)

// untilSpec: sessions on two pipes, and a read whose window closes at the first output.
const untilSpec = `
id: until
title: until
source: {seed: none, repo: example/agent, path: tools.ts, language: typescript}
shell: {argv: [/bin/sh, -c]}
sessions: {}
tools:
  - name: start
    description: start
    kind: session_start
    params:
      - {name: command, type: string, required: true, role: command}
    session:
      yield: {default: 100}
      pipes: two
    results: &r
      format: json
      cases:
        running:
          fields:
            - {name: id, type: string, value: "{{.SessionID}}"}
            - {name: output, type: string, value: "{{.Output}}"}
        exit:
          fields:
            - {name: exit, type: integer, value: "{{.ExitCode}}"}
            - {name: output, type: string, value: "{{.Output}}"}
  - name: read
    description: read
    kind: session_read
    params:
      - {name: id, type: string, required: true, role: session_id}
    session:
      yield: {default: 600000}
      until: output
    results: *r
`

// TestSessionReadUntilOutput: a read given ten minutes answers with the first output that arrives, or at
// once with output that waited for it; stderr, on its own pipe, reaches the session's output.
func TestSessionReadUntilOutput(t *testing.T) {
	eng, ws := newEngine(t, untilSpec)
	type answer struct {
		ID     string `json:"id"`
		Exit   *int   `json:"exit"`
		Output string `json:"output"`
	}
	call := func(tool, params string) answer {
		t.Helper()
		res, err := eng.Call(bounded(t), tool, json.RawMessage(params))
		if err != nil {
			t.Fatalf("%s %s: %v", tool, params, err)
		}
		var a answer
		if err := json.Unmarshal(res, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	open := func(n string) {
		if err := os.WriteFile(filepath.Join(ws, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gate := func(n string) string { return "while [ ! -e " + n + " ]; do sleep 0.01; done; " }
	p, _ := json.Marshal(map[string]string{"command": "echo a; " + gate("g1") + "echo b >&2; " + gate("g2") + "exit 4"})
	a := call("start", string(p))
	if a.ID == "" {
		t.Fatalf("start %+v", a)
	}
	out := a.Output
	if out == "" { // the start's window closed before the first line: the read gets it
		out = call("read", `{"id": "`+a.ID+`"}`).Output
	}
	if out != "a\n" {
		t.Fatalf("first output %q", out)
	}
	open("g1")
	if b := call("read", `{"id": "`+a.ID+`"}`); b.Output != "b\n" || b.Exit != nil {
		t.Fatalf("second read %+v", b)
	}
	open("g2")
	if c := call("read", `{"id": "`+a.ID+`"}`); c.Exit == nil || *c.Exit != 4 {
		t.Fatalf("last read %+v", c)
	}
}

// TestSessionPipes: pipes two gives stdout and stderr a pipe each; the default, one pipe for both.
func TestSessionPipes(t *testing.T) {
	for _, tc := range []struct{ pipes, want string }{{"two", "apart\n"}, {"one", "same\n"}} {
		t.Run(tc.pipes, func(t *testing.T) {
			// A start window long enough for the command to exit within it.
			yaml := strings.Replace(strings.Replace(untilSpec, "pipes: two", "pipes: "+tc.pipes, 1), "{default: 100}", "{default: 30000}", 1)
			eng, _ := newEngine(t, yaml)
			res, err := eng.Call(bounded(t), "start", json.RawMessage(`{"command": "if [ \"$(readlink /proc/$$/fd/1)\" = \"$(readlink /proc/$$/fd/2)\" ]; then echo same; else echo apart; fi"}`))
			if err != nil {
				t.Fatal(err)
			}
			var a struct{ Output string }
			if err := json.Unmarshal(res, &a); err != nil || a.Output != tc.want {
				t.Errorf("%s: %s", tc.pipes, res)
			}
		})
	}
}

// keepSpec keeps sessions whose exit was reported.
const keepSpec = `
id: keep
title: keep
source: {seed: none, repo: example/agent, path: tools.ts, language: typescript}
shell: {argv: [/bin/sh, -c]}
sessions: {keep_exited: %v, unknown_id: {type: ToolError, message: "no session {{.ID}}"}}
tools:
  - name: start
    description: start
    kind: session_start
    params:
      - {name: command, type: string, required: true, role: command}
    session: {yield: {default: 30000}}
    results: &r
      format: text
      cases:
        running: {text: "running"}
        exit: {text: "[{{.SessionID}}] exit {{.ExitCode}}: {{.Output}}"}
  - name: read
    description: read
    kind: session_read
    params:
      - {name: id, type: string, required: true, role: session_id}
    session: {yield: {default: 1000}}
    results: *r
  - name: list
    description: list
    kind: session_list
    params: []
    results: {format: text, cases: {ok: {text: "{{range .Sessions}}{{.ID}} {{.Running}} {{.ExitCode}};{{end}}"}}}
  - name: kill
    description: kill
    kind: session_kill
    params:
      - {name: id, type: string, required: true, role: session_id}
    results: {format: text, cases: {ok: {text: "killed"}}}
`

// TestSessionKeepExited: with keep_exited a session stays readable after its exit was reported (the exit
// again, nothing new), listed as exited, until it is killed; without it, it is forgotten.
func TestSessionKeepExited(t *testing.T) {
	for _, tc := range []struct {
		keep                    bool
		start, read, list, kill string
	}{
		{true, "[1] exit 2: hi\n", "[1] exit 2: ", "1 false 2;", "killed"},
		{false, "[] exit 2: hi\n", "error: no session 1", "", "error: no session 1"},
	} {
		t.Run(strconv.FormatBool(tc.keep), func(t *testing.T) {
			eng, _ := newEngine(t, fmt.Sprintf(keepSpec, tc.keep))
			call := func(tool, params string) string {
				t.Helper()
				res, err := eng.Call(bounded(t), tool, json.RawMessage(params))
				if err != nil {
					var te *runtime.ToolError
					if errors.As(err, &te) {
						return "error: " + te.Message
					}
					t.Fatal(err)
				}
				var s string
				_ = json.Unmarshal(res, &s)
				return s
			}
			for _, c := range []struct{ tool, params, want string }{
				{"start", `{"command": "echo hi; exit 2"}`, tc.start},
				{"read", `{"id": "1"}`, tc.read},
				{"list", `{}`, tc.list},
				{"kill", `{"id": "1"}`, tc.kill},
				{"read", `{"id": "1"}`, "error: no session 1"},
			} {
				if got := call(c.tool, c.params); got != c.want {
					t.Errorf("%s %s: %q, want %q", c.tool, c.params, got, c.want)
				}
			}
		})
	}
}
