package runtime_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

const carrySpec = `
id: carry
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    carry: [cwd, env]
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: cwd, type: string, role: workdir}
    timeout: {unit: s, default: 10, expiry: kill}
    workdir: {resolve_symlinks: true}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}{{.Stderr}}[{{.ExitCode}}]"}
        timeout: {text: "timeout"}
`

// TestCarry: a tool that carries cwd and env starts each command where the last one ended, with what it
// exported; a command that does not end by itself, or is not complete shell syntax, carries nothing; the
// exit status is the command's own; a working directory sent as a parameter wins.
func TestCarry(t *testing.T) {
	v, err := spec.Parse("carry.yaml", []byte(carrySpec))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	call := func(params map[string]any) string {
		t.Helper()
		raw, _ := json.Marshal(params)
		res, err := eng.Call(bounded(t), "bash", raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var s string
		if err := json.Unmarshal(res, &s); err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(s, ws, "/ws")
	}
	for i, c := range []struct {
		command, cwd, want string
	}{
		{command: "pwd", want: "/ws\n[0]"},
		{command: "mkdir -p a/b && cd a/b && export X=1 && Y=2", want: "[0]"},
		{command: `pwd; echo "$X:$Y"`, want: "/ws/a/b\n1:\n[0]"},
		{command: "cd ..; false", want: "[1]"},
		{command: "pwd", want: "/ws/a\n[0]"},
		{command: "cd b; exit 7", want: "[7]"}, // exit: nothing carried
		{command: "pwd", want: "/ws/a\n[0]"},
		{command: "unset X; export Z='two words'", want: "[0]"},
		{command: `echo "${X-unset} $Z"`, want: "unset two words\n[0]"},
		{command: "cd b; echo 'unclosed", want: ""}, // not complete syntax: run as sent, nothing carried
		{command: "pwd", want: "/ws/a\n[0]"},
		{command: "pwd", cwd: ".", want: "/ws\n[0]"}, // a working directory sent wins...
		{command: "pwd", want: "/ws\n[0]"},           // ...and is where that command ended
		{command: "kill -KILL $$", want: "[-9]"},
		{command: `env | grep -c '^AGENTBASH_RUN_'`, want: "1\n[0]"}, // a run's marker is not carried
		{command: "cd a && rmdir b && cd b", want: ""},
		{command: "cd /ws-gone-" + "x 2>/dev/null; pwd", want: "/ws/a\n[0]"},
	} {
		p := map[string]any{"command": strings.ReplaceAll(c.command, "/ws", ws)}
		if c.cwd != "" {
			p["cwd"] = c.cwd
		}
		got := call(p)
		if c.want == "" {
			continue // the text of a shell's syntax error is the shell's
		}
		if got != c.want {
			t.Errorf("%d: %s: %q, want %q", i, c.command, got, c.want)
		}
	}
	// The carried directory is gone: the next command starts in the workspace.
	if err := os.Remove(filepath.Join(ws, "a")); err != nil {
		t.Fatal(err)
	}
	if got := call(map[string]any{"command": "pwd"}); got != "/ws\n[0]" {
		t.Errorf("after the directory is gone: %q", got)
	}
}
