//go:build !linux

package conformance

// survivors is not checkable without Linux's /proc: it reports none.
func survivors(string, ...int) []string { return nil }

// pidsIn is not knowable without Linux's /proc.
func pidsIn(string) []int { return nil }

// killSurvivors is not possible without Linux's /proc: it finds none.
func killSurvivors(string, ...int) []string { return nil }
