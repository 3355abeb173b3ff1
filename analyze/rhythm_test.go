package analyze

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
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

func TestFirstWaveCallsDiffer(t *testing.T) {
	// Four waves: the first at 0 s, the rest on a 9.2 s grid from 10.3 s,
	// or (early) from 8.3 s.
	late := []float64{0, 10.3, 19.5, 28.7}
	early := []float64{0, 8.3, 17.5, 26.7}
	waveAt := func(start float64, size int64) Wave {
		return Wave{Start: time.Unix(0, int64(start*1e9)), Width: 0.5, Size: size}
	}
	task := timeline.Intern("task-1")
	// calls puts n failed calls of the given length at the start of each
	// wave, the first wave's lasting herd seconds and the others' later.
	calls := func(starts []float64, herd, later float64, withTask bool) []callUnit {
		var out []callUnit
		for w, s := range starts {
			length := later
			if w == 0 {
				length = herd
			}
			c := callUnit{start: int64(s * 1e9), end: int64((s + length) * 1e9), outcome: timeline.OutcomeThrottled}
			if withTask {
				c.task = task
			}
			out = append(out, c, c)
		}
		return out
	}
	tests := []struct {
		name   string
		starts []float64
		calls  []callUnit
		sizes  []int64
		period float64
		want   bool
		diff   float64
	}{
		{"first wave's calls 1.2 s longer, its gap 1.1 s over the period", late, calls(late, 1.3, 0.1, true), []int64{60, 35, 16, 7}, 9.2, true, 1.2},
		{"first wave's calls 0.9 s shorter, its gap 0.9 s under the period", early, calls(early, 0.2, 1.1, true), []int64{60, 35, 16, 7}, 9.2, true, -0.9},
		{"every wave's calls alike", late, calls(late, 0.1, 0.1, true), []int64{60, 35, 16, 7}, 9.2, false, 0},
		{"longer, but by twice the gap's excess", late, calls(late, 2.3, 0.1, true), []int64{60, 35, 16, 7}, 9.2, false, 0},
		{"shorter where the gap says longer", late, calls(late, 0.1, 1.3, true), []int64{60, 35, 16, 7}, 9.2, false, 0},
		{"a later wave larger than the first", late, calls(late, 1.3, 0.1, true), []int64{30, 35, 16, 7}, 9.2, false, 0},
		{"calls of no task", late, calls(late, 1.3, 0.1, false), []int64{60, 35, 16, 7}, 9.2, false, 0},
		// 10.3 s after it is more than two periods of 4.6 s.
		{"the grid's first wave two periods on", late, calls(late, 1.3, 0.1, true), []int64{60, 35, 16, 7}, 4.6, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var waves []Wave
			var centres []float64
			for w, s := range tc.starts {
				waves = append(waves, waveAt(s, tc.sizes[w]))
				centres = append(centres, (s+0.25)*1e9)
			}
			j := &joins{calls: tc.calls}
			gap, diff, ok := firstWaveCallsDiffer(j, centres, waves, []bool{false, true, true, true}, tc.period, 0.1)
			if ok != tc.want {
				t.Fatalf("first wave excused = %v, want %v (gap %.2f s, calls %.2f s longer)", ok, tc.want, gap, diff)
			}
			if ok && (math.Abs(gap-tc.starts[1]) > 1e-9 || math.Abs(diff-tc.diff) > 1e-9) {
				t.Errorf("gap %.3f s, calls %.3f s longer; want %.1f and %.1f", gap, diff, tc.starts[1], tc.diff)
			}
		})
	}
}
