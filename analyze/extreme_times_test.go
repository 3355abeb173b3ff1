package analyze

import (
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
)

// TestRunOnExtremeTimes runs the analyses on timelines whose events lie at
// the ends of what a timeline can hold, or before 1970: they must finish
// without a panic and within maxBins bins, whatever the bin width asked.
func TestRunOnExtremeTimes(t *testing.T) {
	minT := time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	maxT := time.Date(2261, 12, 31, 0, 0, 0, 0, time.UTC).UnixNano()
	at := func(ns int64, class timeline.Class, outcome timeline.Outcome) timeline.Event {
		return timeline.Event{Start: ns, Layer: timeline.LayerHTTP, Class: class, Outcome: outcome, Status: 429, TaskID: timeline.Intern("t"), RetryAfter: timeline.NoRetryAfter}
	}
	tests := []struct {
		name  string
		times []int64
		bin   time.Duration
	}{
		{"centuries apart", []int64{minT, maxT}, 0},
		{"before 1970", []int64{-5e9 - 1, -3e9, -1e9, -1}, 0},
		{"straddling 1970", []int64{-2e9, -1, 0, 1, 2e9}, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "x"}}}
			for i, ns := range tt.times {
				class := timeline.ClassBatch
				if i%2 == 1 {
					class = timeline.ClassInteractive
				}
				tl.Events = append(tl.Events, at(ns, class, timeline.OutcomeThrottled))
			}
			res := Run(tl, Options{BinWidth: tt.bin, Seed: 1})
			if res.Waves.Bins > maxBins {
				t.Errorf("%d bins, over %d", res.Waves.Bins, maxBins)
			}
		})
	}
}

// TestBinSeriesExtremes bins series that overflow an int64 difference or
// start before 1970, at a width too fine for their span.
func TestBinSeriesExtremes(t *testing.T) {
	minT := time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	maxT := time.Date(2261, 12, 31, 0, 0, 0, 0, time.UTC).UnixNano()
	for _, times := range [][]int64{{minT, minT + 1e9, maxT}, {-5e9 - 1, -3e9, -1}, {-1, 0, 1}} {
		bw := max(int64(time.Millisecond), minBinWidth(times))
		b := binSeries(times, bw)
		var total float64
		for _, c := range b.counts {
			total += c
		}
		if len(b.counts) > maxBins || total != float64(len(times)) || b.t0 > times[0] {
			t.Errorf("%v at %d: %d bins from %d holding %v", times, bw, len(b.counts), b.t0, total)
		}
	}
}
