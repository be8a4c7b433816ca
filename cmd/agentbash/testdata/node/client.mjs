// Drives `agentbash serve toolregistry` with the official MCP TypeScript SDK and prints what it got as one
// JSON object: the tools listed, a call that succeeds and a call the deny list refuses.
//
//   node client.mjs stdio COMMAND ARGS...
//   node client.mjs http URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, ...rest] = process.argv.slice(2);
const transport = mode === "stdio"
  ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: "inherit" })
  : new StreamableHTTPClientTransport(new URL(rest[0]));
const client = new Client({ name: "agentbash-interop", version: "1.0.0" });
await client.connect(transport);
const tools = await client.listTools();
const ok = await client.callTool({ name: "bash", arguments: { command: "echo hello" } });
const refused = await client.callTool({ name: "bash", arguments: { command: "sudo ls" } });
console.log(JSON.stringify({ server: client.getServerVersion(), tools: tools.tools, ok, refused }));
await client.close();
