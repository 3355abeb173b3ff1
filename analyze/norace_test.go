//go:build !race

package analyze

const raceDetector = false
