package main

import "testing"

// skipUnderRace skips a test under -race -short whose goroutines are the
// ones every run starts (parallel parsing, the analyses beside each other)
// and which TestConcurrentMarkdownRuns and TestRunStopsCleanly already
// race: it checks results, and at the race detector's ten-fold cost it
// would hold CI past its time budget while finding no race the others
// miss. The plain run still checks it.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector && testing.Short() {
		t.Skip("results test: under -race -short the concurrency tests race the same goroutines; the plain run checks it")
	}
}
