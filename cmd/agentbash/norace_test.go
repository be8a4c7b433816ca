package main

// raceEnabled reports that the race detector is on (race_test.go sets it).
var raceEnabled bool
