// Package conformance checks an implementation of an agent Bash-tool contract against its agentbash spec.
//
// It is the top of three packages, split as mvdan.cc/sh splits syntax, expand and interp:
//
//   - conformance/cases derives the cases from a spec (pure: no I/O, no target): a battery of calls built
//     from the spec's own parameters, limits and policies (stdout and stderr, exit codes, decoding,
//     newlines, truncation boundaries in the spec's unit, timeouts, working directories, empty and missing
//     parameters, every rule of every policy: from its blocked examples, or from a command derived from the
//     rule), and the spec features they exercise (cases.Features).
//   - conformance/target holds the implementations under test behind one interface (Target, Conn, and a
//     Capabilities value saying what a conn does besides answering calls): InProcess (the runtime itself),
//     Wire (any executable speaking the JSON Lines wire protocol), MCP (an MCP server over stdio), MCPHTTP
//     and MCPSSE (an MCP server at a URL), all MCP ones driven by the official SDK's client, and Model (an
//     agent CLI reached through a model API it calls: the suite plays the model with package
//     conformance/model). It knows nothing of the check.
//   - this package is the check: Check (or Open, Session.Run and Session.Close) runs every case on the
//     reference (the spec executed by this module's runtime, on a fresh workspace) and on a Target (on a
//     fresh, identical workspace), masks what cannot match (the workspace path, pids, uuids and shell ids,
//     RFC 3339 timestamps, fractional durations), compares the answers (JSON structurally, text
//     byte-exact) and checks properties (elapsed time, no process left running in the workspace). The
//     Report sums the results by group, counts the spec features the cases exercised, carries the
//     target's warnings, and renders as text, JSON or JUnit XML; a Baseline lists expected failures.
//     Package conformancetest runs the suite as go test subtests.
//
// The API users call stays here: Check, Open and Session, the options, reports and baselines, and the
// targets' constructors (InProcess, Wire, MCP, MCPHTTP, MCPSSE, Model) with the Target and Case types,
// which are aliases of target.Target and cases.Case. conformance/PROTOCOL.md documents the wire protocol,
// how an MCP server is driven and judged, and the masking rules; runtime/serve is the reference server of
// both.
//
// Safety: a command that a spec's policy blocks is never sent as written to a target that might run it.
// A blocked command is sent guarded ("exit 0; " before it, so a shell that runs it exits first) when the
// policy blocks the guarded form with the same rule; the command as written is sent only to a trusted
// target (one whose Capabilities say ChecksPoliciesFirst, as InProcess's do, or with the Trusted option).
// An allowed example is sent only when it is provably harmless (cases.Harmless): literal words, no
// redirection, and only read-only commands. A case not sent is reported as skipped, with its reason.
package conformance
