package report

import (
	"math"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/timeline"
)

// RateSeries counts the timeline's HTTP attempts per second by outcome,
// from the result's window start, for the requests-per-second chart. The
// result keeps totals only, so the chart reads the timeline it came from.
// Attempts of unknown outcome are left out of the chart (they are counted
// in the report's tables).
func RateSeries(tl *timeline.Timeline, r *analyze.Result) []RatePoint {
	return rateSeries(tl, r, func(timeline.Class) bool { return true })
}

// RateSeriesByClass is RateSeries for each known traffic class present,
// batch first.
func RateSeriesByClass(tl *timeline.Timeline, r *analyze.Result) []ClassRate {
	if tl == nil {
		return nil
	}
	var seen [256]bool
	for i := range tl.Events {
		if e := &tl.Events[i]; e.Layer == timeline.LayerHTTP {
			seen[e.Class] = true
		}
	}
	var out []ClassRate
	for _, c := range []timeline.Class{timeline.ClassBatch, timeline.ClassInteractive} {
		if !seen[c] {
			continue
		}
		if pts := rateSeries(tl, r, func(ec timeline.Class) bool { return ec == c }); pts != nil {
			out = append(out, ClassRate{Class: c.String(), Points: pts})
		}
	}
	return out
}

func rateSeries(tl *timeline.Timeline, r *analyze.Result, keep func(timeline.Class) bool) []RatePoint {
	if tl == nil || r.Window.Start.IsZero() {
		return nil
	}
	start := r.Window.Start.UnixNano()
	n := int(math.Ceil(r.Window.Duration)) + 1
	if n <= 0 {
		return nil
	}
	points := make([]RatePoint, n)
	for i := range points {
		points[i].Offset = float64(i)
	}
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP || !keep(e.Class) {
			continue
		}
		s := int((e.Start - start) / 1e9)
		if s < 0 || s >= n {
			continue
		}
		switch {
		case e.Outcome == timeline.OutcomeOK:
			points[s].OK++
		case e.Outcome == timeline.OutcomeThrottled:
			points[s].Throttled++
		case e.Outcome.Failed():
			points[s].Errored++
		}
	}
	return points
}

// loadWindow is the seconds each point of the throttle-and-load chart
// sums: a few interactive requests a second give a share that jumps
// between 0 and 100% second by second, and a window much shorter than a
// wave period still shows each wave.
const loadWindow = 5

// LoadPoint is one window of the throttle-and-load chart.
type LoadPoint struct {
	// Offset is the window's centre, seconds after the incident start.
	Offset float64
	// BatchRate is batch attempts per second, averaged over the window.
	BatchRate float64
	// InteractiveAttempts and InteractiveThrottled count the window's
	// interactive attempts of known outcome, and those throttled.
	InteractiveAttempts, InteractiveThrottled float64
}

// ThrottleLoadSeries sums the per-second class series over a centred
// window of the given seconds, one point per second. It is nil without
// interactive traffic, whose throttling is what the chart shows.
func ThrottleLoadSeries(byClass []ClassRate, window int) []LoadPoint {
	var batch, interactive []RatePoint
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
	window = max(1, window)
	total := func(pts []RatePoint, i int) float64 {
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
		pt := LoadPoint{Offset: float64(i)}
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
