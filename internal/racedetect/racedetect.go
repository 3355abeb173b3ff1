// Package racedetect lets tests know they run under the race detector.
package racedetect

import "testing"

// SkipResultsTest skips, under -race -short, a test that only checks
// results on many inputs. Its goroutines are the ones every run starts
// (parallel parsing, the analyses beside each other, the accumulators),
// which the concurrency tests race: TestCoresGiveTheSameResult,
// TestConcurrentMarkdownRuns, TestRunStopsCleanly and
// TestAccumulatorsMergeAsOne. At the race detector's ten-fold cost it
// would hold CI past its time budget while finding no race they miss. The
// plain run still checks it.
func SkipResultsTest(t testing.TB) {
	t.Helper()
	if On && testing.Short() {
		t.Skip("results test: under -race -short the concurrency tests race the same goroutines; the plain run checks it")
	}
}
