package analyze

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/internal/racedetect"
	"github.com/stampede/stampede/timeline"
)

func TestFindWavesSynthetic(t *testing.T) {
	racedetect.SkipResultsTest(t)
	botocoreSizes := []int{300, 191, 120, 81, 51, 31, 16, 8}
	tests := []struct {
		name     string
		in       incident
		periodic bool
		waves    int     // expected count, ±1
		decay    float64 // expected ratio, ±0.05; 0 = not checked
		comb     float64 // expected intra-wave spacing in seconds, ±5%; 0 = not checked (none allowed with one attempt per call)
		suspects bool
		opt      Options
	}{
		// Smoothed over a twentieth of the period, 10 s, a wave of 15
		// calls 0.3 s wide sinks into a background of 12 requests: on two
		// of these seeds only the first two waves stood out until the
		// bursts were looked for again over a second.
		{
			name: "narrow waves of a 200 s requeue in a busy background, wire only",
			in: incident{sizes: geometric(48, 0.56, 5), width: 270 * time.Millisecond, requeue: 200 * time.Second,
				attempts: 1, attemptTime: 100 * time.Millisecond, background: 1.2, wireOnly: true, seed: 3},
			periodic: true, waves: 4,
		},
		// The same smoothing can sink one wave in the storm's midst (11
		// calls), leaving a period with no wave between two that have one.
		{
			name: "a small wave between two of a 187 s requeue",
			in: incident{sizes: geometric(51, 0.46, 4), width: 170 * time.Millisecond, requeue: 187500 * time.Millisecond,
				attempts: 1, attemptTime: 70 * time.Millisecond, background: 0.5, seed: 92},
			periodic: true, waves: 4,
		},
		{
			name: "requeue 60s + 2x retry-after 12s, SDK log",
			in: incident{sizes: geometric(400, 0.7, 8), width: 3 * time.Second, requeue: 60 * time.Second,
				attempts: 3, retryAfter: 12 * time.Second, attemptTime: 100 * time.Millisecond, background: 0.5, seed: 1},
			periodic: true, waves: 8, decay: 0.7, comb: 12.1, suspects: true,
		},
		{
			name: "wire only: retry-after comb inside the waves",
			in: incident{sizes: geometric(400, 0.7, 8), width: 3 * time.Second, requeue: 60 * time.Second,
				attempts: 3, retryAfter: 12 * time.Second, attemptTime: 100 * time.Millisecond, background: 0.5, wireOnly: true, seed: 2},
			periodic: true, waves: 8, decay: 0.7, comb: 12.1,
		},
		{
			name: "wire only: a four-attempt comb outscores the fast-decaying requeue period",
			in: incident{sizes: geometric(300, 0.5, 6), width: time.Second, requeue: 70 * time.Second,
				attempts: 4, retryAfter: 20 * time.Second, attemptTime: 100 * time.Millisecond, background: 0.2, wireOnly: true, seed: 8},
			periodic: true, waves: 6, comb: 20.1,
		},
		{
			name: "botocore-like: 10 s requeue, whole-second timestamps, 2 req/s background",
			in: incident{sizes: botocoreSizes, width: 600 * time.Millisecond, requeue: 10 * time.Second,
				attempts: 1, attemptTime: 150 * time.Millisecond, background: 2, wholeSeconds: true, seed: 3},
			periodic: true, waves: 8, decay: 0.604, suspects: true,
		},
		{
			name: "botocore-like at 100 ms timestamps",
			in: incident{sizes: botocoreSizes, width: 600 * time.Millisecond, requeue: 10 * time.Second,
				attempts: 1, attemptTime: 150 * time.Millisecond, background: 2, seed: 4},
			periodic: true, waves: 8, decay: 0.604, suspects: true,
		},
		{
			name: "slow decay, wide waves",
			in: incident{sizes: geometric(1000, 0.8, 10), width: 8 * time.Second, requeue: 30 * time.Second,
				attempts: 2, retryAfter: 5 * time.Second, attemptTime: 200 * time.Millisecond, background: 1, seed: 5},
			periodic: true, waves: 10, decay: 0.8, suspects: true,
		},
		{
			name: "one-bin first wave (SDK log starts within 100 ms)",
			in: incident{sizes: botocoreSizes, width: 100 * time.Millisecond, requeue: 10 * time.Second,
				attempts: 1, attemptTime: 150 * time.Millisecond, background: 2, seed: 7},
			periodic: true, waves: 8, decay: 0.604, suspects: true,
		},
		{
			name: "fully jittered requeue (0 to 120 s) smears the waves",
			in: incident{sizes: geometric(400, 0.8, 10), width: 3 * time.Second, requeue: 60 * time.Second, jitter: 60 * time.Second,
				attempts: 1, attemptTime: 100 * time.Millisecond, background: 0.5, seed: 6},
			periodic: false,
		},
	}
	for _, tc := range tests {
		for seed := uint64(0); seed < 3; seed++ {
			tc := tc
			tc.in.seed += 100 * seed
			tc.opt.Seed = seed
			t.Run(fmt.Sprintf("%s/seed=%d", tc.name, tc.in.seed), func(t *testing.T) {
				checkWaves(t, tc.in, tc.opt, tc.periodic, tc.waves, tc.decay, tc.comb, tc.suspects)
			})
		}
	}
}

// checkWaves runs the analysis on the incident and compares the wave
// findings with its ground truth.
func checkWaves(t *testing.T, in incident, opt Options, periodic bool, waves int, decay, comb float64, suspects bool) {
	tc := struct {
		in       incident
		periodic bool
		waves    int
		decay    float64
		comb     float64
		suspects bool
	}{in, periodic, waves, decay, comb, suspects}
	{
		{
			tl := tc.in.build()
			res := Run(tl, opt)
			w := res.Waves
			t.Logf("significance %.2f (ACF %.3f / %.3f)", w.Significance, w.ACF, w.Threshold)
			if w.Periodic != tc.periodic {
				t.Fatalf("Periodic = %v, want %v (period %.2f s, ACF %.3f, threshold %.3f, %d waves, rejected %q): %+v",
					w.Periodic, tc.periodic, w.Period, w.ACF, w.Threshold, len(w.Waves), w.Rejected, w.Waves)
			}
			if !tc.periodic {
				if len(w.Suspects) != 0 {
					t.Errorf("aperiodic traffic has suspects: %+v", w.Suspects)
				}
				return
			}
			want := tc.in.period().Seconds()
			if math.Abs(w.Period-want) > 0.02*want {
				t.Errorf("Period = %.3f s, want %.3f s ± 2%%", w.Period, want)
			}
			if d := len(w.Waves) - tc.waves; d < -1 || d > 1 {
				t.Errorf("%d waves, want %d ± 1: %+v", len(w.Waves), tc.waves, w.Waves)
			}
			if tc.decay > 0 && math.Abs(w.DecayRatio-tc.decay) > 0.05 {
				t.Errorf("DecayRatio = %.3f, want %.3f ± 0.05", w.DecayRatio, tc.decay)
			}
			if tc.comb > 0 && math.Abs(w.IntraWaveSpacing-tc.comb) > 0.05*tc.comb {
				t.Errorf("IntraWaveSpacing = %.3f s, want %.3f s", w.IntraWaveSpacing, tc.comb)
			}
			if tc.in.attempts == 1 && w.IntraWaveSpacing > 0 {
				t.Errorf("IntraWaveSpacing = %.3f s from %q, but every call made one attempt", w.IntraWaveSpacing, w.IntraWaveSeries)
			}
			if tc.suspects && len(w.Suspects) == 0 {
				t.Errorf("no suspects for period %.2f s; delays %+v", w.Period, w.Delays)
			}
			for _, f := range res.Findings {
				t.Log(f)
			}
			for _, f := range res.Warnings {
				t.Log("warning: ", f)
			}
		}
	}
}

// TestPoissonIsAperiodic: constant-rate traffic has no period, no waves
// worth the name and no suspects, whatever the seed.
func TestPoissonIsAperiodic(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		res := Run(poissonTraffic(5, 10*time.Minute, seed), Options{Seed: seed})
		if w := res.Waves; w.Periodic || len(w.Suspects) > 0 || w.Period != 0 {
			t.Errorf("seed %d: periodic %v period %.2f s (ACF %.3f, threshold %.3f), %d suspects",
				seed, w.Periodic, w.Period, w.ACF, w.Threshold, len(w.Suspects))
		}
		if !containsSubstr(res.Findings, "No periodic waves") {
			t.Errorf("seed %d: findings do not say so: %q", seed, res.Findings)
		}
	}
}

// TestThreeBurstsThatGrow: three bursts 35 s apart, the middle one 2.6
// times the first, as random bursts fall (accuracy stream 1806). The ACF
// is far over its threshold, but three bursts alone make it; a storm's
// waves would only shrink.
func TestThreeBurstsThatGrow(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 6))
		tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "bursts.log", Format: "synthetic"}}}
		add := func(at float64) {
			t := genEpoch + int64(at*1e9)
			out := timeline.OutcomeOK
			if rng.IntN(3) == 0 {
				out = timeline.OutcomeThrottled
			}
			tl.Events = append(tl.Events, timeline.Event{Start: t, End: t + 1e8, Layer: timeline.LayerHTTP, Outcome: out,
				Class: timeline.ClassBatch, Status: timeline.Small(statusOf(out)), RetryAfter: timeline.NoRetryAfter, Line: int64(len(tl.Events) + 1)})
		}
		for b, size := range []int{69, 181, 29} {
			at, width := 14.5+34.8*float64(b), []float64{0.5, 1.2, 0.6}[b]
			for k := 0; k < size; k++ {
				add(at + rng.Float64()*width)
			}
		}
		for at := rng.ExpFloat64() / 0.02; at < 415; at += rng.ExpFloat64() / 0.02 {
			add(at)
		}
		tl.Sort()
		w := FindWaves(tl, Options{Seed: seed})
		if w.Periodic {
			t.Errorf("seed %d: periodic, period %.2f s (ACF %.3f, threshold %.3f)", seed, w.Period, w.ACF, w.Threshold)
		}
	}
}

func TestTwoWavesWarn(t *testing.T) {
	in := incident{sizes: []int{300, 200}, width: time.Second, requeue: 30 * time.Second, attempts: 1,
		attemptTime: 100 * time.Millisecond, background: 0.2, seed: 1}
	res := Run(in.build(), Options{})
	if res.Waves.Periodic || len(res.Waves.Suspects) > 0 {
		t.Errorf("two bursts called periodic: %+v", res.Waves)
	}
	if !containsSubstr(res.Warnings, "fewer than 3 periods observed") {
		t.Errorf("no warning about too few periods: %q", res.Warnings)
	}
}

func TestExplainPeriod(t *testing.T) {
	// callIDTimeline has a failed call of 3 attempts of 0.1 s each.
	j := buildJoins(callIDTimeline())
	fixed := func(kind string, mean float64) DelayStats {
		return DelayStats{Kind: kind, N: 100, Mean: mean, Sigma: 0.01, P50: mean, Min: mean - 0.02, Max: mean + 0.02, Fixed: true}
	}
	jittered := DelayStats{Kind: kindSDKDelay, N: 100, Mean: 0.6, Sigma: 0.3, P50: 0.6, Min: 0, Max: 1.2}
	exactRetryAfter := DelayStats{Kind: kindRetryAfter, N: 1256, Mean: 2, P10: 2, P50: 2, P90: 2, Min: 2, Max: 2, Fixed: true}
	busyClient := DelayStats{Kind: kindSDKDelay, N: 859, Mean: 2.11, Sigma: 0.09, P10: 2.004, P50: 2.09, P90: 2.23, Min: 2.001, Max: 2.28, Fixed: true}
	tests := []struct {
		name     string
		period   float64
		delays   []DelayStats
		suspects int
		text     []string
	}{
		{"requeue plus two honoured retry-afters", 84.3,
			[]DelayStats{fixed(kindRetryAfter, 12), fixed(kindSDKDelay, 12), fixed(kindRequeue, 60)}, 2,
			[]string{"period 84.3 s = requeue delay 60.0 s", "2 x retry-after 12.0 s ± <0.1 s honoured exactly (SDK)", "3 x attempt time 0.100 s"}},
		{"requeue only, SDK retries jittered", 10.05,
			[]DelayStats{jittered, fixed(kindRequeue, 10)}, 1,
			[]string{"requeue delay 10.0 s", "the SDK's own retries (mean 0.600 s, jittered, 0 s to 1.20 s) add nothing to it"}},
		{"SDK retry delay that is not the retry-after", 70.3,
			[]DelayStats{fixed(kindRetryAfter, 2), fixed(kindSDKDelay, 5), fixed(kindRequeue, 60)}, 2,
			[]string{"2 x SDK retry delay 5.00 s ± 0.01 s (fixed, no jitter, SDK)"}},
		// Most gaps on 2.00 s, a late few out to 5.8 s: σ 0.61 s beside
		// "honoured exactly" would deny it; the central 80% says 0.07 s.
		{"a fixed delay run late now and then states its central spread", 14.1,
			[]DelayStats{fixed(kindRetryAfter, 2),
				{Kind: kindSDKDelay, N: 1800, Mean: 2.19, Sigma: 0.609, P10: 2.0, P50: 2.01, P90: 2.18, Min: 2, Max: 5.8, Fixed: true},
				fixed(kindRequeue, 10)}, 2,
			[]string{"2 x retry-after 2.01 s ± 0.07 s honoured exactly (SDK)"}},
		// The server sent 2 s; the SDK's gaps sit on it, a median 0.09 s late.
		{"a busy client sends the retry-after late", 14.3,
			[]DelayStats{exactRetryAfter, busyClient, fixed(kindRequeue, 10)}, 2,
			[]string{"2 x retry-after 2.00 s ± 0 s honoured exactly (SDK)", "2 x client lateness 0.090 s"}},
		{"gaps before the retry-after are not it sent late", 14.3,
			[]DelayStats{exactRetryAfter, func() DelayStats { d := busyClient; d.Min = 1.9; return d }(), fixed(kindRequeue, 10)}, 2,
			[]string{"2 x SDK retry delay 2.09 s"}},
		// A busy runner's requeue gaps, as on openai-radate3-fixed10's
		// $msec log: 10.006 to 10.281 s, the fastest tenth on 10.04 s.
		{"a busy job runner starts its timer late", 14.5,
			[]DelayStats{exactRetryAfter, fixed(kindSDKDelay, 2), {Kind: kindRequeue, N: 619, Mean: 10.14, Sigma: 0.083, P10: 10.041, P50: 10.157, P90: 10.25, Min: 10.006, Max: 10.281, Fixed: true}}, 2,
			[]string{"requeue delay 10.0 s (fixed, no jitter, job runner, from the fastest tenth of the requeues) + job runner lateness 0.116 s"}},
		{"an idle job runner's timer has no lateness term", 14.3,
			[]DelayStats{exactRetryAfter, fixed(kindSDKDelay, 2), {Kind: kindRequeue, N: 619, Mean: 10.01, Sigma: 0.01, P10: 10.002, P50: 10.006, P90: 10.02, Min: 10.001, Max: 10.05, Fixed: true}}, 2,
			[]string{"requeue delay 10.0 s ± <0.1 s (fixed, no jitter, job runner) + 2 x"}},
		{"nothing fits", 50, []DelayStats{fixed(kindRequeue, 10)}, 0, nil},
		{"no delays measured", 50, nil, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := explainPeriod(j, tc.period, tc.delays, DelayStats{})
			if len(got) != tc.suspects {
				t.Fatalf("%d suspects, want %d: %+v", len(got), tc.suspects, got)
			}
			for _, want := range tc.text {
				if !strings.Contains(got[0].Text, want) {
					t.Errorf("text %q lacks %q", got[0].Text, want)
				}
			}
			if len(got) > 0 && (got[0].Layer != "job runner" || got[0].Times != 1) {
				t.Errorf("first suspect %+v, want the job runner's requeue delay once", got[0])
			}
		})
	}
}

// TestExplainPeriodWithoutTheRunnersLog: with no requeue delay measured
// (the SDK log alone), a period the SDK's waits fall short of is split into
// those waits and the rest, which is where a requeue delay would be; a rest
// small beside the period is no delay, and calls that failed at their first
// attempt leave the SDK nothing to split.
func TestExplainPeriodWithoutTheRunnersLog(t *testing.T) {
	// callIDTimeline has a failed call of 3 attempts of 0.1 s each.
	j := buildJoins(callIDTimeline())
	ra := DelayStats{Kind: kindRetryAfter, N: 100, Mean: 2, P10: 2, P50: 2, P90: 2, Min: 2, Max: 2, Fixed: true}
	sdk := DelayStats{Kind: kindSDKDelay, N: 100, Mean: 2, Sigma: 0.01, P10: 2, P50: 2, P90: 2.01, Min: 2, Max: 2.02, Fixed: true}
	for _, tc := range []struct {
		name   string
		period float64
		text   string // "" for no suspect
	}{
		{"a requeue-sized rest", 14.3, "period 14.3 s = 2 x retry-after 2.00 s ± <0.01 s honoured exactly (SDK) + 3 x attempt time 0.100 s + 10.0 s that no log given shows, between a failed call's end and its task's next call"},
		// 3 s after 3 x 5 s in an 18 s period (openai-ra5-fixed3-max3-short)
		// is as short a share as a requeue takes.
		{"a short rest after a long comb", 5, "period 5.00 s = 2 x retry-after 2.00 s ± <0.01 s honoured exactly (SDK) + 3 x attempt time 0.100 s + 0.700 s that no log given shows, between a failed call's end and its task's next call"},
		{"a rest under a tenth of the period", 4.6, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, unseen := explainPeriod(j, tc.period, []DelayStats{ra, sdk}, DelayStats{})
			if (tc.text != "") != (unseen > 0) {
				t.Errorf("unseen delay %v s beside suspects %+v", unseen, got)
			}
			switch {
			case tc.text == "" && len(got) > 0:
				t.Errorf("suspects %+v, want none", got)
			case tc.text != "" && (len(got) != 1 || !strings.HasPrefix(got[0].Text, tc.text)):
				t.Errorf("suspects %+v, want one whose text starts %q", got, tc.text)
			case tc.text != "" && (got[0].Layer != "sdk" || got[0].Times != 2):
				t.Errorf("suspect %+v, want the SDK's retry-after twice", got[0])
			}
		})
	}
}

// TestUnseenRemainderOfOneAttempt: where failed calls made one attempt
// (a retry quota spent, or no retries configured), the SDK has no part of
// the period, and the rest is the period less that attempt, with no suspect
// to carry it.
func TestUnseenRemainderOfOneAttempt(t *testing.T) {
	failed := func(attempts ...int32) *joins {
		j := &joins{}
		for _, a := range attempts {
			j.calls = append(j.calls, callUnit{attempts: a, outcome: timeline.OutcomeThrottled, class: timeline.ClassBatch})
		}
		return j
	}
	noSDK := func(int) (FixedDelay, string) { t.Error("asked for the SDK's part"); return FixedDelay{}, "" }
	for _, tc := range []struct {
		name       string
		j          *joins
		period     float64
		wantUnseen float64
	}{
		{"one attempt each", failed(1, 1, 1, 2), 10.1, 10.0},
		{"no failed calls", failed(), 10.1, 0},
		{"an attempt as long as the period", failed(1, 1), 0.105, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, unseen := unseenRemainder(tc.j, tc.period, 0.1, false, noSDK, 0)
			if len(got) != 0 || math.Abs(unseen-tc.wantUnseen) > 1e-9 {
				t.Errorf("suspects %+v, unseen %v s; want none and %v s", got, unseen, tc.wantUnseen)
			}
		})
	}
}

// TestInferredRetryWait: where the requeue delay is measured and no
// measured SDK delay completes the period, the SDK's wait is what the
// period leaves, if the failed calls' spans, or the SDK's measured gaps,
// hold waits of that length.
func TestInferredRetryWait(t *testing.T) {
	failedCalls := func(span float64) *joins {
		j := &joins{}
		for k := range 5 {
			start := int64(k) * 1e9
			j.calls = append(j.calls, callUnit{start: start, end: start + int64(span*1e9), attempts: 3,
				outcome: timeline.OutcomeThrottled, class: timeline.ClassBatch})
		}
		return j
	}
	rq := DelayStats{Kind: kindRequeue, N: 100, Mean: 10, Sigma: 0.01, Fixed: true}
	coarse := DelayStats{Kind: kindSDKDelay, N: 100, Mean: 2.5, Min: 1.8, Max: 3, WholeSeconds: true}
	for _, tc := range []struct {
		name     string
		j        *joins
		sdk      *DelayStats
		wantWait float64 // 0 for no split
	}{
		{"call spans agree", failedCalls(5.6), nil, 2.98},
		{"call spans far shorter", failedCalls(0.5), nil, 0},
		{"inside the coarse gaps measured", failedCalls(0.5), &coarse, 2.98},
		{"outside the gaps measured", failedCalls(5.6), &DelayStats{Kind: kindSDKDelay, N: 100, Mean: 1.5, Min: 1, Max: 2}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sdk, haveSDK := DelayStats{}, tc.sdk != nil
			if haveSDK {
				sdk = *tc.sdk
			}
			got := inferredRetryWait(tc.j, 15.96, rq, sdk, haveSDK, 0)
			switch {
			case tc.wantWait == 0 && len(got) > 0:
				t.Errorf("suspects %+v, want none", got)
			case tc.wantWait > 0 && (len(got) != 2 || math.Abs(got[1].Delay-tc.wantWait) > 1e-9 || got[1].Times != 2 ||
				!strings.Contains(got[0].Text, "inferred from the period")):
				t.Errorf("suspects %+v, want the requeue and 2 x %v s inferred", got, tc.wantWait)
			}
		})
	}
}

func TestIsFixed(t *testing.T) {
	tests := []struct {
		ds     DelayStats
		coarse bool
		want   bool
	}{
		{DelayStats{N: 50, Mean: 60, Sigma: 0.1}, false, true},
		{DelayStats{N: 50, Mean: 12, Sigma: 3}, false, false},
		{DelayStats{N: 2, Mean: 60, Sigma: 0}, false, false},    // too few to judge
		{DelayStats{N: 50, Mean: 10, Sigma: 0.45}, true, true},  // whole seconds: truncation spread
		{DelayStats{N: 50, Mean: 0.6, Sigma: 0.3}, true, false}, // shorter than the resolution allows
		// Whole seconds, every gap at one point of the second: an exact
		// wait of whole seconds, or one until a clock time.
		{DelayStats{N: 1726, Mean: 2.998, Sigma: 0.012}, true, true},
		{DelayStats{N: 20, Mean: 2.998, Sigma: 0.012}, true, false}, // too few to tell
		{DelayStats{N: 1726, Mean: 2.5, Sigma: 0.3}, true, false},   // the gaps cross seconds: cannot tell
		// Starts derived from whole-second stamps less the request's time:
		// an exact 4 s wait read 3.8 to 4.0 s, σ 1.4% of it
		// (openai-ra4-fixed6-short); ±10% jitter spreads σ 5.8%.
		{DelayStats{N: 181, Mean: 3.977, Sigma: 0.055}, true, true},
		{DelayStats{N: 181, Mean: 3.977, Sigma: 0.23}, true, false},
		{DelayStats{N: 40, Mean: 3.977, Sigma: 0.055}, true, false}, // too few to tell
		{DelayStats{N: 50, Mean: 10, Sigma: 0.45}, false, false},    // fine timestamps: that is jitter
		{DelayStats{N: 50, Mean: 0.5, Sigma: 0.0005}, false, true},  // tight sub-second delay
		// A busy client: a tenth of the gaps on 2.00 s, the rest up to 0.28 s late.
		{DelayStats{N: 859, Mean: 2.11, Sigma: 0.09, P10: 2.004, P50: 2.09, P90: 2.23, Min: 2.001, Max: 2.28}, false, true},
		{DelayStats{N: 30, Mean: 2.11, Sigma: 0.09, P10: 2.004, P50: 2.09, P90: 2.23, Min: 2.001, Max: 2.28}, false, false}, // too few to show a floor
		// Uniform ±10%: the fastest tenth spread over a tenth of the range.
		{DelayStats{N: 859, Mean: 2, Sigma: 0.115, P10: 1.84, P50: 2, P90: 2.16, Min: 1.8, Max: 2.2}, false, false},
		// On a floor, but most gaps far later than a client runs late.
		{DelayStats{N: 859, Mean: 2.4, Sigma: 0.3, P10: 2.004, P50: 2.4, P90: 2.8, Min: 2, Max: 3}, false, false},
	}
	for _, tc := range tests {
		if got := isFixed(tc.ds, tc.coarse); got != tc.want {
			t.Errorf("isFixed(%+v, coarse=%v) = %v, want %v", tc.ds, tc.coarse, got, tc.want)
		}
	}
}

// TestLastWaveSucceeded: a storm has ended when its last wave left no failed
// call, or, with a period, when every call from halfway to the next wave
// succeeded and the log runs until that wave was due: its failures came
// back too few to stand out as a burst, and none failed again.
func TestLastWaveSucceeded(t *testing.T) {
	h := timeline.LayerHTTP
	// A wave at 10 s: two calls throttled at once, one more failing 1.6 s
	// into its tail, one succeeding.
	wave := []timeline.Event{ev(h, 10, thr, bat, "A", "a1", 0), ev(h, 10.2, thr, bat, "B", "b1", 0),
		ev(h, 10.3, ok, bat, "C", "c1", 0), ev(h, 11.6, thr, bat, "D", "d1", 0)}
	last := Wave{Start: time.Unix(0, genEpoch+10e9), Width: 0.3}
	tests := []struct {
		name   string
		later  []timeline.Event
		period float64
		want   bool
	}{
		{name: "its failures back a period on, all succeeding", period: 10,
			later: []timeline.Event{ev(h, 20.1, ok, bat, "A", "a2", 0), ev(h, 20.4, ok, bat, "B", "b2", 0)}, want: true},
		{name: "the same without a period", period: 0,
			later: []timeline.Event{ev(h, 20.1, ok, bat, "A", "a2", 0), ev(h, 20.4, ok, bat, "B", "b2", 0)}, want: false},
		{name: "one failing again", period: 10,
			later: []timeline.Event{ev(h, 20.1, ok, bat, "A", "a2", 0), ev(h, 20.4, thr, bat, "B", "b2", 0)}, want: false},
		{name: "the log ends before they were due", period: 10,
			later: []timeline.Event{ev(h, 16, ok, bat, "E", "e1", 0)}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := buildJoins(build(append(slices.Clone(wave), tc.later...)...))
			if got := lastWaveSucceeded(j, last, tc.period, 0.1); got != tc.want {
				t.Errorf("lastWaveSucceeded = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTailWaveOfOneCall: the last wave of a decaying storm can be a single
// call; where the period says a wave is due, it still counts.
func TestTailWaveOfOneCall(t *testing.T) {
	in := incident{sizes: []int{400, 200, 100, 50, 25, 12, 6, 3, 1}, width: 500 * time.Millisecond,
		requeue: 30 * time.Second, attempts: 2, retryAfter: 4 * time.Second, attemptTime: 100 * time.Millisecond, seed: 2}
	w := Run(in.build(), Options{}).Waves
	if !w.Periodic || len(w.Waves) != len(in.sizes) {
		t.Fatalf("periodic %v with %d waves, want %d", w.Periodic, len(w.Waves), len(in.sizes))
	}
	for i, wv := range w.Waves {
		if wv.Size != int64(in.sizes[i]) {
			t.Errorf("wave %d size %d, want %d", i+1, wv.Size, in.sizes[i])
		}
	}
}

// TestCombInWaves: second attempts one spacing after each wave's start make
// a comb; waves merely wider than the spacing, or background alone, do not.
func TestCombInWaves(t *testing.T) {
	const spacing = 12.1
	start := genEpoch
	tests := []struct {
		name  string
		whole bool
		// arrivals per wave: offsets in seconds from its start
		offsets func(k int) float64
		n       int
		want    bool
	}{
		{"two attempts 12 s apart", false, func(k int) float64 { return float64(k%2)*12.1 + 0.01*float64(k%50) }, 100, true},
		{"same, truncated to the second", true, func(k int) float64 { return float64(k%2)*12.1 + 0.01*float64(k%50) }, 100, true},
		{"wide waves, no comb", false, func(k int) float64 { return 30 * float64(k) / 100 }, 100, false},
		{"narrow waves, no comb", false, func(k int) float64 { return 0.01 * float64(k) }, 100, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var times []int64
			var waves []Wave
			for w := 0; w < 6; w++ {
				t0 := start + int64(w)*90e9
				waves = append(waves, Wave{Start: time.Unix(0, t0).UTC()})
				for k := 0; k < tc.n; k++ {
					at := t0 + int64(tc.offsets(k)*1e9)
					if tc.whole {
						at -= at % 1e9
					}
					times = append(times, at)
				}
			}
			sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
			bin := int64(1e8)
			if tc.whole {
				bin = 1e9
			}
			if got := combInWaves(countIn(times), waves, spacing, bin); got != tc.want {
				t.Errorf("combInWaves = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestWavesOverALongSpan adds a few attempts weeks away from an incident,
// or spreads a handful over a month: the series must stay within its bin
// budget (a bin per 0.1 s of a month was 200 MB for four lines), the
// incident's waves must come out as they do alone, and a warning must say
// what the search left out or how wide its bins are.
func TestWavesOverALongSpan(t *testing.T) {
	day := int64(24 * time.Hour)
	storm := incident{sizes: geometric(400, 0.7, 8), width: 3 * time.Second, requeue: 60 * time.Second,
		attempts: 3, retryAfter: 12 * time.Second, attemptTime: 100 * time.Millisecond, background: 0.5, wireOnly: true, seed: 2}
	alone := Run(storm.build(), Options{Seed: 1}).Waves
	if !alone.Periodic {
		t.Fatalf("the storm alone is not periodic")
	}
	// stray copies the first n attempts of tl, shifted by days.
	stray := func(tl *timeline.Timeline, n int, days int64) *timeline.Timeline {
		for i := range n {
			e := tl.Events[i]
			e.Start += days * day
			e.End += days * day
			e.Line = int64(len(tl.Events) + 1)
			tl.Events = append(tl.Events, e)
		}
		tl.Sort()
		return tl
	}
	tests := []struct {
		name     string
		tl       *timeline.Timeline
		bin      time.Duration
		periodic bool
		warning  string
	}{
		{"three attempts a month later", stray(storm.build(), 3, 29), 0, true, "waves are looked for from 2026-11-30T02:00:00Z"},
		{"three attempts a month earlier, 100 ms asked", stray(storm.build(), 3, -29), 100 * time.Millisecond, true, "the other 3 lie up to 29.0 days from them"},
		{"four attempts over a month", stray(stray(&timeline.Timeline{Sources: []timeline.Source{{Path: "x"}}, Events: storm.build().Events[:2]}, 2, 29), 0, 0), 0, false, "bins of 38.3s: 4 attempts spread over 29.0 days need no more than 65536 bins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Run(tt.tl, Options{Seed: 1, BinWidth: tt.bin})
			w := res.Waves
			if budget := binBudget(len(tt.tl.Events)); int64(w.Bins) > budget {
				t.Errorf("%d bins, over the budget of %d", w.Bins, budget)
			}
			if w.Periodic != tt.periodic {
				t.Fatalf("Periodic = %v, want %v", w.Periodic, tt.periodic)
			}
			if tt.periodic && (math.Abs(w.Period-alone.Period) > 0.01*alone.Period || len(w.Waves) != len(alone.Waves) || w.BinWidth != alone.BinWidth) {
				t.Errorf("period %.2f s, %d waves in bins of %g s; alone %.2f s, %d waves in bins of %g s",
					w.Period, len(w.Waves), w.BinWidth, alone.Period, len(alone.Waves), alone.BinWidth)
			}
			found := false
			for _, warn := range res.Warnings {
				found = found || strings.Contains(warn, tt.warning)
			}
			if !found {
				t.Errorf("no warning with %q in %q", tt.warning, res.Warnings)
			}
		})
	}
}

// TestBusiestStretch finds the stretch of most arrivals within a span,
// the earliest of equals.
func TestBusiestStretch(t *testing.T) {
	tests := []struct {
		times  []int64
		span   uint64
		lo, hi int
	}{
		{[]int64{0, 1, 2, 100, 101}, 10, 0, 3},
		{[]int64{0, 1, 100, 101}, 10, 0, 2},
		{[]int64{0, 50, 100, 101, 102, 103}, 10, 2, 6},
		{[]int64{5}, 0, 0, 1},
		{[]int64{math.MinInt64, 0, math.MaxInt64}, 1, 0, 1},
	}
	for _, tt := range tests {
		if lo, hi := busiestStretch(tt.times, tt.span); lo != tt.lo || hi != tt.hi {
			t.Errorf("busiestStretch(%v, %d) = [%d, %d), want [%d, %d)", tt.times, tt.span, lo, hi, tt.lo, tt.hi)
		}
	}
}

// TestWaveFindings: the headline on the waves says why there is, or is not,
// a period, in words that agree with its numbers.
func TestWaveFindings(t *testing.T) {
	chance, threeChance := 0.24, 0.0066
	nextChance, bothChance := 0.0214, 0.0164
	tests := []struct {
		name  string
		waves Waves
		want  string
	}{
		{name: "a period by its autocorrelation",
			waves: Waves{Periodic: true, Period: 30, ACF: 0.6, Threshold: 0.1, Significance: 6, PeriodEvidence: evidenceACF},
			want:  "every 30.0 s (ACF 0.60, 6.00 x the shuffled-data threshold)"},
		{name: "a period by its burst grid",
			waves: Waves{Periodic: true, Period: 7.5, ACF: 0.47, Threshold: 0.5, Significance: 0.94, OnGrid: 5, Bins: 67, PeriodEvidence: evidenceGrid},
			want:  "all 5 bursts on its grid, while the ACF, 0.47, is under the shuffled-data threshold of 0.50 that a series of 67 bins sets"},
		{name: "too few waves on the grid",
			waves: Waves{BestLag: 60, ACF: 0.3, Threshold: 0.1, OnGrid: 2, MinRepeats: 3, Waves: make([]Wave, 5), Rejected: rejectedGrid},
			want:  "but only 2 of 5 bursts sit on its grid"},
		{name: "three wide bursts",
			waves: Waves{BestLag: 836, ACF: 0.109, Threshold: 0.068, OnGrid: 3, MinRepeats: 3, Waves: make([]Wave, 3), Rejected: rejectedWide},
			want:  "and 3 bursts on its grid, but they are wide and unlike in width"},
		{name: "bursts that line up by chance",
			waves: Waves{BestLag: 91.6, ACF: 0.076, Threshold: 0.070, OnGrid: 6, MinRepeats: 3, Waves: make([]Wave, 8), Rejected: rejectedChance, GridChance: &chance, MaxGridChance: maxGridChance},
			want:  "and 6 of 8 bursts on its grid, but bursts at random times line up as well in 24.0% of tries (at most 15.0% allowed)"},
		{name: "a burst outlasting the period",
			waves: Waves{BestLag: 171.6, ACF: 0.148, Threshold: 0.146, OnGrid: 6, MinRepeats: 3, Waves: make([]Wave, 7), Rejected: rejectedOverlap},
			want:  "and 6 bursts on its grid, but one of them lasts longer than 172 s, so it would run into the next"},
		{name: "waves not in a row",
			waves: Waves{BestLag: 17.7, ACF: 0.125, Threshold: 0.106, OnGrid: 3, MinRepeats: 3, Waves: make([]Wave, 4), Rejected: rejectedScattered, GridRun: 1},
			want:  "and 3 bursts on its grid, but at most 1 periods in a row hold one (3 are needed)"},
		{name: "a wave outgrowing one before it",
			waves: Waves{BestLag: 21.7, ACF: 0.555, Threshold: 0.168, OnGrid: 4, MinRepeats: 3, Waves: make([]Wave, 4), Rejected: rejectedGrowth, Outgrown: []int64{21, 170}},
			want:  "but a burst of 170 on it follows one of 21, more than 6 times as many"},
		{name: "a wave outgrowing one before it, weak ACF",
			waves: Waves{BestLag: 174.3, ACF: 0.103, Threshold: 0.1, OnGrid: 4, MinRepeats: 3, Waves: make([]Wave, 4), Rejected: rejectedGrowth, Outgrown: []int64{298, 411}},
			want:  "but a burst of 411 on it follows one of 298, more than counting noise allows where the ACF is at most 2.50 times its threshold"},
		{name: "a retry outgrowing its wave",
			waves: Waves{BestLag: 63.3, ACF: 0.25, Threshold: 0.168, OnGrid: 3, MinRepeats: 3, Waves: make([]Wave, 4), Rejected: rejectedRetries, Outgrown: []int64{130, 211}},
			want:  "but a burst of 211 that would be a wave's retry follows a wave of 130"},
		{name: "bursts larger than what failed before them",
			waves: Waves{BestLag: 142.5, ACF: 0.423, Threshold: 0.185, OnGrid: 3, MinRepeats: 3, Waves: []Wave{{Attempts: 175}, {Attempts: 175}, {Attempts: 160}}, Series: "batch attempts", Rejected: rejectedUnfailed, Outgrown: []int64{58, 167}},
			want:  "has ACF 0.42, above the shuffled-data threshold of 0.18, and 3 bursts on its grid, but a burst of 167 on it follows a period in which only 58 attempts failed"},
		{name: "calls larger than what failed before them, on the grid's evidence",
			waves: Waves{BestLag: 20, ACF: 0.3, Threshold: 0.4, OnGrid: 4, MinRepeats: 3, Waves: make([]Wave, 4), Series: "batch call starts (SDK log)", Rejected: rejectedUnfailed, Outgrown: []int64{12, 40}},
			want:  "has ACF 0.30, not above the shuffled-data threshold of 0.40, and 4 bursts on its grid, but a burst of 40 on it follows a period in which only 12 attempts failed"},
		{name: "three bursts, the middle one off halfway",
			waves: Waves{BestLag: 191.2, ACF: 0.332, Threshold: 0.160, OnGrid: 3, MinRepeats: 3, Waves: make([]Wave, 3), Rejected: rejectedUneven, MidwayOffset: 4.412, MidwayError: 0.1157},
			want:  "has ACF 0.33, above the shuffled-data threshold of 0.16, but only three bursts keep to it, and the middle one sits 4.41 s from where the period puts it between the others, 38.13 times the 0.116 s its waves' spread explains"},
		{name: "a period by three bursts",
			waves: Waves{Periodic: true, Period: 115.3, ACF: 0.144, Threshold: 0.173, OnGrid: 3, Bins: 900, PeriodEvidence: evidenceGrid, GridChance: &threeChance, MaxGridChance: maxMidwayChance, MidwayOffset: 0.265, MidwayError: 0.38},
			want:  "all 3 bursts on its grid, the middle one as close to halfway between the others as only 0.7% of places between them would put bursts at random times, while the ACF, 0.14, is under the shuffled-data threshold of 0.17 that a series of 900 bins sets"},
		{name: "a period by three bursts and the next wave where it is due",
			waves: Waves{Periodic: true, Period: 7.0, ACF: 0.28, Threshold: 0.37, OnGrid: 3, Bins: 82, PeriodEvidence: evidenceGrid, GridChance: &bothChance, MaxGridChance: maxBurstGridChance,
				MidwayOffset: 0, MidwayError: 0.354, MidwayChance: 0.1088, NextWaveArrivals: 9, NextWaveExpected: 3.8, NextWaveChance: &nextChance},
			want: "all 3 bursts on its grid, the middle one as close to halfway between the others as 10.9% of places between them would put bursts at random times, and 9 arrivals where the grid puts the next wave against 3.80 from background, as many as background alone brings in 2.1% of tries (both together: 1.6%), while the ACF, 0.28, is under the shuffled-data threshold of 0.37 that a series of 82 bins sets"},
		{name: "an autocorrelation under its threshold",
			waves: Waves{BestLag: 12, ACF: 0.2, Threshold: 0.3, Waves: make([]Wave, 4)},
			want:  "has ACF 0.20, not above the shuffled-data threshold of 0.30, over 4 bursts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{Waves: tc.waves}
			got := strings.Join(findings(r), "\n")
			if !strings.Contains(got, tc.want) {
				t.Errorf("findings:\n%s\nwant them to say %q", got, tc.want)
			}
		})
	}
}

// TestWaitsEachRetryAfter: an SDK honours a retry-after that varies when
// each gap less its own retry-after sits on zero.
func TestWaitsEachRetryAfter(t *testing.T) {
	dated := DelayStats{Kind: kindRetryAfter, N: 2815, Mean: 2.76, P10: 2.55, P50: 2.77, P90: 2.96, Min: 2.42, Max: 3}
	onTime := DelayStats{Kind: kindPastRetryAfter, N: 1918, Mean: 0.07, P10: 0.003, P50: 0.048, P90: 0.178, Min: -0.001, Max: 0.272}
	for _, tc := range []struct {
		name     string
		past, ra DelayStats
		want     bool
	}{
		{"each date waited, a busy client late", onTime, dated, true},
		{"one retry-after for all", onTime, DelayStats{N: 100, Mean: 2, P10: 2, P50: 2, P90: 2, Min: 2, Max: 2}, false},
		{"retries before the retry-after", func() DelayStats { d := onTime; d.P10 = -0.3; return d }(), dated, false},
		{"the SDK's own delay on top", func() DelayStats { d := onTime; d.P10, d.P90 = 0.4, 1.2; return d }(), dated, false},
		{"too few to tell", func() DelayStats { d := onTime; d.N = 20; return d }(), dated, false},
	} {
		if got := waitsEachRetryAfter(tc.past, tc.ra); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPeriodOfHardStorms pins the period of storms whose bursts could
// pass for another period or for none: a comb whose attempts are less
// than a quarter period apart (merged, the whole storm would be one
// burst); call starts whose waves come in pairs alike only because the
// storm hardly decays (each call counts once there, so no comb is in
// it); and a storm whose next wave shows a few calls after the last on
// the grid.
func TestPeriodOfHardStorms(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	tests := []struct {
		name string
		in   incident
	}{
		{name: "wire only: four attempts 3.3 s apart in 13.7 s waves",
			in: incident{sizes: geometric(190.7, 0.9936, 11), width: ms(257), requeue: ms(3549), jitter: ms(61),
				attempts: 4, retryAfter: 3 * time.Second, attemptTime: ms(282), background: 0.82, wireOnly: true, seed: 61}},
		{name: "wire only: four attempts 3.1 s apart in 14.3 s waves",
			in: incident{sizes: geometric(165, 0.9784, 5), width: ms(1439), requeue: ms(4878),
				attempts: 4, retryAfter: 3 * time.Second, attemptTime: ms(94), background: 0.07, wireOnly: true, seed: 112}},
		{name: "SDK log: an 11.2 s requeue decaying by 0.97",
			in: incident{sizes: geometric(47.7, 0.97, 7), width: ms(777), requeue: ms(11157), jitter: ms(29),
				attempts: 1, attemptTime: ms(83), background: 0.69, seed: 41}},
		{name: "SDK log: a 10.7 s requeue that hardly decays, whole seconds",
			in: incident{sizes: geometric(51.3, 0.9957, 8), width: ms(540), requeue: ms(10471), jitter: ms(25),
				attempts: 1, attemptTime: ms(205), background: 0.81, wholeSeconds: true, seed: 212}},
		{name: "SDK log: a 13.2 s requeue decaying by 0.83",
			in: incident{sizes: geometric(44.4, 0.8309, 10), width: ms(416), requeue: ms(12973), jitter: ms(61),
				attempts: 1, attemptTime: ms(177), background: 1.93, seed: 35}},
		{name: "wire only: three attempts 5 s apart, a few calls of the fourth wave",
			in: incident{sizes: geometric(135.2, 0.4549, 11), width: ms(3315), requeue: ms(18014), jitter: ms(83),
				attempts: 3, retryAfter: 5 * time.Second, attemptTime: ms(206), background: 0.6, wholeSeconds: true, wireOnly: true, seed: 130}},
		{name: "wire only: four attempts 5 s apart, a few calls of the fourth wave",
			in: incident{sizes: geometric(44.8, 0.7497, 6), width: ms(3610), requeue: ms(17138), jitter: ms(10),
				attempts: 4, retryAfter: 5 * time.Second, attemptTime: ms(246), background: 0.046, wholeSeconds: true, wireOnly: true, seed: 102}},
		// Every call throttled on every attempt, so a wave's attempts are
		// alike in size and the storm hardly decays: only the requeue's
		// gap, longer or shorter than a retry's, marks each wave's start
		// (accuracy streams 1432 and 1417).
		{name: "wire only: two attempts 49 s apart, a requeue 1.7 s longer",
			in: incident{sizes: []int{45, 42, 39, 36, 34, 32, 29, 27, 26, 24, 22}, width: ms(5120), requeue: ms(50600), jitter: ms(344),
				attempts: 2, retryAfter: 49 * time.Second, attemptTime: ms(160), background: 0.055, wholeSeconds: true, wireOnly: true, seed: 296}},
		{name: "wire only: four attempts 5 s apart, a requeue a second shorter",
			in: incident{sizes: []int{80, 78, 75, 72, 70, 67, 65, 63, 61, 59, 57}, width: ms(112), requeue: ms(3712), jitter: ms(17),
				attempts: 4, retryAfter: 5 * time.Second, attemptTime: ms(270), background: 0.386, wholeSeconds: true, wireOnly: true, seed: 75}},
		// Attempts 5 s apart against a merge gap of 4 s: those whose calls
		// spread over two seconds merge, the others stand apart
		// (accuracy stream 1437).
		{name: "wire only: three attempts 5 s apart, some merged by rounding",
			in: incident{sizes: []int{492, 486, 480, 475, 470, 464, 459, 454, 448, 443, 438, 433, 428}, width: ms(147), requeue: ms(8289), jitter: ms(47),
				attempts: 3, retryAfter: 5 * time.Second, attemptTime: ms(70), background: 0.062, wholeSeconds: true, wireOnly: true, seed: 175}},
		// The retry-after, rounded to the second, makes the comb span 16 s
		// of an 18 s period: the requeue is shorter than half a retry's
		// gap (accuracy stream 1437).
		{name: "wire only: four attempts 5.3 s apart, a requeue of 2.2 s",
			in: incident{sizes: []int{166, 67, 27, 11}, width: ms(558), requeue: ms(1957), jitter: ms(59),
				attempts: 4, retryAfter: 5 * time.Second, attemptTime: ms(268), background: 0.129, wholeSeconds: true, wireOnly: true, seed: 50}},
		// Whole-second stamps under a 5 s retry-after: retries two bins
		// wide are placed by their centres (accuracy streams 1705, 1712).
		{name: "wire only: four attempts 5.1 s apart, whole seconds, a 3.8 s requeue",
			in: incident{sizes: []int{132, 72, 39, 21, 12, 6, 3, 2, 1, 1}, width: ms(1753), requeue: ms(3795), jitter: ms(29),
				attempts: 4, retryAfter: 5 * time.Second, attemptTime: ms(140), background: 0.297, wholeSeconds: true, wireOnly: true, seed: 241}},
		{name: "wire only: four attempts 5.1 s apart, whole seconds, slow decay",
			in: incident{sizes: []int{207, 178, 152, 131, 112, 97, 83}, width: ms(1832), requeue: ms(4356),
				attempts: 4, retryAfter: 5 * time.Second, attemptTime: ms(117), background: 1.02, wholeSeconds: true, wireOnly: true, seed: 291}},
		// Two attempts 6 s apart, one wave's merged into one burst between
		// its grid point and its retry's (accuracy streams 1714, 1700).
		{name: "wire only: two attempts 6 s apart, one wave merged",
			in: incident{sizes: []int{69, 44, 29, 18, 12, 8, 5, 3, 2}, width: ms(503), requeue: ms(17149), jitter: ms(30),
				attempts: 2, retryAfter: 6 * time.Second, attemptTime: ms(118), background: 0.037, wholeSeconds: true, wireOnly: true, seed: 245}},
		{name: "wire only: two attempts 5 s apart, one wave merged",
			in: incident{sizes: []int{56, 25, 11, 5, 2, 1}, width: ms(729), requeue: ms(13178), jitter: ms(70),
				attempts: 2, retryAfter: 5 * time.Second, attemptTime: ms(207), background: 0.073, wholeSeconds: true, wireOnly: true, seed: 255}},
		// Four waves and their retries 86 s later, every burst on one of
		// the two grids, the ACF no more than at its threshold (accuracy
		// stream 1733).
		{name: "wire only: two attempts 86 s apart, whole seconds, a weak ACF",
			in: incident{sizes: []int{56, 26, 12, 6, 3, 1, 1, 0}, width: 337189284, requeue: 114490379689, jitter: 116916187,
				attempts: 2, retryAfter: 86 * time.Second, attemptTime: 298139393, background: 0.9654206959254443, wholeSeconds: true, wireOnly: true, seed: 281}},
		// A few sharp waves stamped to the whole second over a long quiet
		// span: a bin a second of background outweighs them in the ACF,
		// while the bursts keep to their grid (accuracy streams 1711,
		// 1704).
		{name: "SDK log: four waves 256 s apart, whole seconds",
			in: incident{sizes: []int{41, 23, 13, 8, 4, 2}, width: ms(368), requeue: ms(255910), jitter: ms(139),
				attempts: 1, attemptTime: ms(141), background: 0.453, wholeSeconds: true, seed: 80}},
		{name: "wire only: five waves 96 s apart, whole seconds",
			in: incident{sizes: []int{104, 48, 22, 10, 5, 2, 1}, width: ms(1054), requeue: ms(95613), jitter: ms(203),
				attempts: 1, attemptTime: ms(95), background: 0.96, wholeSeconds: true, wireOnly: true, seed: 235}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := FindWaves(tc.in.build(), Options{Seed: tc.in.seed})
			want := tc.in.period().Seconds()
			if !w.Periodic || math.Abs(w.Period-want) > 0.02*want {
				t.Errorf("periodic %v, period %.2f s (best lag %.2f, rejected %q, %d bursts, %d on the grid), want %.2f s",
					w.Periodic, w.Period, w.BestLag, w.Rejected, len(w.Waves), w.OnGrid, want)
			}
		})
	}
}

// TestOutgrownClumps pins which bursts of a few calls on a grid are the
// background's clumps rather than waves: those a later wave on the grid
// outgrows beyond Poisson noise.
func TestOutgrownClumps(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int64
		on    []bool
		want  int
	}{
		{name: "three calls, then waves of 17 and 14", sizes: []int64{3, 17, 14}, on: []bool{true, true, true}, want: 1},
		{name: "a storm ending in a few calls", sizes: []int64{120, 40, 12, 4}, on: []bool{true, true, true, true}},
		{name: "a small wave, then one within its noise", sizes: []int64{6, 9, 4}, on: []bool{true, true, true}},
		{name: "the larger burst is off the grid", sizes: []int64{3, 40, 2, 2}, on: []bool{true, false, true, true}},
		{name: "a clump before the storm", sizes: []int64{4, 200, 90, 40}, on: []bool{true, true, true, true}, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			waves := wavesOfSizes(tc.sizes)
			if got := outgrownClumps(waves, tc.on); got != tc.want {
				t.Errorf("%d clumps, want %d", got, tc.want)
			}
		})
	}
}

// TestDropClumps: the run of waves in a row is counted without the
// clumps a later wave outgrows, the strays' indices following the bursts
// that stay.
func TestDropClumps(t *testing.T) {
	tests := []struct {
		name       string
		sizes      []int64
		on         []bool
		strayIdx   []int
		wantKept   []int // indices of the bursts kept
		wantStrays []int
	}{
		{name: "a clump of 9 outgrown by 38 (accuracy stream 6088, trace 14)", sizes: []int64{85, 106, 9, 38, 5},
			on: []bool{false, true, true, true, true}, strayIdx: []int{0}, wantKept: []int{0, 1, 3, 4}, wantStrays: []int{0}},
		{name: "a storm ending in a few calls keeps them all", sizes: []int64{120, 40, 12, 4},
			on: []bool{true, true, true, true}, wantKept: []int{0, 1, 2, 3}},
		{name: "a stray after the clump moves down", sizes: []int64{4, 200, 30, 90},
			on: []bool{true, true, false, true}, strayIdx: []int{2}, wantKept: []int{1, 2, 3}, wantStrays: []int{1}},
		{name: "a small burst off the grid is no clump", sizes: []int64{200, 5, 90},
			on: []bool{true, false, true}, strayIdx: []int{1}, wantKept: []int{0, 1, 2}, wantStrays: []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			centres := make([]float64, len(tc.sizes))
			for i := range centres {
				centres[i] = float64(i) * 60e9
			}
			gotCentres, gotOn, gotStrays := dropClumps(centres, wavesOfSizes(tc.sizes), tc.on, tc.strayIdx)
			var kept []int
			for k, c := range gotCentres {
				i := int(c / 60e9)
				kept = append(kept, i)
				if gotOn[k] != tc.on[i] {
					t.Errorf("burst %d on the grid %v, want %v", i, gotOn[k], tc.on[i])
				}
			}
			if !slices.Equal(kept, tc.wantKept) || !slices.Equal(gotStrays, tc.wantStrays) {
				t.Errorf("kept %v, strays %v; want %v, %v", kept, gotStrays, tc.wantKept, tc.wantStrays)
			}
		})
	}
}

// TestMergedAndApart pins when a comb's attempts show both merged and
// standing apart, as rounding to the bin leaves them when their spacing
// is near the merge gap.
func TestMergedAndApart(t *testing.T) {
	tests := []struct {
		name   string
		widths []float64 // of the bursts, in seconds
		want   bool
	}{
		// Three attempts 5 s apart, stamped to the second: the first
		// waves' attempts stand apart, later ones merge in twos and
		// threes (accuracy stream 1437).
		{name: "some waves split, others merged", widths: []float64{0, 0, 0, 0, 0, 0, 6, 0, 11, 0, 11}, want: true},
		// Every wave one burst of its three attempts (the
		// openai-ra5-fixed20 recording): nothing to look for again.
		{name: "every wave merged", widths: []float64{10, 11, 11, 11, 11, 10, 5}},
		{name: "every attempt apart", widths: []float64{0, 0, 0, 1, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			waves := make([]Wave, len(tc.widths))
			for i, w := range tc.widths {
				waves[i] = Wave{Width: w}
			}
			if got := mergedAndApart(waves, 5.04, 1); got != tc.want {
				t.Errorf("merged and apart %v, want %v", got, tc.want)
			}
		})
	}
}

// TestHoldsStormWave pins when a grid holds a wave a background clump
// does not make: a burst on it of at least minFloorWave calls.
func TestHoldsStormWave(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int64
		on    []bool
		want  bool
	}{
		// Steady Poisson traffic clumped into bursts of 3, 7 and 4 calls
		// that kept to a 1008 s grid (accuracy stream 1402).
		{name: "three clumps of steady traffic", sizes: []int64{3, 7, 4}, on: []bool{true, true, true}},
		{name: "a storm ending in a few calls", sizes: []int64{120, 40, 12, 4}, on: []bool{true, true, true, true}, want: true},
		{name: "the one large burst is off the grid", sizes: []int64{3, 40, 2, 2}, on: []bool{true, false, true, true}},
		{name: "a wave of exactly the floor", sizes: []int64{10, 6, 4}, on: []bool{true, true, true}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			waves := wavesOfSizes(tc.sizes)
			if got := holdsStormWave(waves, tc.on); got != tc.want {
				t.Errorf("holds a storm wave %v, want %v", got, tc.want)
			}
		})
	}
}

// TestDropTail pins which bursts off the grid are read as the storm's next
// wave showing a few calls rather than strays.
func TestDropTail(t *testing.T) {
	tests := []struct {
		name    string
		centres []float64 // seconds
		sizes   []int64
		on      []bool
		period  float64
		want    []int // strays kept
	}{
		{name: "a few calls a comb spacing after the next grid point", centres: []float64{0, 33.15, 66.15, 102.9},
			sizes: []int64{179, 136, 101, 5}, on: []bool{true, true, true, false}, period: 33.08},
		{name: "a few calls early in the next period", centres: []float64{0, 28.65, 57.34, 79.65},
			sizes: []int64{400, 166, 75, 8}, on: []bool{true, true, true, false}, period: 28.67},
		{name: "a large burst after the grid is a stray", centres: []float64{0, 33, 66, 102},
			sizes: []int64{179, 136, 101, 60}, on: []bool{true, true, true, false}, period: 33, want: []int{3}},
		{name: "a small burst two periods on is a stray", centres: []float64{0, 33, 66, 140},
			sizes: []int64{179, 136, 101, 5}, on: []bool{true, true, true, false}, period: 33, want: []int{3}},
		{name: "a small burst amid the grid is a stray", centres: []float64{0, 33, 50, 66},
			sizes: []int64{179, 136, 5, 101}, on: []bool{true, true, false, true}, period: 33, want: []int{2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			centres := make([]float64, len(tc.centres))
			waves := make([]Wave, len(tc.sizes))
			var idx []int
			for i := range tc.centres {
				centres[i] = (100 + tc.centres[i]) * 1e9
				waves[i] = Wave{Size: tc.sizes[i]}
				if !tc.on[i] {
					idx = append(idx, i)
				}
			}
			got := dropTail(idx, centres, waves, tc.on, tc.period)
			if fmt.Sprint(got) != fmt.Sprint(append([]int{}, tc.want...)) {
				t.Errorf("strays %v, want %v", got, tc.want)
			}
		})
	}
}

// TestClockTimedWaits pins clockTimed on gaps shaped as the recordings'
// were: waits until an HTTP date land in one stretch of the second while
// the failures they follow ended anywhere in it; waits of a length land
// where their failures ended, a little later.
func TestClockTimedWaits(t *testing.T) {
	const n = 600
	rng := rand.New(rand.NewPCG(3, 14))
	// ended draws where a failure ended; wait draws how long until its
	// retry started.
	type shape struct {
		ended func(i int) int64
		wait  func(end int64) int64
	}
	anywhere := func(i int) int64 { return int64(i)*7e9 + rng.Int64N(1e9) }
	// A wave: every failure ends in the first 0.3 s of its second.
	inAWave := func(i int) int64 { return int64(i)*7e9 + rng.Int64N(3e8) }
	untilDate := func(end int64) int64 {
		// retry-after: the whole second 3 s on, sent late by up to 0.15 s.
		return (end/1e9+3)*1e9 + rng.Int64N(15e7) - end
	}
	fixedLate := func(int64) int64 { return 2e9 + rng.Int64N(2e8) }
	jittered := func(int64) int64 { return 2e9 + rng.Int64N(1e9) }
	for _, tc := range []struct {
		name  string
		shape shape
		gaps  int
		want  bool
	}{
		{"until an HTTP date", shape{anywhere, untilDate}, n, true},
		{"until an HTTP date, in waves", shape{inAWave, untilDate}, n, true},
		{"a fixed wait sent late", shape{anywhere, fixedLate}, n, false},
		{"a fixed wait sent late, in waves", shape{inAWave, fixedLate}, n, false},
		{"a jittered wait", shape{anywhere, jittered}, n, false},
		{"too few to tell", shape{anywhere, untilDate}, minFloorGaps - 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := delaySample{kind: kindSDKDelay, coarse: true}
			d.countPhases()
			for i := range tc.gaps {
				end := tc.shape.ended(i)
				d.add(end, end+tc.shape.wait(end))
			}
			ds := d.stats()
			if ds.ClockTimed != tc.want {
				t.Errorf("clock timed %v (landing %.3f s, gaps %.2f to %.2f s), want %v", ds.ClockTimed, ds.Landing, ds.Min, ds.Max, tc.want)
			}
			if tc.want && !ds.Fixed {
				t.Error("a wait until a clock time is not labelled fixed")
			}
		})
	}
}

func TestPhaseWindow(t *testing.T) {
	for _, tc := range []struct {
		name string
		at   map[int]int32 // millisecond: count
		want float64
	}{
		{"empty", nil, 0},
		{"one millisecond", map[int]int32{500: 10}, 0.001},
		{"80% of a spread", map[int]int32{100: 4, 200: 4, 900: 2}, 0.101},
		{"wrapping round the second", map[int]int32{950: 5, 20: 5}, 0.071},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var counts [1000]int32
			for ms, c := range tc.at {
				counts[ms] = c
			}
			if got := phaseWindow(&counts, 0.8); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("phaseWindow = %v, want %v", got, tc.want)
			}
		})
	}
}

// wavesOfSizes is a wave of each size, in order.
func wavesOfSizes(sizes []int64) []Wave {
	waves := make([]Wave, len(sizes))
	for i, s := range sizes {
		waves[i] = Wave{Size: s}
	}
	return waves
}

// TestRetriesOutgrowWave pins when a burst inside a period outnumbers the
// wave on the grid before it: a wave's retries are its failed calls sent
// again, so they cannot, unless the "wave" is the background's clump.
func TestRetriesOutgrowWave(t *testing.T) {
	tests := []struct {
		name    string
		centres []float64 // seconds
		sizes   []int64
		onGrid  []bool
		period  float64
		// widths are the bursts' widths in seconds, 0 for each if nil.
		widths []float64
		want   bool
	}{
		// Random bursts (accuracy stream 1924): a retry of 211 after a
		// wave of 130.
		{name: "a retry outnumbering its wave", centres: []float64{0, 30.6, 63.9, 126.1}, sizes: []int64{130, 211, 112, 36},
			onGrid: []bool{true, false, true, true}, period: 63.3, want: true},
		{name: "retries as many as the wave, give or take noise", centres: []float64{0, 10.7, 25.5, 36.2, 51, 61.7}, sizes: []int64{63, 70, 43, 43, 31, 29},
			onGrid: []bool{true, false, true, false, true, false}, period: 25.5},
		// Two attempts 10.7 s apart in a 25.5 s period (accuracy stream
		// 3024): a grid through the retries takes in a clump of three
		// requests before the storm, which bounds no wave.
		{name: "a background clump on a grid through the retries", centres: []float64{0, 14, 24.8, 39.5, 50.3, 65}, sizes: []int64{3, 63, 63, 43, 43, 31},
			onGrid: []bool{true, false, true, false, true, false}, period: 25.5},
		// Four attempts 5 s apart in an 18.4 s period on whole seconds
		// (accuracy stream 11004, trace 247): each call's last retry and
		// the next wave's first attempts, 3.4 s apart, make one burst
		// three bins wide, the grid running through the second attempts.
		{name: "a last retry run together with the next wave's first attempts",
			centres: []float64{0, 5, 10, 16.7, 23.4, 28.4, 35.1, 41.8}, sizes: []int64{293, 293, 293, 568, 275, 275, 535, 258},
			widths: []float64{0, 0, 0, 3, 0, 0, 2, 0}, onGrid: []bool{false, true, false, false, true, false, false, true}, period: 18.4},
		{name: "a burst as sharp as its wave holding both waves' calls",
			centres: []float64{0, 5, 10, 16.7, 23.4, 28.4, 35.1, 41.8}, sizes: []int64{293, 293, 293, 568, 275, 275, 535, 258},
			onGrid: []bool{false, true, false, false, true, false, false, true}, period: 18.4, want: true},
		{name: "a wide burst outnumbering both waves",
			centres: []float64{0, 5, 10, 16.7, 23.4, 28.4, 35.1, 41.8}, sizes: []int64{293, 293, 293, 900, 275, 275, 535, 258},
			widths: []float64{0, 0, 0, 3, 0, 0, 2, 0}, onGrid: []bool{false, true, false, false, true, false, false, true}, period: 18.4, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			centres := make([]float64, len(tc.centres))
			waves := make([]Wave, len(tc.sizes))
			for i := range tc.centres {
				centres[i], waves[i].Size = tc.centres[i]*1e9, tc.sizes[i]
				if tc.widths != nil {
					waves[i].Width = tc.widths[i]
				}
			}
			_, _, got := retriesOutgrowWave(centres, waves, tc.onGrid, nil, tc.period)
			if got != tc.want {
				t.Errorf("outgrown %v, want %v", got, tc.want)
			}
		})
	}
}

func TestShrinksAsStorm(t *testing.T) {
	tests := []struct {
		name   string
		sizes  []int64
		onGrid []bool
		want   bool
	}{
		// Accuracy stream 1953, trace 267: one attempt a call, whole
		// seconds, 4 waves on a 6.7 s grid.
		{name: "a storm halving each wave", sizes: []int64{65, 29, 13, 6}, onGrid: []bool{true, true, true, true}, want: true},
		{name: "a last wave within noise of the one before", sizes: []int64{58, 28, 14, 12}, onGrid: []bool{true, true, true, true}, want: true},
		{name: "a later burst outgrowing an earlier one", sizes: []int64{30, 12, 60, 20}, onGrid: []bool{true, true, true, true}},
		{name: "clumps only, none a storm wave", sizes: []int64{9, 7, 5, 4}, onGrid: []bool{true, true, true, true}},
		{name: "the large burst off the grid does not count", sizes: []int64{8, 90, 6, 5}, onGrid: []bool{true, false, true, true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			waves := make([]Wave, len(tc.sizes))
			for i, n := range tc.sizes {
				waves[i].Size = n
			}
			if got := shrinksAsStorm(waves, tc.onGrid); got != tc.want {
				t.Errorf("shrinksAsStorm(%v) = %v, want %v", tc.sizes, got, tc.want)
			}
		})
	}
}

// TestNearGridPoints pins the count of times within reach of a multiple
// of the step, edges included.
func TestNearGridPoints(t *testing.T) {
	for _, tc := range []struct {
		name        string
		times       []float64
		step, reach float64
		want        int
	}{
		{"on the points", []float64{0, 10, 20, 30}, 10, 1, 4},
		{"between the points", []float64{5, 15, 25}, 10, 1, 0},
		{"at the edges of reach", []float64{9, 11, 19, 21}, 10, 1, 4},
		{"just past them", []float64{8.9, 11.1, 18.9, 21.1}, 10, 1, 0},
		{"before the first point", []float64{-1, -0.5, 3}, 10, 1, 2},
		{"ties at an edge", []float64{11, 11, 11, 12}, 10, 1, 3},
		{"a step drifting off", []float64{0, 10.2, 20.4, 30.6, 40.8, 51}, 10, 0.5, 3},
		{"the drifting step matched", []float64{0, 10.2, 20.4, 30.6, 40.8, 51}, 10.2, 0.5, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nearGridPoints(tc.times, tc.step, tc.reach); got != tc.want {
				t.Errorf("nearGridPoints(%v, %v, %v) = %d, want %d", tc.times, tc.step, tc.reach, got, tc.want)
			}
		})
	}
}

// A fixed delay's waves last as long as the throttling. One synchronised
// start retried at an exact retry-after makes three sharp bursts, and if
// a jittered requeue then spreads the storm out, those bursts are not its
// period; a storm that ends, however long the log after it, keeps its.
func TestWavesOutlastedByTheThrottling(t *testing.T) {
	const tasks = 300
	attempt := func(tl *timeline.Timeline, at int64, out timeline.Outcome) {
		tl.Events = append(tl.Events, timeline.Event{Start: at, End: at + 1e8, Layer: timeline.LayerHTTP, Outcome: out,
			Class: timeline.ClassBatch, Status: timeline.Small(statusOf(out)), RetryAfter: timeline.NoRetryAfter, Line: int64(len(tl.Events) + 1)})
	}
	// combThenSpread: every task's first call starts within half a second,
	// its three attempts 12.1 s apart, and each of its three later queue
	// attempts comes U(0, 60 s) after the last, as a full-jitter requeue
	// does (openai-ra12-full60-unscaled: 1,196 calls of 300 tasks).
	combThenSpread := func(seed uint64) *timeline.Timeline {
		rng := rand.New(rand.NewPCG(seed, 11))
		tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "combined.log", Format: "synthetic"}}}
		for range tasks {
			at := genEpoch + 30e9 + rng.Int64N(5e8)
			for q := range 4 {
				for range 3 {
					attempt(tl, at, timeline.OutcomeThrottled)
					at += 12_100_000_000
				}
				if q < 3 {
					at += rng.Int64N(60e9)
				}
			}
		}
		tl.Sort()
		return tl
	}
	// stormThenThrottledLog: a fixed 10 s requeue's storm, then half an
	// hour of the log with a throttle every two seconds.
	stormThenThrottledLog := func(seed uint64) *timeline.Timeline {
		in := incident{sizes: []int{300, 240, 190, 150, 120}, width: time.Second, requeue: 10 * time.Second, attempts: 1,
			attemptTime: 100 * time.Millisecond, wireOnly: true, seed: seed}
		tl := in.build()
		rng := rand.New(rand.NewPCG(seed, 12))
		end := tl.Events[len(tl.Events)-1].Start
		for at := end + 30e9; at < end+1800e9; at += int64(rng.ExpFloat64() * 2e9) {
			attempt(tl, at, timeline.OutcomeThrottled)
		}
		tl.Sort()
		return tl
	}
	for _, tc := range []struct {
		name     string
		build    func(uint64) *timeline.Timeline
		periodic bool
		period   float64
	}{
		{"comb then spread", combThenSpread, false, 0},
		{"storm then a long throttled log", stormThenThrottledLog, true, 10.1},
	} {
		outlasted := 0
		for seed := uint64(1); seed <= 3; seed++ {
			w := FindWaves(tc.build(seed), Options{Seed: seed})
			if w.Rejected == rejectedOutlasted {
				outlasted++
			}
			switch {
			case w.Periodic != tc.periodic:
				t.Errorf("%s, seed %d: periodic %v, want %v (best lag %.2f s, rejected %q)", tc.name, seed, w.Periodic, tc.periodic, w.BestLag, w.Rejected)
			case tc.periodic && math.Abs(w.Period-tc.period) > 0.2:
				t.Errorf("%s, seed %d: period %.2f s, want %.1f s", tc.name, seed, w.Period, tc.period)
			}
		}
		// Other rules may reject a comb's bursts first (a spread burst
		// lasting longer than the period), but not on every seed.
		if !tc.periodic && outlasted == 0 {
			t.Errorf("%s: no seed rejected for the throttling outlasting the bursts", tc.name)
		}
	}
}

// TestSkippedSlot: a wave whose throttled attempts do not come back a
// period later, while the storm goes on, says the spacing is not the
// delay every retry waited, where such gaps come every few waves (one
// call's attempts, then a longer requeue delay); a phase slip, the storm's
// end, a clump after the gap, or a cadence that a limit on calls in flight
// keeps going for dozens of waves do not.
func TestSkippedSlot(t *testing.T) {
	type burst struct {
		at        float64
		size, thr int
		// width is the burst's span, 10 ms an attempt if 0.
		width float64
		// off keeps the burst off the grid, as a centre off it is.
		off bool
		// hidden leaves its arrivals unfound as a burst.
		hidden bool
	}
	const period = 5.0
	every := func(from float64, n, size, thr int) []burst {
		var out []burst
		for k := range n {
			out = append(out, burst{at: from + float64(k)*period, size: size, thr: thr})
		}
		return out
	}
	tests := []struct {
		name   string
		bursts []burst
		// due is how many waves at the end were added where the grid put
		// them, past the ones judged on it.
		due  int
		want bool
	}{
		{name: "three attempts of each call, then a longer requeue", bursts: append(every(0, 3, 40, 36), every(19.5, 3, 30, 26)...), want: true},
		{name: "a storm replayed every period", bursts: every(0, 6, 40, 36)},
		{name: "a wave held back less than half a period", bursts: append(every(0, 3, 40, 36), every(17, 3, 30, 26)...)},
		{name: "the storm ended", bursts: every(0, 3, 40, 36)},
		{name: "a clump after the gap", bursts: append(every(0, 3, 40, 36), burst{at: 19.5, size: 4, thr: 2})},
		{name: "a cadence kept for dozens of waves, one skipped", bursts: append(every(0, 12, 40, 36), every(65, 12, 30, 26)...)},
		{name: "a wave too small to stand out as a burst where it was due",
			bursts: append(append(every(0, 3, 40, 36), burst{at: 15, size: 20, thr: 10, hidden: true}), every(20, 3, 30, 26)...)},
		{name: "a wave run together with its comb into one wide burst over the grid point",
			bursts: append(append(every(0, 3, 40, 36), burst{at: 15, size: 40, thr: 36, width: 4, off: true}), every(20, 3, 30, 26)...)},
		{name: "the next wave one added where the last burst put it due", bursts: append(every(0, 3, 40, 36), burst{at: 19.5, size: 30, thr: 26}), due: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var events []timeline.Event
			var waves []Wave
			var centres []float64
			for _, b := range tc.bursts {
				width := b.width
				if width == 0 {
					width = 0.01 * float64(b.size)
				}
				for k := range b.size {
					out := ok
					if k < b.thr {
						out = thr
					}
					events = append(events, ev(timeline.LayerHTTP, b.at+width*float64(k)/float64(b.size), out, bat, "", "", 0))
				}
				if b.hidden {
					continue
				}
				waves = append(waves, Wave{Start: time.Unix(0, genEpoch+int64(b.at*1e9)), Width: width, Size: int64(b.size)})
				centres = append(centres, float64(genEpoch)+(b.at+width/2)*1e9)
			}
			var onGrid []bool
			for _, b := range tc.bursts[:len(tc.bursts)-tc.due] {
				if !b.hidden {
					onGrid = append(onGrid, !b.off)
				}
			}
			j := buildJoins(build(events...))
			// Half the expected arrivals within a second of the point,
			// with no background, are its wave come back.
			cameBack := func(due int64, _, _ float64, expect int64) bool {
				n := 0
				for _, e := range events {
					if e.Start >= due-1e9 && e.Start <= due+1e9 {
						n++
					}
				}
				return 2*int64(n) >= expect
			}
			_, _, _, got := skippedSlot(j, waves, centres, onGrid, period, 0.1, cameBack)
			if got != tc.want {
				t.Errorf("skippedSlot = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestDelayTooCoarse pins when whole-second stamps leave a delay's spread
// unjudged: short, and spread by less than a second, as truncation spreads
// even an exact delay (openai-ra5-fixed3-max3-short: 35 requeue gaps of
// 3 s, one crossing into the next second).
func TestDelayTooCoarse(t *testing.T) {
	gaps := func(base float64, n int, extra ...float64) []float64 {
		out := make([]float64, 0, n+len(extra))
		for k := range n {
			out = append(out, base-0.005*float64(k%30))
		}
		return append(out, extra...)
	}
	tests := []struct {
		name             string
		sample           delaySample
		fixed, tooCoarse bool
	}{
		{"a 3 s delay on whole seconds, one gap a second longer", delaySample{kind: kindRequeue, whole: true, gaps: gaps(3, 34, 3.8)}, false, true},
		{"a 3 s delay on millisecond stamps, judged", delaySample{kind: kindRequeue, gaps: gaps(3, 34, 3.8)}, false, false},
		{"a 10 s delay on whole seconds", delaySample{kind: kindRequeue, whole: true, gaps: gaps(10, 34, 10.8)}, true, false},
		{"a 3 s delay spread over seconds", delaySample{kind: kindRequeue, whole: true, gaps: gaps(3, 20, 1, 5, 1, 5, 1, 5, 0.5, 5.5)}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds := tc.sample.stats()
			if ds.Fixed != tc.fixed || ds.TooCoarse != tc.tooCoarse {
				t.Errorf("fixed %v, too coarse %v; want %v, %v (%+v)", ds.Fixed, ds.TooCoarse, tc.fixed, tc.tooCoarse, ds)
			}
		})
	}
}

// TestUnperiodicFixedRequeue pins the finding that names a fixed requeue
// delay where no period was found (bedrock-ra3-fixed8-short: the AWS SDK's
// retry quota ran out mid-storm, and its bursts began 11.1, 3.0, 8.0 and
// 8.1 s apart around a fixed 8 s requeue).
func TestUnperiodicFixedRequeue(t *testing.T) {
	starts := func(offsets ...float64) []Wave {
		out := make([]Wave, len(offsets))
		for i, o := range offsets {
			out[i] = Wave{Start: time.Unix(0, genEpoch+int64(o*1e9)), Size: 10}
		}
		return out
	}
	fixed := DelayStats{Kind: kindRequeue, N: 62, Mean: 8, Sigma: 0.004, P50: 8, Min: 8, Max: 8.02, Fixed: true}
	jittered := fixed
	jittered.Fixed, jittered.Sigma = false, 2.3
	few := fixed
	few.N = 9
	sdk := fixed
	sdk.Kind = kindSDKDelay
	tests := []struct {
		name  string
		waves Waves
		want  string // "" for no finding
	}{
		{"a fixed requeue, bursts at changing spacings", Waves{Delays: []DelayStats{fixed}, Waves: starts(0, 11.12, 14.09, 22.12, 30.17)},
			"The job runner's requeue delay was fixed all the same: 8.00 s ± <0.01 s over 62 gaps, though the bursts kept no one spacing (they began 11.1 s, 2.97 s, 8.03 s and 8.05 s apart)."},
		{"a fixed requeue, too few bursts to space", Waves{Delays: []DelayStats{fixed}, Waves: starts(0, 11.12)},
			"The job runner's requeue delay was fixed all the same: 8.00 s ± <0.01 s over 62 gaps."},
		{"periodic: the period's finding names it", Waves{Periodic: true, Delays: []DelayStats{fixed}, Waves: starts(0, 8, 16)}, ""},
		{"a jittered requeue", Waves{Delays: []DelayStats{jittered}, Waves: starts(0, 11.12, 14.09)}, ""},
		{"too few requeue gaps", Waves{Delays: []DelayStats{few}, Waves: starts(0, 11.12, 14.09)}, ""},
		{"a fixed SDK delay is no requeue", Waves{Delays: []DelayStats{sdk}, Waves: starts(0, 11.12, 14.09)}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := unperiodicFixedRequeue(tc.waves)
			if ok != (tc.want != "") || !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q (%v), want one starting %q", got, ok, tc.want)
			}
		})
	}
}
