package spec_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// hintSpec has a parameter with an enum, one the suite must not vary, and a conformance block; the cases
// below break one thing each.
const hintSpec = `id: hints
title: Hints
shell: {argv: [/bin/sh, -c]}
sessions: {}
conformance:
  fixed: [shell, start.origin]
  poll: read
tools:
  - name: start
    description: Start.
    kind: session_start
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: shell, type: string}
      - {name: origin, type: string, enum: [user, agent], default: agent}
    session:
      yield: {default: 1000}
    results:
      format: text
      cases:
        running: {text: "{{.SessionID}}"}
        exit: {text: "{{trim .Output}}"}
  - name: read
    description: Read.
    kind: session_read
    params:
      - {name: id, type: integer, required: true, role: session_id}
    session:
      yield: {default: 250}
    results:
      format: text
      cases:
        running: {text: "{{.Output}}"}
        exit: {text: "{{.Output}}"}
`

func TestConformanceAndEnumChecks(t *testing.T) {
	v, err := spec.Parse("ok.yaml", []byte(hintSpec))
	if err != nil {
		t.Fatalf("the base spec: %v", err)
	}
	start := &v.Tools[0]
	for _, tc := range []struct {
		param string
		fixed bool
	}{{"shell", true}, {"origin", true}, {"command", false}} {
		if got := v.Conformance.IsFixed(start, tc.param); got != tc.fixed {
			t.Errorf("IsFixed(start, %s) = %v, want %v", tc.param, got, tc.fixed)
		}
	}
	if (*spec.Conformance)(nil).IsFixed(start, "shell") {
		t.Error("no conformance block fixes a parameter")
	}
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(start.InputSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	if got := schema.Properties["origin"].Enum; strings.Join(got, ",") != "user,agent" {
		t.Errorf("the model sees the enum %q, want [user agent]", got)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"enum on an integer", "{name: origin, type: string, enum: [user, agent], default: agent}", "{name: origin, type: integer, enum: [user, agent]}", "tools[0].params[2].enum: enum applies to string parameters, not integer"},
		{"a default outside the enum", "default: agent}", "default: robot}", `tools[0].params[2].default: default "robot" is not one of the enum's values`},
		{"an empty enum", "enum: [user, agent]", "enum: []", "enum"},
		{"an enum value twice", "enum: [user, agent]", "enum: [user, user]", "enum"},
		{"fixed names nothing", "fixed: [shell, start.origin]", "fixed: [shell, read.origin]", `conformance.fixed[1]: fixed: "read.origin" names no parameter (param, or tool.param)`},
		{"a read poll without a read tool", "kind: session_read", "kind: session_kill", "conformance.poll: poll: read needs a session_read tool"},
		{"an unknown poll", "poll: read", "poll: peek", "poll"},
		{"a required fixed parameter without a value", "{name: shell, type: string}", "{name: shell, type: string, required: true}", "conformance.fixed[0]: fixed: start.shell is required: give it a default or an enum, for the suite to send"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(hintSpec, tc.old) {
				t.Fatalf("the base spec has no %q", tc.old)
			}
			_, err := spec.Parse("bad.yaml", []byte(strings.Replace(hintSpec, tc.old, tc.new, 1)))
			if err == nil {
				t.Fatal("loaded without error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%v\ndoes not say %q", err, tc.want)
			}
		})
	}
}
