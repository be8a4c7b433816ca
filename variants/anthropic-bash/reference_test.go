package anthropicbash_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// The reference implementation, run: anthropic-quickstarts computer-use-demo tools/bash.py (at the commit
// the spec names), imported by a driver over a stand-in for tools/base.py (the result types, written here
// from the code: a dataclass ToolResult with output, error, base64_image and system, CLIResult, ToolError),
// is fed each conversation of behavior_test.go, with its _timeout set to the test's timeout; its answers
// must be the steps' answers, which TestBehavior holds our engine to. The reference's code is not part of
// this repository: AGENTBASH_ANTHROPIC_BASH_PY names its bash.py, as
//
//	git -C anthropic-quickstarts show 44c2b5c97d6d91a07033691f12b3b5c5ca464c35:computer-use-demo/computer_use_demo/tools/bash.py > /tmp/bash.py
//	AGENTBASH_ANTHROPIC_BASH_PY=/tmp/bash.py go test -run TestReference ./variants/anthropic-bash/
//
// It needs python3 (3.11 or later, for asyncio.timeout) and nothing else.

// baseStub stands in for tools/base.py: only what bash.py imports.
const baseStub = `from dataclasses import dataclass


class BaseAnthropicTool:
    pass


@dataclass(kw_only=True, frozen=True)
class ToolResult:
    output: str | None = None
    error: str | None = None
    base64_image: str | None = None
    system: str | None = None


class CLIResult(ToolResult):
    pass


class ToolError(Exception):
    def __init__(self, message):
        self.message = message
`

// driver reads one JSON call a line, calls the tool, and writes its answer a line: the ToolResult's fields
// that are not None, or {"error": {type, message}} for what it raised.
// The reference's stop() signals only the sh that started bash, which leaves bash and its commands
// running: the driver ends each session it saw by its process group (the session's setsid made the
// group), as the test must leave no process behind.
const driver = `import asyncio, dataclasses, json, os, signal, sys
from ref.bash import BashTool20250124, _BashSession
from ref.base import ToolError

_BashSession._timeout = float(sys.argv[1])


async def main():
    tool = BashTool20250124()
    groups = set()
    for line in sys.stdin:
        params = json.loads(line)
        try:
            res = await tool(**params)
            out = {f.name: getattr(res, f.name) for f in dataclasses.fields(res) if getattr(res, f.name) is not None}
        except ToolError as e:
            out = {"error": {"type": "ToolError", "message": e.message}}
        except Exception as e:
            out = {"error": {"type": type(e).__name__, "message": str(e)}}
        if tool._session is not None and tool._session._started:
            groups.add(tool._session._process.pid)
        print(json.dumps(out), flush=True)
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass


asyncio.run(main())
`

func TestReference(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the reference waits its timeout in several conversations")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the reference implementation (Python) cannot run")
	}
	src := os.Getenv("AGENTBASH_ANTHROPIC_BASH_PY")
	if src == "" {
		t.Skip("AGENTBASH_ANTHROPIC_BASH_PY does not name the reference's bash.py (see reference_test.go)")
	}
	code, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(code), "class BashTool20250124") || !strings.Contains(string(code), "_timeout: float = 120.0") {
		t.Fatalf("%s is not the bash.py of the commit the spec names (BashTool20250124, a 120 s timeout)", src)
	}
	dir := t.TempDir()
	pkg := filepath.Join(dir, "ref")
	for name, text := range map[string]string{"__init__.py": "", "base.py": baseStub, "bash.py": string(code)} {
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "driver.py"), []byte(driver), 0o644); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(conversations))
	for name := range conversations {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		steps := conversations[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := realDir(t)
			got := runReference(t, py, dir, ws, steps)
			for i, s := range steps {
				if !sameJSON(got[i], s.want) {
					t.Errorf("step %d %s: the reference answers\n %s\nthe steps say\n %s", i, s.params, got[i], s.want)
				}
			}
		})
	}
}

// runReference runs one conversation through the driver, in ws, and returns its answers with ws written
// /ws.
func runReference(t *testing.T, py, dir, ws string, steps []step) []string {
	t.Helper()
	ctx := t.Context()
	cmd := exec.CommandContext(ctx, py, filepath.Join(dir, "driver.py"), fmt.Sprint(testTimeout.Seconds()))
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir, "PYTHONDONTWRITEBYTECODE=1")
	cmd.WaitDelay = 5 * time.Second
	var in strings.Builder
	for _, s := range steps {
		var v any
		if err := json.Unmarshal([]byte(s.params), &v); err != nil {
			t.Fatalf("%s: %v", s.params, err)
		}
		b, _ := json.Marshal(v)
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd.Stdin = strings.NewReader(in.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the driver failed: %v\n%s", err, stderr.String())
	}
	var answers []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		answers = append(answers, strings.ReplaceAll(sc.Text(), ws, "/ws"))
	}
	if len(answers) != len(steps) {
		t.Fatalf("%d answers for %d steps:\n%s\n%s", len(answers), len(steps), out, stderr.String())
	}
	return answers
}
