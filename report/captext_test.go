package report

import (
	"testing"

	"github.com/stampede/stampede/analyze"
)

// TestCapText pins the cap column: a layer estimated from totals, with no
// per-unit histogram, cannot be called uncapped beside evidence that says
// the cap cannot be judged; a layer whose units made one try each did not
// retry, which "uncapped" beside "every unit made at most 1 try" denies;
// and a cap no unit reached did not stop anything.
func TestCapText(t *testing.T) {
	tests := []struct {
		l    analyze.LayerStats
		want string
	}{
		{analyze.LayerStats{Capped: true, Cap: 3}, "capped at 3"},
		{analyze.LayerStats{Capped: true, Cap: 3, Max: 3, Histogram: []analyze.Bucket{{Value: 3, Units: 5}}}, "capped at 3"},
		{analyze.LayerStats{Capped: true, Cap: 3, Max: 2, Histogram: []analyze.Bucket{{Value: 2, Units: 5}}}, "cap of 3, never reached"},
		{analyze.LayerStats{Capped: true}, "capped"},
		{analyze.LayerStats{Max: 5, Histogram: []analyze.Bucket{{Value: 5, Units: 1}}}, "uncapped"},
		{analyze.LayerStats{Max: 1, Histogram: []analyze.Bucket{{Value: 1, Units: 9}}}, "no retries"},
		{analyze.LayerStats{Histogram: []analyze.Bucket{}, CapEvidence: "no per-call attempt counts: cap cannot be judged"}, "cannot tell"},
	}
	for _, tt := range tests {
		if got := capText(tt.l); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.l, got, tt.want)
		}
	}
}
