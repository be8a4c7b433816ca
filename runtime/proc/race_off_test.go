//go:build !race

package proc

// raceEnabled scales the survivor tests down under the race detector.
const raceEnabled = false
