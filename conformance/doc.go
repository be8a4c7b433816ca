// Package conformance checks an implementation of an agent Bash-tool contract against its agentbash spec.
//
// Cases derives a battery of calls from a spec's own parameters, limits and policies (stdout and stderr,
// exit codes, decoding, newlines, truncation boundaries in the spec's unit, timeouts, working directories,
// empty commands, policy examples). Check runs every case on the reference (the spec executed by this
// module's runtime, on a fresh workspace) and on a Target (on a fresh, identical workspace), masks what
// cannot match (the workspace path, pids, uuids and shell ids, RFC 3339 timestamps, fractional
// durations), compares the answers (JSON structurally, text byte-exact) and checks properties (elapsed
// time, no process left running in the workspace). Run does the same as go test subtests.
//
// Targets: InProcess (the runtime itself), Wire (any executable speaking the JSON Lines wire protocol of
// the design document: one request per line on stdin, one answer per line on stdout, in order) and MCP
// (an MCP server over stdio). ServeWire is the reference implementation of the wire protocol, on this
// module's runtime.
//
// Safety: a command that a spec's policy blocks is never sent as written to a target that might run it.
// A blocked policy example is sent guarded ("exit 0; " before it, so a shell that runs it exits first)
// when the policy blocks the guarded form with the same rule; the example as written is sent only to a
// trusted target (InProcess, or with the Trusted option). An allowed example is sent only when it is
// provably harmless: literal words, no redirection, and only read-only commands.
package conformance
