package report

import (
	"testing"

	"github.com/stampede/stampede/analyze"
)

func TestThrottleLoadSeries(t *testing.T) {
	pts := func(vals ...[3]float64) []analyze.RatePoint {
		out := make([]analyze.RatePoint, len(vals))
		for i, v := range vals {
			out[i] = analyze.RatePoint{Offset: float64(i), OK: v[0], Throttled: v[1], Errored: v[2]}
		}
		return out
	}
	batch := analyze.ClassRate{Class: "batch", Points: pts([3]float64{10, 0, 0}, [3]float64{100, 50, 10}, [3]float64{10, 0, 0}, [3]float64{0, 0, 0})}
	interactive := analyze.ClassRate{Class: "interactive", Points: pts([3]float64{4, 0, 0}, [3]float64{2, 2, 0}, [3]float64{1, 3, 0}, [3]float64{0, 4, 0})}
	tests := []struct {
		name    string
		byClass []analyze.ClassRate
		window  int
		want    []LoadPoint
	}{
		{"no interactive traffic", []analyze.ClassRate{batch}, 1, nil},
		{"per second", []analyze.ClassRate{batch, interactive}, 1, []LoadPoint{
			{Offset: 0, BatchRate: 10, InteractiveAttempts: 4},
			{Offset: 1, BatchRate: 160, InteractiveAttempts: 4, InteractiveThrottled: 2},
			{Offset: 2, BatchRate: 10, InteractiveAttempts: 4, InteractiveThrottled: 3},
			// Throttled after the batch load is gone: the picture the
			// chart is for.
			{Offset: 3, BatchRate: 0, InteractiveAttempts: 4, InteractiveThrottled: 4},
		}},
		{"three-second window, clipped at the ends", []analyze.ClassRate{batch, interactive}, 3, []LoadPoint{
			{Offset: 0, BatchRate: 85, InteractiveAttempts: 8, InteractiveThrottled: 2},
			{Offset: 1, BatchRate: 60, InteractiveAttempts: 12, InteractiveThrottled: 5},
			{Offset: 2, BatchRate: 170.0 / 3, InteractiveAttempts: 12, InteractiveThrottled: 9},
			{Offset: 3, BatchRate: 5, InteractiveAttempts: 8, InteractiveThrottled: 7},
		}},
		{"interactive only", []analyze.ClassRate{interactive}, 1, []LoadPoint{
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
