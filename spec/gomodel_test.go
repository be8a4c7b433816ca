package spec

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestGoName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"command", "Command"},
		{"exit_code", "ExitCode"},
		{"shell_id", "ShellID"},
		{"pid", "PID"},
		{"working-directory", "WorkingDirectory"},
		{"BashOutput", "BashOutput"},
		{"runInBackground", "RunInBackground"},
		{"timeout_ms", "TimeoutMs"},
		{"OSError", "OSError"},
		{"pydantic_ai.ModelRetry", "PydanticAiModelRetry"},
		{"utf8", "UTF8"},
		{"2fa", "X2fa"},
		{"", "X"},
		{"ID", "ID"},
	}
	for _, c := range cases {
		if got := GoName(c.in); got != c.want {
			t.Errorf("GoName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func fields(names ...string) []Field {
	var fs []Field
	for _, n := range names {
		fs = append(fs, Field{Name: n, Type: "string", Value: "x"})
	}
	return fs
}

func TestMergeOrder(t *testing.T) {
	cases := []struct {
		name  string
		lists [][]string
		want  string // joined order, or "error"
	}{
		{"one list", [][]string{{"a", "b", "c"}}, "a b c"},
		{"subsequences", [][]string{{"success", "output", "exit_code"}, {"success", "error", "timeout"}, {"success", "error"}}, "success output exit_code error timeout"},
		{"a later case inserts before", [][]string{{"a", "c"}, {"a", "b", "c"}}, "a b c"},
		{"disjoint", [][]string{{"x"}, {"y"}}, "x y"},
		{"conflict", [][]string{{"a", "b"}, {"b", "a"}}, "error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ls []labelled
			for i, l := range c.lists {
				ls = append(ls, labelled{label: Outcome(rune('A' + i)), fields: fields(l...)})
			}
			order, err := mergeOrder(ls)
			got := strings.Join(order, " ")
			if err != nil {
				got = "error"
			}
			if got != c.want {
				t.Errorf("got %q (%v), want %q", got, err, c.want)
			}
		})
	}
}

func TestMergeFields(t *testing.T) {
	ms, err := mergeFields([]labelled{
		{label: "exit", fields: []Field{{Name: "ok", Type: "boolean", Value: "x"}, {Name: "code", Type: "integer", Value: "x"}}},
		{label: "timeout", fields: []Field{{Name: "ok", Type: "boolean", Const: false}, {Name: "code", Type: "string", Const: "T"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || !ms[0].Always || ms[0].Type != TypeBoolean || ms[0].IsConst {
		t.Errorf("ok: %+v", ms[0])
	}
	if ms[1].Type != TypeJSON || fmt.Sprint(ms[1].Conflict) != "[integer string]" {
		t.Errorf("code: %+v", ms[1])
	}
	_, err = mergeFields([]labelled{{fields: []Field{{Name: "a_b", Type: "string", Value: "x"}, {Name: "aB", Type: "string", Value: "x"}}}})
	if err == nil || !strings.Contains(err.Error(), "both become Go field AB") {
		t.Errorf("collision: %v", err)
	}
}

// specYAML is a valid spec whose first tool's results are replaced by results (indented for the tool).
func toolSpec(params, results string) string {
	if params == "" {
		params = "      - {name: command, type: string, required: true, role: command}\n"
	}
	return `id: t
title: T
source: {seed: none, repo: x/y, path: z}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
` + params + `    results:
` + results
}

// TestGoModelErrors: what a generated adapter could not express fails in the loader, with a position.
func TestGoModelErrors(t *testing.T) {
	cases := []struct {
		name, params, results, want string
	}{
		{
			name: "fields ordered two ways",
			results: `      format: json
      cases:
        success: {fields: [{name: a, type: string, value: x}, {name: b, type: string, value: x}]}
        failure: {fields: [{name: b, type: string, value: x}, {name: a, type: string, value: x}]}
`,
			want: "cases order fields",
		},
		{
			name: "discriminator is not a const",
			results: `      format: json
      union: true
      discriminator: mode
      cases:
        exit: {fields: [{name: mode, type: string, value: "{{.Command}}"}]}
`,
			want: "mode is not a const",
		},
		{
			name: "discriminator missing",
			results: `      format: json
      union: true
      discriminator: details.mode
      cases:
        exit: {fields: [{name: details, type: object, fields: [{name: kind, type: string, const: a}]}]}
`,
			want: "no field mode",
		},
		{
			name: "one discriminator, two names",
			results: `      format: json
      union: true
      discriminator: mode
      cases:
        success: {name: Done, fields: [{name: mode, type: string, const: fg}]}
        failure: {name: Failed, fields: [{name: mode, type: string, const: fg}]}
`,
			want: "are named both",
		},
		{
			name:   "parameters collide",
			params: "      - {name: command, type: string, required: true, role: command}\n      - {name: Command, type: string}\n",
			results: `      format: text
      cases:
        exit: {text: x}
`,
			want: "both become the Go field Command",
		},
		{
			name: "error kind takes a generated name",
			results: `      format: text
      cases:
        exit: {raise: {type: Tool, message: x}}
`,
			want: "both need the Go name Tool in a generated adapter",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(toolSpec(c.params, c.results)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
			// Every such error names the position of the part of the spec at fault.
			if err != nil && !regexp.MustCompile(`^t\.yaml:\d+:\d+: `).MatchString(err.Error()) {
				t.Errorf("error names no position: %v", err)
			}
		})
	}
}
