package runtime_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/sandbox"
	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate"
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
// exit status is the command's own; a working directory sent as a parameter wins. The same holds under a
// workspace-write sandbox, which lets the shell write its state files and nothing else outside the
// workspace.
func TestCarry(t *testing.T) {
	for _, c := range []sandbox.Config{{}, {Mode: sandbox.WorkspaceWrite}} {
		t.Run("sandbox "+c.String(), func(t *testing.T) {
			var opts []runtime.Option
			if c.Mode != sandbox.Off {
				requireSandbox(t, c)
				opts = append(opts, runtime.WithSandbox(c))
			}
			testCarry(t, opts...)
		})
	}
}

func testCarry(t *testing.T, opts ...runtime.Option) {
	v, err := spec.Parse("carry.yaml", []byte(carrySpec))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	eng, err := runtime.New(v, append(opts, runtime.WithWorkspace(ws))...)
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

// TestCarryReadOnly: a read-only sandbox lets the shell carry its directory and environment (the runtime's
// own state files are the only files it may write) while the command itself writes nothing.
func TestCarryReadOnly(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.ReadOnly}
	requireSandbox(t, c)
	v, err := spec.Parse("carry.yaml", []byte(carrySpec))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(ws), runtime.WithSandbox(c))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for i, tc := range []struct{ command, want string }{
		{"cd a/b && export X=1", "[0]"},
		{`pwd; echo "$X"`, "/ws/a/b\n1\n[0]"},
		{"touch f 2>/dev/null; echo $?", "1\n[0]"},
		{"cd ..", "[0]"},
		{"pwd", "/ws/a\n[0]"},
	} {
		raw, _ := json.Marshal(map[string]any{"command": tc.command})
		res, err := eng.Call(bounded(t), "bash", raw)
		if err != nil {
			t.Fatalf("%s: %v", tc.command, err)
		}
		var got string
		if err := json.Unmarshal(res, &got); err != nil {
			t.Fatal(err)
		}
		if got = strings.ReplaceAll(got, ws, "/ws"); got != tc.want {
			t.Errorf("%d: %s: %q, want %q", i, tc.command, got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "a", "b", "f")); !os.IsNotExist(err) {
		t.Errorf("a read-only command wrote f: %v", err)
	}
}
