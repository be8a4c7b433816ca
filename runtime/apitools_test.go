package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
)

// persistentSpec is a persistent shell with an exit status after its sentinel, a restart, and a short
// timeout.
const persistentSpec = `
id: p
title: persistent
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c], grace: 300ms, session: true}
tools:
  - name: bash
    description: d
    kind: persistent
    params:
      - {name: command, type: string, role: command}
      - {name: restart, type: boolean, role: restart}
    checks:
      - {required: command, fail: {type: ToolError, message: no command}}
    persistent:
      argv: [/bin/bash]
      input: "{{.Command}}\necho \"<<done>>$?\"\n"
      sentinel: "<<done>>"
      status: true
      timeout: 2s
      trim_newline: true
    output:
      truncate: {unit: bytes, limit: 100, keep: head, marker: "[{{.Elided}} cut]"}
    results:
      format: text
      cases:
        success: {text: "ok|{{.Stdout}}|{{.Stderr}}"}
        failure: {text: "fail {{.ExitCode}}|{{.Stdout}}|{{.Stderr}}"}
        restarted: {text: "restarted"}
        exited: {text: "exited {{.ExitCode}}"}
        timeout: {text: "timeout {{.TimeoutValue}}"}
`

func TestPersistentShell(t *testing.T) {
	eng, ws := newEngine(t, persistentSpec)
	persistentSteps(t, eng, ws)
}

// persistentSteps runs calls of persistentSpec's tool on a fresh engine: what survives a call (cwd,
// variables, functions), both streams, truncation, restart, the shell's exit, no command.
func persistentSteps(t *testing.T, eng *runtime.Engine, ws string) {
	t.Helper()
	steps := []struct{ params, want string }{
		{`{"command":"pwd"}`, "ok|" + ws + "|"},
		{`{"command":"mkdir -p d && cd d && X=42 && f() { echo \"f$1\"; }"}`, "ok||"},
		{`{"command":"pwd; echo $X; f 1"}`, "ok|" + ws + "/d\n42\nf1|"},
		{`{"command":"echo e >&2; false"}`, "fail 1||e"},
		{`{"command":"head -c 300 /dev/zero | tr '\\0' a"}`, "ok|" + strings.Repeat("a", 100) + "[200 cut]|"},
		{`{"restart":true}`, "restarted"},
		{`{"command":"pwd; echo \"[$X]\""}`, "ok|" + ws + "\n[]|"},
		{`{"command":"exit 3"}`, "exited 3"},
		{`{"command":"echo again"}`, "exited 3"},
		{`{"restart":true}`, "restarted"},
		{`{"command":"echo back"}`, "ok|back|"},
	}
	for i, s := range steps {
		got, err := callText(t, eng, s.params)
		if err != nil {
			t.Fatalf("step %d %s: %v", i, s.params, err)
		}
		if got != s.want {
			t.Fatalf("step %d %s:\n got %q\nwant %q", i, s.params, got, s.want)
		}
	}
	if _, err := callText(t, eng, `{}`); err == nil || !strings.Contains(err.Error(), "no command") {
		t.Fatalf("no command: %v", err)
	}
}

// A call that passes the timeout kills the shell's whole group; every call answers timeout until a
// restart; Close ends the shell.
func TestPersistentTimeoutNoSurvivor(t *testing.T) {
	eng, _ := newEngine(t, persistentSpec)
	mark := proctest.UniqueSleep()
	got, err := callText(t, eng, `{"command":"echo $$; sleep `+mark+` & disown; echo started"}`)
	if err != nil {
		t.Fatal(err)
	}
	shellPid, _ := strconv.Atoi(strings.TrimPrefix(strings.Split(got, "\n")[0], "ok|"))
	if shellPid <= 0 {
		t.Fatalf("no pid in %q", got)
	}
	for i, want := range []string{"timeout 2", "timeout 2"} {
		got, err := callText(t, eng, `{"command":"sleep 30"}`)
		if err != nil || got != want {
			t.Fatalf("call %d: %q, %v", i, got, err)
		}
	}
	waitGone(t, shellPid)
	if !proctest.Poll(3*time.Second, func() bool { return len(proctest.WithCmdline("sleep "+mark)) == 0 }) {
		t.Fatalf("the background sleep survived the timeout")
	}
	if got, err := callText(t, eng, `{"restart":true}`); err != nil || got != "restarted" {
		t.Fatalf("restart: %q %v", got, err)
	}
	got, err = callText(t, eng, `{"command":"echo $$"}`)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(got, "ok|"), "|"))
	if pid <= 0 || pid == shellPid {
		t.Fatalf("after restart: %q", got)
	}
	if _, _, n := eng.Held(); n != 1 {
		t.Fatalf("Held counts %d running, want the shell", n)
	}
	eng.Close()
	waitGone(t, pid)
	if _, err := eng.Call(bounded(t), "bash", json.RawMessage(`{"command":"true"}`)); err == nil {
		t.Fatal("a call after Close succeeded")
	}
}

// A cancelled call ends the shell (its state is unknown); the next call answers exited.
func TestPersistentCancel(t *testing.T) {
	eng, _ := newEngine(t, persistentSpec)
	ctx, cancel := context.WithCancel(bounded(t))
	done := make(chan error, 1)
	go func() {
		_, err := eng.Call(ctx, "bash", json.RawMessage(`{"command":"sleep 30"}`))
		done <- err
	}()
	// Wait until the shell runs the command, then cancel.
	if !proctest.Poll(5*time.Second, func() bool { _, _, n := eng.Held(); return n == 1 }) {
		t.Fatal("the shell did not start")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancel did not end the call")
	}
	got, err := callText(t, eng, `{"command":"true"}`)
	if err != nil || !strings.HasPrefix(got, "exited ") {
		t.Fatalf("after cancel: %q %v", got, err)
	}
}

// A shell that writes a lot keeps the call within the truncation's memory, and the sentinel is still
// found after it.
func TestPersistentLargeOutput(t *testing.T) {
	eng, _ := newEngine(t, persistentSpec)
	got, err := callText(t, eng, `{"command":"head -c 50000000 /dev/zero; echo tail"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "ok|") || !strings.Contains(got, "[49999905 cut]") {
		t.Fatalf("got %.200q", got)
	}
}

// batchSpec runs a list of commands, each answered on its own, with a shared output limit.
const batchSpec = `
id: b
title: batch
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c], grace: 300ms}
policies:
  - name: deny
    kind: substring
    message: "refused"
    fail: {type: ToolError, message: "refused: {{.Command}}"}
    rules:
      - {substring: forbidden}
tools:
  - name: shell
    description: d
    kind: batch
    params:
      - {name: commands, type: array, required: true, role: commands}
      - {name: timeout_ms, type: integer, role: timeout}
      - {name: max_output_length, type: integer, role: output_limit}
    checks:
      - {not_empty: commands, fail: {type: ToolError, message: "no commands"}}
      - {timeout: true}
      - {policy: deny}
    timeout: {unit: ms, default: 5000, min: 1, max: 60000, out_of_range: clamp, expiry: kill}
    batch:
      max_commands: 3
      limit: {unit: chars}
      each:
        format: json
        cases:
          exit:
            fields:
              - {name: stdout, type: string, value: "{{.Stdout}}"}
              - {name: stderr, type: string, value: "{{.Stderr}}"}
              - {name: code, type: integer, value: "{{.ExitCode}}"}
          timeout:
            fields:
              - {name: stdout, type: string, value: "{{.Stdout}}"}
              - {name: timeout, type: boolean, value: "true"}
    results:
      format: json
      cases:
        ok:
          fields:
            - {name: output, type: json, value: "[{{range $i, $a := .Answers}}{{if $i}},{{end}}{{$a}}{{end}}]"}
`

func TestBatch(t *testing.T) {
	eng, _ := newEngine(t, batchSpec)
	cases := []struct{ params, want, err string }{
		{params: `{"commands":["echo a","echo b >&2; exit 2","printf é"]}`,
			want: `{"output":[{"stdout":"a\n","stderr":"","code":0},{"stdout":"","stderr":"b\n","code":2},{"stdout":"é","stderr":"","code":0}]}`},
		// The limit is shared: stdout keeps its head, stderr what stdout left.
		{params: `{"commands":["printf éééé; printf xyz >&2","printf ab; printf cdef >&2"],"max_output_length":3}`,
			want: `{"output":[{"stdout":"ééé","stderr":"","code":0},{"stdout":"ab","stderr":"c","code":0}]}`},
		// A timed-out command keeps its output; the next runs.
		{params: `{"commands":["echo before; sleep 30","echo next"],"timeout_ms":300}`,
			want: `{"output":[{"stdout":"before\n","timeout":true},{"stdout":"next\n","stderr":"","code":0}]}`},
		{params: `{"commands":[]}`, err: "no commands"},
		{params: `{"commands":["a","b","c","d"]}`, err: "at most 3"},
		{params: `{"commands":["echo ok","echo forbidden"]}`, err: "refused: echo forbidden"},
		{params: `{"commands":["echo ok",1]}`, err: "element 1 must be a string"},
	}
	for _, c := range cases {
		t.Run(c.params, func(t *testing.T) {
			res, err := eng.Call(bounded(t), "shell", json.RawMessage(c.params))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %s, %v; want error %q", res, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(res) != c.want {
				t.Fatalf("\n got %s\nwant %s", res, c.want)
			}
		})
	}
}

// argvSpec runs a program and its arguments without a shell; wrapSpec puts each command in a host's words.
const argvSpec = `
id: a
title: argv
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c], grace: 300ms}
tools:
  - name: exec
    description: d
    params:
      - {name: command, type: array, required: true, role: argv}
    checks:
      - {not_empty: command, fail: {type: ToolError, message: "empty argv"}}
    output: {capture: sequential}
    results:
      format: text
      cases:
        exit: {text: "{{.ExitCode}}:{{.Output}}"}
        spawn_error: {text: "cannot run {{.Command}}: {{.ErrnoName}}"}
  - name: wrapped
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    wrap: cd "{{.Cwd}}/sub" && {{.Command}}
    results:
      format: text
      cases:
        exit: {text: "{{.ExitCode}}:{{.Stdout}}{{.Stderr}}"}
`

func TestArgvAndWrap(t *testing.T) {
	eng, ws := newEngine(t, argvSpec)
	cases := []struct{ tool, params, want string }{
		{"exec", `{"command":["printf","%s|","a b","$HOME"]}`, "0:a b|$HOME|"},
		{"exec", `{"command":["sh","-c","echo out; echo err >&2; exit 4"]}`, "4:out\nerr\n"},
		{"exec", `{"command":["/nonexistent/prog","x"]}`, "cannot run /nonexistent/prog x: ENOENT"},
		{"wrapped", `{"command":"pwd"}`, "1:"},
	}
	for _, c := range cases {
		got, err := eng.Call(bounded(t), c.tool, json.RawMessage(c.params))
		if err != nil {
			t.Fatalf("%s: %v", c.params, err)
		}
		var s string
		_ = json.Unmarshal(got, &s)
		if c.tool == "wrapped" {
			if !strings.HasPrefix(s, "1:") && !strings.HasPrefix(s, "2:") || !strings.Contains(s, "sub") {
				t.Fatalf("%s: %q, want cd to fail on the missing sub", c.params, s)
			}
			continue
		}
		if s != c.want {
			t.Fatalf("%s:\n got %q\nwant %q", c.params, s, c.want)
		}
	}
	if err := os.Mkdir(ws+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := eng.Call(bounded(t), "wrapped", json.RawMessage(`{"command":"pwd"}`))
	if err != nil || string(got) != strconv.Quote("0:"+ws+"/sub\n") {
		t.Fatalf("wrapped pwd: %s %v", got, err)
	}
}

// non_positive: none reads a timeout of 0 or less (and an absent one, with a default of 0) as no timeout.
func TestNonPositiveNone(t *testing.T) {
	yaml := strings.Replace(textSpec, "timeout: {unit: s, default: 5, min: 0, max: 60, out_of_range: fail, expiry: kill,",
		"timeout: {unit: s, default: 0, non_positive: none, max: 60, out_of_range: fail, expiry: kill,", 1)
	eng, _ := newEngine(t, yaml)
	for _, params := range []string{`{"command":"sleep 0.3; echo done"}`, `{"command":"sleep 0.3; echo done","timeout":0}`, `{"command":"sleep 0.3; echo done","timeout":-1}`} {
		got, err := callText(t, eng, params)
		if err != nil || got != "done\n||0" {
			t.Fatalf("%s: %q %v", params, got, err)
		}
	}
	if got, err := callText(t, eng, `{"command":"sleep 30","timeout":0.2}`); err != nil || !strings.HasPrefix(got, "timeout|") {
		t.Fatalf("a positive timeout: %q %v", got, err)
	}
}

// WithShell replaces a persistent tool's shell, and goes before the program of an argv call: a host that
// stubs the shell runs nothing of the model's.
func TestWithShellAPIShapes(t *testing.T) {
	eng, _ := newEngine(t, argvSpec, runtime.WithShell("/bin/echo", "stub:"))
	got, err := eng.Call(bounded(t), "exec", json.RawMessage(`{"command":["printf","x"]}`))
	if err != nil || string(got) != strconv.Quote("0:stub: printf x\n") {
		t.Fatalf("argv: %s %v", got, err)
	}
	eng, _ = newEngine(t, persistentSpec, runtime.WithShell("/bin/true"))
	if got, err := callText(t, eng, `{"command":"echo hi"}`); err != nil || got != "exited 0" {
		t.Fatalf("persistent: %q %v", got, err)
	}
}
