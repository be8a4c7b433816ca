//go:build !race

package runtime_test

// raceEnabled scales the large-output tests down under the race detector.
const raceEnabled = false
