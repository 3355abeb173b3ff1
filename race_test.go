//go:build race

package stampede_test

// raceDetector is true when the tests run under -race, which slows the
// analyses ten times over without finding more races in them.
const raceDetector = true
