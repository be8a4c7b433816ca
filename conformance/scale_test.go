package conformance

// timeScale stretches the cases' time bounds in the tests of this package: 3 under the race detector
// (race_test.go), whose processes run several times slower on a loaded runner.
var timeScale = 1.0

// raceEnabled reports that the race detector is on (race_test.go sets it).
var raceEnabled bool
