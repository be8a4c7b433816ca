package gen

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
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
		if got := goName(c.in); got != c.want {
			t.Errorf("goName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func fields(names ...string) []spec.Field {
	var fs []spec.Field
	for _, n := range names {
		fs = append(fs, spec.Field{Name: n, Type: "string", Value: "x"})
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
				ls = append(ls, labelled{label: string(rune('A' + i)), fields: fields(l...)})
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
		{label: "exit", fields: []spec.Field{{Name: "ok", Type: "boolean", Value: "x"}, {Name: "code", Type: "integer", Value: "x"}}},
		{label: "timeout", fields: []spec.Field{{Name: "ok", Type: "boolean", Const: false}, {Name: "code", Type: "string", Const: "T"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || !ms[0].always || ms[0].typ != "boolean" || ms[0].isConst {
		t.Errorf("ok: %+v", ms[0])
	}
	if ms[1].typ != "json" || strings.Join(ms[1].conflict, ",") != "integer,string" {
		t.Errorf("code: %+v", ms[1])
	}
	_, err = mergeFields([]labelled{{fields: []spec.Field{{Name: "a_b", Type: "string", Value: "x"}, {Name: "aB", Type: "string", Value: "x"}}}})
	if err == nil || !strings.Contains(err.Error(), "both become Go field AB") {
		t.Errorf("collision: %v", err)
	}
}

func TestTagValue(t *testing.T) {
	cases := []struct {
		typ  string
		v    any
		want string
	}{
		{"integer", 120, "120"},
		{"integer", 30000.0, "30000"},
		{"number", 0.5, "0.5"},
		{"number", 2, "2"},
		{"boolean", true, "true"},
		{"string", "a,b", `a\,b`},
		{"string", "k=v", "k=v"},
	}
	for _, c := range cases {
		if got, err := tagValue(c.typ, c.v); err != nil || got != c.want {
			t.Errorf("tagValue(%s, %v) = %q, %v; want %q", c.typ, c.v, got, err, c.want)
		}
	}
	if _, err := tagValue("integer", "x"); err == nil {
		t.Error("a string default for an integer was accepted")
	}
}

func TestWrap(t *testing.T) {
	long := strings.Repeat("word ", 40)
	got := wrap("First line.\n\n" + long + "\nuse ``None`` here")
	lines := strings.Split(got, "\n")
	if lines[0] != "// First line." || lines[1] != "//" {
		t.Errorf("paragraphs: %q", lines[:2])
	}
	for _, l := range lines {
		if len(l) > 103 {
			t.Errorf("line too long (%d): %q", len(l), l)
		}
	}
	if last := lines[len(lines)-1]; last != "// use `None` here" {
		t.Errorf("last line %q", last)
	}
}

// specYAML is a valid spec whose first tool's results are replaced by results (indented for the tool).
func specYAML(params, results string) string {
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

func TestGenerateErrors(t *testing.T) {
	cases := []struct {
		name, params, results, want string
		cfg                         Config
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
			want: "both become Go field Command",
		},
		{
			name: "error kind takes a generated name",
			results: `      format: text
      cases:
        exit: {raise: {type: Tool, message: x}}
`,
			want: "both need the Go name Tool",
		},
		{
			name: "spec outside the package",
			results: `      format: text
      cases:
        exit: {text: x}
`,
			cfg:  Config{SpecFile: "../t.yaml"},
			want: "must be inside the output's directory",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := spec.Parse("t.yaml", []byte(specYAML(c.params, c.results)))
			if err != nil {
				t.Fatalf("spec does not load: %v", err)
			}
			cfg := c.cfg
			if cfg.SpecFile == "" {
				cfg.SpecFile = "t.yaml"
			}
			_, err = Generate(v, cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestCollectKinds(t *testing.T) {
	v, err := spec.Load("testdata/golden/text/text.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range collectKinds(v) {
		got = append(got, k.kind+"="+k.goName)
	}
	// ModelRetry from invalid_param and the checks; the raised timeout; OSError: no spawn_error case.
	if want := "ModelRetry=ModelRetry OSError=OSError ToolTimeoutError=ToolTimeoutError"; strings.Join(got, " ") != want {
		t.Errorf("kinds %q, want %q", strings.Join(got, " "), want)
	}
}
