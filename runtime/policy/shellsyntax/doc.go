// Package shellsyntax is the tree side of the shell policy's static analyser: a fast parser that builds, for
// the commonest shapes of command, exactly the tree mvdan.cc/sh/v3/syntax builds (FastParse, with its
// arena), and a prepass that collects from any such tree what a static analysis needs (Collector).
//
// It knows nothing of policies: runtime/policy parses with FastParse (falling back to mvdan.cc/sh's parser
// for what it declines), collects with Collector, expands words with shellexpand and decides.
package shellsyntax
