//go:build race

package analyze

// raceDetector is true when the tests run under -race.
const raceDetector = true
