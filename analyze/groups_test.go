package analyze

import (
	"math"
	"testing"

	"github.com/stampede/stampede/timeline"
)

func TestRefinePeriodSegments(t *testing.T) {
	at := func(ts ...float64) []float64 {
		out := make([]float64, len(ts))
		for i, v := range ts {
			out[i] = v * 1e9
		}
		return out
	}
	tests := []struct {
		name       string
		centres    []float64
		acf        float64
		wantPeriod float64
		wantOnGrid int
	}{
		{name: "a clean grid", centres: at(0, 14, 28, 42, 56), acf: 14, wantPeriod: 14, wantOnGrid: 5},
		// The first wave is one burst of first attempts, 1.35 s before the
		// grid the later waves keep.
		{name: "first wave off the grid", centres: at(0, 15.35, 29.35, 43.35, 57.35), acf: 14, wantPeriod: 14, wantOnGrid: 4},
		// A wave held back 5 s by the limiter shifts every wave after it.
		{name: "a phase slip", centres: at(0, 14, 28, 42, 61, 75, 89), acf: 14, wantPeriod: 14, wantOnGrid: 7},
		{name: "a stray burst between waves", centres: at(0, 3, 14, 28, 42), acf: 14, wantPeriod: 14, wantOnGrid: 4},
		// Bursts at random: no grid holds three of them.
		{name: "no grid", centres: at(0, 9, 23, 29, 47), acf: 14, wantPeriod: 14, wantOnGrid: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, on := refinePeriod(tt.acf, 0.1, tt.centres)
			if on != tt.wantOnGrid || math.Abs(p-tt.wantPeriod) > 0.01 {
				t.Errorf("refinePeriod = %.3f s, %d on grid; want %.3f s, %d", p, on, tt.wantPeriod, tt.wantOnGrid)
			}
		})
	}
}

func TestTaskPrefix(t *testing.T) {
	for _, tt := range []struct{ id, want string }{
		{"jobA-0012", "jobA-"}, {"task-7", "task-"}, {"1234", ""}, {"abc", "abc"}, {"", ""},
	} {
		if got := taskPrefix(tt.id); got != tt.want {
			t.Errorf("taskPrefix(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func TestConcurrencyLimit(t *testing.T) {
	// calls builds n batch calls each holding a slot for hold seconds,
	// started so that at most limit are in flight (limit 0: all at once).
	calls := func(n, limit int, hold float64) *joins {
		j := &joins{}
		for i := 0; i < n; i++ {
			start := 0.0
			if limit > 0 {
				start = float64(i/limit) * hold
			}
			j.calls = append(j.calls, callUnit{start: int64(start * 1e9), end: int64((start + hold) * 1e9), class: timeline.ClassBatch, group: -1})
		}
		return j
	}
	tests := []struct {
		name string
		j    *joins
		want int
	}{
		{name: "20 slots turning over", j: calls(400, 20, 4), want: 20},
		// One burst and then nothing: the most in flight is reached once.
		{name: "one burst", j: burstThenTrickle(), want: 0},
		{name: "too few calls", j: calls(5, 2, 4), want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := concurrencyLimit(tt.j); got != tt.want {
				t.Errorf("concurrencyLimit = %d, want %d", got, tt.want)
			}
		})
	}
}

// burstThenTrickle is 300 calls at once for 1 s, then one call a second
// for five minutes.
func burstThenTrickle() *joins {
	j := &joins{}
	for i := 0; i < 300; i++ {
		j.calls = append(j.calls, callUnit{start: 0, end: 1e9, class: timeline.ClassBatch, group: -1})
	}
	for s := 2; s < 300; s++ {
		j.calls = append(j.calls, callUnit{start: int64(s) * 1e9, end: int64(s)*1e9 + 2e8, class: timeline.ClassBatch, group: -1})
	}
	return j
}
