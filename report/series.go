package report

import (
	"math"
	"slices"

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

// maxRatePoints bounds a rate series: an hour at a point a second. A longer
// window takes a point per several seconds, each the mean rate over them,
// so that a chart, and the report holding it, stays the size of a chart
// however long the window: a few lines a month apart made a point for
// every second of the month, 70 MB of HTML.
const maxRatePoints = 3600

func rateSeries(tl *timeline.Timeline, r *analyze.Result, keep func(timeline.Class) bool) []RatePoint {
	if tl == nil || r.Window.Start.IsZero() {
		return nil
	}
	start := r.Window.Start.UnixNano()
	secs := math.Ceil(r.Window.Duration) + 1
	if !(secs >= 1) {
		return nil
	}
	step := pointStep(secs)
	n := int(math.Ceil(secs / step))
	points := make([]RatePoint, n)
	for i := range points {
		points[i].Offset = float64(i) * step
	}
	width := uint64(step * 1e9)
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP || !keep(e.Class) || e.Start < start {
			continue
		}
		// Unsigned: a window of centuries overflows a signed difference.
		s := (uint64(e.Start) - uint64(start)) / width
		if s >= uint64(n) {
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
	if step > 1 {
		for i := range points {
			points[i].OK /= step
			points[i].Throttled /= step
			points[i].Errored /= step
		}
	}
	return points
}

// pointStep is the seconds a point of a rate series over secs seconds
// covers: 1, or the first round step (a minute, a quarter of an hour, an
// hour, whole hours) that keeps the series within maxRatePoints.
func pointStep(secs float64) float64 {
	need := math.Ceil(secs / maxRatePoints)
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600} {
		if s >= need {
			return s
		}
	}
	return math.Ceil(need/3600) * 3600
}

// pointSeconds is the seconds each point of a rate series covers.
func pointSeconds(pts []RatePoint) float64 {
	if len(pts) < 2 {
		return 1
	}
	return pts[1].Offset - pts[0].Offset
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
	// interactive attempts of known outcome, and those throttled (per
	// second of each point, when a point is several seconds).
	InteractiveAttempts, InteractiveThrottled float64
}

// ThrottleLoadSeries sums the class series over a centred window of the
// given seconds, one point per point of the series (a second, or more for
// a long window; the window is then at least one point). It is nil
// without interactive traffic, whose throttling is what the chart shows.
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
	// Both series share their window, and so their step.
	step := max(pointSeconds(batch), pointSeconds(interactive))
	window = max(1, int(math.Round(float64(window)/step)))
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

// NewSeries is every per-second series the charts draw from tl, the
// timeline r was analysed from.
func NewSeries(tl *timeline.Timeline, r *analyze.Result) Series {
	return Series{Rate: RateSeries(tl, r), RateByClass: RateSeriesByClass(tl, r), Interactive: InteractiveSeries(tl, r)}
}

// InteractivePoint is one window of the starvation chart: what the
// interactive class met while batch retries held the shared limit.
type InteractivePoint struct {
	// Offset is the window's start, seconds after the incident start.
	Offset float64
	// Attempts and Throttled count the window's interactive HTTP attempts
	// of known outcome, and those throttled.
	Attempts, Throttled float64
	// BatchAttempts counts the window's batch HTTP attempts.
	BatchAttempts float64
	// Latency is the median and 95th percentile, in seconds, of the
	// durations of the interactive calls that began in the window (their
	// retries included), or of its attempts where the log has no calls;
	// Calls is how many durations they rest on, 0 when none had an end.
	LatencyP50, LatencyP95 float64
	Calls                  int
}

// InteractiveSeries sums the interactive traffic of tl into windows of
// loadWindow seconds (more for a long incident, as pointStep gives), from
// r's window start; nil without interactive HTTP attempts. A user waits
// for a call, retries and all, so latency is taken from call events when
// the log has them.
func InteractiveSeries(tl *timeline.Timeline, r *analyze.Result) []InteractivePoint {
	if tl == nil || r.Window.Start.IsZero() {
		return nil
	}
	secs := math.Ceil(r.Window.Duration) + 1
	if !(secs >= 1) {
		return nil
	}
	step := max(float64(loadWindow), pointStep(secs))
	n := int(math.Ceil(secs / step))
	start, width := r.Window.Start.UnixNano(), uint64(step*1e9)
	bin := func(e *timeline.Event) int {
		if e.Start < start {
			return -1
		}
		s := (uint64(e.Start) - uint64(start)) / width
		if s >= uint64(n) {
			return -1
		}
		return int(s)
	}
	points := make([]InteractivePoint, n)
	callDur, attemptDur := make([][]float64, n), make([][]float64, n)
	any := false
	for i := range tl.Events {
		e := &tl.Events[i]
		s := bin(e)
		if s < 0 {
			continue
		}
		switch {
		case e.Layer == timeline.LayerHTTP && e.Class == timeline.ClassBatch:
			points[s].BatchAttempts++
		case e.Class != timeline.ClassInteractive:
		case e.Layer == timeline.LayerHTTP:
			if e.Outcome == timeline.OutcomeOK || e.Outcome == timeline.OutcomeThrottled || e.Outcome.Failed() {
				points[s].Attempts++
				any = true
			}
			if e.Outcome == timeline.OutcomeThrottled {
				points[s].Throttled++
			}
			if e.End > e.Start {
				attemptDur[s] = append(attemptDur[s], float64(e.End-e.Start)/1e9)
			}
		case e.Layer == timeline.LayerCall && e.End > e.Start:
			callDur[s] = append(callDur[s], float64(e.End-e.Start)/1e9)
		}
	}
	if !any {
		return nil
	}
	useCalls := false
	for _, d := range callDur {
		useCalls = useCalls || len(d) > 0
	}
	for i := range points {
		points[i].Offset = float64(i) * step
		d := attemptDur[i]
		if useCalls {
			d = callDur[i]
		}
		if len(d) > 0 {
			slices.Sort(d)
			points[i].LatencyP50, points[i].LatencyP95 = sortedQuantile(d, 0.5), sortedQuantile(d, 0.95)
			points[i].Calls = len(d)
		}
	}
	return points
}

// sortedQuantile is the q-quantile of sorted, by linear interpolation.
func sortedQuantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(pos)
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
}
