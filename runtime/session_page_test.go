package runtime_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// pageSpec: sessions kept after their exit, a read that pages by lines (from the read position, a line,
// or the end) and a write that answers only what follows it, with a newline added, on running sessions
// only.
const pageSpec = `
id: paged
title: paged
source: {seed: none, repo: example/agent, path: tools.ts, language: typescript}
shell: {argv: [/bin/sh, -c]}
sessions:
  keep_exited: true
  unknown_id: {type: ToolError, message: "no session {{.ID}}"}
tools:
  - name: start
    description: start
    kind: session_start
    params:
      - {name: command, type: string, required: true, role: command}
    session:
      yield: {default: 100}
      stdin: open
    results:
      format: text
      cases:
        running: {text: "{{.SessionID}}"}
        exit: {text: "{{.SessionID}}"}
  - name: read
    description: read
    kind: session_read
    params:
      - {name: id, type: string, required: true, role: session_id}
      - {name: offset, type: integer, role: offset}
      - {name: length, type: integer, role: lines}
    session:
      yield: {default: 600000}
      until: output
      page: {lines: 3, rewind_exited: true}
    results:
      format: text
      cases:
        running: &page {text: "{{.PageFrom}}+{{.PageLines}}/{{.LogLineCount}} ({{.PageRemaining}} left){{if not .Running}} exit {{.ExitCode}}{{end}}: {{goquote .Log}}"}
        exit: *page
  - name: write
    description: write
    kind: session_write
    params:
      - {name: id, type: string, required: true, role: session_id}
      - {name: text, type: string, required: true, role: stdin}
    session:
      yield: {default: 600000}
      until: output
      since: write
      newline: true
      running_only: true
      unknown_id: {type: ToolError, message: "cannot write to {{.ID}}"}
    results:
      format: text
      cases:
        running: {text: "{{goquote .Output}}"}
        exit: {text: "exit {{.ExitCode}} {{goquote .Output}}"}
  - name: kill
    description: kill
    kind: session_kill
    params:
      - {name: id, type: string, required: true, role: session_id}
    session: {running_only: true, keep: true}
    results:
      format: text
      cases:
        ok: {text: "killed"}
`

// TestSessionPagedRead: reads page by lines from the read position (a line still written is the last, a
// last "\n" leaves an empty one), wait for a line past it, read from a line or from the end without
// moving it, and read an exited session whole; a write answers only what follows it and reaches the
// command with a newline; a write to an exited session fails as for an unknown one.
func TestSessionPagedRead(t *testing.T) {
	eng, ws := newEngine(t, pageSpec)
	call := func(tool, params string) (string, error) {
		t.Helper()
		res, err := eng.Call(bounded(t), tool, json.RawMessage(params))
		if err != nil {
			return "", err
		}
		var s string
		if err := json.Unmarshal(res, &s); err != nil {
			t.Fatalf("%s: %s: %v", tool, res, err)
		}
		return s, nil
	}
	must := func(tool, params string) string {
		t.Helper()
		s, err := call(tool, params)
		if err != nil {
			t.Fatalf("%s %s: %v", tool, params, err)
		}
		return s
	}
	gate := func(n string) string { return "while [ ! -e " + n + " ]; do sleep 0.01; done; " }
	open := func(n string) {
		if err := os.WriteFile(filepath.Join(ws, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := json.Marshal(map[string]string{"command": "printf 'l1\\nl2\\nl3\\nl4\\n'; " + gate("g1") + "echo l5 >&2; read x; echo \"got:$x\"; " + gate("g2") + "exit 3"})
	id := must("start", string(p))
	q := func(extra string) string { return `{"id": "` + id + `"` + extra + `}` }
	steps := []struct{ tool, params, want string }{
		// "l1\nl2\nl3\nl4\n" is five lines, the last empty; the page is three.
		{"read", q(""), `0+3/5 (2 left): "l1\nl2\nl3"`},
		{"read", q(""), `3+2/5 (0 left): "l4\n"`},
		{"read", q(`, "offset": 1, "length": 2`), `1+2/5 (2 left): "l2\nl3"`},
		{"read", q(`, "offset": -2`), `3+2/5 (0 left): "l4\n"`},
		{"read", q(`, "offset": 9`), `9+0/5 (0 left): ""`},
	}
	for _, s := range steps {
		if got := must(s.tool, s.params); got != s.want {
			t.Fatalf("%s %s: %s, want %s", s.tool, s.params, got, s.want)
		}
	}
	open("g1")
	// The read from the position waits for a line past it: l5 completes the empty line 4 and starts line 5.
	if got := must("read", q(`, "length": 1`)); got != `5+1/6 (0 left): ""` {
		t.Fatalf("read after l5: %s", got)
	}
	// The write answers only what follows it (not l5), and the command gets "hi\n".
	if got := must("write", `{"id": "`+id+`", "text": "hi"}`); got != `"got:hi\n"` {
		t.Fatalf("write: %s", got)
	}
	open("g2")
	if _, err := eng.WaitSession(bounded(t), id); err != nil {
		t.Fatal(err)
	}
	// Exited: read whole from its first line, again and again; a write fails as for an unknown session.
	want := `0+3/7 (4 left) exit 3: "l1\nl2\nl3"`
	for range 2 {
		if got := must("read", q("")); got != want {
			t.Fatalf("read after the exit: %s, want %s", got, want)
		}
	}
	if got := must("read", q(`, "offset": -3, "length": 10`)); got != `4+3/7 (0 left) exit 3: "l5\ngot:hi\n"` {
		t.Fatalf("tail after the exit: %s", got)
	}
	_, err := call("write", `{"id": "`+id+`", "text": "x"}`)
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Message != "cannot write to "+id {
		t.Fatalf("write to an exited session: %v", err)
	}
}

// TestSessionPageSpecErrors: the paged read's settings are refused where they mean nothing.
func TestSessionPageSpecErrors(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"    kind: session_read\n", "    kind: session_read\n", ""},
		{"      since: write\n", "      since: write\n      page: {lines: 1}\n", "page says how a session_read reads"},
		{"      page: {lines: 3, rewind_exited: true}\n", "      since: write\n", "since says where a session_write's window starts"},
		{"      - {name: offset, type: integer, role: offset}\n", "      - {name: offset, type: string, role: offset}\n", "role offset: its type is integer or number"},
		{"      - {name: length, type: integer, role: lines}\n", "      - {name: length, type: string, role: lines}\n", `parameter "length" has role lines: its type is integer or number, not string`},
		{"      - {name: text, type: string, required: true, role: stdin}\n", "      - {name: text, type: string, required: true, role: stdin}\n      - {name: at, type: integer, role: offset}\n", "which only a session_read tool with session.page has"},
		{"      unknown_id: {type: ToolError, message: \"cannot write to {{.ID}}\"}\n", "      unknown_id: {result: nope, message: x}\n", `result case "nope" is not in results.cases`},
	} {
		y := strings.Replace(pageSpec, tc.from, tc.to, 1)
		if y == pageSpec && tc.from != tc.to {
			t.Fatalf("%q not in the spec", tc.from)
		}
		_, err := spec.Parse("test.yaml", []byte(y))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("valid spec refused: %v", err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: got %v, want %q", tc.to, err, tc.want)
		}
	}
}

// TestSessionWriteNewline: session.newline ends every write with a "\n", an empty one included (a write
// of "\n", not a poll); a text that ends in one is written as it is.
func TestSessionWriteNewline(t *testing.T) {
	eng, _ := newEngine(t, pageSpec)
	res, err := eng.Call(bounded(t), "start", json.RawMessage(`{"command": "cat"}`))
	if err != nil {
		t.Fatal(err)
	}
	var id string
	if err := json.Unmarshal(res, &id); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ text, want string }{{"", `"\n"`}, {"a", `"a\n"`}, {"b\n", `"b\n"`}} {
		p, _ := json.Marshal(map[string]string{"id": id, "text": tc.text})
		res, err := eng.Call(bounded(t), "write", p)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := json.Unmarshal(res, &got); err != nil || got != tc.want {
			t.Errorf("write %q: %s, want %s", tc.text, res, tc.want)
		}
	}
}

// TestSessionKillKeep: a session_kill with keep leaves the killed session readable, exited by its signal;
// with running_only a second kill finds it unknown.
func TestSessionKillKeep(t *testing.T) {
	eng, _ := newEngine(t, pageSpec)
	call := func(tool, params string) (string, error) {
		res, err := eng.Call(bounded(t), tool, json.RawMessage(params))
		if err != nil {
			return "", err
		}
		var s string
		if err := json.Unmarshal(res, &s); err != nil {
			t.Fatal(err)
		}
		return s, nil
	}
	id, err := call("start", `{"command": "echo up; sleep 30"}`)
	if err != nil {
		t.Fatal(err)
	}
	q := `{"id": "` + id + `"}`
	if got, err := call("kill", q); err != nil || got != "killed" {
		t.Fatalf("kill: %q %v", got, err)
	}
	if got, err := call("read", q); err != nil || got != `0+2/2 (0 left) exit -9: "up\n"` {
		t.Fatalf("read after the kill: %q %v", got, err)
	}
	if _, err := call("kill", q); err == nil || !strings.Contains(err.Error(), "no session "+id) {
		t.Fatalf("second kill: %v", err)
	}
	if n := len(eng.Sessions()); n != 1 {
		t.Fatalf("%d sessions, want the killed one kept", n)
	}
}
