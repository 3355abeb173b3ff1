package analyze

import (
	"math"
	"slices"
	"time"

	"github.com/stampede/stampede/timeline"
)

// eventCounts is the part of the incident summary that each event adds to
// on its own: the window, which sources logged attempts, and the attempts
// by observer, class and outcome.
type eventCounts struct {
	any        bool
	start, end int64
	// httpSources marks the sources that logged an HTTP attempt.
	httpSources []bool
	// http counts HTTP attempts by the rank of their source's observer
	// (timeline.Observer.Rank), class and outcome.
	http [observerRanks][classes][outcomes]int64
}

const (
	observerRanks = 4
	classes       = int(timeline.ClassInteractive) + 1
	outcomes      = int(timeline.OutcomeNonRetryable) + 1
)

// countEvents accumulates tl's eventCounts on every core.
func countEvents(tl *timeline.Timeline) *eventCounts {
	return accumulate(tl, func() *eventCounts { return newEventCounts(tl) })
}

func newEventCounts(tl *timeline.Timeline) *eventCounts {
	return &eventCounts{httpSources: make([]bool, len(tl.Sources))}
}

func (c *eventCounts) add(tl *timeline.Timeline, lo, hi int) {
	if lo < hi && !c.any {
		c.any, c.start, c.end = true, tl.Events[lo].Start, tl.Events[lo].Start
	}
	for i := lo; i < hi; i++ {
		e := &tl.Events[i]
		c.start = min(c.start, e.Start)
		c.end = max(c.end, e.Start, e.End)
		if e.Layer != timeline.LayerHTTP || int(e.Source) >= len(c.httpSources) {
			continue
		}
		c.httpSources[e.Source] = true
		if int(e.Class) < classes && int(e.Outcome) < outcomes {
			c.http[tl.Sources[e.Source].Observer.Rank()][e.Class][e.Outcome]++
		}
	}
}

func (c *eventCounts) merge(later *eventCounts) {
	switch {
	case !later.any:
	case !c.any:
		c.any, c.start, c.end = true, later.start, later.end
	default:
		c.start, c.end = min(c.start, later.start), max(c.end, later.end)
	}
	for s, has := range later.httpSources {
		c.httpSources[s] = c.httpSources[s] || has
	}
	for r := range c.http {
		for cl := range c.http[r] {
			for o := range c.http[r][cl] {
				c.http[r][cl][o] += later.http[r][cl][o]
			}
		}
	}
}

func (c *eventCounts) window() Window {
	if !c.any {
		return Window{}
	}
	return Window{Start: time.Unix(0, c.start).UTC(), End: time.Unix(0, c.end).UTC(), Duration: seconds(c.end - c.start)}
}

// observers marks the sources whose attempts count: those of the best
// observer that logged any. An SDK debug log read beside the proxy's
// access log describes the same attempts again, less completely.
func (c *eventCounts) observers(tl *timeline.Timeline) []bool {
	best := c.bestRank(tl)
	use := make([]bool, len(tl.Sources))
	for s, src := range tl.Sources {
		use[s] = c.httpSources[s] && src.Observer.Rank() == best
	}
	return use
}

func (c *eventCounts) bestRank(tl *timeline.Timeline) int {
	best := -1
	for s, src := range tl.Sources {
		if c.httpSources[s] {
			best = max(best, src.Observer.Rank())
		}
	}
	return best
}

// httpSide is the HTTP side of the reconciliation over the attempts that
// count, all of them (class < 0) or one class's.
func (c *eventCounts) httpSide(tl *timeline.Timeline, class timeline.Class, all bool) HTTPSide {
	var h HTTPSide
	best := c.bestRank(tl)
	if best < 0 {
		return h
	}
	for cl := range c.http[best] {
		if !all && timeline.Class(cl) != class {
			continue
		}
		n := &c.http[best][cl]
		h.OK += n[timeline.OutcomeOK]
		h.Throttled += n[timeline.OutcomeThrottled]
		h.Retryable += n[timeline.OutcomeRetryable]
		h.NonRetryable += n[timeline.OutcomeNonRetryable]
		h.Unknown += n[timeline.OutcomeUnknown]
		for _, k := range n {
			h.Attempts += k
		}
	}
	h.setRates()
	return h
}

// setRates fills the throttle rate, and its upper bound when some
// attempts' outcome is unknown.
func (h *HTTPSide) setRates() {
	h.ThrottleRate = ratio(float64(h.Throttled), float64(h.Attempts))
	h.ThrottleRateMax = 0
	if h.Unknown > 0 {
		h.ThrottleRateMax = ratio(float64(h.Throttled+h.Unknown), float64(h.Attempts))
	}
}

// Series is what the charts draw beyond the findings: attempts per second
// and the interactive class's fate by window. It is part of the result so
// that every format renders one model, and left out of the JSON, which
// keeps the figures and not a point per second.
type Series struct {
	// Rate is HTTP attempts per second by outcome, one point per second
	// from the window start (per several, as pointStep gives, in a long
	// window).
	Rate []RatePoint
	// RateByClass is the same per known traffic class present, batch
	// first.
	RateByClass []ClassRate
	// Interactive is the interactive class's throttling and latency by
	// window, for the starvation chart; nil without interactive attempts.
	Interactive []InteractivePoint
}

// ClassRate is the per-second series of one traffic class.
type ClassRate struct {
	Class  string
	Points []RatePoint
}

// RatePoint is one second of attempts, split by outcome, or, in a window
// longer than maxRatePoints seconds, the mean second of several.
// Attempts of unknown outcome are left out (the tables count them).
type RatePoint struct {
	// Offset is seconds after the incident start.
	Offset                 float64
	OK, Throttled, Errored float64
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

// maxRatePoints bounds a rate series: an hour at a point a second. A longer
// window takes a point per several seconds, each the mean rate over them,
// so that a chart, and the report holding it, stays the size of a chart
// however long the window: a few lines a month apart made a point for
// every second of the month, 70 MB of HTML.
const maxRatePoints = 3600

// LoadWindow is the seconds each point of the throttle-and-load chart
// sums, and the shortest window of the starvation chart: a few
// interactive requests a second give a share that jumps between 0 and
// 100% second by second, and a window much shorter than a wave period
// still shows each wave.
const LoadWindow = 5

// PointStep is the seconds a point of a rate series over secs seconds
// covers: 1, or the first round step (a minute, a quarter of an hour, an
// hour, whole hours) that keeps the series within maxRatePoints.
func PointStep(secs float64) float64 {
	need := math.Ceil(secs / maxRatePoints)
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600} {
		if s >= need {
			return s
		}
	}
	return math.Ceil(need/3600) * 3600
}

// seriesCounts accumulates Series over a window known beforehand.
type seriesCounts struct {
	start int64
	// rate is per class, then per point; its width is rateWidth.
	rate      [classes][]RatePoint
	rateWidth uint64
	// seen marks the classes that logged an HTTP attempt.
	seen [classes]bool
	// inter and its durations are per starvation window of interWidth.
	inter                []InteractivePoint
	interWidth           uint64
	callDur, attemptDur  [][]float64
	anyInteractive       bool
	ratePoints, interPts int
}

// seriesShape is the binning of a window: points of step seconds for the
// rate, and of interStep for the starvation chart; ok is false for an
// empty or damaged window.
func seriesShape(w Window) (step float64, points int, interStep float64, interPoints int, ok bool) {
	if w.Start.IsZero() {
		return 0, 0, 0, 0, false
	}
	secs := math.Ceil(w.Duration) + 1
	if !(secs >= 1) {
		return 0, 0, 0, 0, false
	}
	step = PointStep(secs)
	interStep = max(float64(LoadWindow), step)
	return step, int(math.Ceil(secs / step)), interStep, int(math.Ceil(secs / interStep)), true
}

func newSeriesCounts(w Window) *seriesCounts {
	step, n, interStep, ni, ok := seriesShape(w)
	if !ok {
		return &seriesCounts{}
	}
	s := &seriesCounts{start: w.Start.UnixNano(), rateWidth: uint64(step * 1e9), interWidth: uint64(interStep * 1e9), ratePoints: n, interPts: ni}
	for c := range s.rate {
		s.rate[c] = make([]RatePoint, n)
	}
	s.inter = make([]InteractivePoint, ni)
	s.callDur, s.attemptDur = make([][]float64, ni), make([][]float64, ni)
	return s
}

func (s *seriesCounts) add(tl *timeline.Timeline, lo, hi int) {
	if s.ratePoints == 0 {
		return
	}
	for i := lo; i < hi; i++ {
		e := &tl.Events[i]
		if e.Start < s.start || int(e.Class) >= classes {
			continue
		}
		// Unsigned: a window of centuries overflows a signed difference.
		off := uint64(e.Start) - uint64(s.start)
		if e.Layer == timeline.LayerHTTP {
			s.seen[e.Class] = true
			if k := off / s.rateWidth; k < uint64(s.ratePoints) {
				p := &s.rate[e.Class][k]
				switch {
				case e.Outcome == timeline.OutcomeOK:
					p.OK++
				case e.Outcome == timeline.OutcomeThrottled:
					p.Throttled++
				case e.Outcome.Failed():
					p.Errored++
				}
			}
		}
		k := off / s.interWidth
		if k >= uint64(s.interPts) {
			continue
		}
		p := &s.inter[k]
		switch {
		case e.Layer == timeline.LayerHTTP && e.Class == timeline.ClassBatch:
			p.BatchAttempts++
		case e.Class != timeline.ClassInteractive:
		case e.Layer == timeline.LayerHTTP:
			if e.Outcome == timeline.OutcomeOK || e.Outcome == timeline.OutcomeThrottled || e.Outcome.Failed() {
				p.Attempts++
				s.anyInteractive = true
			}
			if e.Outcome == timeline.OutcomeThrottled {
				p.Throttled++
			}
			if e.End > e.Start {
				s.attemptDur[k] = append(s.attemptDur[k], float64(e.End-e.Start)/1e9)
			}
		case e.Layer == timeline.LayerCall && e.End > e.Start:
			s.callDur[k] = append(s.callDur[k], float64(e.End-e.Start)/1e9)
		}
	}
}

func (s *seriesCounts) merge(later *seriesCounts) {
	for c := range s.rate {
		s.seen[c] = s.seen[c] || later.seen[c]
		for k := range s.rate[c] {
			p, q := &s.rate[c][k], &later.rate[c][k]
			p.OK += q.OK
			p.Throttled += q.Throttled
			p.Errored += q.Errored
		}
	}
	s.anyInteractive = s.anyInteractive || later.anyInteractive
	for k := range s.inter {
		p, q := &s.inter[k], &later.inter[k]
		p.Attempts += q.Attempts
		p.Throttled += q.Throttled
		p.BatchAttempts += q.BatchAttempts
		s.callDur[k] = append(s.callDur[k], later.callDur[k]...)
		s.attemptDur[k] = append(s.attemptDur[k], later.attemptDur[k]...)
	}
}

func (s *seriesCounts) finalize() Series {
	var out Series
	if s.ratePoints == 0 {
		return out
	}
	step := float64(s.rateWidth) / 1e9
	points := func(c []timeline.Class) []RatePoint {
		pts := make([]RatePoint, s.ratePoints)
		for k := range pts {
			pts[k].Offset = float64(k) * step
			for _, cl := range c {
				q := &s.rate[cl][k]
				pts[k].OK += q.OK
				pts[k].Throttled += q.Throttled
				pts[k].Errored += q.Errored
			}
			if step > 1 {
				pts[k].OK /= step
				pts[k].Throttled /= step
				pts[k].Errored /= step
			}
		}
		return pts
	}
	out.Rate = points([]timeline.Class{timeline.ClassUnknown, timeline.ClassBatch, timeline.ClassInteractive})
	for _, c := range []timeline.Class{timeline.ClassBatch, timeline.ClassInteractive} {
		if s.seen[c] {
			out.RateByClass = append(out.RateByClass, ClassRate{Class: c.String(), Points: points([]timeline.Class{c})})
		}
	}
	if !s.anyInteractive {
		return out
	}
	useCalls := false
	for _, d := range s.callDur {
		useCalls = useCalls || len(d) > 0
	}
	interStep := float64(s.interWidth) / 1e9
	for k := range s.inter {
		s.inter[k].Offset = float64(k) * interStep
		d := s.attemptDur[k]
		if useCalls {
			d = s.callDur[k]
		}
		if len(d) > 0 {
			slices.Sort(d)
			s.inter[k].LatencyP50, s.inter[k].LatencyP95 = percentileSorted(d, 0.5), percentileSorted(d, 0.95)
			s.inter[k].Calls = len(d)
		}
	}
	out.Interactive = s.inter
	return out
}
