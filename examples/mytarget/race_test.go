//go:build race

package main

// The race detector slows the processes of a loaded machine: the cases' time bounds are tripled.
func init() { timeScale = 3 }
