package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/sandbox"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// builtins are the variants every per-variant section measures: every built-in.
var builtins = variants.IDs()

// callGap is the cause of the per-call target's gap.
const callGap = "A call ≤ 1.1x `exec.Command(...).Run()` is not met when the machine is busy. `Run()` leaves both streams " +
	"to /dev/null; a call captures both (two pipes, read by two goroutines: the row \"both streams captured\" is " +
	"that cost alone) and contains the run (`runtime/proc`): where a cgroup can be made, the run starts in a " +
	"cgroup of its own (clone3 into it; at the end cgroup.kill and its removal), else its process group is " +
	"killed and the host's own descendants (it is a child subreaper) are swept for the run's marker; neither " +
	"depends on the machine's other processes, but each is a few system calls Run() does not make, and on a " +
	"busy 2-core machine the ratio moves. The run fails past 1.6x."

// calls times one trivial call (`true`) through a long-lived engine of each variant against Go's own
// os/exec of the same shell (`/bin/sh -c true`, or the variant's shell), in blocks interleaved with it.
func calls(e *env) ([]*row, error) {
	type subject struct {
		name, baseName string
		call, base     func() error
	}
	var subjects []subject
	type wrapSubject struct {
		id, bareName  string
		bare, wrapped func() error
	}
	var wraps []wrapSubject
	ctx := context.Background()
	for _, id := range builtins {
		v, err := variants.Spec(id)
		if err != nil {
			return nil, err
		}
		eng, err := runtime.New(v, runtime.WithWorkspace(e.workspace))
		if err != nil {
			return nil, err
		}
		defer eng.Close()
		t := &v.Tools[0]
		params, _ := json.Marshal(commandParams(t, "true"))
		argv := append(append([]string{}, v.Shell.Argv...), "true")
		s := subject{
			name:     id,
			baseName: "os/exec " + code(strings.Join(argv, " ")),
			call: func() error {
				_, err := eng.Call(ctx, t.Name, params)
				return err
			},
			base: func() error { return exec.Command(argv[0], argv[1:]...).Run() },
		}
		if w := v.Shell.Wrap; w != nil && !v.Shell.Embedded {
			// The host runs its wrap of the command (shell.wrap: gemini-cli's subshell with an EXIT trap,
			// a fork more than the command alone), so the baseline runs the same text; the wrap's own
			// cost is the row against the bare shell.
			wrapped, err := wrapText(w, "true", e.dir)
			if err != nil {
				return nil, err
			}
			bare := s.base
			wargv := append(append([]string{}, v.Shell.Argv...), wrapped)
			s.baseName = "os/exec " + code(strings.Join(v.Shell.Argv, " ")) + " with the host's wrap of `true`"
			s.base = func() error { return exec.Command(wargv[0], wargv[1:]...).Run() }
			wraps = append(wraps, wrapSubject{id: id, bareName: "os/exec " + code(strings.Join(argv, " ")), bare: bare, wrapped: s.base})
		}
		subjects = append(subjects, s)
	}
	block := func(f func() error) func() (float64, error) {
		return func() (float64, error) {
			start := time.Now()
			for range e.callBlock {
				if err := f(); err != nil {
					return 0, err
				}
			}
			return seconds(time.Since(start)) / float64(e.callBlock), nil
		}
	}
	var fs []func() (float64, error)
	for _, s := range subjects {
		fs = append(fs, block(s.call), block(s.base))
	}
	captured := func() error {
		var out, errb bytes.Buffer
		cmd := exec.Command("/bin/sh", "-c", "true")
		cmd.Stdout, cmd.Stderr = &out, &errb
		return cmd.Run()
	}
	fs = append(fs, block(captured), block(func() error { return exec.Command("/bin/true").Run() }))
	// The sandbox's cost: rye's call with the sandbox on beside the same call without it. Calls follow
	// each other at once, so the helper the sandbox starts ahead for the next call (runtime/sandbox)
	// competes with the call for the CPU, as it would not between a model's calls.
	sbx := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	missing := sandbox.Check().Missing(sbx, os.Geteuid() == 0)
	if len(missing) == 0 {
		v, err := variants.Spec(sandboxedID)
		if err != nil {
			return nil, err
		}
		on, err := runtime.New(v, runtime.WithWorkspace(e.workspace), runtime.WithSandbox(sbx))
		if err != nil {
			return nil, err
		}
		defer on.Close()
		t := &v.Tools[0]
		params, _ := json.Marshal(commandParams(t, "true"))
		fs = append(fs, block(func() error {
			_, err := on.Call(ctx, t.Name, params)
			return err
		}))
	}
	wrapAt := len(fs)
	for _, w := range wraps {
		fs = append(fs, block(w.wrapped), block(w.bare))
	}
	meds, err := interleave(e.callRounds, fs...)
	if err != nil {
		return nil, err
	}
	var rows []*row
	for i, s := range subjects {
		ours, base := meds[2*i], meds[2*i+1]
		rows = append(rows, (&row{measure: s.name + ": `true`", figure: ms(ours), baseline: s.baseName + " " + ms(base), ratio: ours / base}).
			judge(ours/base, limit{max: 1.1, text: "≤ 1.1x", gap: callGap, bound: 1.6}))
	}
	for i, w := range wraps {
		wrapped, bare := meds[wrapAt+2*i], meds[wrapAt+2*i+1]
		rows = append(rows, &row{measure: w.id + ": its host's wrap of `true` (shell.wrap), os/exec", figure: ms(wrapped),
			baseline: w.bareName + " " + ms(bare), ratio: wrapped / bare})
	}
	n := 2 * len(subjects)
	rows = append(rows,
		&row{measure: "os/exec `/bin/sh -c true`, both streams captured", figure: ms(meds[n]), baseline: "uncaptured " + ms(meds[1]), ratio: meds[n] / meds[1]},
		&row{measure: "os/exec `/bin/true` (a fork and an exec, no shell)", figure: ms(meds[n+1])})
	measure := sandboxedID + ", sandboxed call (" + sbx.String() + "): `true`"
	if len(missing) > 0 {
		var names []string
		for _, st := range missing {
			names = append(names, string(st.Mechanism))
		}
		return append(rows, &row{measure: measure, figure: "not measured: this machine lacks " + strings.Join(names, ", ")}), nil
	}
	plain := meds[2*slices.Index(builtins, sandboxedID)]
	on := meds[n+2]
	rows = append(rows, (&row{measure: measure, figure: ms(on), baseline: "unsandboxed " + ms(plain), ratio: on / plain}).
		judge((on-plain)*1e3, limit{max: 2, text: "≤ +2 ms"}))
	return rows, nil
}

// wrapText is shell.wrap's text for command as the runtime renders it, with a pids file in dir (made
// empty, as the runtime makes one per run).
func wrapText(w *spec.CommandWrap, command, dir string) (string, error) {
	t, err := spec.ParseTemplate("wrap", w.Command)
	if err != nil {
		return "", err
	}
	d := &spec.Data{Command: command}
	if w.PidsFile {
		d.PidsFile = filepath.Join(dir, "bench-bgpids.tmp")
		if err := os.WriteFile(d.PidsFile, nil, 0o600); err != nil {
			return "", err
		}
	}
	return spec.Execute(t, d)
}

// sandboxedID is the variant whose call is timed with the sandbox on (runtime/sandbox).
const sandboxedID = "rye"

// commandParams are the parameters of a call of command through t: the command (a tool that takes a
// program and its arguments gets /bin/sh -c and the command; a tool that takes a list of commands, a list
// of one), and a word for any other required string (a description).
func commandParams(t *spec.Tool, command string) map[string]any {
	p := map[string]any{}
	if name, value, ok := t.CommandArg(command); ok {
		p[name] = value
	}
	for _, q := range t.Params {
		if q.Required && q.Type == spec.TypeString && p[q.Name] == nil {
			p[q.Name] = "bench"
		}
	}
	return p
}

// runArgv is the `agentbash run` command line of a call of command through variant id's first tool.
func runArgv(bin, id, command string) ([]string, error) {
	v, err := variants.Spec(id)
	if err != nil {
		return nil, err
	}
	params, err := json.Marshal(commandParams(&v.Tools[0], command))
	if err != nil {
		return nil, err
	}
	return []string{bin, "run", id, "-params", string(params)}, nil
}
