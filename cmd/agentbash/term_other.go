//go:build !linux

package main

import "io"

// isTerminal reports whether w is a terminal: never, off Linux (the text is written as received).
func isTerminal(io.Writer) bool { return false }
