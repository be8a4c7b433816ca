// Measures, on Node 20, what agentrail's Bash tool (packages/capabilities/src/tools/bash.ts at eb5ebc18)
// answers to each JSON type of each parameter and each shape of working directory, and writes
// variants/agentrail/testdata/fidelity.yaml:  node agentrail.js
//
// agentrail's packages are not installed here, so the probe makes the calls bash.ts makes, in its order,
// and answers as its executor does; each step names the upstream lines it stands for (cite):
//   - the executor's TypeBox Value.Check (core/src/llm/utils/validation.ts:23-30): command a string,
//     working_directory an optional string, timeout an optional integer >= 0, nothing null; a failure is
//     ToolValidationError 'Invalid arguments for tool "Bash"' (core/src/executor/tool-executor.ts:59-79);
//   - spawn("/bin/sh", ["-c", command], {cwd, env, detached, stdio}) (bash.ts:99-105): a synchronous throw
//     (Node's TypeError for a NUL byte, "spawn ENOTDIR") is the executor's error result with e.message
//     (tool-executor.ts:226-236), its class kept as the type; an "error" event is the foreground result
//     with exit_code 1 and the message as stderr (bash.ts:144-151); "close" the foreground result
//     (bash.ts:135-142, text 182-189).
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

function tree(root) {
  const ws = path.join(root, "ws");
  for (const d of ["ws/sub", "ws/é-dir", "outside"]) fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.writeFileSync(path.join(ws, "notes.txt"), "");
  fs.symlinkSync(path.join(root, "outside"), path.join(ws, "out"));
  fs.symlinkSync("loop2", path.join(ws, "loop"));
  fs.symlinkSync("loop", path.join(ws, "loop2"));
  fs.symlinkSync("sub", path.join(ws, "inlink"));
  return ws;
}

const isInteger = (v) => typeof v === "number" && Number.isInteger(v);
function typeboxCheck(a) {
  if (a === null || typeof a !== "object" || Array.isArray(a)) return false;
  if (typeof a.command !== "string") return false;
  if ("working_directory" in a && typeof a.working_directory !== "string") return false;
  if ("timeout" in a && !(isInteger(a.timeout) && a.timeout >= 0)) return false;
  return true;
}

function call(args, ws) {
  return new Promise((resolve) => {
    if (!typeboxCheck(args)) {
      resolve({ error: { type: "ToolValidationError", message: 'Invalid arguments for tool "Bash"' } });
      return;
    }
    const cwd = args.working_directory ?? ws;
    let child;
    try {
      child = spawn("/bin/sh", ["-c", args.command], { cwd, env: process.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      resolve({ error: { type: e.name, message: e.message } });
      return;
    }
    let out = "", err = "", settled = false;
    child.stdout.on("data", (c) => (out += c.toString("utf-8")));
    child.stderr.on("data", (c) => (err += c.toString("utf-8")));
    const done = (code, stdout, stderr) => {
      if (settled) return;
      settled = true;
      const parts = [];
      if (stdout) parts.push(stdout);
      if (stderr) parts.push(`[stderr]\n${stderr}`);
      if (parts.length === 0) parts.push("(no output)");
      parts.push(`\n[exit code: ${code}]`);
      resolve({ result: { content: [{ type: "text", text: parts.join("\n") }], details: { mode: "foreground", exit_code: code, stdout, stderr } } });
    };
    child.on("close", (code) => done(code ?? 0, out, err));
    child.on("error", (e) => done(1, "", e.message));
  });
}

const TYPES = [
  ["integer", "5"], ["zero", "0"], ["float", "1.5"], ["true", "true"], ["false", "false"], ["null", "null"],
  ["empty list", "[]"], ["list", '["x"]'], ["empty object", "{}"], ["object", '{"x": 1}'], ["huge float", "1e400"],
  ["huge integer", "123456789012345678901234567890"], ["NUL", '"a\\u0000b"'], ["unicode", '"é✓"'], ["empty", '""'],
];
const SHAPES = [
  ["missing then ..", "nope/../sub"], ["symlink out and back", "out/../ws/sub"], ["symlink out", "out"], ["loop", "loop"],
  ["file", "notes.txt"], ["file then ..", "notes.txt/.."], ["tilde", "~"], ["unicode", "é-dir"], ["NUL", "sub\u0000x"],
  ["absolute", "{ws}/sub"], ["trailing slash", "sub/"], ["missing then .. inside", "sub/./missing/.."],
  ["symlink in then ..", "inlink/.."], ["outside", "{root}/outside"], ["long name", "x".repeat(300)],
];
const obj = (kv) => "{" + kv.map(([k, v]) => JSON.stringify(k) + ": " + v).join(", ") + "}";

function cases() {
  const out = [];
  for (const [n, v] of TYPES.concat([["string", '"echo ok"'], ["NUL command", '"echo a\\u0000b"'],
    ["long NUL command", JSON.stringify("printf '%s\\n' \"" + "line ".repeat(20) + "\"\n\u0000" + "x".repeat(60))],
    ["unicode command", '"echo héllo ✓"'], ["quote and NUL", '"echo \'a\\u0000\'"']]))
    out.push(["command/" + n, obj([["command", v]]), "command"]);
  out.push(["command/absent", "{}", "command"]);
  // A timeout is in milliseconds: the integer and integral-float cases name 30000 so that `echo ok` ends
  // within it on a loaded machine (5 ms does not always).
  for (const [n, v] of TYPES.filter(([n]) => !["zero", "false", "huge integer"].includes(n)).map(([n, v]) => (n === "integer" ? [n, "30000"] : [n, v])).concat([["numeric string", '"5"'], ["negative", "-1"], ["integral float", "30000.0"]]))
    out.push(["timeout/" + n, obj([["command", '"echo ok"'], ["timeout", v]]), "timeout"]);
  for (const [n, v] of TYPES.concat([["string", '"sub"']]))
    out.push(["working_directory/" + n, obj([["command", '"pwd"'], ["working_directory", v]]), "workdir"]);
  for (const [n, v] of SHAPES)
    out.push(["working_directory/shape " + n, obj([["command", '"pwd"'], ["working_directory", JSON.stringify(v)]]), "workdir"]);
  return out;
}

function cite(a) {
  const f = "packages/capabilities/src/tools/bash.ts";
  if (a.error && a.error.type === "ToolValidationError") return "packages/core/src/llm/utils/validation.ts:23-30 (Value.Check), packages/core/src/executor/tool-executor.ts:59-79";
  if (a.error) return f + ":99-105 (spawn throws), packages/core/src/executor/tool-executor.ts:226-236 (e.message)";
  if (a.result.details.stderr.startsWith("spawn ")) return f + ":144-151 (the error event: exit_code 1, the message as stderr)";
  return f + ":95-105,135-142,182-189 (spawn, close, the text)";
}

async function main() {
  const rows = [];
  for (const [name, params, role] of cases()) {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "probe")));
    const ws = tree(root);
    process.chdir(ws); // the host's working directory is the workspace (process.cwd(), bash.ts:92)
    const text = params.replaceAll("{ws}", ws).replaceAll("{root}", root);
    const a = await call(JSON.parse(text), ws);
    const ans = JSON.stringify(a).replaceAll(ws, "{ws}").replaceAll(root, "{root}");
    rows.push([name, params, ans, cite(a)]);
    process.chdir(os.tmpdir());
    fs.rmSync(root, { recursive: true, force: true });
  }
  const file = path.join(__dirname, "..", "..", "..", "agentrail", "testdata", "fidelity.yaml");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let y = "# What agentrail's Bash tool answers to each JSON type of each parameter and each shape of working\n";
  y += `# directory: measured on Node ${process.version} by variants/internal/fidelity/probe/agentrail.js (which makes\n`;
  y += "# bash.ts's calls in its order); do not edit. {ws} is the workspace, {root} its parent; cite names the\n";
  y += "# upstream lines each answer follows. Timeouts that move the command to the background (0, past 2^31-1 ms)\n";
  y += "# answer with a pid and are left to the behaviour tests.\ncases:\n";
  for (const [n, p, a, c] of rows)
    y += `  - name: ${JSON.stringify(n)}\n    params: ${JSON.stringify(p)}\n    answer: ${JSON.stringify(a)}\n    cite: ${JSON.stringify(c)}\n`;
  fs.writeFileSync(file, y);
  console.log(file, rows.length);
}
main();
