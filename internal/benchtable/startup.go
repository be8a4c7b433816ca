package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// startupGap is the cause of the start-up target's gap, with the figures that show it.
const startupGap = "Start-up ≤ 3x an empty Go program is not met: the floor is the binary's own start. " +
	"What was ours to cut is cut: a built-in spec starts as a Go value compiled at generate time " +
	"(variants/builtins_gen.go: no YAML, schema or Complete at start; about 1.5 ms before), and the masks' and " +
	"checks' expressions compile on first use. What stays is the floor of the libraries the binary links: " +
	"the JSON Schema validator (santhosh-tekuri/jsonschema/v6, the library the spec language is validated with) " +
	"compiles five drafts' meta-schemas in its package init, in every process (the row \"a program that only " +
	"links the validator\"), and the row `agentbash version` is the same binary doing nothing: the Go runtime's " +
	"start of a 24 MB binary and the initialisation of the packages that serve, gen and conformance link (the " +
	"MCP SDK with google/jsonschema-go and encoding/gob, net/http and crypto, yaml v3 and v4, jennifer). What " +
	"`run` adds to it is the call (the row against a Go program that only spawns). The run fails past 8x."

// tools are the helper programs the sections build on first use, by package.
var tools = map[string]string{}

// tool builds a helper program of this module (./internal/benchtable/NAME) into the run's directory once.
func (e *env) tool(name string) (string, error) {
	if bin, ok := tools[name]; ok {
		return bin, nil
	}
	bin := filepath.Join(e.dir, name)
	if out, err := exec.Command("go", "build", "-o", bin, "./internal/benchtable/"+name).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", name, err, out)
	}
	tools[name] = bin
	return bin, nil
}

// linksModule reports whether the binary links a package of module mod (go version -m lists the modules
// whose packages it holds).
func linksModule(bin, mod string) (bool, error) {
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		return false, fmt.Errorf("go version -m %s: %v", bin, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "dep" && f[1] == mod {
			return true, nil
		}
	}
	return false, nil
}

func startup(e *env) ([]*row, error) {
	run := []string{e.agentbash, "run", "rye", "--", "true"}
	spawnonly, err := e.tool("spawnonly")
	if err != nil {
		return nil, err
	}
	meds, err := interleave(e.startRounds,
		wallOf(e.workspace, run...),
		wallOf(e.workspace, e.empty),
		wallOf(e.workspace, e.validator),
		wallOf(e.workspace, "/bin/sh", "-c", "true"),
		wallOf(e.workspace, e.agentbash, "version"),
		wallOf(e.workspace, spawnonly),
	)
	if err != nil {
		return nil, err
	}
	ours, empty, validator, sh, version, spawn := meds[0], meds[1], meds[2], meds[3], meds[4], meds[5]
	const validatorModule = "github.com/santhosh-tekuri/jsonschema/v6"
	linked, err := linksModule(e.agentbash, validatorModule)
	if err != nil {
		return nil, err
	}
	linkedText := "no"
	if linked {
		linkedText = "yes (its init is in every start: the row above)"
	}
	rows := []*row{
		(&row{measure: code("agentbash run rye -- true") + ", whole process", figure: ms(ours),
			baseline: "empty Go program " + ms(empty), ratio: ours / empty}).
			judge(ours/empty, limit{max: 3, text: "≤ 3x", gap: startupGap, bound: 8}),
		{measure: code("agentbash version") + " (the same binary, no call)", figure: ms(version),
			baseline: "empty Go program " + ms(empty), ratio: version / empty},
		{measure: code("agentbash run rye -- true") + " against the same binary doing nothing", figure: ms(ours),
			baseline: code("agentbash version") + " " + ms(version), ratio: ours / version},
		{measure: code("agentbash run rye -- true") + " against a Go program that only spawns", figure: ms(ours),
			baseline: "os/exec " + code("sh -c true") + ", both streams captured, " + ms(spawn), ratio: ours / spawn},
		{measure: "a program that only links the JSON Schema validator", figure: ms(validator),
			baseline: "empty Go program " + ms(empty), ratio: validator / empty},
		{measure: "agentbash links the JSON Schema validator (" + code("go version -m") + ")", figure: linkedText},
		{measure: code("agentbash run rye -- true") + " against a shell", figure: ms(ours),
			baseline: code("sh -c true") + " " + ms(sh), ratio: ours / sh},
	}

	// 32 processes started at once: a host that starts one per call.
	meds, err = interleave(max(3, e.startRounds/5),
		func() (float64, error) { d, err := runConcurrently(32, e.workspace, run...); return seconds(d), err },
		func() (float64, error) {
			d, err := runConcurrently(32, e.workspace, "/bin/sh", "-c", "true")
			return seconds(d), err
		},
	)
	if err != nil {
		return nil, err
	}
	rows = append(rows, &row{measure: "32 `agentbash run rye -- true` at once", figure: ms(meds[0]),
		baseline: "32 `sh -c true` at once " + ms(meds[1]), ratio: meds[0] / meds[1]})

	// A 1 s timeout: when does the answer come?
	var answers []float64
	for range 3 {
		r, err := runProcess(e.workspace, e.agentbash, "run", "rye", "-params", `{"command":"sleep 5","timeout":1}`)
		if err != nil {
			return nil, err
		}
		answers = append(answers, seconds(r.wall))
	}
	a := median(answers)
	rows = append(rows, (&row{measure: "rye, `sleep 5` with a 1 s timeout: the answer, whole process", figure: secs(a),
		baseline: "the timeout 1.00 s + start-up " + ms(ours), ratio: a / (1 + ours)}).
		judge(a-1-ours, limit{max: 0.05, text: "≤ 50 ms after timeout + start-up"}))
	return rows, nil
}
