package report

import (
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
