//go:build race

package racedetect

// On is true when the binary is built with -race.
const On = true
