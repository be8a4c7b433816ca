package main

// timeScale multiplies the conformance cases' time bounds (race_test.go sets it under the race detector).
var timeScale = 1.0
