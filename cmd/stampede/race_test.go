//go:build race

package main

// raceDetector is true when the tests run under -race.
const raceDetector = true
