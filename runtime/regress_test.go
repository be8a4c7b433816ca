package runtime_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
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
	if _, err := eng.WaitShell(bounded(t), pid); err != nil {
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
	res, err := eng.Call(bounded(t), "bash", json.RawMessage(`{"command":"seq 1 1000"}`))
	if err != nil {
		t.Fatal(err)
	}
	// seq 1 1000 prints 3893 characters; the last 8 are "99\n1000\n".
	want := `{"out":"[3885 cut]99\n1000\n","code":0}`
	if string(res) != want {
		t.Fatalf("got %s\nwant %s", res, want)
	}
}

// A run whose timeout would move it to the background when the registry is full is killed and fails with
// the limit error; the runs already in the background are untouched, and the limit defaults to 64.
func TestAdoptionRespectsTheLimit(t *testing.T) {
	const specText = `
id: adoptlimit
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
background: {ids: pid, stream_limit: 1024, max_live: 1, limit_error: {type: Full, message: "full at {{.Max}}"}}
tools:
  - name: run
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    timeout: {unit: ms, default: 1, expiry: background}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}"}
        background: {text: "{{.Pid}}"}
`
	eng, _ := newEngine(t, specText)
	first, err := call(t, eng, "run", map[string]any{"command": "sleep 30"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = eng.Call(bounded(t), "run", json.RawMessage(`{"command": "echo started; exec sleep 31"}`))
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Type != "Full" || te.Message != "full at 1" {
		t.Fatalf("second run: %v", err)
	}
	shells := eng.Shells()
	if len(shells) != 1 || strconv.Itoa(shells[0].Pid) != first || !shells[0].Running {
		t.Fatalf("registry %+v, want only the first run, running", shells)
	}
	// Without max_live the registry is bounded all the same.
	v, err := spec.Parse("t.yaml", []byte(strings.Replace(specText, "max_live: 1, ", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if v.Background.MaxLive != spec.DefaultMaxLive || spec.DefaultMaxLive != 64 {
		t.Errorf("default max_live %d", v.Background.MaxLive)
	}
}
