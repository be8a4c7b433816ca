// Package cases derives the conformance cases of a spec: pure functions of a complete spec.Variant, with
// no I/O and no target (package conformance runs them, package conformance/target reaches what they run on).
//
// Cases builds, for each tool that runs a command, a battery from the tool's own parameters, limits and
// policies: stdout and stderr, exit codes, decoding, newlines, truncation boundaries at -1/0/+1 in the
// spec's unit and scope (a result-level limit as a sized case the check calibrates), timeouts, working
// directories, recorded and typed parameters, redaction rules, empty, blank, missing and mistyped
// parameters, every rule of every policy (a blocked example that only it decides, or a command derived from
// the rule that the policy without it would answer differently), session conversations and carried state;
// for poll, kill and session tools the unknown and missing ids. Features lists the spec features the
// battery can exercise, and Case.AllFeatures those a case does.
//
// A case that could do harm is marked: Hazard (a blocked command as written, sent only to a trusted
// target), or Skip (an allowed example that Harmless cannot prove harmless, a rule no command exercises).
package cases
