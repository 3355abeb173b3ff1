//go:build !race

package stampede_test

const raceDetector = false
