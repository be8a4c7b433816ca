//go:build race

package conformance

func init() { timeScale = 3 }
