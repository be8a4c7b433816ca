package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"mvdan.cc/sh/v3/shell"

	"github.com/agentbash/agentbash/runtime/sandbox"
)

// Every example `agentbash run -h` shows runs as shown: exit 0, a result on stdout, nothing on stderr, and
// what its comment says before the colon ("Read-only file system") in the result.
func TestRunExamplesWork(t *testing.T) {
	for _, ex := range runCmd.examples {
		t.Run(ex, func(t *testing.T) {
			line, comment, _ := strings.Cut(ex, "  # ")
			args, err := shell.Fields(line, nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(line, "-executor docker") {
				// The README's container section builds the image and runs it (docs/readme_test.go, make docker).
				t.Skip("needs a Docker Engine and the agentbash-box image: the README's container section runs it")
			}
			if strings.Contains(line, "-sandbox ") {
				c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
				if why := sandbox.Unavailable(c); why != "" {
					t.Skipf("this machine cannot sandbox %s: missing %s", c, why)
				}
			}
			// In a workspace of its own, with a directory above it that the test owns (../outside).
			dir := t.TempDir()
			ws := filepath.Join(dir, "ws")
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			args = append(args[:2], append([]string{"-workspace", ws}, args[2:]...)...)
			var o, e bytes.Buffer
			if code := Main(args, &o, &e); code != 0 || e.Len() > 0 || o.Len() == 0 {
				t.Fatalf("%q: exit %d, stdout %q, stderr %q", args, code, o.String(), e.String())
			}
			if want, _, ok := strings.Cut(comment, ":"); ok && !strings.Contains(o.String(), want) {
				t.Errorf("%q: the result does not say %q: %s", args, want, o.String())
			}
			if _, err := os.Stat(filepath.Join(dir, "outside")); err == nil {
				t.Errorf("%q wrote outside its workspace", args)
			}
		})
	}
}

// An error the tool raises for a call of the -- form that left out a required parameter is followed by how
// to send it: the parameters it lacked, with a -params line that sends them (and works). Any other error,
// and any error of a -params call, is printed alone.
func TestRunDashedHint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		args  []string
		hints []string // lines after the error, in order
	}{
		{
			name: "a required parameter left out",
			args: []string{"run", "codegensandbox", "--", "echo", `"it's"`},
			hints: []string{
				"agentbash run: the -- form sends only command; Bash also requires description: give every parameter with -params, as in",
				`  agentbash run codegensandbox -params '{"command":"echo \"it'\''s\"","description":"DESCRIPTION"}'`,
			},
		},
		{
			name: "every required parameter sent: the error alone",
			args: []string{"run", "tunacode", "--", "echo a; echo b"},
		},
		{
			name: "-params: the error alone",
			args: []string{"run", "codegensandbox", "-params", `{"command":"echo hi"}`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var o, e bytes.Buffer
			if code := Main(tc.args, &o, &e); code != 1 || o.Len() > 0 {
				t.Fatalf("exit %d, stdout %q, want 1 and nothing", code, o.String())
			}
			lines := strings.Split(strings.TrimSuffix(e.String(), "\n"), "\n")
			if !strings.HasPrefix(lines[0], `{"type":`) {
				t.Fatalf("the error is not first: %q", e.String())
			}
			if got := lines[1:]; strings.Join(got, "\n") != strings.Join(tc.hints, "\n") {
				t.Fatalf("after the error:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.hints, "\n"))
			}
			if len(tc.hints) == 2 {
				// The -params line the hint gives works.
				args, err := shell.Fields(strings.TrimPrefix(tc.hints[1], "  agentbash "), nil)
				if err != nil {
					t.Fatal(err)
				}
				o.Reset()
				e.Reset()
				if code := Main(args, &o, &e); code != 0 || e.Len() > 0 || !strings.Contains(o.String(), "it's") {
					t.Fatalf("%q: exit %d, stdout %q, stderr %q", args, code, o.String(), e.String())
				}
			}
		})
	}
}

// A text result that lacks a final newline gets one on a terminal, and none in a pipe or a file (the bytes
// as the host receives them).
func TestRunTextFinalNewline(t *testing.T) {
	t.Parallel()
	specFile := filepath.Join(t.TempDir(), "text.yaml")
	if err := os.WriteFile(specFile, []byte(`id: text
title: a text tool
source: {seed: none, repo: none/none, path: text.yaml}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: sh
    description: run
    params:
      - {name: command, type: string, required: true, role: command}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, command, tty, other string // what a terminal shows (onlcr), what a pipe gets
	}{
		{"no final newline", "printf hi", "hi\r\n", "hi"},
		{"a final newline", "echo hi", "hi\r\n", "hi\n"},
		{"empty", "true", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"run", specFile, "-workspace", t.TempDir(), "--", tc.command}
			ptm, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pty: %v", err)
			}
			defer ptm.Close()
			if code := Main(args, tty, io.Discard); code != 0 {
				t.Fatalf("exit %d", code)
			}
			tty.Close()
			got, err := io.ReadAll(ptm)
			var pe *os.PathError
			if err != nil && !(errors.As(err, &pe) && errors.Is(pe.Err, syscall.EIO)) {
				t.Fatal(err)
			}
			if string(got) != tc.tty {
				t.Errorf("on a terminal: %q, want %q", got, tc.tty)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if code := Main(args, w, io.Discard); code != 0 {
				t.Fatalf("exit %d", code)
			}
			w.Close()
			if got, _ := io.ReadAll(r); string(got) != tc.other {
				t.Errorf("in a pipe: %q, want %q", got, tc.other)
			}
		})
	}
}

func TestIsTerminal(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptm.Close()
	defer tty.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, tc := range []struct {
		name string
		w    io.Writer
		want bool
	}{
		{"a pty", tty, true},
		{"a pipe", w, false},
		{os.DevNull, null, false},
		{"a buffer", &bytes.Buffer{}, false},
	} {
		if got := isTerminal(tc.w); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
