package main

import (
	"bytes"
	"flag"
	"runtime/debug"
	"strings"
	"testing"
)

// commandPaths lists every command and subcommand as typed: ["run"], ["spec", "validate"], ...
func commandPaths() [][]string {
	var out [][]string
	for _, c := range allCommands() {
		out = append(out, []string{c.name})
		for _, s := range c.subs {
			out = append(out, strings.Fields(s.name))
		}
	}
	return out
}

// Every command and subcommand answers -h, -help, --help and `help ...` with the same text on stdout and
// exit 0: its one-line description, its usage, an example, and every flag its flag set defines.
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	for _, path := range commandPaths() {
		t.Run(strings.Join(path, " "), func(t *testing.T) {
			run := func(args ...string) (int, string, string) {
				var o, e bytes.Buffer
				code := Main(args, &o, &e)
				return code, o.String(), e.String()
			}
			code, help, stderr := run(append(path, "-h")...)
			if code != 0 || stderr != "" {
				t.Fatalf("%s -h: exit %d, stderr %q", path, code, stderr)
			}
			c := findCommand(path)
			if c.summary == "" || len(c.usage) == 0 {
				t.Fatalf("%s has no summary or usage", path)
			}
			if !strings.HasPrefix(help, "agentbash "+strings.Join(path, " ")+": "+c.summary+"\n") {
				t.Errorf("help does not open with the description:\n%s", help)
			}
			if !strings.Contains(help, "\nexamples:\n  agentbash "+strings.Join(path, " ")) {
				t.Errorf("help has no example of %s:\n%s", path, help)
			}
			for _, u := range c.usage {
				if !strings.Contains(help, "  agentbash "+u+"\n") {
					t.Errorf("help lacks the usage %q", u)
				}
			}
			for _, alt := range [][]string{append(path, "-help"), append(path, "--help"), append([]string{"help"}, path...)} {
				if code, out, _ := run(alt...); code != 0 || out != help {
					t.Errorf("%q: exit %d, and its text differs from -h's:\n%s", alt, code, out)
				}
			}
		})
	}
}

func findCommand(path []string) *command {
	for _, c := range allCommands() {
		if c.name == path[0] {
			if len(path) == 1 {
				return c
			}
			for _, s := range c.subs {
				if s.name == strings.Join(path, " ") {
					return s
				}
			}
		}
	}
	return nil
}

// Help lists every flag of a command's flag set (the flags come from the function that parses them, so a
// new flag cannot be left out).
func TestHelpListsFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path  []string
		flags []string
	}{
		{[]string{"run"}, []string{"tool", "workspace", "workspaces", "params", "sandbox", "sandbox-network", "sandbox-best-effort", "executor", "image",
			"docker-host", "memory", "pids", "cpus", "network", "user", "docker-agent", "docker-workspaces"}},
		{[]string{"list"}, []string{"host"}},
		{[]string{"matrix"}, []string{"format"}},
		{[]string{"schema"}, []string{"format", "sandbox", "sandbox-network"}},
		{[]string{"serve"}, []string{"transport", "addr", "workspace", "sandbox", "sandbox-network", "sandbox-best-effort", "token-file",
			"insecure-no-token", "tls-cert", "tls-key", "read-timeout", "session-idle", "max-sessions", "audit", "permissions", "max-engines", "engine-idle",
			"executor", "image", "docker-host", "memory", "pids", "cpus", "network", "user"}},
		{[]string{"conformance"}, []string{"json", "junit", "v", "list", "trusted", "mcp", "mcp-http", "mcp-sse", "workspace", "run",
			"skip", "deadline", "parallel", "time-scale", "baseline", "update-baseline", "tool", "executor", "image", "docker-host"}},
		{[]string{"policy", "check"}, []string{"policy"}},
		{[]string{"gen"}, []string{"spec", "out", "pkg", "check"}},
	} {
		var o, e bytes.Buffer
		if code := Main(append(tc.path, "-h"), &o, &e); code != 0 {
			t.Fatalf("%s -h: exit %d", tc.path, code)
		}
		for _, f := range tc.flags {
			if !strings.Contains(o.String(), "\n  -"+f+" ") && !strings.Contains(o.String(), "\n  -"+f+"\n") && !strings.Contains(o.String(), "\n  -"+f+"\t") {
				t.Errorf("%s -h does not list -%s:\n%s", tc.path, f, o.String())
			}
		}
	}
}

func TestVersionText(t *testing.T) {
	t.Parallel()
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want []string
	}{
		{"no build info", nil, []string{"agentbash (devel)\n", "revision: unknown"}},
		{"a checkout built without VCS information", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Path: modulePath, Version: "(devel)"}},
			[]string{"agentbash (devel)\n", "revision: unknown (built without VCS information", "go: go1.26.8 "}},
		{"a checkout with VCS information", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main:     debug.Module{Path: modulePath, Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-11-24T05:04:54Z"}, {Key: "vcs.modified", Value: "true"}}},
			[]string{"agentbash (devel)\n", "revision: " + rev + " (2026-11-24T05:04:54Z), with uncommitted changes\n"}},
		{"go install @version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: modulePath, Version: "v1.2.3"}},
			[]string{"agentbash v1.2.3\n", "revision: unknown"}},
		{"go tool with a replace to a checkout", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Path: modulePath, Version: "v0.0.0-00010101000000-000000000000", Replace: &debug.Module{Path: "/src/agentbash", Version: "(devel)"}}},
			[]string{"agentbash (devel) (replaced by /src/agentbash)\n"}},
		{"a dependency of another main module", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Path: "example.com/app", Version: "(devel)"},
			Deps: []*debug.Module{{Path: modulePath, Version: "v1.4.0"}}},
			[]string{"agentbash v1.4.0\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := versionText(tc.info)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("version text lacks %q:\n%s", w, got)
				}
			}
			if !strings.Contains(got, "\ngenerated code: version ") {
				t.Errorf("no generated-code version:\n%s", got)
			}
		})
	}
}

// parse takes positional arguments anywhere among the flags.
func TestParseInterleaved(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		pos  []string
		x    string
		b    bool
	}{
		{[]string{"a", "-x", "1"}, []string{"a"}, "1", false},
		{[]string{"-x", "1", "a"}, []string{"a"}, "1", false},
		{[]string{"-b", "a", "-x", "2", "b"}, []string{"a", "b"}, "2", true},
		{[]string{"a", "-", "-x=3"}, []string{"a", "-"}, "3", false},
		{nil, nil, "", false},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		x := fs.String("x", "", "")
		b := fs.Bool("b", false, "")
		pos, code, ok := runCmd.parse(fs, tc.args, &bytes.Buffer{}, &bytes.Buffer{})
		if !ok || code != 0 || strings.Join(pos, ",") != strings.Join(tc.pos, ",") || *x != tc.x || *b != tc.b {
			t.Errorf("parse(%q) = %q, -x %q, -b %v, ok %v; want %q, %q, %v", tc.args, pos, *x, *b, ok, tc.pos, tc.x, tc.b)
		}
	}
}
