//go:build !race

package textcap

// raceEnabled scales the large-input tests down under the race detector, which makes them ~40 times slower.
const raceEnabled = false
