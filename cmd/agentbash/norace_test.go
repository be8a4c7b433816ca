package main

// raceEnabled reports that the race detector is on (race_test.go sets it).
var raceEnabled bool

// timeScale is the conformance runs' -time-scale: 3 under the race detector, whose processes run several
// times slower on a loaded runner (race_test.go).
var timeScale = "1"
