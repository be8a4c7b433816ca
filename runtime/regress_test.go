package runtime_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
)

// A foreground run moved to the background by its timeout keeps its combined capture; polling it works.
func TestAdoptedCombinedShellPolls(t *testing.T) {
	eng, ws := newEngine(t, `
id: adopt
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
background: {ids: pid, stream_limit: 1024}
tools:
  - name: run
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: timeout, type: integer, role: timeout}
    timeout: {unit: ms, default: 100, expiry: background}
    output: {capture: combined, decode: replace}
    results:
      format: text
      cases:
        exit: {text: "{{.Output}}"}
        background: {text: "{{.Pid}}"}
  - name: poll
    description: d
    kind: poll
    params:
      - {name: shell_id, type: string, required: true, role: shell_id}
    results:
      format: text
      cases:
        ok: {text: "{{if .Running}}running{{else}}exit {{.ExitCode}}{{end}}|{{.Stdout}}|{{.Stderr}}"}
`)
	fifo, release := gate(t, ws)
	pid, err := call(t, eng, "run", map[string]any{"command": "echo a; echo b >&2; cat " + fifo + "; echo c"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := strconv.Atoi(pid); err != nil {
		t.Fatalf("background result %q is not a pid", pid)
	}
	release()
	if _, err := eng.WaitShell(context.Background(), pid); err != nil {
		t.Fatal(err)
	}
	got, err := call(t, eng, "poll", map[string]any{"shell_id": pid})
	if err != nil || got != "exit 0|a\nb\nc\n|" {
		t.Fatalf("poll = %q, %v", got, err)
	}
}

// A result-level truncation on a JSON result cuts each string field as a whole, with the marker, keeping
// the tail when the spec says so.
func TestJSONResultTruncationKeepsTail(t *testing.T) {
	eng, _ := newEngine(t, `
id: jt
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    results:
      format: json
      cases:
        exit:
          truncate: {unit: chars, limit: 8, keep: tail, marker: "[{{.Elided}} cut]"}
          fields:
            - {name: out, type: string, value: "{{.Stdout}}"}
            - {name: code, type: integer, value: "{{.ExitCode}}"}
`)
	res, err := eng.Call(context.Background(), "bash", json.RawMessage(`{"command":"seq 1 1000"}`))
	if err != nil {
		t.Fatal(err)
	}
	// seq 1 1000 prints 3893 characters; the last 8 are "99\n1000\n".
	want := `{"out":"[3885 cut]99\n1000\n","code":0}`
	if string(res) != want {
		t.Fatalf("got %s\nwant %s", res, want)
	}
}
