package report

import (
	"math"
	"testing"
	"time"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/timeline"
)

func TestThrottleLoadSeries(t *testing.T) {
	pts := func(vals ...[3]float64) []RatePoint {
		out := make([]RatePoint, len(vals))
		for i, v := range vals {
			out[i] = RatePoint{Offset: float64(i), OK: v[0], Throttled: v[1], Errored: v[2]}
		}
		return out
	}
	batch := ClassRate{Class: "batch", Points: pts([3]float64{10, 0, 0}, [3]float64{100, 50, 10}, [3]float64{10, 0, 0}, [3]float64{0, 0, 0})}
	interactive := ClassRate{Class: "interactive", Points: pts([3]float64{4, 0, 0}, [3]float64{2, 2, 0}, [3]float64{1, 3, 0}, [3]float64{0, 4, 0})}
	tests := []struct {
		name    string
		byClass []ClassRate
		window  int
		want    []LoadPoint
	}{
		{"no interactive traffic", []ClassRate{batch}, 1, nil},
		{"per second", []ClassRate{batch, interactive}, 1, []LoadPoint{
			{Offset: 0, BatchRate: 10, InteractiveAttempts: 4},
			{Offset: 1, BatchRate: 160, InteractiveAttempts: 4, InteractiveThrottled: 2},
			{Offset: 2, BatchRate: 10, InteractiveAttempts: 4, InteractiveThrottled: 3},
			// Throttled after the batch load is gone: the picture the
			// chart is for.
			{Offset: 3, BatchRate: 0, InteractiveAttempts: 4, InteractiveThrottled: 4},
		}},
		{"three-second window, clipped at the ends", []ClassRate{batch, interactive}, 3, []LoadPoint{
			{Offset: 0, BatchRate: 85, InteractiveAttempts: 8, InteractiveThrottled: 2},
			{Offset: 1, BatchRate: 60, InteractiveAttempts: 12, InteractiveThrottled: 5},
			{Offset: 2, BatchRate: 170.0 / 3, InteractiveAttempts: 12, InteractiveThrottled: 9},
			{Offset: 3, BatchRate: 5, InteractiveAttempts: 8, InteractiveThrottled: 7},
		}},
		{"interactive only", []ClassRate{interactive}, 1, []LoadPoint{
			{Offset: 0, InteractiveAttempts: 4},
			{Offset: 1, InteractiveAttempts: 4, InteractiveThrottled: 2},
			{Offset: 2, InteractiveAttempts: 4, InteractiveThrottled: 3},
			{Offset: 3, InteractiveAttempts: 4, InteractiveThrottled: 4},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ThrottleLoadSeries(tc.byClass, tc.window)
			if len(got) != len(tc.want) {
				t.Fatalf("%d points, want %d: %+v", len(got), len(tc.want), got)
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if g.Offset != w.Offset || !near(g.BatchRate, w.BatchRate) || g.InteractiveAttempts != w.InteractiveAttempts || g.InteractiveThrottled != w.InteractiveThrottled {
					t.Errorf("point %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

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
			r := &analyze.Result{Window: analyze.Window{Start: start, End: start.Add(last), Duration: last.Seconds()}}
			pts := RateSeries(tl, r)
			if len(pts) != tt.points || pointSeconds(pts) != tt.step {
				t.Fatalf("%d points of %g s, want %d of %g s", len(pts), pointSeconds(pts), tt.points, tt.step)
			}
			var total float64
			for _, p := range pts {
				total += p.Throttled * tt.step
			}
			if !near(total, float64(len(tt.at))) {
				t.Errorf("the points hold %g attempts, want %d", total, len(tt.at))
			}
			load := ThrottleLoadSeries(RateSeriesByClass(tl, r), loadWindow)
			if len(load) != tt.points || load[len(load)-1].Offset != float64(tt.points-1)*tt.step {
				t.Errorf("load series of %d points ending at %g s", len(load), load[len(load)-1].Offset)
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
			r := &analyze.Result{Window: analyze.Window{Start: start, End: start.Add(9900 * time.Millisecond), Duration: 9.9}}
			got := InteractiveSeries(tl, r)
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
