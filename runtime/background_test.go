package runtime_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
)

// bgSpec is a tool set sharing a background registry: run (optionally in the background), poll, kill.
const bgSpec = `
id: bg
title: background
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c], grace: 200ms}
background:
  ids: uuid
  stream_limit: 1048576
  poll: %s
  max_live: 60
  retain: 3
  limit_error: {type: ToolError, message: "too many shells (max {{.Max}})"}
  unknown_id: {type: ToolError, message: "unknown shell_id: {{.ID}}"}
tools:
  - name: run
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: bg, type: boolean, role: background}
    results:
      format: text
      cases:
        exit: {text: "{{.Output}}"}
        background: {text: "{{.ShellID}}"}
    output: {capture: combined, decode: raw, sanitize: per_byte}
  - name: poll
    description: d
    kind: poll
    params:
      - {name: shell_id, type: string, required: true, role: shell_id}
    checks:
      - {not_empty: shell_id, fail: {type: ToolError, message: shell_id is required}}
    results:
      format: text
      cases:
        ok: {text: "{{if .Running}}running{{else}}exit {{.ExitCode}}{{end}}|{{.StdoutKept}}/{{.StdoutBytes}}{{if .StdoutTruncated}} T{{end}}|{{.Stdout}}|{{.Stderr}}"}
  - name: kill
    description: d
    kind: kill
    params:
      - {name: shell_id, type: string, required: true, role: shell_id}
    results:
      format: text
      cases:
        ok: {text: "killed: {{.ShellID}}"}
`

func bgEngine(t *testing.T, poll string) (*runtime.Engine, string) {
	return newEngine(t, fmt.Sprintf(bgSpec, poll))
}

func call(t *testing.T, eng *runtime.Engine, tool string, params any) (string, error) {
	t.Helper()
	raw, _ := json.Marshal(params)
	res, err := eng.Call(bounded(t), tool, raw)
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(res, &s); err != nil {
		t.Fatalf("not a text result: %s", res)
	}
	return s, nil
}

func start(t *testing.T, eng *runtime.Engine, command string) string {
	t.Helper()
	id, err := call(t, eng, "run", map[string]any{"command": command, "bg": true})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// gate is a fifo a background command blocks on until the test opens it for writing.
func gate(t *testing.T, dir string) (path string, release func()) {
	t.Helper()
	path = filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}

func TestBackgroundLifecycle(t *testing.T) {
	eng, ws := bgEngine(t, "all")
	fifo, release := gate(t, ws)
	id := start(t, eng, "echo first; echo warn >&2; cat "+fifo+"; echo last; exit 3")

	// Poll while running: wait (bounded) until both streams' first lines are there (two pipes, so they
	// arrive independently); the command then blocks on the gate.
	var got string
	waitFor(t, func() bool {
		got, _ = call(t, eng, "poll", map[string]any{"shell_id": id})
		return strings.Contains(got, "first") && strings.Contains(got, "warn")
	})
	if got != "running|6/6|first\n|warn\n" {
		t.Fatalf("poll while running = %q", got)
	}
	release()
	if _, err := eng.WaitShell(bounded(t), id); err != nil {
		t.Fatal(err)
	}
	got, _ = call(t, eng, "poll", map[string]any{"shell_id": id})
	if got != "exit 3|11/11|first\nlast\n|warn\n" {
		t.Fatalf("poll after completion = %q", got)
	}
	// poll: all returns the whole buffer again.
	if again, _ := call(t, eng, "poll", map[string]any{"shell_id": id}); again != got {
		t.Fatalf("second poll = %q", again)
	}
}

func TestBackgroundPollNew(t *testing.T) {
	eng, ws := bgEngine(t, "new")
	fifo, release := gate(t, ws)
	id := start(t, eng, "echo one; cat "+fifo+"; echo two")
	waitFor(t, func() bool {
		s, _ := eng.Shell(id)
		return s.Stdout == "one\n"
	})
	if got, _ := call(t, eng, "poll", map[string]any{"shell_id": id}); got != "running|4/4|one\n|" {
		t.Fatalf("first poll = %q", got)
	}
	release()
	if _, err := eng.WaitShell(bounded(t), id); err != nil {
		t.Fatal(err)
	}
	if got, _ := call(t, eng, "poll", map[string]any{"shell_id": id}); got != "exit 0|8/8|two\n|" {
		t.Fatalf("second poll = %q", got)
	}
	if got, _ := call(t, eng, "poll", map[string]any{"shell_id": id}); got != "exit 0|8/8||" {
		t.Fatalf("third poll = %q", got)
	}
}

func TestBackgroundKillEndsTheGroup(t *testing.T) {
	eng, _ := bgEngine(t, "all")
	id := start(t, eng, "sleep 30 & echo $!; exec sleep 31")
	var child int
	waitFor(t, func() bool {
		s, _ := eng.Shell(id)
		child, _ = strconv.Atoi(strings.TrimSpace(s.Stdout))
		return child > 0
	})
	sh, _ := eng.Shell(id)
	begin := time.Now()
	got, err := call(t, eng, "kill", map[string]any{"shell_id": id})
	if err != nil || got != "killed: "+id {
		t.Fatalf("kill = %q, %v", got, err)
	}
	if el := time.Since(begin); el > 5*time.Second {
		t.Fatalf("kill took %v: the processes ended by themselves", el)
	}
	waitGone(t, child)
	waitGone(t, sh.Pid)
	if n := groupMembers(sh.Pid); n != 0 {
		t.Fatalf("%d processes of group %d left", n, sh.Pid)
	}
	if _, err := call(t, eng, "poll", map[string]any{"shell_id": id}); !isToolError(err, "unknown shell_id: "+id) {
		t.Fatalf("poll after kill: %v", err)
	}
}

func TestBackgroundIDs(t *testing.T) {
	eng, _ := bgEngine(t, "all")
	for _, tt := range []struct {
		tool, id, want string
	}{
		{"poll", "", "shell_id is required"},
		{"poll", "nope", "unknown shell_id: nope"},
		{"kill", "nope", "unknown shell_id: nope"},
	} {
		if _, err := call(t, eng, tt.tool, map[string]any{"shell_id": tt.id}); !isToolError(err, tt.want) {
			t.Errorf("%s(%q): %v, want %q", tt.tool, tt.id, err, tt.want)
		}
	}
}

func TestBackgroundStreamCap(t *testing.T) {
	eng, _ := bgEngine(t, "all")
	id := start(t, eng, "head -c 3000000 /dev/zero | tr '\\0' a")
	s, err := eng.WaitShell(bounded(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Stdout) != 1048576 || s.StdoutBytes != 3000000 || !s.StdoutTruncated {
		t.Fatalf("kept %d of %d, truncated %v", len(s.Stdout), s.StdoutBytes, s.StdoutTruncated)
	}
	got, _ := call(t, eng, "poll", map[string]any{"shell_id": id})
	if !strings.HasPrefix(got, "exit 0|1048576/3000000 T|aaa") {
		t.Fatalf("poll = %.60q", got)
	}
}

// Fifty shells at once, all running, then Close: every process reaped, no goroutine left.
func TestBackgroundManyAndClose(t *testing.T) {
	before := goruntime.NumGoroutine()
	eng, ws := bgEngine(t, "all")
	fifo, _ := gate(t, ws)
	var wg sync.WaitGroup
	ids := make([]string, 50)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = start(t, eng, "cat "+fifo)
		}()
	}
	wg.Wait()
	shells := eng.Shells()
	if len(shells) != 50 {
		t.Fatalf("%d shells registered", len(shells))
	}
	for _, s := range shells {
		if !s.Running {
			t.Fatalf("shell %s not running", s.ID)
		}
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range shells {
		waitGone(t, s.Pid)
	}
	waitFor(t, func() bool { return goruntime.NumGoroutine() <= before })
}

func TestBackgroundLimit(t *testing.T) {
	eng, _ := newEngine(t, strings.Replace(fmt.Sprintf(bgSpec, "all"), "max_live: 60", "max_live: 2", 1))
	start(t, eng, "sleep 30")
	start(t, eng, "sleep 30")
	if _, err := call(t, eng, "run", map[string]any{"command": "sleep 30", "bg": true}); !isToolError(err, "too many shells (max 2)") {
		t.Fatalf("third start: %v", err)
	}
}

// Completed shells beyond the retain limit are dropped oldest first.
func TestBackgroundRetain(t *testing.T) {
	eng, _ := bgEngine(t, "all")
	var ids []string
	for i := 0; i < 5; i++ {
		id := start(t, eng, "echo "+strconv.Itoa(i))
		if _, err := eng.WaitShell(bounded(t), id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	waitFor(t, func() bool { return len(eng.Shells()) == 3 })
	for i, id := range ids {
		_, ok := eng.Shell(id)
		if ok != (i >= 2) {
			t.Errorf("shell %d retained = %v", i, ok)
		}
	}
}

func isToolError(err error, msg string) bool {
	var te *runtime.ToolError
	return errors.As(err, &te) && te.Message == msg
}

// waitFor polls a condition with a deadline: for states the OS or the engine offer no event for.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// groupMembers counts live processes in a process group, from /proc.
func groupMembers(pgid int) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	n := 0
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			n++
		}
	}
	return n
}
