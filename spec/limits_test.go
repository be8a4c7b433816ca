package spec_test

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// A number parameter's limits (minimum, exclusive_minimum, maximum) are shown to the model as the
// schema's keywords, integers written whole; on a parameter that is not a number they are an error.
func TestParamLimits(t *testing.T) {
	const base = `id: limits
title: limits
source: {seed: none, repo: example/agent, path: bash.ts, commit: "0000000", language: typescript}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: Runs a command.
    params:
      - {name: command, type: string, required: true, role: command}
      - name: timeout
        type: %s
        minimum: -9007199254740991
        exclusive_minimum: 0
        maximum: 9007199254740991
    results: {format: text, cases: {exit: {text: "{{.Output}}"}}}
`
	v, err := spec.Parse("limits.yaml", []byte(strings.Replace(base, "%s", "integer", 1)))
	if err != nil {
		t.Fatal(err)
	}
	got := string(v.Tools[0].InputSchema())
	want := `"timeout":{"type":"integer","minimum":-9007199254740991,"exclusiveMinimum":0,"maximum":9007199254740991}`
	if !strings.Contains(got, want) {
		t.Errorf("schema %s\nwant it to hold %s", got, want)
	}
	_, err = spec.Parse("limits.yaml", []byte(strings.Replace(base, "%s", "string", 1)))
	for _, key := range []string{"minimum", "exclusive_minimum", "maximum"} {
		if err == nil || !strings.Contains(err.Error(), key+" applies to numbers, not string") {
			t.Errorf("a string parameter with %s: %v", key, err)
		}
	}
}
