package runtime_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
)

// issuesSpec collects every problem of a call's parameters into one failure (tool issues).
const issuesSpec = `id: t
title: test
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: timeout, type: number, role: timeout}
      - {name: mode, type: string, enum: [a, b]}
      - {name: quiet, type: boolean}
    ISSUES
    null_params: invalid
    invalid_param:
      type: InvalidInput
      message: '{{len .Issues}} {{.Param}}:{{range .Issues}} {{.Kind}}/{{.Param}}/{{.Type}}/{{pytype .Value}}{{end}}'
    unknown_params: {type: Unknown, message: "unknown {{.Param}}"}
    timeout: {unit: s, default: 5, expiry: kill}
    results:
      format: text
      cases:
        exit: {text: "{{.Stdout}}"}
        timeout: {text: "timeout"}
`

func TestIssues(t *testing.T) {
	collect := "issues: {order: [missing, unknown, type]}"
	for _, tc := range []struct {
		name, issues, params string
		errType, want        string
	}{
		{"every issue, kinds in order", collect, `{"zz":1,"timeout":"x","quiet":null,"mode":"c","yy":true}`,
			"InvalidInput", "6 command: missing/command/string/NoneType unknown/zz//int unknown/yy//bool type/timeout/number/str type/quiet/boolean/NoneType value/mode/string/str"},
		{"default order", "issues: {}", `{"zz":1,"command":3,"mode":"c"}`,
			"InvalidInput", "3 zz: unknown/zz//int type/command/string/int value/mode/string/str"},
		{"one issue", collect, `{"command":"echo hi","zz":1}`, "InvalidInput", "1 zz: unknown/zz//int"},
		{"first only without issues", "", `{"zz":1,"timeout":"x"}`, "Unknown", "unknown zz"},
		{"first only without issues, types", "", `{"command":"echo hi","timeout":"x","quiet":1}`, "InvalidInput", "0 timeout:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, _ := newEngine(t, strings.Replace(issuesSpec, "ISSUES", tc.issues, 1))
			_, err := callText(t, eng, tc.params)
			var te *runtime.ToolError
			if !errors.As(err, &te) {
				t.Fatalf("err %v, want a %s", err, tc.errType)
			}
			if te.Type != tc.errType || te.Message != tc.want {
				t.Errorf("got %s %q\nwant %s %q", te.Type, te.Message, tc.errType, tc.want)
			}
		})
	}
	// With no issue the call runs.
	eng, _ := newEngine(t, strings.Replace(issuesSpec, "ISSUES", collect, 1))
	if got, err := callText(t, eng, `{"command":"echo ok","mode":"a"}`); err != nil || got != "ok\n" {
		t.Errorf("a valid call: %q, %v", got, err)
	}
}
