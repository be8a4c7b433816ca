package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime/sandbox"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// The test binary doubles as `agentbash target`: started as `<test binary> agentbash-target ARGS...` it runs
// cmdTarget (before the testing package parses any flag).
func init() {
	if len(os.Args) >= 2 && os.Args[1] == "agentbash-target" {
		os.Exit(cmdTarget(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
}

// targetArgv is the argv of `agentbash target ARGS...` served by this test binary.
func targetArgv(args ...string) []string {
	return append([]string{os.Args[0], "agentbash-target"}, args...)
}

var countsLine = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed(, \d+ skipped)?\n\z`)

// Harness test (our runtime against itself): every built-in variant passes the whole suite against
// `agentbash serve <id> -transport wire`, four cases at a time.
func TestConformanceCommandOnBuiltins(t *testing.T) {
	for _, id := range variants.IDs() {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			args := append([]string{id, "-trusted", "-parallel", "4", "-time-scale", timeScale, "--"}, os.Args[0], "agentbash-main", "serve", id, "-transport", "wire")
			code := cmdConformance(args, &out, &errb)
			m := countsLine.FindStringSubmatch(out.String())
			if code != 0 || m == nil || m[2] != "0" || m[1] == "0" {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
			}
			t.Logf("%s: %s", id, strings.TrimSpace(m[0]))
		})
	}
}

// The CLI path of a sandboxed target: `agentbash conformance ID -- agentbash serve ID -transport wire
// -sandbox MODE` passes the whole suite for rye and codex (a session tool, on a terminal), in both modes.
func TestConformanceCommandSandboxed(t *testing.T) {
	if raceEnabled {
		// Each race-instrumented start of this binary takes about a second here, and a sandboxed server
		// starts three (its spawner, the machine's probe, a helper): the cases' time bounds are not made for
		// that. The suite runs sandboxed under the race detector in process (conformance.TestSandboxedBuiltins).
		t.Skip("under the race detector: a sandboxed server's helpers start too slowly for the cases' time bounds")
	}
	for _, mode := range []string{"workspace-write", "read-only"} {
		c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
		if mode == "read-only" {
			c.Mode = sandbox.ReadOnly
		}
		if why := sandbox.Unavailable(c); why != "" {
			t.Skipf("this machine cannot sandbox %s: missing %s (agentbash sandbox check)", c, why)
		}
		for _, id := range []string{"rye", "codex"} {
			t.Run(mode+"/"+id, func(t *testing.T) {
				t.Parallel()
				var out, errb bytes.Buffer
				args := append([]string{id, "-trusted", "-parallel", "4", "-time-scale", timeScale, "--"},
					os.Args[0], "agentbash-main", "serve", id, "-transport", "wire", "-sandbox", mode)
				code := cmdConformance(args, &out, &errb)
				m := countsLine.FindStringSubmatch(out.String())
				if code != 0 || m == nil || m[2] != "0" || m[1] == "0" {
					t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
				}
				t.Logf("%s -sandbox %s: %s", id, mode, strings.TrimSpace(m[0]))
			})
		}
	}
}

// mcpStdioSubset are the cases run through MCP over stdio, a server started per case.
const mcpStdioSubset = `/(stdout only|non-zero exit|invalid UTF-8|empty command|output at limit\+1.*|result at limit\+1.*|workdir relative|unknown shell id|` +
	`output at budget\+1.*|unknown session id|session: (a read answered through stdin|a REPL echoes each line|a poll after the exit|the limit))$|` +
	`/policy .*\(guarded\): (rm -rf /|sudo ls|ls; rm x)$`

// mcpSubset are the cases run through each MCP transport: a server per case (stdio) or one workspace for
// all (HTTP, SSE) makes the whole suite slow there, and the wire transport runs it all. (agentrail's 1 MiB
// outputs are left to the wire: through MCP's JSON under the race detector they near the 5 s bound.)
const mcpSubset = `/(stdout only|stderr only|non-zero exit|invalid UTF-8|unicode|CRLF line endings|empty command|missing command|` +
	`command of the wrong type|output at limit\+1.*|result at limit\+1.*|workdir relative|workdir missing|` +
	`policy .*\(guarded\).*|unknown shell id|missing shell id|missing description|output at budget\+1.*|unknown session id|` +
	`session: (still running after the window, polled to its exit|a read answered through stdin|a REPL echoes each line|stdin closed|the limit))$`

// Harness test: the suite passes for every built-in through MCP over stdio, streamable HTTP and SSE
// against `agentbash serve`, the error classes travelling in _meta. The subtests run side by side (as
// many as -test.parallel): each has its own server and workspace, and a suite mostly waits (the cases'
// windows and timeouts), so one at a time made this the package's longest test by far.
func TestConformanceThroughMCP(t *testing.T) {
	for _, transport := range []string{"stdio", "http", "sse"} {
		for _, id := range variants.IDs() {
			t.Run(transport+"/"+id, func(t *testing.T) {
				t.Parallel()
				args := []string{id, "-trusted", "-time-scale", timeScale, "-run", mcpSubset}
				switch transport {
				case "stdio":
					args[len(args)-1] = mcpStdioSubset
					args = append(args, "-mcp", "--", os.Args[0], "agentbash-main", "serve", id, "-workspace", "{workspace}")
				default:
					if v, _ := variants.Spec(id); v != nil && slices.ContainsFunc(v.Tools, func(t spec.Tool) bool { return t.Kind == spec.KindPersistent }) {
						// One server for all the cases: the persistent shell the first case starts in the
						// workspace is one of the processes the suite ends after that case, and the next
						// cases meet it exited, as the contract says (stdio starts a server per case).
						t.Skip("a persistent shell outlives its case on a shared server: run through stdio")
					}
					ws := t.TempDir()
					url, _ := startHTTP(t, id, transport, ws, newMarker(t))
					args = append(args, "-mcp-"+transport, url, "-workspace", ws)
				}
				var out, errb bytes.Buffer
				code := cmdConformance(args, &out, &errb)
				m := countsLine.FindStringSubmatch(out.String())
				if code != 0 || m == nil || m[2] != "0" || m[1] == "0" {
					t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
				}
				t.Logf("%s %s: %s", transport, id, strings.TrimSpace(m[0]))
			})
		}
	}
}

func TestConformanceCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{
			name:     "a wrong target fails with diffs",
			args:     append([]string{"toolregistry", "-run", "bash/(stdout only|non-zero exit)$", "--"}, targetArgv("rye")...),
			code:     1,
			contains: []string{"FAIL bash/stdout only\n", "$.success: unexpected (got true)", "$.timed_out: missing (want false)", "\n0 passed, 2 failed\n"},
		},
		{
			name:     "JSON report",
			args:     append([]string{"rye", "-json", "-run", "stdout only", "--"}, targetArgv("rye")...),
			code:     0,
			contains: []string{`"variant": "rye"`, `"passed": 1`, `"status": "pass"`},
		},
		{
			name:     "a spec file",
			args:     append([]string{filepath.Join("..", "..", "variants", "rye", "rye.yaml"), "-run", "stdout only", "--"}, targetArgv("rye")...),
			code:     0,
			contains: []string{"\n1 passed, 0 failed\n"},
		},
		{
			name:     "policy examples as written are skipped on an untrusted target",
			args:     append([]string{"toolregistry", "-run", "policy", "--"}, targetArgv("toolregistry")...),
			code:     0,
			contains: []string{"SKIP bash/policy toolregistry_deny blocks: rm -rf /: not sent", ", 0 failed, 26 skipped\n"},
		},
		{
			name:     "-run matching nothing fails",
			args:     append([]string{"rye", "-run", "no such case", "--"}, targetArgv("rye")...),
			code:     1,
			contains: []string{"no case was sent to the target"},
		},
		{
			name:     "-list",
			args:     []string{"rye", "-list", "-run", "stdout|policy"},
			code:     0,
			contains: []string{"bash/stdout only\n", "bash/stdout at limit+1 (51201 bytes)\n"},
		},
		{name: "-list matching nothing", args: []string{"rye", "-list", "-run", "nothing matches"}, code: 1, contains: []string{"no case matches"}},
		{
			name:     "-skip and -v",
			args:     append([]string{"rye", "-v", "-run", "stdout only|non-zero exit", "-skip", "non-zero", "--"}, targetArgv("rye")...),
			code:     0,
			contains: []string{"PASS  bash/stdout only (", "\n1 passed, 0 failed\n"},
		},
		{
			name:     "-tool maps a name",
			args:     append([]string{"rye", "-run", "stdout only", "-tool", "bash=shell", "--"}, targetArgv("rye")...),
			code:     1,
			contains: []string{`variant rye has no tool "shell"`},
		},
		{name: "a bad -tool", args: append([]string{"rye", "-tool", "bash", "--"}, targetArgv("rye")...), code: 2},
		{name: "two targets", args: []string{"rye", "-mcp-http", "http://127.0.0.1:9/mcp", "-workspace", "/tmp", "--", "x"}, code: 2},
		{name: "a URL without a workspace", args: []string{"rye", "-mcp-sse", "http://127.0.0.1:9/sse"}, code: 2},
		{name: "no target", args: []string{"rye", "--"}, code: 2},
		{name: "no dashes", args: []string{"rye", "agentbash"}, code: 2},
		{name: "no variant", args: append([]string{"--"}, targetArgv("rye")...), code: 2},
		{name: "a bad -run", args: append([]string{"rye", "-run", "(", "--"}, targetArgv("rye")...), code: 2},
		{name: "an unknown variant", args: append([]string{"rye_", "--"}, targetArgv("rye")...), code: 2, contains: []string{`unknown variant "rye_" (did you mean rye?)`}},
		{name: "a target that cannot start", args: []string{"rye", "-run", "stdout only", "--", "/nonexistent/target"}, code: 1,
			contains: []string{"starting the target"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := cmdConformance(tc.args, &out, &errb)
			all := out.String() + errb.String()
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, all)
			}
			for _, s := range tc.contains {
				if !strings.Contains(all, s) {
					t.Errorf("output lacks %q:\n%s", s, all)
				}
			}
			if strings.Contains(strings.Join(tc.args, " "), "-json") && code == 0 && !json.Valid(out.Bytes()) {
				t.Errorf("-json printed invalid JSON:\n%s", out.String())
			}
		})
	}
}

// -junit writes a JUnit file; -update-baseline writes the failures with reasons, and the run against that
// baseline passes.
func TestConformanceReportsAndBaseline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junit, baseline := filepath.Join(dir, "report.xml"), filepath.Join(dir, "baseline.yaml")
	// toolregistry's cases against rye's server: the shapes differ, so both cases fail.
	target := append([]string{"-run", "bash/(stdout only|non-zero exit)$", "--"}, targetArgv("rye")...)
	var out, errb bytes.Buffer
	if code := cmdConformance(append([]string{"toolregistry", "-junit", junit, "-baseline", baseline, "-update-baseline"}, target...), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	x, err := os.ReadFile(junit)
	if err != nil || !bytes.Contains(x, []byte(`<testsuites name="agentbash conformance" tests="2" failures="2"`)) {
		t.Errorf("junit: %v\n%s", err, x)
	}
	b, err := os.ReadFile(baseline)
	if err != nil || !bytes.Contains(b, []byte("case: bash/non-zero exit")) || !bytes.Contains(b, []byte("reason: ")) {
		t.Fatalf("baseline: %v\n%s", err, b)
	}
	out.Reset()
	if code := cmdConformance(append([]string{"toolregistry", "-baseline", baseline}, target...), &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "2 expected failures (baseline)") {
		t.Errorf("against its baseline: exit %d\n%s", code, out.String())
	}
}

func TestTargetCommand(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	req, _ := json.Marshal(map[string]any{"id": 7, "tool": "bash", "params": map[string]string{"command": "echo hi"}, "workspace": ws})
	// The input stays open until the answer is in: at its end the calls in flight are cancelled.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- cmdTarget([]string{"rye"}, inR, outW, &errb)
		outW.Close()
	}()
	inW.Write(append(req, '\n'))
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	inW.Close()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, errb.String())
	}
	want := `{"id":7,"result":{"success":true,"output":"hi\n","stdout":"hi\n","stderr":"","exit_code":0,"truncated":false}}` + "\n"
	if line != want {
		t.Errorf("got %s\nwant %s", line, want)
	}
	var out bytes.Buffer
	for _, tc := range []struct {
		args []string
		code int
	}{{nil, 2}, {[]string{"rye", "extra"}, 2}, {[]string{"-x"}, 2}, {[]string{"nope"}, 2}, {[]string{"-h"}, 0}} {
		if code := cmdTarget(tc.args, strings.NewReader(""), &out, &errb); code != tc.code {
			t.Errorf("cmdTarget(%q) = %d, want %d", tc.args, code, tc.code)
		}
	}
}

// The command does not link package testing (conformancetest has the go test entry point).
func TestNoTestingDependency(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "testing" {
			t.Fatal("cmd/agentbash depends on package testing")
		}
	}
	if !strings.Contains(string(out), "github.com/agentbash/agentbash/conformance\n") {
		t.Fatalf("go list printed no conformance package:\n%s", out)
	}
}
