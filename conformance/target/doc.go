// Package target holds the implementations the conformance suite checks, behind one interface: a Target
// opens a Conn, which answers one tool call at a time (or concurrently, for a parallel run) and says with a
// Capabilities value what else it does (checks policies first, serves one fixed workspace, has processes of
// its own in the workspace, holds something per case, takes parallel calls at once, shows answers as a
// model sees them, reports warnings).
//
// The targets: InProcess (this module's runtime, through runtime/serve's engine pool), Wire (an executable
// speaking the JSON Lines wire protocol of conformance/PROTOCOL.md), MCP (an MCP server over stdio, one per
// case's workspace), MCPHTTP and MCPSSE (an MCP server at a URL, serving one workspace), all MCP ones driven
// by the official go-sdk's client, and Model (an agent CLI reached through the model API it calls, served by
// package conformance/model). A target knows nothing of cases, masking or reports: package conformance
// runs the check.
package target
