package runtime_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hostSpec is a spec with shell.wrap (a guard and a trap that reports background jobs), ANSI stripping,
// binary sniffing and an idle timeout of {{idle}} seconds.
const hostSpec = `
id: t
title: test
source: {seed: none, repo: none/none, path: none}
shell:
  argv: [/bin/bash, -c]
  grace: 300ms
  wrap:
    pids_file: true
    command: |-
      shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file={{shquote .PidsFile}}
      (
        trap 'jobs -p > "$_bgpids_file"' EXIT
      {{trim .Command}}
      )
      __code=$?
      exit $__code
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    timeout: {unit: s, default: IDLE, expiry: kill, idle: IDLEFLAG}
    output:
      capture: combined
      decode: replace
      strip_ansi: true
      binary: {sample: 512}
    results:
      format: text
      cases:
        exit: {text: "{{.Output}}|{{.ExitCode}}|{{.Binary}}|{{len .BackgroundPids}}{{range .BackgroundPids}} {{.}}{{end}}"}
        timeout: {text: "timeout|{{.Output}}"}
`

func hostEngineSpec(idle string, on bool) string {
	return strings.NewReplacer("IDLEFLAG", strconv.FormatBool(on), "IDLE", idle).Replace(hostSpec)
}

func TestHostWrapAndOutput(t *testing.T) {
	eng, _ := newEngine(t, hostEngineSpec("20", true))
	tests := []struct {
		name, command, want string
	}{
		{"plain", `echo hi`, "hi\n|0|false|0"},
		{"trimmed and guarded", "\n  shopt extglob | cut -f2; exit 3  \n", "off\n|3|false|0"},
		{"ansi", `printf '\033[1;31mred\033[0m \033]0;title\007plain\n'`, "red plain\n|0|false|0"},
		{"binary", `printf 'x\0y'`, "|0|true|0"},
		{"not binary", `printf 'x\001y'`, "x\x01y|0|false|0"},
		{"pids file is not the output", `cat "$_bgpids_file"; echo`, "\n|0|false|0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := callText(t, eng, `{"command":`+strconv.Quote(tt.command)+`}`)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The jobs a command leaves running are reported (.BackgroundPids), killed with the group, and the run's
// directory is removed.
func TestHostWrapBackgroundPids(t *testing.T) {
	eng, _ := newEngine(t, hostEngineSpec("20", true))
	got, err := callText(t, eng, `{"command":"sleep 30 & sleep 31 & echo \"$_bgpids_file\""}`)
	if err != nil {
		t.Fatal(err)
	}
	file, rest, _ := strings.Cut(got, "\n")
	f := strings.Fields(strings.TrimPrefix(rest, "|0|false|"))
	if len(f) != 3 || f[0] != "2" {
		t.Fatalf("got %q: want two background pids", got)
	}
	for _, p := range f[1:] {
		pid, err := strconv.Atoi(p)
		if err != nil {
			t.Fatalf("pid %q in %q", p, got)
		}
		waitGone(t, pid)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("pids file %s still there (%v)", file, err)
	}
	// One file per run, made where it is named: no directory of its own to make and remove on every call.
	if dir := filepath.Dir(file); dir != filepath.Clean(os.TempDir()) {
		t.Fatalf("pids file %s is in %s, not the temporary directory %s", file, dir, os.TempDir())
	}
}

// An idle timeout starts again at every output: a command that writes every 0.3 s runs past a 1 s idle
// timeout, and one that goes quiet is killed with its output so far; without idle the first one times out.
func TestIdleTimeout(t *testing.T) {
	const ticking = `{"command":"for i in 1 2 3 4 5 6 7 8; do echo $i; sleep 0.3; done"}`
	tests := []struct {
		name   string
		idle   bool
		params string
		want   string
	}{
		{"ticking, idle", true, ticking, "1\n2\n3\n4\n5\n6\n7\n8\n|0|false|0"},
		{"quiet, idle", true, `{"command":"echo a; sleep 30"}`, "timeout|a\n"},
		{"ticking, not idle", false, ticking, "timeout|1\n2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng, _ := newEngine(t, hostEngineSpec("1", tt.idle))
			got, err := callText(t, eng, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.idle {
				// Where the timeout lands among the lines depends on the machine's load: it lands before the end.
				if !strings.HasPrefix(got, "timeout|1\n") {
					t.Fatalf("got %q, want a timeout", got)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// waitSpec starts commands in the background and waits for them (tools[0].wait), 300 ms by default.
const waitSpec = `
id: t
title: test
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/bash, -c], grace: 300ms}
background: {ids: pid, stream_limit: 4096}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: bg, type: boolean, role: background}
      - {name: delay, type: integer, role: yield}
    wait: {unit: ms, default: 300, max: 5000}
    results:
      format: text
      cases:
        exit: {text: "exit {{.ExitCode}}"}
        background: {text: "{{if .Running}}running{{else}}ended {{.ExitCode}}{{end}}: {{.Stdout}}"}
`

// A start in the background answers after its wait with the output so far, or with the exit of a command
// that ended within it; without the wait it answers at once, running.
func TestBackgroundWait(t *testing.T) {
	tests := []struct {
		name, params, want string
		spec               string
	}{
		{"running", `{"command":"echo a; sleep 5","bg":true}`, "running: a\n", waitSpec},
		{"ended within the wait", `{"command":"echo b; exit 4","bg":true,"delay":3000}`, "ended 4: b\n", waitSpec},
		{"negative delay is none", `{"command":"sleep 0.5; echo late","bg":true,"delay":-10}`, "running: ", waitSpec},
		{"no wait block", `{"command":"echo c; exit 4","bg":true}`, "running: ",
			strings.Replace(strings.Replace(waitSpec, "    wait: {unit: ms, default: 300, max: 5000}\n", "", 1),
				"      - {name: delay, type: integer, role: yield}\n", "", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng, _ := newEngine(t, tt.spec)
			got, err := callText(t, eng, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
