package analyze

import (
	"math"
	"testing"
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
