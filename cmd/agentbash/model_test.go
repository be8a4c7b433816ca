package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/conformance/model/modeltest"
)

// The test binary doubles as a host CLI for -model (modeltest.FakeHost).
func init() {
	if len(os.Args) >= 2 && os.Args[1] == "model-fakehost" {
		os.Exit(modeltest.FakeHost(os.Args[2:]))
	}
}

// `agentbash conformance ID -model API -- HOST-ARGV`: the suite plays the model to a host (the fake host,
// which runs the tools with this module's runtime) in each API; the host's config file is written from a
// template with the placeholders replaced (the host reads its base URL from it), -tool maps the names, and
// -record keeps each call with its case.
func TestConformanceModel(t *testing.T) {
	for _, tc := range []struct {
		api     string
		perCase bool
	}{{"anthropic", false}, {"openai-responses", true}, {"openai-chat", false}, {"gemini", false}} {
		t.Run(tc.api, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tmpl := filepath.Join(dir, "config.tmpl")
			os.WriteFile(tmpl, []byte("{base_url}"), 0o644)
			record := filepath.Join(dir, "record")
			args := []string{"rye", "-model", tc.api, "-time-scale", timeScale, "-tool", "bash=xbash",
				"-host-file", "cfg/base.txt=" + tmpl, "-record", record, "-run", "^bash/(stdout only|non-zero exit|missing command)$"}
			if tc.perCase {
				args = append(args, "-host-per-case", "-parallel", "2")
			}
			// The host reads its base URL from the file the template made ($HOME/cfg/base.txt), and names
			// rye's tool xbash.
			args = append(args, "--", "/bin/sh", "-c", `exec "$0" model-fakehost -api "$1" -base "$(cat "$HOME/cfg/base.txt")" -variant rye -prefix x -mode whole`,
				os.Args[0], tc.api)
			var out, errb bytes.Buffer
			code := cmdConformance(args, &out, &errb)
			m := countsLine.FindStringSubmatch(out.String())
			if code != 0 || m == nil || m[1] != "3" || m[2] != "0" {
				t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
			}
			lines := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(record, "calls.jsonl"))), "\n")
			if len(lines) != 3 {
				t.Fatalf("calls.jsonl: %q", lines)
			}
			var call struct {
				Case, Tool string
			}
			json.Unmarshal([]byte(lines[0]), &call)
			if call.Tool != "xbash" || !strings.HasPrefix(call.Case, "bash/") {
				t.Errorf("calls.jsonl: %s", lines[0])
			}
		})
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Without -tool, the same host passes: the calls reach its tool and the answers are the reference's.
func TestConformanceModelPasses(t *testing.T) {
	var out, errb bytes.Buffer
	code := cmdConformance([]string{"codex", "-model", "openai-responses", "-time-scale", timeScale, "-run", "^exec_command/(stdout only|session: a read answered through stdin|missing command)$",
		"--", os.Args[0], "model-fakehost", "-api", "openai-responses", "-base", "{base_url}", "-variant", "codex"}, &out, &errb)
	m := countsLine.FindStringSubmatch(out.String())
	if code != 0 || m == nil || m[1] != "3" || m[2] != "0" {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
}

func TestConformanceModelUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an unknown API", []string{"rye", "-model", "claude", "--", "x"}, `unknown model API "claude"`},
		{"-model and -mcp", []string{"rye", "-model", "anthropic", "-mcp", "--", "x"}, "give one target"},
		{"-host-file without -model", []string{"rye", "-host-file", "a=" + os.Args[0], "--", "x"}, "for a -model target"},
		{"-record without -model", []string{"rye", "-record", "d", "--", "x"}, "for a -model target"},
		{"a missing template", []string{"rye", "-model", "gemini", "-host-file", "a=/nonexistent/t", "--", "x"}, "no such file"},
		{"a bad -host-file", []string{"rye", "-model", "gemini", "-host-file", "a", "--", "x"}, "want PATH=TEMPLATE"},
		{"no host command", []string{"rye", "-model", "gemini", "--", "A=b"}, "no host command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := cmdConformance(tc.args, &out, &errb)
			if code == 0 || !strings.Contains(errb.String()+out.String(), tc.want) {
				t.Errorf("exit %d, want an error with %q:\n%s%s", code, tc.want, out.String(), errb.String())
			}
		})
	}
}
