package analyze

import "testing"

// skipUnderRace skips a test under -race -short that scores the detector
// on many generated traces: its goroutines are the accumulators', which
// TestAccumulatorsMergeAsOne races, and at the race detector's ten-fold
// cost it would hold CI past its time budget while finding no race that
// test misses. The plain run still scores it.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector && testing.Short() {
		t.Skip("detector scoring: under -race -short TestAccumulatorsMergeAsOne races the same goroutines; the plain run checks it")
	}
}
