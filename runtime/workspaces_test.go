package runtime_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
)

const workspacesSpec = `
id: workspaces
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: workspace, type: string, role: workspace}
    workspaces:
      trim: true
      unknown: {type: ToolError, message: "unknown workspace {{goquote .Name}}; configured: {{.Configured}}"}
      ambiguous: {type: ToolError, message: "{{.Max}} workspaces ({{.Configured}}): pass workspace"}
    timeout: {unit: s, default: 10, expiry: kill}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}"}
        timeout: {text: "timeout"}
`

// TestWorkspaces: with several named workspaces (WithWorkspaces), the workspace parameter picks the
// directory a command runs in; a name no workspace has, or none when several are configured, fails with
// the spec's texts; one workspace is the default when it is alone. Bad configurations are refused by New.
func TestWorkspaces(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := os.WriteFile(filepath.Join(d, "name"), []byte(filepath.Base(d)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	two, _ := newEngine(t, workspacesSpec, runtime.WithWorkspaces(runtime.Workspace{Name: "alpha", Dir: a}, runtime.Workspace{Name: "beta", Dir: b}))
	one, _ := newEngine(t, workspacesSpec, runtime.WithWorkspaces(runtime.Workspace{Name: "only", Dir: b}))
	for _, c := range []struct {
		name    string
		eng     *runtime.Engine
		params  string
		want    string // the text, or the error's message
		wantErr bool
	}{
		{"alpha", two, `{"command":"cat name","workspace":"alpha"}`, filepath.Base(a), false},
		{"beta trimmed", two, `{"command":"cat name","workspace":" beta "}`, filepath.Base(b), false},
		{"unknown", two, `{"command":"cat name","workspace":"gamma"}`, `unknown workspace "gamma"; configured: alpha, beta`, true},
		{"ambiguous", two, `{"command":"cat name"}`, `2 workspaces (alpha, beta): pass workspace`, true},
		{"single default", one, `{"command":"cat name"}`, filepath.Base(b), false},
		{"single named", one, `{"command":"cat name","workspace":"only"}`, filepath.Base(b), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := callText(t, c.eng, c.params)
			if c.wantErr {
				var te *runtime.ToolError
				if !errors.As(err, &te) || te.Message != c.want {
					t.Fatalf("got %q, %v; want the error %q", got, err, c.want)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestWorkspacesRefused(t *testing.T) {
	d := t.TempDir()
	for _, c := range []struct {
		name string
		ws   []runtime.Workspace
		want string
	}{
		{"no name", []runtime.Workspace{{Name: "", Dir: d}}, "workspace 1 has no name"},
		{"twice", []runtime.Workspace{{Name: "a", Dir: d}, {Name: "a", Dir: d}}, `workspace "a" is named twice`},
		{"no dir", []runtime.Workspace{{Name: "a"}}, `workspace "a" has no directory`},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng, err := runtime.New(parseSpec(t, workspacesSpec), runtime.WithWorkspaces(c.ws...))
			if err == nil {
				eng.Close()
				t.Fatalf("New accepted %v", c.ws)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}
