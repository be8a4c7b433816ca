package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
	"golang.org/x/sys/unix"
)

// The no-survivor tests: a command whose descendants leave the process group, or outlive the shell, leaves
// nothing alive once its call (or its background shell) is over. Each run sleeps for a unique duration,
// `sleep 1000.<random>`, so its processes are found in /proc by their command line.

// pollFor calls cond until it is true or 10 s have passed.
func pollFor(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for d := 100 * time.Microsecond; ; d = min(2*d, 20*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(d)
	}
}

// requireNoneAlive fails the test if a process with s in its command line is alive (after a bounded poll:
// the sweep SIGKILLed them before the call returned, the kernel may still be finishing them). After a
// failure it kills them (each pinned by a pidfd, its command line checked again) so that none outlives
// the test.
func requireNoneAlive(t *testing.T, s string) {
	t.Helper()
	if pollFor(func() bool { return len(proctest.WithCmdline(s)) == 0 }) {
		return
	}
	left := proctest.WithCmdline(s)
	t.Errorf("%d processes with %q survived: %v", len(left), s, left)
	for range 100 {
		for _, pid := range proctest.WithCmdline(s) {
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue
			}
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && bytes.Contains(b, []byte(s)) {
				_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
			_ = unix.Close(fd)
		}
		if len(proctest.WithCmdline(s)) == 0 {
			break
		}
	}
	t.FailNow()
}

// builtin returns an engine for a built-in variant on a fresh workspace.
func builtin(t *testing.T, id string) *runtime.Engine {
	t.Helper()
	v, err := variants.Spec(id)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// commandParams are the parameters of a call of v's first tool running command, with the description that
// codegensandbox requires (a Python tool refuses a keyword it does not declare).
func commandParams(v *spec.Variant, command string) map[string]any {
	p := map[string]any{"command": command}
	for _, pr := range v.Tools[0].Params {
		if pr.Name == "description" {
			p["description"] = "d"
		}
	}
	return p
}

// escapeCommands are the ways out of the process group; SLEEP is replaced by a unique sleep.
var escapeCommands = []struct{ name, command string }{
	{"setsid", "setsid sleep SLEEP & echo hi"},
	{"double fork", "( (sleep SLEEP &) & ); echo hi"},
	{"nohup", "nohup sleep SLEEP >/dev/null 2>&1 & echo hi"},
	{"setsid double fork", "setsid sh -c '(sleep SLEEP &) &'; echo hi"},
}

// TestNoSurvivor runs each escape 50 times through a one-shot engine (one engine per call, closed after
// it) and through a long-lived one, with the built-in variants in turn: nothing is left alive after any
// call.
func TestNoSurvivor(t *testing.T) {
	const runs = 50
	// tunacode and agentrail refuse these commands by policy (& and ;, setsid).
	ids := []string{"rye", "codegensandbox", "toolregistry"}
	tools := map[string]string{"rye": "bash", "codegensandbox": "Bash", "toolregistry": "bash"}
	for _, oneShot := range []bool{true, false} {
		for _, esc := range escapeCommands {
			t.Run(fmt.Sprintf("oneshot=%v/%s", oneShot, esc.name), func(t *testing.T) {
				engines := map[string]*runtime.Engine{}
				for i := range runs {
					id := ids[i%len(ids)]
					eng := engines[id]
					if oneShot || eng == nil {
						v, err := variants.Spec(id)
						if err != nil {
							t.Fatal(err)
						}
						if eng, err = runtime.New(v, runtime.WithWorkspace(t.TempDir())); err != nil {
							t.Fatal(err)
						}
						if !oneShot {
							engines[id] = eng
							defer eng.Close()
						}
					}
					mark := proctest.UniqueSleep()
					params, _ := json.Marshal(commandParams(eng.Variant(), strings.ReplaceAll(esc.command, "SLEEP", mark)))
					res, err := eng.Call(bounded(t), tools[id], params)
					if oneShot {
						eng.Close()
					}
					if err != nil || !bytes.Contains(res, []byte("hi")) {
						t.Errorf("run %d (%s): %s, %v", i, id, res, err)
					}
					requireNoneAlive(t, mark)
				}
			})
		}
	}
}

// timeoutSpec has a foreground tool with a timeout in milliseconds and a background tool.
const timeoutSpec = `
id: t
title: test
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c], grace: 10s}
background: {ids: uuid, stream_limit: 65536}
tools:
  - name: run
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: timeout, type: integer, role: timeout}
      - {name: bg, type: boolean, role: background}
    timeout: {unit: ms, default: 10000, expiry: kill}
    results:
      format: text
      cases:
        exit: {text: "exit {{.ExitCode}}|{{.Stdout}}"}
        timeout: {text: "timeout|{{.Stdout}}"}
        background: {text: "{{.ShellID}}"}
  - name: kill
    description: d
    kind: kill
    params:
      - {name: shell_id, type: string, required: true, role: shell_id}
    results:
      format: text
      cases:
        ok: {text: "killed"}
`

// TestNoSurvivorAtKill: an escaped process is killed when the call times out, when its context is
// cancelled, when its background shell exits, is killed, or is left running when the engine closes.
func TestNoSurvivorAtKill(t *testing.T) {
	v, err := spec.Parse("test.yaml", []byte(timeoutSpec))
	if err != nil {
		t.Fatal(err)
	}
	newEng := func(t *testing.T) *runtime.Engine {
		eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eng.Close() })
		return eng
	}
	escape := func(mark string) string { return "setsid sleep " + mark + " & sleep 30" }

	t.Run("timeout", func(t *testing.T) {
		eng := newEng(t)
		mark := proctest.UniqueSleep()
		// The escapee tells the shell it is out of the group before the timeout can kill the shell.
		cmd := "mkfifo f; setsid sh -c 'echo > f; exec sleep " + mark + "' & read _ < f; sleep 30"
		got, err := call(t, eng, "run", map[string]any{"command": cmd, "timeout": 300})
		if err != nil || !strings.HasPrefix(got, "timeout|") {
			t.Errorf("got %q, %v", got, err)
		}
		requireNoneAlive(t, mark)
	})
	t.Run("cancel", func(t *testing.T) {
		eng := newEng(t)
		mark := proctest.UniqueSleep()
		ctx, cancel := context.WithCancel(bounded(t))
		done := make(chan error, 1)
		go func() {
			_, err := eng.Call(ctx, "run", json.RawMessage(`{"command":"`+escape(mark)+`"}`))
			done <- err
		}()
		if !pollFor(func() bool { return len(proctest.Escaped(mark)) > 0 }) {
			cancel()
			t.Fatal("the escapee never left the group")
		}
		cancel()
		if err := <-done; err != context.Canceled {
			t.Fatalf("Call = %v, want context.Canceled", err)
		}
		requireNoneAlive(t, mark)
	})
	t.Run("background exits", func(t *testing.T) {
		eng := newEng(t)
		mark := proctest.UniqueSleep()
		id, err := call(t, eng, "run", map[string]any{"command": "setsid sleep " + mark + " & echo hi", "bg": true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eng.WaitShell(bounded(t), id); err != nil {
			t.Fatal(err)
		}
		requireNoneAlive(t, mark)
	})
	t.Run("background killed", func(t *testing.T) {
		eng := newEng(t)
		mark := proctest.UniqueSleep()
		id, err := call(t, eng, "run", map[string]any{"command": escape(mark), "bg": true})
		if err != nil {
			t.Fatal(err)
		}
		if !pollFor(func() bool { return len(proctest.Escaped(mark)) > 0 }) {
			t.Fatal("the escapee never left the group")
		}
		if got, err := call(t, eng, "kill", map[string]any{"shell_id": id}); err != nil || got != "killed" {
			t.Fatalf("kill: %q, %v", got, err)
		}
		requireNoneAlive(t, mark)
	})
	t.Run("engine closed", func(t *testing.T) {
		eng := newEng(t)
		mark := proctest.UniqueSleep()
		if _, err := call(t, eng, "run", map[string]any{"command": escape(mark), "bg": true}); err != nil {
			t.Fatal(err)
		}
		if !pollFor(func() bool { return len(proctest.Escaped(mark)) > 0 }) {
			t.Fatal("the escapee never left the group")
		}
		eng.Close()
		requireNoneAlive(t, mark)
	})
}

// TestEscapedHolderDoesNotTimeOut is issue 14's codegensandbox case: with a 2 s timeout, `setsid sleep 100
// & sleep 0.3; echo hi` is a shell that exits 0 at 0.3 s. Its escaped child held the output pipe past the
// timeout, and the call answered "timed out after 2s", "exit: 124"; the escapee is now killed at the
// shell's exit, so the answer is the shell's own.
func TestEscapedHolderDoesNotTimeOut(t *testing.T) {
	eng := builtin(t, "codegensandbox")
	mark := proctest.UniqueSleep()
	start := time.Now()
	got, err := call(t, eng, "Bash", map[string]any{
		"command": "setsid sleep " + mark + " & sleep 0.3; echo hi", "description": "d", "timeout": 2,
	})
	took := time.Since(start)
	if err != nil || got != "hi\n" {
		t.Errorf("got %q, %v; want the shell's own answer %q", got, err, "hi\n")
	}
	if took >= 2*time.Second {
		t.Errorf("answered after %v: the escapee held the pipe", took)
	}
	requireNoneAlive(t, mark)
}
