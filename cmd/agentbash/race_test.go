//go:build race

package main

func init() {
	raceEnabled = true
	timeScale = "3"
}
