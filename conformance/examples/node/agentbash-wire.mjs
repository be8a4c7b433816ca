// Serve a handler over the agentbash conformance wire protocol (conformance/PROTOCOL.md). No dependencies.
//
// Make any implementation of a Bash-tool contract a conformance target in a few lines:
//
//   import { serve, ToolError } from "./agentbash-wire.mjs";
//   serve(async (tool, params, workspace) => {
//     // return the tool's result: an object, or a string for a text tool
//     // throw new ToolError("ToolError", "message") for what the tool raises (any Error: its name is the type)
//   });
//
// Then: agentbash conformance VARIANT -- node my-target.mjs
import { createInterface } from "node:readline";

// ToolError is an error of a given class: new ToolError("ModelRetry", "message").
export class ToolError extends Error {
  constructor(type, message) {
    super(message);
    this.type = type;
  }
}

// serve reads one JSON request per line from stdin and writes one JSON answer per line to stdout. Requests
// run concurrently and are answered by id as they finish. At the end of the input it waits for the calls
// in flight and resolves.
export function serve(handler, { input = process.stdin, output = process.stdout } = {}) {
  const pending = new Set();
  const write = (answer) => output.write(JSON.stringify(answer) + "\n");
  const rl = createInterface({ input, crlfDelay: Infinity });
  rl.on("line", (line) => {
    if (!line.trim()) return;
    let req;
    try {
      req = JSON.parse(line);
    } catch (err) {
      write({ id: null, error: { type: "ProtocolError", message: String(err.message) } });
      return;
    }
    const call = (async () => {
      try {
        write({ id: req.id, result: await handler(req.tool, req.params, req.workspace) });
      } catch (err) {
        const type = err instanceof ToolError ? err.type : (err && err.name) || "Error";
        write({ id: req.id, error: { type, message: String(err && err.message !== undefined ? err.message : err) } });
      }
    })();
    pending.add(call);
    call.finally(() => pending.delete(call));
  });
  return new Promise((resolve) => rl.on("close", () => Promise.allSettled([...pending]).then(resolve)));
}
