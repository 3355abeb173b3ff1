package analyze

import (
	"math"
	"strings"
	"testing"
)

func TestAmplify(t *testing.T) {
	type layer struct {
		name   string
		units  int64
		mean   float64
		max    float64
		exact  bool
		capped bool
		cap    int64
	}
	tests := []struct {
		name                    string
		amp                     Amplification
		tasks, requests, billed int64
		product                 float64
		exact                   bool
		layers                  []layer
	}{
		{
			name: "call id with SDK log", amp: Amplify(callIDTimeline()),
			tasks: 2, requests: 7, billed: 2, product: 3.5, exact: true,
			layers: []layer{
				{layerAttempts, 3, 7.0 / 3, 3, true, true, 3}, // max=3 announced on the wire
				{layerCalls, 3, 1, 1, true, false, 0},
				{layerQueueAttempts, 2, 1.5, 2, true, false, 0},
			},
		},
		{
			name: "attempt numbers per task, no SDK log", amp: Amplify(attemptNumberTimeline()),
			tasks: 2, requests: 5, billed: 2, product: 2.5, exact: false,
			layers: []layer{
				{layerAttempts, 3, 5.0 / 3, 2, true, false, 0},
				{layerCalls, 3, 1, 1, false, false, 0}, // assumed: no queue attempt numbers
				{layerQueueAttempts, 2, 1.5, 2, true, false, 0},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.amp
			if a.Tasks != tc.tasks || a.Requests != tc.requests || a.Billed != tc.billed {
				t.Errorf("tasks/requests/billed = %d/%d/%d, want %d/%d/%d", a.Tasks, a.Requests, a.Billed, tc.tasks, tc.requests, tc.billed)
			}
			if !near(a.Product, tc.product) || a.Exact != tc.exact {
				t.Errorf("product %v exact %v, want %v %v", a.Product, a.Exact, tc.product, tc.exact)
			}
			// The product of the means is attempts per task when every
			// attempt belongs to a task.
			if !near(a.Product, float64(a.Requests)/float64(a.Tasks)) {
				t.Errorf("product %v != requests/tasks %v", a.Product, float64(a.Requests)/float64(a.Tasks))
			}
			if len(a.Layers) != len(tc.layers) {
				t.Fatalf("%d layers, want %d: %+v", len(a.Layers), len(tc.layers), a.Layers)
			}
			for i, want := range tc.layers {
				got := a.Layers[i]
				if got.Name != want.name || got.Units != want.units || !near(got.Mean, want.mean) || got.Max != want.max ||
					got.Exact != want.exact || got.Capped != want.capped || got.Cap != want.cap {
					t.Errorf("layer %d = %+v\nwant %+v", i, got, want)
				}
				if got.CapEvidence == "" || got.Method == "" {
					t.Errorf("layer %d has no evidence or method: %+v", i, got)
				}
			}
		})
	}
}

// units builds layer units: for each (tries, failed) pair, n units.
func units(spec ...[3]int) []tryCount {
	var out []tryCount
	for _, s := range spec {
		for i := 0; i < s[2]; i++ {
			out = append(out, tryCount{n: int32(s[0]), failed: s[1] == 1})
		}
	}
	return out
}

// geometricUnits: every failed try gives up with probability g, succeeds
// with s, else tries again, with no cap; counts are the expectations over
// `n` units rounded down, so few units reach the maximum.
func geometricUnits(n int, s, g float64) []tryCount {
	var out []tryCount
	left := float64(n)
	for k := 1; left >= 1; k++ {
		succ, quit := int(left*s), int(left*(1-s)*g)
		if succ+quit == 0 {
			quit = int(left)
		}
		out = append(out, units([3]int{k, 0, succ}, [3]int{k, 1, quit})...)
		left -= float64(succ + quit)
	}
	return out
}

func TestCapVerdict(t *testing.T) {
	tests := []struct {
		name    string
		units   []tryCount
		wireMax int
		capped  bool
		cap     int64
		mention string
	}{
		{
			name: "SDK max 3 from the give-up rates",
			// 60 succeed at once, 20 at the 2nd try, 5 at the 3rd, 15 fail 3 times.
			units:  units([3]int{1, 0, 60}, [3]int{2, 0, 20}, [3]int{3, 0, 5}, [3]int{3, 1, 15}),
			capped: true, cap: 3, mention: "g3=1.00 (15/15)",
		},
		{
			name:    "SDK max 3 announced on the wire",
			units:   units([3]int{1, 0, 60}, [3]int{1, 1, 30}, [3]int{2, 0, 1}),
			wireMax: 3, capped: true, cap: 3, mention: "max=3",
		},
		{
			name:   "geometric queue attempts: uncapped",
			units:  geometricUnits(300, 0.1, 0.3),
			capped: false, mention: "no cap was reached",
		},
		{
			name:   "single tries only",
			units:  units([3]int{1, 0, 10}, [3]int{1, 1, 4}),
			capped: false, mention: "at most 1 try",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			capped, cap, ev := capVerdict(tc.units, tc.wireMax)
			if capped != tc.capped || cap != tc.cap {
				t.Errorf("capped %v at %d, want %v at %d: %s", capped, cap, tc.capped, tc.cap, ev)
			}
			if !strings.Contains(ev, tc.mention) {
				t.Errorf("evidence %q does not mention %q", ev, tc.mention)
			}
			t.Log(ev)
		})
	}
}

func TestGiveUpRates(t *testing.T) {
	g := giveUpRates(units([3]int{1, 0, 60}, [3]int{2, 0, 20}, [3]int{3, 0, 5}, [3]int{3, 1, 15}))
	// 40 units failed their 1st try (20+5+15 went on), none stopped there.
	if g.failedKth[1] != 40 || g.stoppedAt[1] != 0 || g.failedKth[2] != 20 || g.failedKth[3] != 15 || g.stoppedAt[3] != 15 {
		t.Errorf("giveUp = %+v", g)
	}
}

// TestGiveUpRateAgreesWithG1: the layer's give-up rate is the one its
// evidence states. A layer whose units made one try each has no try before
// its largest, and its rate is g1: 0 there would read "never gave up"
// beside "g1=1.00".
func TestGiveUpRateAgreesWithG1(t *testing.T) {
	for _, tc := range []struct {
		name  string
		units []tryCount
		want  float64
	}{
		{"one try each, some failed", units([3]int{1, 1, 30}, [3]int{1, 0, 10}), 1},
		{"one try each, none failed", units([3]int{1, 0, 10}), 0},
		{"retries: the pooled rate before the largest", units([3]int{1, 1, 10}, [3]int{2, 1, 10}, [3]int{2, 0, 10}), 10.0 / 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := layerStats("layer", tc.units, true, "", 0).GiveUpRate; math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("give-up rate %v, want %v", got, tc.want)
			}
		})
	}
}
