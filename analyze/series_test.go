package analyze

import (
	"math"
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
)

// seriesOf is the Series of tl over the window w, accumulated in one
// stretch.
func seriesOf(tl *timeline.Timeline, w Window) Series {
	return accumulateIn(tl, func() *seriesCounts { return newSeriesCounts(w) }, 1).finalize()
}

var seriesStart = time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)

func seriesAt(s float64) time.Time { return seriesStart.Add(time.Duration(s * float64(time.Second))) }

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestRateSeriesCountsAttemptsPerSecond(t *testing.T) {
	r := &Result{Window: Window{Start: seriesStart, End: seriesAt(2.5), Duration: 2.5}}
	ev := func(s float64, l timeline.Layer, o timeline.Outcome) timeline.Event {
		return timeline.Event{Start: seriesAt(s).UnixNano(), Layer: l, Outcome: o}
	}
	tl := &timeline.Timeline{Events: []timeline.Event{
		ev(0.1, timeline.LayerHTTP, timeline.OutcomeOK),
		ev(0.9, timeline.LayerHTTP, timeline.OutcomeThrottled),
		ev(1.0, timeline.LayerHTTP, timeline.OutcomeThrottled),
		ev(1.5, timeline.LayerCall, timeline.OutcomeThrottled), // a call, not an attempt
		ev(2.2, timeline.LayerHTTP, timeline.OutcomeRetryable),
		ev(2.3, timeline.LayerHTTP, timeline.OutcomeNonRetryable),
	}}
	got := seriesOf(tl, r.Window).Rate
	want := []RatePoint{{Offset: 0, OK: 1, Throttled: 1}, {Offset: 1, Throttled: 1}, {Offset: 2, Errored: 2}, {Offset: 3}}
	if len(got) != len(want) {
		t.Fatalf("%d points, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("second %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// Events without a class belong to no class's chart.
	if byClass := seriesOf(tl, r.Window).RateByClass; len(byClass) != 0 {
		t.Errorf("unclassed events made class series: %+v", byClass)
	}
	tl.Events[0].Class = timeline.ClassInteractive
	tl.Events[1].Class = timeline.ClassBatch
	tl.Events[4].Class = timeline.ClassBatch
	byClass := seriesOf(tl, r.Window).RateByClass
	if len(byClass) != 2 || byClass[0].Class != "batch" || byClass[1].Class != "interactive" {
		t.Fatalf("by class: %+v", byClass)
	}
	if b := byClass[0].Points; b[0].Throttled != 1 || b[0].OK != 0 || b[2].Errored != 1 {
		t.Errorf("batch series %+v", b)
	}
	if i := byClass[1].Points; i[0].OK != 1 || i[0].Throttled != 0 {
		t.Errorf("interactive series %+v", i)
	}
	if seriesOf(tl, Window{}).Rate != nil {
		t.Error("series without a window")
	}
}

// TestRateSeriesLongWindow counts attempts per second over a short window,
// and over a month in at most maxRatePoints points of several seconds,
// each the mean rate over them: no attempt is lost either way, and the
// load series over the long one still pairs the classes point by point.
func TestRateSeriesLongWindow(t *testing.T) {
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		at     []time.Duration // attempts, after start
		points int
		step   float64
	}{
		{"ten seconds", []time.Duration{0, time.Second, 1500 * time.Millisecond, 10 * time.Second}, 11, 1},
		{"a month", []time.Duration{0, time.Second, 29 * 24 * time.Hour, 29*24*time.Hour + time.Second}, 2785, 900},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "x"}}}
			for i, d := range tt.at {
				class := timeline.ClassBatch
				if i%2 == 1 {
					class = timeline.ClassInteractive
				}
				tl.Events = append(tl.Events, timeline.Event{Start: start.Add(d).UnixNano(), Layer: timeline.LayerHTTP, Class: class, Outcome: timeline.OutcomeThrottled, Status: 429})
			}
			last := tt.at[len(tt.at)-1]
			r := &Result{Window: Window{Start: start, End: start.Add(last), Duration: last.Seconds()}}
			pts := seriesOf(tl, r.Window).Rate
			if len(pts) != tt.points || (pts[1].Offset-pts[0].Offset) != tt.step {
				t.Fatalf("%d points of %g s, want %d of %g s", len(pts), (pts[1].Offset - pts[0].Offset), tt.points, tt.step)
			}
			var total float64
			for _, p := range pts {
				total += p.Throttled * tt.step
			}
			if !near(total, float64(len(tt.at))) {
				t.Errorf("the points hold %g attempts, want %d", total, len(tt.at))
			}
			for _, c := range seriesOf(tl, r.Window).RateByClass {
				if len(c.Points) != tt.points || c.Points[len(c.Points)-1].Offset != float64(tt.points-1)*tt.step {
					t.Errorf("%s series of %d points ending at %g s", c.Class, len(c.Points), c.Points[len(c.Points)-1].Offset)
				}
			}
		})
	}
}

// TestInteractiveSeries: interactive attempts and throttles summed per
// 5 s window, batch attempts beside them, and latency from the calls (a
// user waits for the call, retries included) or, without calls, from the
// attempts.
func TestInteractiveSeries(t *testing.T) {
	start := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	at := func(s float64) int64 { return start.Add(time.Duration(s * float64(time.Second))).UnixNano() }
	http := func(s float64, c timeline.Class, o timeline.Outcome, dur float64) timeline.Event {
		return timeline.Event{Start: at(s), End: at(s + dur), Layer: timeline.LayerHTTP, Class: c, Outcome: o}
	}
	call := func(s, dur float64) timeline.Event {
		return timeline.Event{Start: at(s), End: at(s + dur), Layer: timeline.LayerCall, Class: timeline.ClassInteractive, Outcome: timeline.OutcomeOK}
	}
	i, b := timeline.ClassInteractive, timeline.ClassBatch
	ok, thr := timeline.OutcomeOK, timeline.OutcomeThrottled
	attempts := []timeline.Event{
		http(0, i, ok, 0.1), http(1, i, ok, 0.3), http(2, b, thr, 0.01),
		// Window 5–10 s: the batch has gone, interactive still refused.
		http(6, i, thr, 0.01), http(7, i, thr, 0.01), http(8, i, ok, 0.5), http(9.9, i, thr, 0.01),
	}
	tests := []struct {
		name   string
		events []timeline.Event
		want   []InteractivePoint
	}{
		{"no interactive attempts", []timeline.Event{http(0, b, ok, 0.1), http(9.9, b, ok, 0.1)}, nil},
		{"latency of the attempts", attempts, []InteractivePoint{
			{Offset: 0, Attempts: 2, BatchAttempts: 1, LatencyP50: 0.2, LatencyP95: 0.29, Calls: 2},
			{Offset: 5, Attempts: 4, Throttled: 3, LatencyP50: 0.01, LatencyP95: 0.4265, Calls: 4},
			// The window's last second, 9.9 s, opens a third.
			{Offset: 10},
		}},
		{"latency of the calls", append(attempts[:len(attempts):len(attempts)], call(0, 0.1), call(1, 0.3), call(6, 24)), []InteractivePoint{
			{Offset: 0, Attempts: 2, BatchAttempts: 1, LatencyP50: 0.2, LatencyP95: 0.29, Calls: 2},
			{Offset: 5, Attempts: 4, Throttled: 3, LatencyP50: 24, LatencyP95: 24, Calls: 1},
			{Offset: 10},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &timeline.Timeline{Events: tt.events}
			r := &Result{Window: Window{Start: start, End: start.Add(9900 * time.Millisecond), Duration: 9.9}}
			got := seriesOf(tl, r.Window).Interactive
			if len(got) != len(tt.want) {
				t.Fatalf("%d windows, want %d: %+v", len(got), len(tt.want), got)
			}
			for k := range got {
				g, w := got[k], tt.want[k]
				if g.Offset != w.Offset || g.Attempts != w.Attempts || g.Throttled != w.Throttled || g.BatchAttempts != w.BatchAttempts ||
					g.Calls != w.Calls || math.Abs(g.LatencyP50-w.LatencyP50) > 1e-6 || math.Abs(g.LatencyP95-w.LatencyP95) > 1e-6 {
					t.Errorf("window %d = %+v, want %+v", k, g, w)
				}
			}
		})
	}
}
