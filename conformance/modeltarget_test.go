package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/conformance/model"
	"github.com/agentbash/agentbash/conformance/model/modeltest"
	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/internal/proctest"
)

// The test binary doubles as a host CLI (modeltest.FakeHost): started as `<test binary> model-fakehost
// FLAGS`, it holds a conversation with the model and runs each tool call with this module's runtime.
func init() {
	if len(os.Args) >= 2 && os.Args[1] == "model-fakehost" {
		os.Exit(modeltest.FakeHost(os.Args[2:]))
	}
}

// fakeHostTarget is the model target of the fake host on a variant.
func fakeHostTarget(api model.API, mode, variant string, more ...string) *target.ModelTarget {
	v, _ := loadAny(variant)
	var tools []string
	for _, t := range v.Tools {
		tools = append(tools, t.Name)
	}
	argv := append([]string{os.Args[0], "model-fakehost", "-api", string(api), "-base", "{base_url}", "-mode", mode, "-variant", variant}, more...)
	return &target.ModelTarget{API: api, Argv: argv, Tools: tools}
}

// The suite plays the model to a host of each API and mode, which runs the tools with this module's
// runtime: every case of the variant passes (sessions, a step repeated as parallel tool calls, raised
// errors with and without an error flag, JSON and text results), in batch mode (one host start) and in
// a start per case.
func TestModelTarget(t *testing.T) {
	cases := []struct {
		api     model.API
		mode    string
		variant string
		perCase bool
		more    []string
		only    []string // the cases run (default: all)
		rotates bool     // the conversation outgrows the model target's maxHistory: more than one host start
	}{
		{api: model.Anthropic, mode: "sse", variant: "codex", more: []string{"-side"}},
		{api: model.Anthropic, mode: "whole", variant: "rye"},
		{api: model.OpenAIResponses, mode: "sse", variant: "codex", more: []string{"-side"}, only: codexFew},
		{api: model.OpenAIResponses, mode: "whole", variant: "toolregistry"},
		{api: model.OpenAIChat, mode: "sse", variant: "agentrail", more: []string{"-side"}, rotates: true},
		{api: model.OpenAIChat, mode: "whole", variant: "tunacode", perCase: true},
		{api: model.Gemini, mode: "sse", variant: "codegensandbox", more: []string{"-side"}},
		{api: model.Gemini, mode: "array", variant: "rye", more: []string{"-noids"}},
		{api: model.Gemini, mode: "whole", variant: "codex", only: codexFew},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%s/%s/%s", tc.api, tc.mode, tc.variant)
		if tc.perCase {
			name += "/per-case"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := mustVariant(t, tc.variant)
			target := fakeHostTarget(tc.api, tc.mode, tc.variant, tc.more...)
			target.PerCase = tc.perCase
			if tc.rotates {
				target.Record = t.TempDir()
			}
			opts := []Option{Trusted(), TimeScale(timeScale)}
			if tc.perCase {
				opts = append(opts, Parallel(4))
			}
			if tc.only != nil {
				opts = append(opts, onlyCases(tc.only...))
			}
			r, err := Check(context.Background(), v, target, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if !r.OK() || r.Passed == 0 {
				t.Fatalf("%s", r.Summary())
			}
			for _, w := range r.Warnings {
				t.Errorf("warning: %s", w)
			}
			if tc.rotates {
				starts, _ := filepath.Glob(filepath.Join(target.Record, "host-*"))
				if len(starts) < 2 {
					t.Errorf("%d host starts: the conversation was not cut past the model target's history bound", len(starts))
				}
			}
			t.Logf("%d passed, %d skipped in %s", r.Passed, r.Skipped, time.Duration(r.ElapsedMS)*time.Millisecond)
		})
	}
}

// codexFew are codex's cases of a conversation with a session, a step of 63 parallel calls, raised errors
// and a timeout (the whole battery runs on one API: the others would only repeat its sleeps).
var codexFew = []string{"exec_command/stdout only", "exec_command/session: a read answered through stdin",
	"exec_command/session: the limit", "write_stdin/unknown session id", "exec_command/command of the wrong type",
	"shell_command/timeout with partial output (1000ms)", "shell_command/missing command"}

// onlyCases keeps the cases named.
func onlyCases(names ...string) Option {
	return Filter(func(c Case) bool {
		for _, n := range names {
			if c.Name == n {
				return true
			}
		}
		return false
	})
}

// A host that dies or hangs before it sends a result fails that case, with the end of its stderr; its
// whole process tree is killed (a child it put in a session of its own too), and the next case gets a
// fresh host, which passes. The record has every request and each call with its case and result.
func TestModelTargetHostFailures(t *testing.T) {
	cases := []struct {
		name, flag, want string
	}{
		{"dies", "-die-after", "ended (exit status 3) before it sent the result"},
		{"hangs", "-hang-after", "killed the host"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := mustVariant(t, "rye")
			sleep := proctest.UniqueSleep()
			record := t.TempDir()
			target := fakeHostTarget(model.OpenAIChat, "sse", "rye", tc.flag, "2", "-child", sleep)
			target.Record = record
			order := Filter(func(c Case) bool {
				return c.Name == "bash/stdout only" || c.Name == "bash/stderr only" || c.Name == "bash/non-zero exit"
			})
			r, err := Check(context.Background(), v, target, order, Deadline(3*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			st := statusOf(r)
			if st["bash/stdout only"].Status != Pass || st["bash/non-zero exit"].Status != Pass {
				t.Errorf("the cases before and after the host's end: %s", r.Summary())
			}
			failed := st["bash/stderr only"]
			if failed.Status != Fail || !strings.Contains(failed.Reason, tc.want) || !strings.Contains(failed.Reason, "fakehost: ") {
				t.Errorf("the case the host ended in: %s: %s", failed.Status, failed.Reason)
			}
			if !proctest.Poll(5*time.Second, func() bool { return len(proctest.WithCmdline(sleep)) == 0 }) {
				t.Errorf("the host's child %q outlived it: pids %v", sleep, proctest.WithCmdline(sleep))
			}
			lines := readLines(t, filepath.Join(record, "calls.jsonl"))
			if len(lines) != 2 {
				t.Fatalf("calls.jsonl: %q", lines)
			}
			var call struct {
				Host   int             `json:"host"`
				Case   string          `json:"case"`
				Params json.RawMessage `json:"params"`
				Text   string          `json:"text"`
			}
			if err := json.Unmarshal([]byte(lines[1]), &call); err != nil || call.Case != "bash/non-zero exit" || call.Host != 2 || !strings.Contains(call.Text, "exit_code") {
				t.Errorf("the second call's record: %s (%v)", lines[1], err)
			}
			for _, f := range []string{"host-001/host.json", "host-001/stderr.txt", "host-001/0001-v1_chat_completions.request.json", "host-002/host.json"} {
				if _, err := os.Stat(filepath.Join(record, f)); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
