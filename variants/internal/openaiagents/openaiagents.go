// Package openaiagents runs the OpenAI Agents SDK's own code for the Responses API's shell and local_shell
// tools as an oracle for the variants' tests (variants/openai-shell, variants/openai-local-shell): the
// executors of the SDK's examples (examples/tools/shell.py, examples/tools/local_shell.py), and, for shell,
// the SDK's functions that make an executor's ShellResult the shell_call_output item
// (src/agents/run_internal/tool_execution.py: truncate_shell_outputs, serialize_shell_output,
// normalize_shell_output_entries and what they call), over the SDK's own result types
// (src/agents/tool.py: ShellCallOutcome, ShellCommandOutput, ShellResult, ShellActionRequest,
// ShellCallData), each taken from the SDK's source by name; only the glue of tool_actions.py (the limit's
// minimum, the order of the calls) is restated in the driver. The SDK is not part of this repository:
// AGENTBASH_OPENAI_AGENTS_DIR names a checkout of openai/openai-agents-python at Commit, with
// examples/tools/local_shell.py from LocalShellCommit (a later commit removed the example):
//
//	git -C openai-agents-python archive 7f7a44f8dc06 src/agents/tool.py src/agents/run_internal/tool_execution.py examples/tools/shell.py | tar -x -C $DIR
//	git -C openai-agents-python show 8cb5fabe4e94:examples/tools/local_shell.py > $DIR/examples/tools/local_shell.py
//
// python3 (3.10 or later, standard library only) runs it.
package openaiagents

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Commit is the commit of openai-agents-python the variants cite.
const Commit = "7f7a44f8dc0650296bd5ab6c745c9bcbaa6ac3b7"

// LocalShellCommit is the last commit with examples/tools/local_shell.py.
const LocalShellCommit = "8cb5fabe4e94f400d35e8a77653f8ceeee6d099f"

const driver = `import ast, asyncio, json, os, sys, types
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Literal, Mapping, Sequence, cast

root, tool = sys.argv[1], sys.argv[2]


def pick(path, names, ns):
    tree = ast.parse(open(os.path.join(root, path)).read())
    nodes = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in names]
    missing = set(names) - {n.name for n in nodes}
    if missing:
        raise SystemExit(f"{path}: no {sorted(missing)}")
    exec(compile(ast.Module(body=nodes, type_ignores=[]), path, "exec"), ns)


ns = {"dataclass": dataclass, "field": field, "Any": Any, "Literal": Literal, "Mapping": Mapping,
      "Sequence": Sequence, "cast": cast}
pick("src/agents/tool.py", ["ShellCallOutcome", "ShellCommandOutput", "ShellResult", "ShellActionRequest", "ShellCallData"], ns)
pick("src/agents/run_internal/tool_execution.py", ["_normalize_exit_code", "normalize_shell_output", "serialize_shell_output",
     "resolve_exit_code", "truncate_shell_outputs", "normalize_shell_output_entries", "normalize_max_output_length"], ns)

# The examples import the SDK: a stand-in module gives them its result types and names for the rest.
agents = types.ModuleType("agents")
for name in ["ShellCallOutcome", "ShellCommandOutput", "ShellResult"]:
    setattr(agents, name, ns[name])
for name in ["Agent", "ModelSettings", "Runner", "ShellCommandRequest", "ShellTool", "trace", "LocalShellCommandRequest", "LocalShellTool"]:
    setattr(agents, name, object)
sys.modules["agents"] = agents
for sub, names in {"items": ["ToolApprovalItem"], "run_context": ["RunContextWrapper"], "tool": ["ShellOnApprovalFunctionResult"]}.items():
    m = types.ModuleType("agents." + sub)
    for name in names:
        setattr(m, name, object)
    sys.modules["agents." + sub] = m


def load(path):
    m = types.ModuleType("example")
    exec(compile(open(os.path.join(root, path)).read(), path, "exec"), m.__dict__)
    return m


async def shell(params):
    executor = load("examples/tools/shell.py").ShellExecutor()
    action = ns["ShellActionRequest"](**params)
    result = await executor(SimpleNamespace(data=ns["ShellCallData"](call_id="call", action=action)))
    # tool_actions.py: the limit is the smaller of the executor's and the action's; the outputs are cut,
    # serialized and normalized into the item's output.
    requested = ns["normalize_max_output_length"](action.max_output_length)
    own = ns["normalize_max_output_length"](result.max_output_length)
    limit = requested if own is None else own if requested is None else min(own, requested)
    outputs = [ns["normalize_shell_output"](e) for e in result.output]
    if limit is not None:
        outputs = ns["truncate_shell_outputs"](outputs, limit)
    item = {"output": ns["normalize_shell_output_entries"]([ns["serialize_shell_output"](e) for e in outputs])}
    if limit is not None:
        item["max_output_length"] = limit
    return item


def local_shell(params):
    executor = load("examples/tools/local_shell.py").shell_executor
    action = SimpleNamespace(**{k: params.get(k) for k in ["type", "command", "env", "timeout_ms", "working_directory", "user"]})
    return executor(SimpleNamespace(data=SimpleNamespace(action=action)))


async def main():
    lines = sys.stdin.readlines()
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # what a command reads is not the calls
    for line in lines:
        params = json.loads(line)
        out = await shell(params) if tool == "shell" else local_shell(params)
        print(json.dumps(out), flush=True)


asyncio.run(main())
`

// Run runs each call (JSON parameters: a shell action, or a local_shell action) through the SDK's code for
// tool ("shell" or "local_shell"), in ws, and returns each answer as JSON with ws written /ws; it skips the
// test, saying why, when python3 or the SDK's source is not at hand.
func Run(t *testing.T, tool, ws string, calls []string) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the oracle runs the SDK's Python code")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the OpenAI Agents SDK's code (Python) cannot run")
	}
	root := os.Getenv("AGENTBASH_OPENAI_AGENTS_DIR")
	if root == "" {
		t.Skip("AGENTBASH_OPENAI_AGENTS_DIR does not name a checkout of openai/openai-agents-python at " + Commit)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "driver.py"), []byte(driver), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), py, filepath.Join(dir, "driver.py"), root, tool)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	cmd.WaitDelay = 5 * time.Second
	cmd.Stdin = strings.NewReader(strings.Join(calls, "\n") + "\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the SDK's code failed: %v\n%s", err, stderr.String())
	}
	var answers []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		answers = append(answers, strings.ReplaceAll(sc.Text(), ws, "/ws"))
	}
	if len(answers) != len(calls) {
		t.Fatalf("%d answers for %d calls:\n%s\n%s", len(answers), len(calls), out, stderr.String())
	}
	return answers
}

// SameJSON compares two JSON texts as values.
func SameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
