package runtime_test

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// A spec may select the embedded shell (mvdan.cc/sh/v3/interp) for hosts with no shell binary; the same
// checks, captures, timeouts and results apply.
func TestEmbeddedShell(t *testing.T) {
	eng, _ := newEngine(t, strings.Replace(textSpec, "shell: {argv: [/bin/sh, -c], grace: 300ms}", "shell: {embedded: true, grace: 300ms}", 1))
	for _, tt := range []struct{ name, params, want string }{
		{"stdout", `{"command":"echo hi"}`, "hi\n||0"},
		{"stderr and exit", `{"command":"echo oops >&2; exit 3"}`, "|oops\n|3"},
		{"pipeline and builtins", `{"command":"for i in 1 2 3; do echo $i; done | tr -d '\\n'"}`, "123||0"},
		{"truncation", `{"command":"printf 0123456789AB"}`, "0123456789[+2]||0"},
		{"env", `{"command":"printf \"$AB_X\"","env":{"AB_X":"y"}}`, "y||0"},
		{"stdin closed", `{"command":"cat; echo done"}`, "done\n||0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := callText(t, eng, tt.params)
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	start := time.Now()
	got, err := callText(t, eng, `{"command":"sleep 30","timeout":0.3}`)
	if err != nil || !strings.HasPrefix(got, "timeout|") {
		t.Fatalf("timeout: got %q, %v", got, err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("timeout took %v", el)
	}
}

// An empty command in the embedded shell is an empty script: it runs nothing and exits 0, as sh -c does
// with an empty script (not a start error for a run with neither a script nor a program).
func TestEmbeddedEmptyCommand(t *testing.T) {
	eng, _ := newEngine(t, `
id: e
title: embedded
source: {seed: none, repo: none/none, path: none}
shell: {embedded: true}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}|{{.Stderr}}|{{.ExitCode}}"}
`)
	for _, cmd := range []string{"", " ", "\n"} {
		got, err := callText(t, eng, `{"command":`+strconv.Quote(cmd)+`}`)
		if err != nil || got != "||0" {
			t.Errorf("%q: got %q, %v; want an empty run exiting 0", cmd, got, err)
		}
	}
}
