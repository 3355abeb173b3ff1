package analyze

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestMeasureTaskRhythm(t *testing.T) {
	base := incident{sizes: []int{80, 50, 30, 20}, width: 2 * time.Second, requeue: 10 * time.Second,
		attempts: 3, retryAfter: 2 * time.Second, attemptTime: 100 * time.Millisecond, seed: 1}
	tests := []struct {
		name string
		edit func(in *incident)
		one  bool
	}{
		{"fixed requeue, millisecond stamps", func(in *incident) {}, true},
		{"fixed requeue, whole-second stamps", func(in *incident) { in.wholeSeconds = true }, true},
		{"fixed requeue over a background of one-attempt calls", func(in *incident) { in.background = 1 }, true},
		{"requeue jittered by 10%", func(in *incident) { in.jitter = time.Second }, false},
		// A second's jitter hides under whole-second stamps; two do not.
		{"requeue jittered by 20%, whole-second stamps", func(in *incident) { in.jitter = 2 * time.Second; in.wholeSeconds = true }, false},
		// Four failed queue attempts: too few gaps to call them one.
		{"too few requeues", func(in *incident) { in.sizes = []int{4, 4} }, false},
		// No task ids on the wire: no rhythm to measure.
		{"wire only", func(in *incident) { in.wireOnly = true }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := base
			tc.edit(&in)
			j := buildJoins(in.build())
			r, one := measureTaskRhythm(j, rhythmResolution(j))
			if one != tc.one {
				t.Fatalf("one spacing = %v, want %v (%+v)", one, tc.one, r)
			}
			if !one {
				return
			}
			// Whole-second stamps move each start by under a second.
			tol := 0.01
			if in.wholeSeconds {
				tol = 1
			}
			if want := in.period().Seconds(); math.Abs(r.spacing-want) > tol {
				t.Errorf("spacing %.3f s, want the period %.3f s ± %.2f s", r.spacing, want, tol)
			}
			if r.low > r.spacing+1e-9 || r.high < r.spacing-1e-9 || r.n < minRhythmGaps {
				t.Errorf("spacing %.3f s outside its percentiles %.3f–%.3f s, or %d gaps", r.spacing, r.low, r.high, r.n)
			}
		})
	}
}

// TestRhythmChanceProperties: a share, growing with the tolerance and
// shrinking as the series lengthens.
func TestRhythmChanceProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 2000 {
		tol, minLag, span := rng.Float64()*5, 2+rng.Float64()*10, rng.Float64()*1000
		c := rhythmChance(tol, minLag, span)
		if c < 0 || c > 1 || math.IsNaN(c) {
			t.Fatalf("rhythmChance(%g, %g, %g) = %g, not a share", tol, minLag, span, c)
		}
		if wider := rhythmChance(2*tol, minLag, span); wider < c {
			t.Fatalf("rhythmChance fell from %g to %g as the tolerance doubled", c, wider)
		}
		if longer := rhythmChance(tol, minLag, 2*span); longer > c {
			t.Fatalf("rhythmChance rose from %g to %g as the series doubled", c, longer)
		}
	}
	if got := rhythmChance(1, 3, 39); math.Abs(got-2.0/16.5) > 1e-12 {
		t.Errorf("rhythmChance(1, 3, 39) = %g, want 2/16.5", got)
	}
}
