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
