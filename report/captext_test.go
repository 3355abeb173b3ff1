package report

import (
	"testing"

	"github.com/stampede/stampede/analyze"
)

// TestCapText pins the cap column: a layer estimated from totals, with no
// per-unit histogram, cannot be called uncapped beside evidence that says
// the cap cannot be judged.
func TestCapText(t *testing.T) {
	tests := []struct {
		l    analyze.LayerStats
		want string
	}{
		{analyze.LayerStats{Capped: true, Cap: 3}, "capped at 3"},
		{analyze.LayerStats{Capped: true}, "capped"},
		{analyze.LayerStats{Histogram: []analyze.Bucket{{}}}, "uncapped"},
		{analyze.LayerStats{Histogram: []analyze.Bucket{}, CapEvidence: "no per-call attempt counts: cap cannot be judged"}, "cannot tell"},
	}
	for _, tt := range tests {
		if got := capText(tt.l); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.l, got, tt.want)
		}
	}
}
