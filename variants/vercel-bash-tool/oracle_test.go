package vercelbashtool_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
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
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "bash-tool", "package.json")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts",
			"--prefix", dir, "bash-tool@"+bashToolVersion, "ai@7")
		cmd.WaitDelay = 10 * time.Second
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("npm install bash-tool@%s failed (the oracle needs the npm registry): %v\n%s", bashToolVersion, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "oracle.mjs"), []byte(oracleJS), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
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
