package vercelbashtool_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate"
	"github.com/agentbash/agentbash/variants/vercel-bash-tool"
)

// The npm package itself as an oracle: bash-tool 1.3.19 (and the AI SDK it needs), installed with npm into
// AGENTBASH_BASH_TOOL_DIR (default: the user's cache directory, agentbash/oracle-bash-tool-1.3.19), runs
// each case through createBashTool's bash tool over a sandbox that runs `bash -c` on this machine, as the
// Vercel sandbox does (runCommand("bash", ["-c", command]), the streams read whole and decoded as UTF-8);
// every case must answer as our engine does, and every listed deviation must still answer otherwise.

const bashToolVersion = "1.3.19"

// oracleJS prints the tool's description, then answers one {command} a line with the tool's result.
const oracleJS = `import { spawn } from "node:child_process";
import readline from "node:readline";
import { createBashTool } from "bash-tool";

const ws = process.argv[2];
const collect = (s) => new Promise((res) => { const c = []; s.on("data", (b) => c.push(b)); s.on("end", () => res(Buffer.concat(c))); });
const sandbox = {
  sandboxId: "agentbash-oracle",
  async runCommand(cmd, args) {
    const p = spawn(cmd, args, { cwd: ws, stdio: ["ignore", "pipe", "pipe"] });
    const [out, err, code] = await Promise.all([collect(p.stdout), collect(p.stderr), new Promise((r) => p.on("close", (c) => r(c)))]);
    return { exitCode: code, stdout: async () => out.toString("utf-8"), stderr: async () => err.toString("utf-8") };
  },
  async readFile() { return null; },
  async writeFiles() {},
};
const { tools } = await createBashTool({ sandbox, promptOptions: { toolPrompt: "" } });
const tool = (await createBashTool({ sandbox, destination: ws, promptOptions: { toolPrompt: "" } })).tools.bash;
console.log(JSON.stringify({ description: tools.bash.description }));
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  console.log(JSON.stringify(await tool.execute(JSON.parse(line), { toolCallId: "1", messages: [] })));
}
`

// justBashVersion is the interpreter the package runs without a sandbox (its optional peer dependency).
const justBashVersion = "3.4.2"

// oracleJustBashJS is oracleJS over the package's default, just-bash: no sandbox option, the workspace
// given as uploadDirectory (just-bash's OverlayFs over it: reads from the disk, writes kept in memory, the
// working directory its mount point, printed first).
const oracleJustBashJS = `import readline from "node:readline";
import { createBashTool } from "bash-tool";

const ws = process.argv[2];
const { tools } = await createBashTool({ uploadDirectory: { source: ws }, promptOptions: { toolPrompt: "" } });
const cwd = /WORKING DIRECTORY: (\S+)/.exec(tools.bash.description)[1];
console.log(JSON.stringify({ description: tools.bash.description, cwd }));
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  console.log(JSON.stringify(await tools.bash.execute(JSON.parse(line), { toolCallId: "1", messages: [] })));
}
`

// oracleDir installs the package (once) and returns its directory, or skips the test saying why it cannot.
func oracleDir(t *testing.T) string {
	t.Helper()
	for _, prog := range []string{"node", "npm"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not on PATH: the npm package bash-tool cannot run as an oracle", prog)
		}
	}
	dir := os.Getenv("AGENTBASH_BASH_TOOL_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("no cache directory to install bash-tool into (%v); set AGENTBASH_BASH_TOOL_DIR", err)
		}
		dir = filepath.Join(cache, "agentbash", "oracle-bash-tool-"+bashToolVersion)
	}
	if !installed(dir, "bash-tool", bashToolVersion) || !installed(dir, "just-bash", justBashVersion) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts",
			"--prefix", dir, "bash-tool@"+bashToolVersion, "ai@7", "just-bash@"+justBashVersion)
		cmd.WaitDelay = 10 * time.Second
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("npm install bash-tool@%s failed (the oracle needs the npm registry): %v\n%s", bashToolVersion, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "oracle.mjs"), []byte(oracleJS), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "oracle-just-bash.mjs"), []byte(oracleJustBashJS), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// installed reports whether dir's node_modules holds pkg at version.
func installed(dir, pkg, version string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err != nil {
		return false
	}
	var p struct{ Version string }
	return json.Unmarshal(b, &p) == nil && p.Version == version
}

func TestOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the oracle installs and runs the npm package")
	}
	dir := oracleDir(t)
	ws := realDir(t)
	all := append([]tcase(nil), cases...)
	for _, d := range deviations {
		all = append(all, d.tcase)
	}
	var in strings.Builder
	for _, c := range all {
		b, _ := json.Marshal(map[string]string{"command": c.command})
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.CommandContext(t.Context(), "node", filepath.Join(dir, "oracle.mjs"), ws)
	cmd.Dir = ws
	cmd.Stdin = strings.NewReader(in.String())
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the oracle failed: %v\n%s", err, stderr.String())
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		lines = append(lines, strings.ReplaceAll(sc.Text(), ws, "/ws"))
	}
	if len(lines) != len(all)+1 {
		t.Fatalf("%d lines for %d cases:\n%.2000s\n%s", len(lines), len(all), out, stderr.String())
	}

	tool, err := vercelbashtool.New(runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	var desc struct{ Description string }
	_ = json.Unmarshal([]byte(lines[0]), &desc)
	if want := tool.Variant().Tools[0].Description; desc.Description != want {
		t.Errorf("description:\n%s\nthe spec says\n%s", desc.Description, want)
	}
	for i, c := range cases {
		got := strings.ReplaceAll(call(t, tool, c.command), ws, "/ws")
		if !sameJSON(lines[i+1], got) {
			t.Errorf("%s (%q): the package answers\n %.400s\nwe answer\n %.400s", c.name, c.command, lines[i+1], got)
		}
	}
	for i, d := range deviations {
		if up := lines[len(cases)+i+1]; !sameJSON(up, d.upstream) {
			t.Errorf("listed deviation %s: the package now answers\n %.400s\nnot as listed\n %.400s", d.name, up, d.upstream)
		}
	}
}

// justBashDiffs are the cases the package over just-bash answers otherwise than the runtime's embedded shell
// (vercel-bash-tool-just-bash.yaml), each with the package's answer (the mount point written /ws) and why.
var justBashDiffs = map[string]struct{ upstream, why string }{
	"syntax error": {result("", "bash: syntax error: Parse error at 1:33: syntax error near unexpected token `('\n", 2),
		"each parser's own message (mvdan.cc/sh: \"1:1: `foo(` must be followed by `)`\"); the status is 2 in both"},
	"exactly the limit":     {result("", "", 0), "just-bash's /dev/zero reads empty: head -c 30000 /dev/zero prints nothing (the limit is checked by \"a long line over the limit\")"},
	"stdout over the limit": {result("", "", 0), "just-bash's /dev/zero reads empty"},
	"stderr over the limit": {result("x\n", "", 0), "just-bash's /dev/zero reads empty"},
	"invalid UTF-8 is replaced": {result("a\u00ffb\u00c0", "", 0),
		"just-bash's printf makes a JavaScript string of the bytes' values (\\377 is ÿ); the embedded shell writes bytes, decoded with the replacement character"},
	"a background child holding stdout": {result("late\nnow\n", "", 0),
		"just-bash runs a background job to its end before the next command; the embedded shell's job is ended with the script"},
	"characters outside the BMP": {`{"stdout":"` + strings.Repeat("😀", 15000) + `\n\n[stdout truncated: 10000 characters removed]","stderr":"","exitCode":0}`,
		"output.length counts UTF-16 code units, as in vercel-bash-tool's deviation"},
	"an unknown command": {justBashCases[4].want,
		"the embedded shell says \"\\\"nosuchcommand-agentbash\\\": executable file not found in $PATH\""},
}

// TestOracleJustBash runs the cases through the package over just-bash (its default, no sandbox) and
// through the spec of that mode on the runtime's embedded shell: each case agrees, or is listed in
// justBashDiffs with the package's answer, which it must still give.
func TestOracleJustBash(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the oracle installs and runs the npm package")
	}
	dir := oracleDir(t)
	ws := realDir(t)
	all := append([]tcase(nil), cases...)
	for _, d := range deviations {
		all = append(all, d.tcase)
	}
	all = append(all, justBashCases...)
	var in strings.Builder
	for _, c := range all {
		b, _ := json.Marshal(map[string]string{"command": c.command})
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.CommandContext(t.Context(), "node", filepath.Join(dir, "oracle-just-bash.mjs"), ws)
	cmd.Dir = ws
	cmd.Stdin = strings.NewReader(in.String())
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the oracle failed: %v\n%s", err, stderr.String())
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != len(all)+1 {
		t.Fatalf("%d lines for %d cases:\n%.2000s\n%s", len(lines), len(all), out, stderr.String())
	}
	var head struct{ Description, Cwd string }
	if err := json.Unmarshal([]byte(lines[0]), &head); err != nil || head.Cwd == "" {
		t.Fatalf("the oracle's first line: %s (%v)", lines[0], err)
	}
	v, err := spec.Load(filepath.Join("just-bash", "vercel-bash-tool-just-bash.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if want := v.Tools[0].Description; head.Description != want {
		t.Errorf("description:\n%s\nthe spec says\n%s", head.Description, want)
	}
	seen := map[string]bool{}
	for i, c := range all {
		up := strings.ReplaceAll(lines[i+1], head.Cwd, "/ws")
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		params, _ := json.Marshal(map[string]string{"command": c.command})
		res, err := eng.Call(ctx, "bash", params)
		cancel()
		if err != nil {
			t.Errorf("%s (%q): %v", c.name, c.command, err)
			continue
		}
		got := strings.ReplaceAll(string(res), ws, "/ws")
		if i >= len(all)-len(justBashCases) && !sameJSON(up, c.want) {
			t.Errorf("%s (%q): the package over just-bash answers\n %.400s\nthe case says\n %.400s", c.name, c.command, up, c.want)
		}
		d, listed := justBashDiffs[c.name]
		seen[c.name] = true
		switch {
		case listed && sameJSON(up, got):
			t.Errorf("%s (%q): listed as a difference, but both answer\n %.400s", c.name, c.command, got)
		case listed && !sameJSON(up, d.upstream):
			t.Errorf("%s (%q): the package now answers\n %.400s\nnot as listed\n %.400s", c.name, c.command, up, d.upstream)
		case !listed && !sameJSON(up, got):
			t.Errorf("%s (%q): the package over just-bash answers\n %.400s\nthe embedded shell\n %.400s", c.name, c.command, up, got)
		}
	}
	for name := range justBashDiffs {
		if !seen[name] {
			t.Errorf("justBashDiffs lists %q, which is no case", name)
		}
	}
}

// justBashCases are cases of the interpreter itself (what either shell keeps within one command), each
// with the package's answer, written from just-bash's behaviour and checked against it.
var justBashCases = []tcase{
	{"variables and functions", "f() { echo \"f$1\"; }; X=4; f $X", result("f4\n", "", 0)},
	{"a file written and read back", "echo data > out.txt && cat out.txt && rm out.txt", result("data\n", "", 0)},
	{"a loop and arithmetic", "s=0; for i in 1 2 3; do s=$((s+i)); done; echo $s", result("6\n", "", 0)},
	{"a pipeline", "printf 'b\\na\\n' | sort", result("a\nb\n", "", 0)},
	{"an unknown command", "nosuchcommand-agentbash", result("", "bash: nosuchcommand-agentbash: command not found\n", 127)},
	{"a long line over the limit", "printf '%30005s' x | tr ' ' a", result(strings.Repeat("a", 30004)+"x", "", 0)},
	{"stderr over the limit from printf", "printf '%40000s' y | tr ' ' b >&2; echo x", result("x\n", strings.Repeat("b", 39999)+"y", 0)},
}
