package report

import (
	"math"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/timeline"
)

// pointSeconds is the seconds each point of a rate series covers.
func pointSeconds(pts []analyze.RatePoint) float64 {
	if len(pts) < 2 {
		return 1
	}
	return pts[1].Offset - pts[0].Offset
}

// LoadPoint is one window of the throttle-and-load chart.
type LoadPoint struct {
	// Offset is the window's centre, seconds after the incident start.
	Offset float64
	// BatchRate is batch attempts per second, averaged over the window.
	BatchRate float64
	// InteractiveAttempts and InteractiveThrottled count the window's
	// interactive attempts of known outcome, and those throttled (per
	// second of each point, when a point is several seconds).
	InteractiveAttempts, InteractiveThrottled float64
}

// ThrottleLoadSeries sums the class series over a centred window of the
// given seconds, one point per point of the series (a second, or more for
// a long window; the window is then at least one point). It is nil
// without interactive traffic, whose throttling is what the chart shows.
func ThrottleLoadSeries(byClass []analyze.ClassRate, window int) []LoadPoint {
	var batch, interactive []analyze.RatePoint
	for _, c := range byClass {
		switch c.Class {
		case timeline.ClassBatch.String():
			batch = c.Points
		case timeline.ClassInteractive.String():
			interactive = c.Points
		}
	}
	n := max(len(batch), len(interactive))
	if len(interactive) == 0 || n == 0 {
		return nil
	}
	// Both series share their window, and so their step.
	step := max(pointSeconds(batch), pointSeconds(interactive))
	window = max(1, int(math.Round(float64(window)/step)))
	total := func(pts []analyze.RatePoint, i int) float64 {
		if i >= len(pts) {
			return 0
		}
		return pts[i].OK + pts[i].Throttled + pts[i].Errored
	}
	throttled := func(i int) float64 {
		if i >= len(interactive) {
			return 0
		}
		return interactive[i].Throttled
	}
	out := make([]LoadPoint, n)
	for i := range out {
		lo, hi := max(0, i-window/2), min(n, i-window/2+window)
		pt := LoadPoint{Offset: float64(i) * step}
		for k := lo; k < hi; k++ {
			pt.BatchRate += total(batch, k)
			pt.InteractiveAttempts += total(interactive, k)
			pt.InteractiveThrottled += throttled(k)
		}
		pt.BatchRate /= float64(hi - lo)
		out[i] = pt
	}
	return out
}
