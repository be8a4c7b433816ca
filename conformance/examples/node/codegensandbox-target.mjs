// A small implementation of the codegensandbox contract (variants/codegensandbox), served as a conformance
// target with agentbash-wire.mjs:
//
//   agentbash conformance codegensandbox -baseline conformance/examples/node/baseline.yaml \
//       -- node conformance/examples/node/codegensandbox-target.mjs
//
// Bash runs the command with bash -c in its own process group, combined output cut at 100 KiB, an exit
// line, a timeout of 120 s clamped to 600 (exit 124), and the deny regex; run_in_background starts a
// background shell that BashOutput and KillShell know by its id; an optional workspace names the one
// workspace (its directory's base name); every text answered, errors too, goes through the server's secret
// scrubber. What it does not do yet is in baseline.yaml, each with its reason.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { basename } from "node:path";
import { serve, ToolError } from "./agentbash-wire.mjs";

const LIMIT = 102400;
const DENY = /(?:^|[\s;&|(])\s*(sudo|su|shutdown|reboot|halt|poweroff|chroot|mount|umount|mkfs(?:\.\w+)?)(?:$|[\s;&|)])/;
const shells = new Map(); // id -> { child, command }

// The server's scrubber: each match replaced by [REDACTED:<name>], in this order.
const SECRETS = [
  ["aws-access-key", /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g],
  ["github-fine-grained-pat", /\bgithub_pat_[A-Za-z0-9_]{82,}\b/g],
  ["github-pat", /\bghp_[A-Za-z0-9]{36,}\b/g],
  ["github-oauth", /\bgh[ousr]_[A-Za-z0-9]{36,}\b/g],
  ["anthropic-api-key", /\bsk-ant-[A-Za-z0-9_-]{20,}\b/g],
  ["openai-api-key", /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}\b/g],
  ["google-api-key", /\bAIza[0-9A-Za-z_-]{35}\b/g],
  ["slack-token", /\bxox[abpr]-[A-Za-z0-9-]{10,}\b/g],
  ["stripe-live-key", /\b(?:sk|rk)_live_[A-Za-z0-9]{24,}\b/g],
  ["jwt", /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g],
  ["pem-private-key", /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z]+ )?PRIVATE KEY-----/g],
  ["basic-auth-url", /[a-z][a-z0-9+.-]*:\/\/[^:\s/@]+:[^@\s]+@[\w.-]+/g],
  ["secret-env-assignment", /\b(?:API_KEY|TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE_KEY)\s*=\s*[^[\s]\S*/gi],
];
// RE2 (the server's Go regexp) runs in linear time; V8 backtracks, and basic-auth-url scans to the end of a
// long run of letters from every position: a text without "://" cannot match it and skips it.
const scrub = (text) =>
  SECRETS.reduce((t, [name, re]) => (name === "basic-auth-url" && !t.includes("://") ? t : t.replace(re, `[REDACTED:${name}]`)), text);

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
  const name = str(params.workspace).trim();
  if (name && name !== basename(workspace)) {
    throw new ToolError("ToolError", `unknown workspace ${JSON.stringify(name)}; configured: ${basename(workspace)}`);
  }
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
  try {
    return scrub(await answer(tool, params, workspace));
  } catch (e) {
    if (e instanceof ToolError) e.message = scrub(e.message);
    throw e;
  }
});

async function answer(tool, params, workspace) {
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
}
for (const { child } of shells.values()) killGroup(child);
