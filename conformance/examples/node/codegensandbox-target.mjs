// A small implementation of the codegensandbox contract (variants/codegensandbox), served as a conformance
// target with agentbash-wire.mjs:
//
//   agentbash conformance codegensandbox -baseline conformance/examples/node/baseline.yaml \
//       -- node conformance/examples/node/codegensandbox-target.mjs
//
// Bash runs the command with bash -c in its own process group, combined output cut at 100 KiB, an exit
// line, a timeout of 120 s clamped to 600 (exit 124), and the deny regex; run_in_background starts a
// background shell that BashOutput and KillShell know by its id. What it does not do yet is in
// baseline.yaml, each with its reason.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { serve, ToolError } from "./agentbash-wire.mjs";

const LIMIT = 102400;
const DENY = /(?:^|[\s;&|(])\s*(sudo|su|shutdown|reboot|halt|poweroff|chroot|mount|umount|mkfs(?:\.\w+)?)(?:$|[\s;&|)])/;
const shells = new Map(); // id -> { child, command }

const str = (v) => (typeof v === "string" ? v : "");

function start(command, cwd) {
  const child = spawn("/bin/bash", ["-c", command], { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  return child;
}

function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function bash(params, workspace) {
  const command = str(params.command);
  if (!command) throw new ToolError("ToolError", "command is required");
  if (!str(params.description)) throw new ToolError("ToolError", "description is required");
  const m = DENY.exec(command);
  if (m) throw new ToolError("ToolError", `command rejected: command uses denylisted token ${JSON.stringify(m[1])}`);
  if (params.run_in_background === true) {
    const id = randomUUID();
    shells.set(id, { child: start(command, workspace), command });
    return `shell_id: ${id}\nstarted in background: ${command}\n`;
  }
  let timeout = typeof params.timeout === "number" ? Math.trunc(params.timeout) : 0;
  if (timeout <= 0) timeout = 120;
  timeout = Math.min(timeout, 600);
  return new Promise((resolve) => {
    const child = start(command, workspace);
    const chunks = [];
    let size = 0;
    const keep = (b) => {
      if (size < LIMIT) chunks.push(b.subarray(0, LIMIT - size));
      size += b.length;
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeout * 1000);
    child.on("exit", () => killGroup(child)); // what the shell left in its group ends with the call
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      let out = Buffer.concat(chunks).toString("utf8");
      if (size > LIMIT) out += `\n... (output truncated, ${size - LIMIT} bytes elided)`;
      if (out && !out.endsWith("\n")) out += "\n";
      if (timedOut) return resolve(out + `bash: timed out after ${timeout}s\nexit: 124\n`);
      const exit = code === null ? -1 : code;
      resolve(exit !== 0 ? out + `exit: ${exit}\n` : out);
    });
  });
}

function shellOf(params) {
  const id = str(params.shell_id);
  if (!id) throw new ToolError("ToolError", "shell_id is required");
  const sh = shells.get(id);
  if (!sh) throw new ToolError("ToolError", `unknown shell_id: ${id}`);
  return [id, sh];
}

await serve(async (tool, params, workspace) => {
  params = params && typeof params === "object" ? params : {};
  switch (tool) {
    case "Bash":
      return bash(params, workspace);
    case "BashOutput": {
      const [, sh] = shellOf(params);
      return `command: ${sh.command}\nstatus: ${sh.child.exitCode === null ? "running" : `completed (exit ${sh.child.exitCode})`}\n`;
    }
    case "KillShell": {
      const [id, sh] = shellOf(params);
      killGroup(sh.child);
      shells.delete(id);
      return `killed: ${id}\n`;
    }
  }
  throw new ToolError("Error", `no tool ${tool}`);
});
for (const { child } of shells.values()) killGroup(child);
