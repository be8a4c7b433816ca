// Package shellexpand is the expansion side of the shell policy's static analyser: what a shell word can
// expand to, computed without running anything, the way mvdan.cc/sh/v3/expand expands words at run time.
//
// Quotes and escapes are removed ('r”m', r\m and $'\x72m' are all "rm"), brace expansion is done,
// parameters assigned in the same script are substituted (including ${IFS} and its field splitting,
// slices, replacements, defaults and case changes), and a command substitution that only echoes or printfs
// constant text is replaced by that text. What cannot be known (an unassigned variable, another command's
// output, $1) is marked dynamic (Field.Dyn), and the known text around it is kept. A word whose variables
// can have several values has several alternatives, up to MaxAlts.
//
// A Scope holds one script's variables, recorded by Prepass from what a shellsyntax.Collector collected.
// It knows nothing of policies: runtime/policy decides what the expanded command lines mean.
package shellexpand
