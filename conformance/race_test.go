//go:build race

package conformance

func init() { timeScale, raceEnabled = 3, true }
