package runtime_test

import (
	"encoding/json"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// TestOmitZero: a field marked omit_zero is left out when its value is zero (0, "", false), as
// JavaScript's JSON.stringify drops an undefined property, and written otherwise; the fields around it
// keep their order and their commas.
func TestOmitZero(t *testing.T) {
	v, err := spec.Parse("omit.yaml", []byte(`
id: omit
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    timeout: {unit: s, default: 10, expiry: kill}
    results:
      format: json
      cases:
        exit:
          fields:
            - {name: code, type: integer, value: "{{.ExitCode}}", omit_zero: true}
            - {name: out, type: string, value: "{{.Stdout}}", omit_zero: true}
            - {name: ok, type: boolean, value: "{{.Success}}", omit_zero: true}
            - {name: last, type: string, value: "end"}
        timeout:
          fields:
            - {name: timed_out, type: boolean, value: "true"}
`))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, c := range []struct{ command, want string }{
		{"true", `{"ok":true,"last":"end"}`},
		{"printf x; exit 3", `{"code":3,"out":"x","last":"end"}`},
		{"exit 1", `{"code":1,"last":"end"}`},
		{"printf y", `{"out":"y","ok":true,"last":"end"}`},
	} {
		raw, _ := json.Marshal(map[string]string{"command": c.command})
		res, err := eng.Call(bounded(t), "bash", raw)
		if err != nil || string(res) != c.want {
			t.Errorf("%s: %s, %v; want %s", c.command, res, err, c.want)
		}
	}
}
