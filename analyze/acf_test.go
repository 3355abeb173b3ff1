package analyze

import (
	"cmp"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stampede/stampede/internal/racedetect"
)

func centred(x []float64) []float64 {
	var m float64
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v - m
	}
	return out
}

// TestACFMatchesDirect: the zero-padded FFT autocorrelation equals the O(n^2)
// definition at every lag (no circular wrap), and is 1 at lag 0.
func TestACFMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 100; iter++ {
		n := 2 + rng.IntN(300)
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(20)) + rng.NormFloat64()
		}
		x = centred(x)
		fast := newACFEngine(n).acf(x)
		slow := acfDirect(x)
		if fast[0] != 1 {
			t.Fatalf("n=%d: ACF(0) = %v, want 1", n, fast[0])
		}
		for k := range slow {
			if math.Abs(fast[k]-slow[k]) > 1e-9 {
				t.Fatalf("n=%d lag %d: FFT %v, direct %v", n, k, fast[k], slow[k])
			}
			if math.Abs(fast[k]) > 1+1e-9 {
				t.Fatalf("n=%d lag %d: |ACF| = %v > 1", n, k, fast[k])
			}
		}
	}
}

func TestACFConstantSeries(t *testing.T) {
	r := newACFEngine(10).acf(make([]float64, 10))
	for k, v := range r {
		if v != 0 {
			t.Fatalf("lag %d of a constant series: %v, want 0", k, v)
		}
	}
}

// TestGeometricFitExact: on exact geometric data the fit returns the ratio
// and R² = 1.
func TestGeometricFitExact(t *testing.T) {
	for _, ratio := range []float64{0.3, 0.5, 0.604, 0.7, 0.95, 1.2} {
		for _, n := range []int{3, 8, 20} {
			sizes := make([]float64, n)
			s := 500.0
			for i := range sizes {
				sizes[i] = s
				s *= ratio
			}
			got, r2 := geometricFit(sizes)
			if math.Abs(got-ratio) > 1e-9 || math.Abs(r2-1) > 1e-9 {
				t.Errorf("ratio %v n %d: got %v R² %v", ratio, n, got, r2)
			}
		}
	}
}

// TestPercentileMonotone: quantiles never decrease with p and stay within
// the data's range.
func TestPercentileMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 200; iter++ {
		x := make([]float64, 1+rng.IntN(50))
		for i := range x {
			x[i] = rng.NormFloat64() * 10
		}
		sort.Float64s(x)
		prev := math.Inf(-1)
		for p := 0.0; p <= 1.0; p += 0.01 {
			q := percentileSorted(x, p)
			if q < prev-1e-12 || q < x[0] || q > x[len(x)-1] {
				t.Fatalf("p=%v: %v after %v (range %v..%v)", p, q, prev, x[0], x[len(x)-1])
			}
			prev = q
		}
	}
}

// TestChoosePeriodIgnoresComb: a comb of three pulses 12 bins apart repeated
// every 84 bins must give 84, not 12 (no peak at 36).
func TestChoosePeriodIgnoresComb(t *testing.T) {
	n := 84 * 8
	x := make([]float64, n)
	size := 100.0
	for w := 0; w < 8; w++ {
		for k := 0; k < 3; k++ {
			x[w*84+5+12*k] += size
		}
		size *= 0.7
	}
	r := newACFEngine(n).acf(centred(x))
	best, ok := choosePeriod(r, 3, n/2)
	if !ok || best.lag != 84 {
		t.Fatalf("period lag %d (ok %v), want 84", best.lag, ok)
	}
	if c := combSpacing(r, 3, best.lag, 0.05); math.Abs(c-12) > 0.5 {
		t.Errorf("comb spacing %v, want 12", c)
	}
}

func TestRemoveBaselineFlat(t *testing.T) {
	x := make([]float64, 100)
	for i := range x {
		x[i] = 7
	}
	resid, level := removeBaseline(x, 10)
	for i := range x {
		if resid[i] != 0 || level[i] != 7 {
			t.Fatalf("bin %d: resid %v level %v", i, resid[i], level[i])
		}
	}
}

func TestRefinePeriodSkipsStrayBursts(t *testing.T) {
	// Centres every 10.2 s with one wave missing and a stray burst at 35 s.
	var c []float64
	for _, s := range []float64{0, 10.2, 20.4, 35, 40.8, 61.2, 71.4} {
		c = append(c, s*1e9)
	}
	if got, onGrid := refinePeriod(10, 0.1, c); math.Abs(got-10.2) > 1e-6 || onGrid != 6 {
		t.Errorf("refined period %v with %d waves on the grid, want 10.2 and 6", got, onGrid)
	}
}

// TestRefinePeriodLeavesFewestPeriodsEmpty: the first wave's calls retried
// 1.3 s longer than the later waves' (botocore's retry quota ran out
// during it), so the first gap is long. A grid through the first wave
// holds as many waves as one through the later three, but skips the
// second: the later three's is the storm's (boto-standard-fixed9-short).
func TestRefinePeriodLeavesFewestPeriodsEmpty(t *testing.T) {
	c := []float64{35.67e9, 46.0e9, 55.1e9, 64.4e9}
	_, onGrid, members := refinePeriodGrid(9.58, 0.1, c)
	if want := []bool{false, true, true, true}; onGrid != 3 || !slices.Equal(members, want) {
		t.Errorf("%d waves on the grid %v, want 3: %v", onGrid, members, want)
	}
}

func TestFFTSize(t *testing.T) {
	for n := 1; n < 5000; n++ {
		m := fftSize(n)
		if m < n {
			t.Fatalf("fftSize(%d) = %d < n", n, m)
		}
		r := m
		for _, p := range []int{2, 3, 5} {
			for r%p == 0 {
				r /= p
			}
		}
		if r != 1 {
			t.Fatalf("fftSize(%d) = %d has a prime factor above 5", n, m)
		}
	}
}

// TestChoosePeriodIgnoresFractions: P/3 borrows P's ACF into its harmonic
// score (its third multiple is P), but with a weak peak of its own it must
// not displace P.
func TestChoosePeriodIgnoresFractions(t *testing.T) {
	r := make([]float64, 400)
	r[0] = 1
	bump := func(lag int, v float64) {
		r[lag-1], r[lag], r[lag+1] = v/2, v, v/2
	}
	bump(20, 0.3)  // P/3
	bump(40, 0.3)  // 2P/3
	bump(60, 0.8)  // P
	bump(120, 0.5) // 2P
	bump(180, 0.3) // 3P
	got, ok := choosePeriod(r, 5, 199)
	if !ok || got.lag != 60 {
		t.Fatalf("chose lag %d (ok %v), want 60", got.lag, ok)
	}
}

// TestStrayBursts pins which bursts off the period's grid count against
// it: those neither a whole number of comb spacings from a wave on the
// grid nor all at one offset from it.
func TestStrayBursts(t *testing.T) {
	// burst is a centre in seconds and a width; on marks the grid.
	type burst struct {
		at, width float64
		on        bool
	}
	tests := []struct {
		name         string
		bursts       []burst
		period, comb float64
		binWidth     float64
		want         int
	}{
		{name: "every burst on the grid", period: 60, binWidth: 0.1,
			bursts: []burst{{0, 1, true}, {60, 1, true}, {120, 1, true}, {180, 1, true}}, want: 0},
		// Three bursts a period at the comb's spacing, read at that
		// spacing: the grid's phase moves by 2 s where the requeue takes
		// over, and the bursts at that offset sit in periods whose own
		// slot holds no wave (the combined log of openai-ra4-fixed6-short).
		{name: "bursts at one offset where the grid's own slots are empty", period: 4, binWidth: 1,
			bursts: []burst{{5, 0, true}, {9, 0, true}, {13, 0, true}, {19, 0, false}, {23, 0, false}, {27, 0, false},
				{33, 0, true}, {37, 0, true}, {41, 0, true}}, want: 3},
		{name: "bursts at random offsets, no comb", period: 60, binWidth: 0.1,
			bursts: []burst{{0, 1, true}, {10, 1, false}, {60, 1, true}, {85, 1, false}, {120, 1, true}}, want: 2},
		// A second attempt the ACF did not single out still repeats with
		// the waves: one offset for every one of them.
		{name: "a second attempt at one offset, no comb", period: 60, binWidth: 0.1,
			bursts: []burst{{0, 1, true}, {12, 1, false}, {60, 1, true}, {72, 1, false}, {120, 1, true}, {132, 1, false}}, want: 0},
		{name: "retries one and two spacings after their wave", period: 60, comb: 12, binWidth: 0.1,
			bursts: []burst{{0, 1, true}, {12, 1, false}, {24, 1, false}, {60, 1, true}, {72, 1, false}, {120, 1, true}, {144, 1, false}}, want: 0},
		{name: "grid through the retries, first attempts before", period: 60, comb: 12, binWidth: 0.1,
			bursts: []burst{{-12, 1, false}, {0, 1, true}, {48, 1, false}, {60, 1, true}, {108, 1, false}, {120, 1, true}}, want: 0},
		// Merged waves put their centre midway through their comb.
		{name: "grid through merged waves", period: 60, comb: 12, binWidth: 0.1,
			bursts: []burst{{0, 13, true}, {60, 13, true}, {114, 1, false}, {126, 1, false}, {180, 13, true}}, want: 0},
		// Four attempts a 5.15 s comb apart in a 20.6 s period on whole
		// seconds, every burst two bins wide but one wave stamped a bin
		// wider (accuracy stream 12074, trace 145): the grid runs through
		// the first attempts, not the middle of merged waves, so the
		// retries are whole spacings from it.
		{name: "one wave on the grid a bin wider than the rest", period: 20.6, comb: 5.15, binWidth: 1,
			bursts: []burst{{0, 2, true}, {5.15, 2, false}, {10.3, 2, false}, {15.45, 2, false}, {20.6, 3, true}, {25.75, 2, false},
				{30.9, 2, false}, {36.05, 2, false}, {41.2, 2, true}, {46.35, 2, false}, {51.5, 2, false}, {56.65, 2, false}, {61.8, 2, true}}, want: 0},
		{name: "a burst off the grid and off the comb", period: 60, comb: 12, binWidth: 0.1,
			bursts: []burst{{0, 1, true}, {12, 1, false}, {60, 1, true}, {90, 1, false}, {120, 1, true}}, want: 1},
		{name: "two strays at different offsets with a comb", period: 60, comb: 12, binWidth: 0.1,
			bursts: []burst{{0, 1, true}, {30, 1, false}, {60, 1, true}, {120, 1, true}, {160, 1, false}}, want: 2},
		// Bursts this wide hold a comb point wherever they fall.
		{name: "a burst wider than half the period", period: 60, comb: 12, binWidth: 0.1,
			bursts: []burst{{0, 1, true}, {60, 1, true}, {100, 35, false}, {120, 1, true}}, want: 1},
		{name: "a burst spanning half a comb step", period: 60, comb: 12, binWidth: 0.1,
			bursts: []burst{{0, 1, true}, {60, 1, true}, {95, 7, false}, {120, 1, true}}, want: 1},
		// Inside the grid's span, a period with no wave on the grid has
		// no retries but those of a wave whose attempts all stand apart.
		{name: "a lone burst a comb spacing into a period with no wave", period: 60, comb: 12, binWidth: 0.1,
			bursts: []burst{{0, 1, true}, {72, 1, false}, {120, 1, true}, {180, 1, true}}, want: 1},
		{name: "a wave split into its attempts in a period with none on the grid", period: 60, comb: 12, binWidth: 0.1,
			bursts: []burst{{0, 13, true}, {54, 1, false}, {66, 1, false}, {120, 13, true}, {180, 13, true}}, want: 0},
		{name: "one attempt of the wave after the last on the grid", period: 60, comb: 12, binWidth: 0.1,
			bursts: []burst{{0, 13, true}, {60, 13, true}, {120, 13, true}, {174, 1, false}}, want: 0},
		// A wave's retries are its calls shifted by one delay: they spread
		// as it does, give or take the tolerance. Random bursts run
		// together into one many times wider held the comb point of a
		// 274 s spacing (stream 1527).
		{name: "retries about as wide as their wave", period: 600, comb: 270, binWidth: 0.1,
			bursts: []burst{{0, 4, true}, {270, 4, false}, {600, 1.5, true}, {870, 30, false}, {1200, 4, true}}, want: 0},
		{name: "a burst many times wider than the wave it would retry", period: 600, comb: 270, binWidth: 0.1,
			bursts: []burst{{0, 4, true}, {300, 120, false}, {600, 1.5, true}, {870, 30, false}, {1200, 4, true}}, want: 1},
		// Whole-second stamps widen a sharp retry's window by 1.5 s either
		// side, to more than a 5 s spacing: its centre still places it,
		// within a bin of its comb point (accuracy streams 1705, 1712).
		{name: "whole-second retries two bins wide, a 5 s comb", period: 19.35, comb: 4.96, binWidth: 1,
			bursts: []burst{{0, 1, true}, {5.1, 1, false}, {10.2, 1, false}, {15.4, 2, false}, {19.2, 1, true}, {24.5, 2, false},
				{29.6, 2, false}, {34.7, 2, false}, {38.6, 2, true}}, want: 0},
		{name: "a whole-second burst two bins wide between comb points", period: 19.35, comb: 4.96, binWidth: 1,
			bursts: []burst{{0, 1, true}, {5.1, 1, false}, {12.6, 2, false}, {19.2, 1, true}, {24.5, 1, false}, {38.6, 1, true}}, want: 1},
		// Without a comb, the retries at one offset from every wave share
		// it, and a wave whose two attempts merged into one burst spans
		// its grid point and that offset: part of the waves, not a stray
		// (accuracy stream 1714).
		{name: "a wave's two attempts merged, the others apart", period: 23.4, binWidth: 1,
			bursts: []burst{{0, 0.5, true}, {6, 0.5, false}, {23.4, 0.5, true}, {29.4, 0.5, false}, {49.8, 7, false},
				{70.2, 0.5, true}, {76.2, 0.5, false}, {93.6, 0.5, true}, {99.6, 0.5, false}}, want: 0},
		{name: "a wide burst off the grid that spans no retry", period: 23.4, binWidth: 1,
			bursts: []burst{{0, 0.5, true}, {6, 0.5, false}, {23.4, 0.5, true}, {29.4, 0.5, false}, {56.5, 7, false},
				{70.2, 0.5, true}, {76.2, 0.5, false}, {93.6, 0.5, true}, {99.6, 0.5, false}}, want: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var centres []float64
			var waves []Wave
			var on []bool
			for _, b := range tc.bursts {
				centres = append(centres, (100+b.at)*1e9)
				waves = append(waves, Wave{Start: time.Unix(0, int64((100+b.at-b.width/2)*1e9)), Width: b.width})
				on = append(on, b.on)
			}
			if got := strayBursts(centres, waves, on, tc.period, tc.comb, tc.binWidth); got != tc.want {
				t.Errorf("%d stray bursts, want %d", got, tc.want)
			}
		})
	}
}

func TestDecimate(t *testing.T) {
	got := decimate([]float64{0, 1, 2, 3, 4, 5, 6}, 3)
	want := []float64{0, 3, 6}
	if len(got) != len(want) {
		t.Fatalf("decimate = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("decimate = %v, want %v", got, want)
		}
	}
	if x := []float64{1, 2}; &decimate(x, 1)[0] != &x[0] {
		t.Error("step 1 should return the input unchanged")
	}
}

// TestProjectDecay: exact geometric sizes give the ratio with a narrow
// interval around it (Poisson noise alone) and the wave at which the fitted
// size drops below one call; noisy sizes widen the interval around the
// ratio; growth projects nothing.
func TestProjectDecay(t *testing.T) {
	exact := projectDecay([]float64{256, 128, 64, 32})
	if math.Abs(exact.ratio-0.5) > 1e-9 || !(exact.low < 0.5 && exact.high > 0.5 && exact.high-exact.low < 0.3) || exact.waves != 9 {
		t.Errorf("exact halving: %+v, want ratio 0.5 in a narrow interval and 9 waves (256 down to 1)", exact)
	}
	if exact.wavesHigh < exact.waves {
		t.Errorf("exact halving: %d waves at the upper bound, fewer than %d", exact.wavesHigh, exact.waves)
	}
	noisy := projectDecay([]float64{300, 170, 110, 48, 33, 14})
	if !(noisy.low < noisy.high && noisy.low < 0.6 && noisy.high > 0.5 && noisy.high < 1 && noisy.waves >= 6) {
		t.Errorf("noisy decay: %+v", noisy)
	}
	if g := projectDecay([]float64{10, 12, 15, 20}); g.waves != 0 {
		t.Errorf("growing waves projected to end: %+v", g)
	}
	if g := projectDecay([]float64{10, 5}); g.high != 0 {
		t.Errorf("two waves gave an interval: %+v", g)
	}
}

// TestFitDecayWeighsBigWaves: on the bundled incident's wave sizes, whose
// decay speeds up at the end, least squares on log size lets the last
// small waves set the slope and puts the fitted first wave 27% above the
// real one; the Poisson fit stays within 10%.
func TestFitDecayWeighsBigWaves(t *testing.T) {
	sizes := []float64{1180, 943, 742, 565, 424, 298, 204, 121, 52}
	x := make([]float64, len(sizes))
	y := make([]float64, len(sizes))
	for i, s := range sizes {
		x[i], y[i] = float64(i), math.Log(s)
	}
	a, _, _ := lineFit(x, y)
	if ls := math.Exp(a); ls < 1.2*sizes[0] {
		t.Fatalf("least squares puts wave 1 at %.0f; the example no longer shows the overshoot", ls)
	}
	f := fitDecay(sizes, nil)
	if math.Abs(f.first-sizes[0]) > 0.1*sizes[0] {
		t.Errorf("Poisson fit puts wave 1 at %.0f, want %.0f ± 10%%", f.first, sizes[0])
	}
	if !(f.low < f.ratio && f.ratio < f.high) || f.dispersion <= 1 {
		t.Errorf("fit %+v: want an interval around the ratio, widened for overdispersion", f)
	}
}

// poissonDraw is a Poisson count of the given mean. Knuth's method is slow
// for large means; a normal approximation with continuity is enough above
// 30.
func poissonDraw(rng *rand.Rand, mean float64) float64 {
	if mean > 30 {
		return math.Max(0, math.Round(mean+math.Sqrt(mean)*rng.NormFloat64()))
	}
	l, k, p := math.Exp(-mean), 0.0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// TestFitDecayCoverage: on sizes drawn as Poisson counts around an exact
// geometric decay, the 95% interval covers the true ratio about 95% of the
// time (at least 88% of 300 draws), and the exposure offset turns counts
// into rates.
func TestFitDecayCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	poisson := func(mean float64) float64 { return poissonDraw(rng, mean) }
	covered, draws := 0, 300
	for d := 0; d < draws; d++ {
		ratio := 0.4 + 0.55*rng.Float64()
		n := 4 + rng.IntN(10)
		first := 50 + 500*rng.Float64()
		sizes := make([]float64, n)
		for i := range sizes {
			sizes[i] = poisson(first * math.Pow(ratio, float64(i)))
		}
		if f := fitDecay(sizes, nil); f.low <= ratio && ratio <= f.high {
			covered++
		}
	}
	if covered < draws*88/100 {
		t.Errorf("interval covered the true ratio in %d of %d draws, want about 95%%", covered, draws)
	}
	// Rates: sizes 100·0.5^i over widths 1·0.8^i decay by 0.5/0.8.
	sizes, widths := make([]float64, 6), make([]float64, 6)
	for i := range sizes {
		sizes[i], widths[i] = 100*math.Pow(0.5, float64(i)), math.Pow(0.8, float64(i))
	}
	if f := fitDecay(sizes, widths); math.Abs(f.ratio-0.625) > 1e-9 || math.Abs(f.first-100) > 1e-6 {
		t.Errorf("rate fit %+v, want ratio 0.625 from 100/s", f)
	}
}

// TestPeriodogramFindsTheFundamental: a train of narrow pulses puts equal
// power at every harmonic of 1/P; the harmonic sum peaks at the
// fundamental, the hint sits on the ACF's hill at P, and the period comes
// from the periodogram.
func TestPeriodogramFindsTheFundamental(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, period := range []int{37, 120, 611} {
		n := period * 12
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(2))
		}
		for w := 0; w < 12; w++ {
			x[w*period+5] += 40
			x[w*period+6] += 40
		}
		pr := detectPeriod(x, 3, 1)
		if !pr.found || math.Abs(pr.lag-float64(period)) > 1 || pr.source != sourcePeriodogram {
			t.Errorf("period %d: found %v lag %.2f from %q", period, pr.found, pr.lag, pr.source)
		}
		if pr.power <= pr.powerThreshold {
			t.Errorf("period %d: periodogram power %.3f not above its threshold %.3f", period, pr.power, pr.powerThreshold)
		}
	}
}

// TestValidateHintsNeedsAHill: a periodogram hint counts only where the ACF
// has a hill, and moves to its top; a hint over a flat ACF is dropped.
func TestValidateHintsNeedsAHill(t *testing.T) {
	r := make([]float64, 400)
	for k := range r {
		r[k] = math.Max(0, 1-float64(k)/5) // the slope down from lag 0
	}
	for k := 95; k <= 105; k++ {
		r[k] = 0.6 - 0.01*math.Abs(float64(k-101)) // a hill topped at 101
	}
	m := 2000
	got := validateHints(r, []int{m / 99}, m, 3, 399)
	if len(got) != 1 || got[0].lag != 101 {
		t.Errorf("hint near 99 bins: %+v, want the hill's top at 101", got)
	}
	if got := validateHints(r, []int{m / 250}, m, 3, 399); len(got) != 0 {
		t.Errorf("hint at 250 bins over a flat ACF: %+v, want none", got)
	}
}

// TestPeriodogramThresholdOnNoise: on shuffled-like data (independent
// bins) the largest harmonic-summed power over the band exceeds its
// surrogate threshold rarely: the threshold is a 99th percentile, so at
// most a few of 40 short series, and none of 3 long ones (tested on a
// rescaled sample).
func TestPeriodogramThresholdOnNoise(t *testing.T) {
	racedetect.SkipResultsTest(t)
	rng := rand.New(rand.NewPCG(11, 11))
	prepare := func(x []float64) []float64 { return centre(boxSmooth(x, 2)) }
	for _, n := range []int{3000, 80_000} {
		over := 0
		runs := 40
		if n > maxSurrogateBins {
			runs = 3
		}
		for s := 0; s < runs; s++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = math.Sqrt(float64(rng.IntN(4)))
			}
			eng := newACFEngine(n)
			eng.acf(prepare(append([]float64(nil), x...)))
			m := len(eng.padded)
			kLo, kHi := freqBand(m, 3, n/2)
			best := 0.0
			for _, v := range harmonicPower(eng.pow, kLo, kHi) {
				best = max(best, v)
			}
			thr := surrogateThresholds(x, prepare, 3, n/2, 19, uint64(s)).periodogram
			if best > thr {
				over++
			}
			if s == 0 {
				t.Logf("%d bins: largest power %.5f, threshold %.5f", n, best, thr)
			}
		}
		if over > runs/10 {
			t.Errorf("%d bins: noise beat the periodogram threshold in %d of %d series", n, over, runs)
		}
	}
}

func TestACFCurve(t *testing.T) {
	// A long ACF with one narrow peak at every multiple of 700 bins.
	long := make([]float64, 50_001)
	for k := range long {
		long[k] = -0.1
		if k%700 == 0 {
			long[k] = 0.9
		}
	}
	long[0] = 1
	tests := []struct {
		name       string
		pr         periodResult
		periodBins float64
		wantPoints int
		wantStep   float64 // seconds, at 100 ms bins
	}{
		{"short, kept whole", periodResult{curve: []float64{1, 0.5, -0.25}, curveStep: 1}, 0, 3, 0.1},
		{"too short", periodResult{curve: []float64{1}, curveStep: 1}, 0, 0, 0},
		{"periodic, cut to 4.25 periods", periodResult{curve: long, curveStep: 1}, 100, 426, 0.1},
		{"not periodic, downsampled", periodResult{curve: long, curveStep: 1}, 0, 981, 5.1},
		{"decimated curve keeps its step", periodResult{curve: long[:901], curveStep: 3}, 0, 901, 0.3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, step := acfCurve(tc.pr, tc.periodBins, int64(100*time.Millisecond))
			if len(got) != tc.wantPoints || math.Abs(step-tc.wantStep) > 1e-12 {
				t.Fatalf("%d points at %g s, want %d at %g s", len(got), step, tc.wantPoints, tc.wantStep)
			}
			if len(got) > maxACFPoints {
				t.Errorf("%d points, more than %d", len(got), maxACFPoints)
			}
			for i, v := range got {
				if v < -1 || v > 1 {
					t.Errorf("point %d is %g, outside [-1, 1]", i, v)
				}
			}
		})
	}
	// Downsampling by the maximum keeps every narrow peak.
	got, step := acfCurve(periodResult{curve: long, curveStep: 1}, 0, int64(100*time.Millisecond))
	peaks := 0
	for _, v := range got {
		if v == 0.9 {
			peaks++
		}
	}
	if want := 50_000 / 700; peaks != want {
		t.Errorf("%d peaks survive at %g s a point, want %d", peaks, step, want)
	}
}

// TestHarmonicPowerSinusoid: a pure sinusoid holds all its power at one
// frequency. The harmonic-summed share there holds most of the power and is
// never negative. Lower ordinates whose high harmonics' windows reach the
// line score about as much (a lone line looks like a high harmonic of many
// long periods), and it is the ACF validation, with the hill's fractions,
// that brings the detector back to the period: to the ACF's hill top,
// within a few percent, which the wave centres refine later.
func TestHarmonicPowerSinusoid(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, period := range []float64{7, 40, 333.3} {
		n := int(period * 30)
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Cos(2 * math.Pi * float64(i) / period)
		}
		eng := newACFEngine(n)
		eng.acf(centre(append([]float64(nil), x...)))
		m := len(eng.padded)
		kLo, kHi := freqBand(m, 3, n/2)
		hs := harmonicPower(eng.pow, kLo, kHi)
		peak := 0.0
		for i, v := range hs {
			if v < 0 {
				t.Fatalf("period %v: negative share %v at ordinate %d", period, v, i+kLo)
			}
			peak = max(peak, v)
		}
		if at := hintPower(hs, kLo, m, period); at < 0.3 || at < 0.9*peak {
			t.Errorf("period %v: share %.3f at the period, %.3f at the peak", period, at, peak)
		}
		// As counts: never negative, whole.
		for i := range x {
			x[i] = max(0, math.Round(3+2*x[i]+rng.NormFloat64()))
		}
		if pr := detectPeriod(x, 3, 1); !pr.found || math.Abs(pr.lag-period) > 0.05*period {
			t.Errorf("period %v: detector found %v at %.2f bins", period, pr.found, pr.lag)
		}
	}
}

// TestGroupPeriod pins when bursts one lag apart are read as a comb inside
// waves of a longer period.
func TestGroupPeriod(t *testing.T) {
	at := func(secs ...float64) []float64 {
		out := make([]float64, len(secs))
		for i, v := range secs {
			out[i] = (100 + v) * 1e9
		}
		return out
	}
	tests := []struct {
		name    string
		centres []float64
		lag     float64
		bin     float64 // 0: 0.1 s
		// onWire: the lag is the retry-after the wire shows.
		onWire bool
		want   float64 // 0: no group period
	}{
		{name: "four attempts 3 s apart, waves every 15 s", lag: 3,
			centres: at(0, 3, 6, 9, 15, 18, 21, 24, 30, 33, 36, 39, 45, 48), want: 15},
		{name: "evenly spaced bursts are one group", lag: 3,
			centres: at(0, 3, 6, 9, 12, 15, 18, 21, 24)},
		{name: "two groups are too few", lag: 3,
			centres: at(0, 3, 6, 15, 18, 21)},
		{name: "single bursts at a period: no comb", lag: 20,
			centres: at(0, 20, 40, 60, 80)},
		{name: "groups at random times", lag: 3,
			centres: at(0, 3, 6, 17, 20, 41, 44, 47, 53, 56)},
		// The shortest third of the gaps between groups is 22 s here: two
		// late waves lost an attempt each.
		{name: "late waves split by an attempt too small to find", lag: 5,
			centres: at(0, 5, 10, 15, 27, 32, 37, 42, 54, 59, 64, 69, 81, 86, 91, 96, 108, 118, 123, 140, 145, 150, 162), want: 27},
		{name: "the last wave lost its first attempt, whole seconds", lag: 5, bin: 1,
			centres: at(0, 5, 10, 15, 30, 35, 40, 45, 66, 71, 76), want: 30},
		// Ten waves 258 s apart, then two more after gaps where waves were
		// too small to find (accuracy stream 12019, trace 32): the first
		// "group" spans nine periods, so the groups' 516 s is no period.
		{name: "a run of waves a lag apart, then two late ones", lag: 258.27, bin: 1,
			centres: at(0, 258.3, 516, 773.7, 1032.3, 1290.6, 1548.8, 1807.2, 2065.7, 2324.3, 3094.3, 3611.3)},
		// Four attempts 5 s apart, a period of 22.7 s on whole seconds
		// (stream 12034, trace 281): a wave's last attempt and the next
		// wave's first are 7 or 8 s apart, so pairs of waves run together
		// into one group, which a 7 s step keeps from reading as bursts
		// evenly a lag apart.
		{name: "pairs of waves run together by a short requeue", lag: 5.03, bin: 1,
			centres: at(0, 5, 10, 15, 22, 27, 32, 37, 45, 50, 55, 60, 68, 73, 78, 83, 90, 95, 100, 105, 113, 118, 123, 128, 136, 141, 146, 151), want: 22.68},
		// Two attempts 10 s apart and a 10 s requeue (stream 9007, trace
		// 232): every burst a lag after the last while both attempts
		// show, then the first attempts alone, 20 s apart.
		{name: "a retry-after comb the requeue continues, on the wire", lag: 9.98, bin: 1, onWire: true,
			centres: at(0, 10, 20, 30, 41, 51, 61, 81, 101, 110), want: 20.21},
		{name: "the same bursts, the lag not on the wire", lag: 9.98, bin: 1,
			centres: at(0, 10, 20, 30, 41, 51, 61, 81, 101, 110)},
		{name: "groups a whole number of lags off any grid", lag: 5,
			centres: at(0, 5, 10, 15, 37, 42, 47, 52, 66, 71, 76, 81, 118, 123)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bin := tc.bin
			if bin == 0 {
				bin = 0.1
			}
			got, ok := groupPeriod(tc.centres, tc.lag, bin, tc.onWire)
			if ok != (tc.want > 0) || math.Abs(got-tc.want) > 0.05 {
				t.Errorf("group period %v (ok %v), want %v", got, ok, tc.want)
			}
		})
	}
}

// TestPairPhase pins when evenly spaced bursts pair up by size into the
// first attempts and the retries of one wave.
func TestPairPhase(t *testing.T) {
	sizes := func(n ...int64) []Wave {
		out := make([]Wave, len(n))
		for i, v := range n {
			out[i] = Wave{Size: v}
		}
		return out
	}
	tests := []struct {
		name      string
		waves     []Wave
		phase     int
		wantPairs bool
		// onWire says the wire's retry-after is the bursts' spacing.
		onWire bool
	}{
		{name: "every call retried: sizes in steps", waves: sizes(257, 260, 228, 229, 203, 203, 180, 180), wantPairs: true},
		{name: "steps starting one burst in", waves: sizes(40, 257, 260, 228, 229, 203, 203, 180, 180), phase: 1, wantPairs: true},
		{name: "retries smaller than first attempts", waves: sizes(300, 90, 250, 80, 200, 60, 170, 50), wantPairs: true},
		{name: "a storm that decays every wave", waves: sizes(300, 270, 243, 219, 197, 177, 159, 143)},
		{name: "steady waves", waves: sizes(100, 101, 99, 100, 102, 100, 99, 101)},
		{name: "a decaying storm whose noise pairs some sizes", waves: sizes(47, 35, 30, 24, 21, 14, 14)},
		{name: "steady waves that alternate within their noise", waves: sizes(100, 85, 104, 88, 101, 90, 99)},
		// Sixteen bursts 19.2 and 21.4 s apart, the retries of a 40.7 s
		// period's waves; each step is under the counts' Poisson noise
		// (accuracy stream 1915).
		// One burst a wave, shedding one or two requests a wave: the
		// rounding steps by one and two in turn (accuracy stream 2001).
		{name: "a steady decay whose rounding alternates", waves: sizes(41, 39, 38, 36, 35, 33, 33, 30)},
		{name: "a slow decay stepping by less than its noise", waves: sizes(90, 89, 85, 86, 82, 81, 77, 78, 75, 74, 72, 71, 67, 68, 64, 64), wantPairs: true},
		// One burst a wave, decaying by 0.95 and 0.96: the measured
		// sizes' noise pairs them, but the steps between the pairs stand
		// no further out of the changes within them than one decay's
		// spread allows (accuracy streams 3106 and 3176).
		{name: "a slow decay whose noise pairs every size", waves: sizes(44, 38, 38, 35, 35, 30, 29, 29, 29, 27)},
		{name: "a slow decay whose noise pairs seven sizes", waves: sizes(72, 61, 63, 56, 56, 50, 49)},
		// The same sizes where the wire shows the spacing to be the
		// retry-after: the bursts are attempts, and pair as before.
		{name: "sizes paired with the wire's retry-after as their spacing", waves: sizes(72, 61, 63, 56, 56, 50, 49), onWire: true, phase: 1, wantPairs: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			phase, ok := pairPhase(tc.waves, tc.onWire)
			if ok != tc.wantPairs || (ok && phase != tc.phase) {
				t.Errorf("pairs %v phase %d, want %v phase %d", ok, phase, tc.wantPairs, tc.phase)
			}
		})
	}
}

// TestSizeGroupPeriod pins when a train of bursts evenly spaced by a comb
// is waves of k attempts each, told apart only by the steps in their sizes.
func TestSizeGroupPeriod(t *testing.T) {
	// train places bursts lag apart, a requeue gap of boundary after every
	// k, and one more burst at straggler seconds past the last when set.
	train := func(lag, boundary float64, k int, straggler float64, sizes ...int64) ([]float64, []Wave) {
		var centres []float64
		var waves []Wave
		t := 0.0
		for i, s := range sizes {
			if i > 0 {
				if i%k == 0 {
					t += boundary
				} else {
					t += lag
				}
			}
			centres = append(centres, t*1e9)
			waves = append(waves, Wave{Size: s})
		}
		if straggler > 0 {
			centres = append(centres, (t+straggler)*1e9)
			waves = append(waves, Wave{Size: 6})
		}
		return centres, waves
	}
	tests := []struct {
		name      string
		lag       float64
		boundary  float64
		k         int
		straggler float64
		// comb says the lag is the retry-after comb the wire shows.
		comb  bool
		sizes []int64
		want  float64 // 0: no grouping
	}{
		// Four attempts 5 s apart and a requeue of about 5 s: every burst
		// is one lag from the next, and the 20 s waves show only in size.
		{name: "every call throttled on all four attempts", lag: 5, boundary: 5, k: 4,
			sizes: []int64{64, 63, 63, 62, 45, 44, 44, 44, 33, 33, 31, 31, 23, 24, 23, 23}, want: 20},
		{name: "small steps, runs exactly alike", lag: 3.2, boundary: 3.2, k: 4,
			sizes: []int64{45, 46, 45, 45, 38, 38, 38, 38, 31, 31, 31, 31, 26, 26, 26, 26}, want: 12.8},
		{name: "three attempts, a longer requeue", lag: 5, boundary: 6, k: 3,
			sizes: []int64{120, 119, 121, 80, 81, 80, 52, 53, 52, 30, 31, 30}, want: 16},
		// A requeue shorter than the retry-after: the gap between waves
		// is the shortest in the train.
		{name: "four attempts 3.16 s apart, a requeue of 2.68 s", lag: 3.16, boundary: 2.68, k: 4,
			sizes: []int64{246, 248, 246, 248, 204, 202, 200, 201, 163, 165, 165, 163, 136, 136, 134, 135, 110, 110, 108, 109}, want: 12.16},
		{name: "a straggler after the train", lag: 5, boundary: 6, k: 4, straggler: 44,
			sizes: []int64{176, 176, 175, 176, 91, 92, 94, 91, 50, 48, 45, 47, 26, 23, 25, 24}, want: 21},
		// A storm that decays the same at every burst has no runs, though
		// its rounding makes some neighbours equal.
		{name: "a smooth decay", lag: 18, boundary: 18, k: 1,
			sizes: []int64{75, 67, 61, 57, 49, 47, 47, 38, 36, 34, 28, 27}},
		// A storm decaying by a fifth a wave, four attempts each (accuracy
		// stream 1981): its steps are three times its runs' noise, short
		// of the bar for bursts that might be waves, not of the bar for a
		// comb the wire shows.
		{name: "slow decay, steps three times the noise", lag: 5.2, boundary: 5.2, k: 4,
			sizes: []int64{115, 114, 114, 113, 88, 89, 89, 92, 73, 64, 73, 71, 57, 58, 61, 60, 44, 44, 47, 46, 38, 39, 36, 38, 22, 26, 31, 28, 23, 25, 17, 21, 17, 19, 16, 11, 14, 14, 14, 15, 12, 12, 12, 12, 9, 12, 9, 13}},
		{name: "the same with the retry-after comb on the wire", lag: 5.2, boundary: 5.2, k: 4, comb: true,
			sizes: []int64{115, 114, 114, 113, 88, 89, 89, 92, 73, 64, 73, 71, 57, 58, 61, 60, 44, 44, 47, 46, 38, 39, 36, 38, 22, 26, 31, 28, 23, 25, 17, 21, 17, 19, 16, 11, 14, 14, 14, 15, 12, 12, 12, 12, 9, 12, 9, 13}, want: 20.8},
		{name: "a smooth decay, the comb on the wire", lag: 18, boundary: 18, k: 1, comb: true,
			sizes: []int64{75, 67, 61, 57, 49, 47, 47, 38, 36, 34, 28, 27}},
		{name: "runs within Poisson noise", lag: 5, boundary: 5, k: 4,
			sizes: []int64{100, 91, 108, 96, 80, 72, 87, 77, 60, 70, 55, 66}},
		{name: "two runs are too few", lag: 5, boundary: 5, k: 4,
			sizes: []int64{64, 64, 64, 64, 40, 40, 40, 40}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			centres, waves := train(tc.lag, tc.boundary, tc.k, tc.straggler, tc.sizes...)
			got, ok := sizeGroupPeriod(centres, waves, tc.lag, 0.1, tc.comb, tc.comb)
			if ok != (tc.want > 0) || math.Abs(got-tc.want) > 0.05*max(tc.want, 1) {
				t.Errorf("period %.2f (ok %v), want %v", got, ok, tc.want)
			}
		})
	}
}

// TestGapRunPeriod pins when every k-th gap of an evenly spaced train
// marks a wave's start: the requeue of a retry comb, standing apart from
// the retries' spacing by more than the timestamps' bin.
func TestGapRunPeriod(t *testing.T) {
	// train places bursts at the given gaps, cycled count times.
	train := func(count int, gaps ...float64) []float64 {
		centres := []float64{0}
		for i := range count * len(gaps) {
			centres = append(centres, centres[len(centres)-1]+gaps[i%len(gaps)]*1e9)
		}
		return centres
	}
	tests := []struct {
		name    string
		centres []float64
		lag     float64
		bin     float64
		// comb says the lag is the retry-after comb the wire shows.
		comb bool
		want float64 // 0: no grouping
	}{
		// Two attempts 49 s apart, every call throttled on both and the
		// storm decaying by 7% a wave: the pairs' sizes hardly step, the
		// requeue comes 1.7 s later than a retry (accuracy stream 1432).
		{name: "two attempts, a requeue 1.7 s longer", centres: train(10, 49.1, 50.8), lag: 49.95, bin: 1, want: 99.9},
		// Four attempts 5 s apart stamped to the second, a requeue of 4 s
		// (accuracy stream 1417).
		{name: "four attempts, a requeue a second shorter", centres: train(10, 5, 5, 6, 4), lag: 4.95, bin: 1, want: 20},
		{name: "four attempts, a requeue 1.2 s longer", centres: train(12, 5.1, 5.15, 5.12, 6.3), lag: 5.4, bin: 1, want: 21.67},
		{name: "a requeue as short as a quarter lag", centres: train(6, 5.2, 5.2, 5.2, 2.3), lag: 5.2, bin: 1, want: 17.9},
		// A period of 5.25 s stamped to the second puts a 6 s gap after
		// every three of 5 s: one bin, which truncation alone makes.
		{name: "a fractional period stamped to the second", centres: train(10, 5, 5, 5, 6), lag: 5.25, bin: 1},
		{name: "three requeues are too few", centres: train(3, 5, 5, 5, 8), lag: 5.75, bin: 1},
		// Five waves of four attempts, a 5 s retry-after on every 429 and
		// a 7 s requeue (accuracy stream 3005): one split of 19 gaps in
		// 3,876, too common among the 20 readings tried, but the only
		// reading asked for once the wire says the bursts are retries.
		{name: "five waves, four attempts, a requeue 2 s longer", centres: train(4, 5, 5, 5, 7)[:20], lag: 5.01, bin: 1},
		{name: "the same with the retry-after comb on the wire", centres: train(4, 5, 5, 5, 7)[:20], lag: 5.01, bin: 1, comb: true, want: 22},
		{name: "a requeue less than a bin from the retries", centres: train(10, 5.5, 6.5, 6), lag: 6, bin: 1},
		// Jittered gaps of a long period in fine bins: no gap every k
		// stands apart from the rest.
		{name: "jitter without a pattern", centres: train(1, 200.3, 199.6, 200.8, 199.9, 200.1, 199.2, 200.6, 200.0, 199.7, 200.4, 199.5, 200.2), lag: 200, bin: 0.1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := gapRunPeriod(tc.centres, tc.lag, tc.bin, tc.comb)
			if ok != (tc.want > 0) || math.Abs(got-tc.want) > 0.02*max(tc.want, 1) {
				t.Errorf("period %.2f (ok %v), want %v", got, ok, tc.want)
			}
		})
	}
}

func TestGridChance(t *testing.T) {
	at := func(s ...float64) []float64 {
		out := make([]float64, len(s))
		for i, v := range s {
			out[i] = v * 1e9
		}
		return out
	}
	tests := []struct {
		name        string
		centres     []float64
		on          []bool
		period, bin float64
		minGap      float64
		lo, hi      float64 // the chance must lie in [lo, hi]
	}{
		{name: "seven sharp waves and a stray", period: 30, bin: 0.1, minGap: 7.5,
			centres: at(0, 30.02, 59.97, 72, 90.01, 120, 150.03, 179.98),
			on:      []bool{true, true, true, false, true, true, true, true}, lo: 0, hi: 0.01},
		// Random bursts from a trace where a 91.6 s grid held six of eight
		// within 3.5 s.
		{name: "random bursts that half fit a grid", period: 91.576, bin: 0.1, minGap: 23,
			centres: at(0, 92.19, 185.36, 213.77, 463.01, 550.50, 731.69, 899.12),
			on:      []bool{true, true, true, false, true, true, true, false}, lo: 0.06, hi: 1},
		{name: "whole-second stamps against a short period", period: 6, bin: 1, minGap: 1.5,
			centres: at(0, 6, 12, 13, 18, 24),
			on:      []bool{true, true, true, false, true, true}, lo: 0, hi: 0},
		// A wave held back shifts the grid for the waves after it; one
		// phase cannot describe them, and the test stays out of it.
		{name: "a phase slip", period: 14.1, bin: 0.1, minGap: 3.5,
			centres: at(0, 15.06, 29.27, 43.52, 62.21, 76.27, 90.30),
			on:      []bool{false, true, true, true, true, true, true}, lo: 0, hi: 0},
		{name: "bursts packed as tight as merging allows", period: 10, bin: 0.1, minGap: 10,
			centres: at(0, 10, 20, 25, 30),
			on:      []bool{true, true, true, false, true}, lo: 1, hi: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := gridChance(tc.centres, tc.on, tc.period, tc.bin, tc.minGap, 2, 7)
			if got < tc.lo || got > tc.hi {
				t.Errorf("chance %.3f, want within [%.2f, %.2f]", got, tc.lo, tc.hi)
			}
			if again := gridChance(tc.centres, tc.on, tc.period, tc.bin, tc.minGap, 2, 7); again != got {
				t.Errorf("chance %.3f then %.3f from the same seed", got, again)
			}
		})
	}
}

// TestBestGridCountProperties: the count never exceeds the bursts, a grid
// through two bursts always holds them, and moving every burst by the same
// time changes nothing.
func TestBestGridCountProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(10)
		times := make([]float64, n)
		for i := range times {
			times[i] = rng.Float64() * 600
		}
		slices.Sort(times)
		share := rng.Float64() * 0.1
		got := bestGridCount(times, share, 0.01)
		if got < 2 || got > n {
			t.Fatalf("times %v share %.3f: count %d, want 2..%d", times, share, got, n)
		}
		shift := rng.Float64() * 1000
		moved := make([]float64, n)
		for i, v := range times {
			moved[i] = v + shift
		}
		if again := bestGridCount(moved, share, 0.01); again != got {
			t.Fatalf("times %v: count %d, %d after a shift of %.1f s", times, got, again, shift)
		}
	}
}

// TestNarrowsAsItShrinks: waves wider than sharpWaves allows are a storm's
// when, at most a fifth of the period wide, each holds no more calls than
// the one before and spans no more time.
func TestNarrowsAsItShrinks(t *testing.T) {
	sized := func(widths []float64, sizes ...int64) []Wave {
		out := make([]Wave, len(widths))
		for i := range widths {
			out[i] = Wave{Width: widths[i], Size: sizes[i]}
		}
		return out
	}
	all := []bool{true, true, true}
	tests := []struct {
		name   string
		waves  []Wave
		period float64
		want   bool
	}{
		// Calls that failed over 1.4 s in the first wave come back over as
		// long, fewer and closer together each period
		// (boto-standard-fixed8-haproxy-short).
		{name: "waves narrowing as the storm shrinks", waves: sized([]float64{1.637, 1.353, 0.655}, 35, 20, 8), period: 8.03, want: true},
		{name: "a later wave larger", waves: sized([]float64{1.637, 1.353, 0.655}, 35, 40, 8), period: 8.03},
		{name: "a later wave wider", waves: sized([]float64{1.353, 1.637, 0.655}, 35, 20, 8), period: 8.03},
		{name: "narrowing, but over a fifth of the period", waves: sized([]float64{4, 2.5, 1.5}, 35, 20, 8), period: 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := narrowsAsItShrinks(tc.waves, all, tc.period, 0, 0.1); got != tc.want {
				t.Errorf("narrows as it shrinks: %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSharpWaves(t *testing.T) {
	waves := func(widths ...float64) []Wave {
		out := make([]Wave, len(widths))
		for i, w := range widths {
			out[i] = Wave{Width: w}
		}
		return out
	}
	all := []bool{true, true, true}
	tests := []struct {
		name              string
		waves             []Wave
		period, comb, bin float64
		want              bool
	}{
		{name: "narrow waves", waves: waves(1, 1.5, 1.2), period: 60, want: true},
		{name: "wide waves of one width", waves: waves(16.7, 16.7, 16.9), period: 69, want: true},
		{name: "waves merged over their comb", waves: waves(4, 4, 4.1), period: 13, comb: 3.9, want: true},
		{name: "wide bursts of unlike widths", waves: waves(139, 110, 307), period: 836},
		{name: "wide bursts beside a comb", waves: waves(60, 206, 70), period: 259, comb: 22},
		// A wide comb excuses a wide median, not a burst filling most of
		// the period: that leaves no lull before the next.
		{name: "a burst filling most of the period", waves: waves(214, 537, 317), period: 668, comb: 241},
		{name: "merged combs with lulls between", waves: waves(214, 250, 317), period: 668, comb: 241, want: true},
		// A requeue jittered by 10% spreads a 15 s storm's later waves
		// over 1.6 s; stamps to the second read them a bin wider.
		{name: "jittered waves on whole-second stamps", waves: waves(0.14, 2.13, 2.19), period: 15.25, bin: 1, want: true},
		{name: "the same widths on millisecond stamps", waves: waves(0.14, 2.13, 2.19), period: 15.25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bin := tc.bin
			if bin == 0 {
				bin = 0.1
			}
			if got := sharpWaves(tc.waves, all, tc.period, tc.comb, bin); got != tc.want {
				t.Errorf("sharp %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOutgrowsSurvivors(t *testing.T) {
	sized := func(sizes ...int64) []Wave {
		out := make([]Wave, len(sizes))
		for i, n := range sizes {
			out[i] = Wave{Size: n}
		}
		return out
	}
	tests := []struct {
		name            string
		waves           []Wave
		onGrid          []bool
		growth          float64 // survivorGrowth when 0
		want            bool
		smaller, larger int
	}{
		{name: "a decaying storm", waves: sized(300, 150, 80, 40, 20), onGrid: []bool{true, true, true, true, true}},
		{name: "alike waves in Poisson noise", waves: sized(40, 52, 35, 47), onGrid: []bool{true, true, true, true}},
		// A wave whose attempts merged counts them all, where an earlier
		// wave's first attempts alone made its burst.
		{name: "a merged comb of four after one attempt", waves: sized(50, 190, 120), onGrid: []bool{true, true, true}},
		{name: "a burst many times a wave before it", waves: sized(108, 21, 170, 293), onGrid: []bool{true, true, true, true},
			want: true, smaller: 1, larger: 2},
		{name: "growth after a later, smaller wave", waves: sized(204, 71, 194, 41, 13, 205), onGrid: []bool{true, true, true, true, true, true},
			want: true, smaller: 4, larger: 5},
		// A few requests may be the background's own clump.
		{name: "a clump of three before the storm", waves: sized(3, 85, 67, 53), onGrid: []bool{true, true, true, true}},
		{name: "bursts off the grid do not count", waves: sized(100, 5, 400, 60, 30), onGrid: []bool{true, false, false, true, true}},
		// Under a weak ACF no growth past counting noise is allowed.
		{name: "alike waves in Poisson noise, weak ACF", waves: sized(40, 52, 35, 47), onGrid: []bool{true, true, true, true}, growth: 1},
		{name: "a merged comb under a weak ACF", waves: sized(50, 190, 120), onGrid: []bool{true, true, true}, growth: 1,
			want: true, smaller: 0, larger: 1},
		// Random bursts that lay on a 174 s grid (accuracy stream 909).
		{name: "random bursts regrowing", waves: sized(492, 447, 298, 411), onGrid: []bool{true, true, true, true}, growth: 1,
			want: true, smaller: 2, larger: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			growth := tc.growth
			if growth == 0 {
				growth = survivorGrowth
			}
			smaller, larger, got := outgrowsSurvivors(tc.waves, tc.onGrid, growth)
			if got != tc.want || (got && (smaller != tc.smaller || larger != tc.larger)) {
				t.Errorf("outgrown %v (wave %d after %d), want %v (wave %d after %d)", got, larger, smaller, tc.want, tc.larger, tc.smaller)
			}
		})
	}
}

// TestOutgrowsSurvivorsDecayNeverGrows is the property behind the bound:
// sizes that only shrink, by any ratio, never outgrow a wave before them.
func TestOutgrowsSurvivorsDecayNeverGrows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 1000 {
		n := 3 + rng.IntN(12)
		waves, on := make([]Wave, n), make([]bool, n)
		size := 10 + rng.Float64()*1000
		for i := range waves {
			waves[i], on[i] = Wave{Size: int64(size)}, rng.IntN(4) > 0
			size *= 0.3 + 0.7*rng.Float64()
		}
		for _, growth := range []float64{1, survivorGrowth} {
			if s, l, ok := outgrowsSurvivors(waves, on, growth); ok {
				t.Fatalf("sizes %v, growth %v: wave %d outgrew wave %d", waves, growth, l, s)
			}
		}
	}
}

// TestWholeWaveSizes checks that a wave on the grid takes in the bursts
// off it that begin within the widest burst on the grid, and no others.
func TestWholeWaveSizes(t *testing.T) {
	at := func(s float64) time.Time { return time.Unix(0, 0).Add(secs2d(s)) }
	tests := []struct {
		name   string
		waves  []Wave
		onGrid []bool
		want   []int64
	}{
		{
			// Accuracy stream 1988, trace 20: three attempts 5 s apart,
			// merged into one 11 s burst in the second wave and apart in
			// the third.
			name: "a comb merged in one wave and apart in the next",
			waves: []Wave{
				{Start: at(39), Width: 11, Size: 135}, {Start: at(58), Width: 1, Size: 28},
				{Start: at(64), Width: 0, Size: 24}, {Start: at(69), Width: 1, Size: 27}, {Start: at(78), Width: 11, Size: 49},
			},
			onGrid: []bool{true, true, false, false, true},
			want:   []int64{135, 79, 0, 0, 49},
		},
		{
			name:   "a stray past the widest burst stays apart",
			waves:  []Wave{{Start: at(0), Width: 2, Size: 100}, {Start: at(5), Width: 1, Size: 40}, {Start: at(20), Width: 2, Size: 60}},
			onGrid: []bool{true, false, true},
			want:   []int64{100, 0, 60},
		},
		{
			name:   "bursts at one start take in nothing",
			waves:  []Wave{{Size: 50}, {Size: 5}, {Size: 40}},
			onGrid: []bool{true, false, true},
			want:   []int64{50, 0, 40},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := wholeWaveSizes(tc.waves, tc.onGrid); !slices.Equal(got, tc.want) {
				t.Errorf("whole sizes %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOutnumbered(t *testing.T) {
	tests := []struct {
		name              string
		sizes, raw, fails []int64
		want              int
		outnumbered       bool
	}{
		{name: "each wave what the period before it left", sizes: []int64{200, 140, 90, 60}, raw: []int64{201, 141, 92, 60}, fails: []int64{150, 95, 61}},
		{name: "a wave a little over its failures, within counting noise", sizes: []int64{200, 130, 90}, raw: []int64{200, 130, 90}, fails: []int64{110, 80}},
		// Accuracy stream 3097, trace 234: random bursts two thirds of
		// whose requests succeeded, on a 142.5 s grid.
		{name: "bursts whose requests mostly succeeded", sizes: []int64{172, 167, 167}, raw: []int64{173, 168, 168}, fails: []int64{58, 70}, want: 1, outnumbered: true},
		{name: "a late wave larger than what failed", sizes: []int64{300, 200, 150}, raw: []int64{300, 200, 150}, fails: []int64{220, 80}, want: 2, outnumbered: true},
		// Accuracy stream 3044, trace 37: three attempts merged into
		// 105 s waves over a background of 1/s; the 119 attempts of the
		// ninth wave are net of about 105 of the background's.
		{name: "a wide wave's size is as noisy as the background under it", sizes: []int64{150, 119}, raw: []int64{260, 224}, fails: []int64{86}},
		{name: "the same wave over no background", sizes: []int64{150, 119}, raw: []int64{150, 119}, fails: []int64{86}, want: 1, outnumbered: true},
		{name: "one wave has nothing before it", sizes: []int64{500}, raw: []int64{500}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := outnumbered(tc.sizes, tc.raw, tc.fails)
			if ok != tc.outnumbered || (ok && got != tc.want) {
				t.Errorf("outnumbered %v at wave %d, want %v at %d", ok, got, tc.outnumbered, tc.want)
			}
		})
	}
}

// TestOutnumberedStormRarely is the property behind the bound: a storm
// whose every wave replays at most the failures of the period before it
// is outnumbered only by counting noise, rarely, however its waves decay
// and whatever background lies under them.
func TestOutnumberedStormRarely(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	const trials = 2000
	fired := 0
	for range trials {
		n := 2 + rng.IntN(14)
		sizes, raw, fails := make([]int64, n), make([]int64, n), make([]int64, n-1)
		bgMean := rng.Float64() * 60
		first := 1 + rng.Int64N(2000)
		replay := first
		for k := range n {
			if k > 0 {
				// The period's failures: the wave's failed attempts, their
				// retries, the background's errors; the next wave replays
				// at most the wave's own.
				failedInWave := rng.Int64N(replay + 1)
				fails[k-1] = failedInWave + int64(poissonDraw(rng, 5))
				replay = rng.Int64N(failedInWave + 1)
			}
			// The burst holds the replay and the background under it; the
			// size is net of an estimate of that background, itself a
			// count.
			raw[k] = replay + int64(poissonDraw(rng, bgMean))
			sizes[k] = max(raw[k]-int64(poissonDraw(rng, bgMean)), 0)
		}
		if _, ok := outnumbered(sizes, raw, fails); ok {
			fired++
		}
	}
	// Three standard deviations leave about one comparison in a
	// thousand over the line; a storm has up to fifteen.
	if share := float64(fired) / trials; share > 0.01 {
		t.Errorf("a storm's waves outnumbered their failures in %d of %d traces (%.2f%%), want at most 1%%", fired, trials, 100*share)
	}
}

func TestMidway(t *testing.T) {
	rounding := 0.1 * 0.1 / 12
	tests := []struct {
		name                    string
		centres, errs           []float64 // seconds
		bin, share              float64
		wantOffset, wantStdErrr float64
	}{
		{"evenly spaced, exact centres: a bin's rounding is all the error", []float64{10, 110, 210}, []float64{0, 0, 0}, 0.1, 0.5, 0, math.Sqrt(1.5 * rounding)},
		{"middle 1 s late", []float64{10, 111, 210}, []float64{0.2, 0.2, 0.2}, 0.1, 0.5, 1, math.Sqrt(0.04 + rounding + (0.08+2*rounding)/4)},
		{"middle 2 s early, outer errors count a quarter", []float64{0, 48, 100}, []float64{0.4, 0, 0.4}, 1, 0.5, 2, math.Sqrt(1.0/12 + (0.32+2.0/12)/4)},
		{"periods 0, 1 and 3: the middle a third of the way, on it", []float64{20, 41, 83}, []float64{0, 0, 0}, 1, 1.0 / 3, 0, math.Sqrt(1.0/12 + (4.0/9+1.0/9)/12)},
		{"periods 0, 1 and 3: halfway would be 10.5 s off", []float64{20, 41, 83}, []float64{0.3, 0, 0}, 1, 0.5, 10.5, math.Sqrt(1.0/12 + (0.09+2.0/12)/4)},
		{"periods 0, 2 and 3: the first's error counts a ninth", []float64{0, 20, 30}, []float64{0.3, 0, 0.6}, 0.1, 2.0 / 3, 0, math.Sqrt(rounding + (0.09+rounding)/9 + 4*(0.36+rounding)/9)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := func(xs []float64) []float64 {
				out := make([]float64, len(xs))
				for i, x := range xs {
					out[i] = x * 1e9
				}
				return out
			}
			offset, stdErr := midwayAt(ns(tc.centres), ns(tc.errs), tc.bin, tc.share)
			if math.Abs(offset-tc.wantOffset) > 1e-9 || math.Abs(stdErr-tc.wantStdErrr) > 1e-9 {
				t.Errorf("midwayAt = %.6f ± %.6f, want %.6f ± %.6f", offset, stdErr, tc.wantOffset, tc.wantStdErrr)
			}
			if tc.share == 0.5 {
				if o, e := midway(ns(tc.centres), ns(tc.errs), tc.bin); o != offset || e != stdErr {
					t.Errorf("midway = %.6f ± %.6f, midwayAt a half %.6f ± %.6f", o, e, offset, stdErr)
				}
			}
		})
	}
}

func TestGridShare(t *testing.T) {
	tests := []struct {
		name    string
		centres []float64 // seconds
		period  float64
		want    float64
	}{
		{"consecutive periods", []float64{0, 21, 42}, 21, 0.5},
		{"periods 0, 1 and 3", []float64{20, 41.3, 84}, 21.36, 1.0 / 3},
		{"periods 0, 2 and 3, a little off the grid", []float64{0, 41, 64}, 21, 2.0 / 3},
		{"the middle on the first's grid point", []float64{0, 2, 42}, 21, 0},
		{"the last on the middle's grid point", []float64{0, 21, 23}, 21, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := []float64{tc.centres[0] * 1e9, tc.centres[1] * 1e9, tc.centres[2] * 1e9}
			if got := gridShare(ns, tc.period); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("gridShare = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMidwayChance(t *testing.T) {
	tests := []struct {
		name                   string
		centres                []float64 // seconds
		offset, stdErr, minGap float64
		want                   float64
	}{
		{"the offset over the room between the outer two", []float64{0, 100, 200}, 0.5, 0.1, 10, 2 * 0.5 / 180},
		{"an offset under twice its error counts as twice its error", []float64{0, 100, 200}, 0.05, 0.1, 10, 2 * 0.2 / 180},
		{"no room between the outer two", []float64{0, 10, 20}, 0, 0.1, 10, 1},
		{"never above one", []float64{0, 10, 30}, 12, 0.1, 5, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := []float64{tc.centres[0] * 1e9, tc.centres[1] * 1e9, tc.centres[2] * 1e9}
			if got := midwayChance(ns, tc.offset, tc.stdErr, tc.minGap); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("midwayChance = %.6f, want %.6f", got, tc.want)
			}
		})
	}
}

// TestMidwayTellsDelayFromChance draws three waves a fixed delay apart and
// three bursts at random times, and holds the midway tests to their
// purpose: a fixed delay's middle wave stays within maxMidwayErrors of
// halfway, and random bursts pass the chance test about as often as its
// bound says.
func TestMidwayTellsDelayFromChance(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 5))
	const trials = 3000
	wave := func(at, width, jitter float64, n int, whole bool) (centre, stdErr float64) {
		times := make([]float64, n)
		var sum float64
		for i := range times {
			x := at + rng.Float64()*width + (2*rng.Float64()-1)*jitter
			if whole {
				x = math.Floor(x)
			}
			times[i] = x
			sum += x
		}
		mean := sum / float64(n)
		var squares float64
		for _, x := range times {
			squares += (x - mean) * (x - mean)
		}
		return mean * 1e9, math.Sqrt(squares) / float64(n) * 1e9
	}
	uneven := 0
	for range trials {
		period := 5 * math.Exp(rng.Float64()*math.Log(60))
		width := math.Min(0.12*period, 0.1+rng.Float64()*10)
		jitter := rng.Float64() * math.Min(0.005*period, 0.5)
		whole := rng.IntN(2) == 0
		bin := 0.1
		if whole {
			bin = 1
		}
		first := 10 + rng.IntN(500)
		var centres, errs []float64
		for k := range 3 {
			c, e := wave(1000+float64(k)*period, width, jitter, max(3, int(float64(first)*math.Pow(0.6, float64(k)))), whole)
			centres, errs = append(centres, c), append(errs, e)
		}
		if offset, stdErr := midway(centres, errs, bin); offset > maxMidwayErrors*stdErr {
			uneven++
		}
	}
	if share := float64(uneven) / trials; share > 0.001 {
		t.Errorf("a fixed delay's middle wave sat more than %d standard errors from halfway in %d of %d storms", maxMidwayErrors, uneven, trials)
	}
	passed := 0
	for range trials {
		span, minGap := 20+rng.Float64()*2000, 1+rng.Float64()*5
		middle := minGap + rng.Float64()*(span-2*minGap)
		errs := []float64{rng.Float64() * 1e8, rng.Float64() * 1e8, rng.Float64() * 1e8}
		centres := []float64{0, middle * 1e9, span * 1e9}
		offset, stdErr := midway(centres, errs, 0.1)
		if midwayChance(centres, offset, stdErr, minGap) <= maxMidwayChance {
			passed++
		}
	}
	// The chance is a share of the room, so bursts at random times pass at
	// its bound's rate or less; three standard deviations of slack.
	bound := maxMidwayChance + 3*math.Sqrt(maxMidwayChance*(1-maxMidwayChance)/trials)
	if share := float64(passed) / trials; share > bound {
		t.Errorf("random bursts passed the midway chance test in %d of %d trials (%.2f%%), want at most %.2f%%", passed, trials, 100*share, 100*bound)
	}
}

func TestBothByChance(t *testing.T) {
	tests := []struct {
		name   string
		p1, p2 float64
		want   float64
	}{
		{"a middling pair: more often than their product", 0.1, 0.1, 0.01 * (1 - math.Log(0.01))},
		{"one certain: the other weighs less than alone", 1, 0.03, 0.03 * (1 - math.Log(0.03))},
		{"an impossible one", 0, 0.5, 0},
		{"never above one", 1, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := bothByChance(tc.p1, tc.p2); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("bothByChance(%g, %g) = %.6f, want %.6f", tc.p1, tc.p2, got, tc.want)
			}
		})
	}
}

// TestNextWaveHoldsItsBar: three bursts at random times, the middle one
// anywhere between the outer two, and only background where the next wave
// would be due. The middle's place and the background's count at the due
// point combined must pass the burst grid's bar no more often than the bar
// says, at any background level, quiet ones (whose counts are coarse)
// included.
func TestNextWaveHoldsItsBar(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 9))
	const trials = 20000
	for _, level := range []float64{0.05, 0.5, 2, 8, 40} {
		passed := 0
		for range trials {
			span, minGap := 10+rng.Float64()*300, 1+rng.Float64()*2
			middle := minGap + rng.Float64()*(span-2*minGap)
			centres := []float64{0, middle * 1e9, span * 1e9}
			offset, stdErr := midway(centres, []float64{0, 0, 0}, 1)
			arrivals := int(poissonDraw(rng, level))
			if bothByChance(midwayChance(centres, offset, stdErr, minGap), poissonAtLeast(arrivals, level)) <= maxBurstGridChance {
				passed++
			}
		}
		bound := maxBurstGridChance + 3*math.Sqrt(maxBurstGridChance*(1-maxBurstGridChance)/trials)
		if share := float64(passed) / trials; share > bound {
			t.Errorf("background of %g: chance alone passed in %d of %d trials (%.2f%%), want at most %.2f%%", level, passed, trials, 100*share, 100*bound)
		}
	}
}

func TestMergedCombSpan(t *testing.T) {
	waves := func(widths ...float64) ([]Wave, []bool) {
		ws, on := make([]Wave, len(widths)), make([]bool, len(widths))
		for i, w := range widths {
			ws[i], on[i] = Wave{Width: w}, true
		}
		return ws, on
	}
	tests := []struct {
		name    string
		widths  []float64
		spacing float64
		want    float64
	}{
		{"four attempts 5 s apart merged: three spacings", []float64{16, 16, 15, 5}, 5, 15},
		{"two attempts: one spacing", []float64{6, 6.5, 7}, 5, 5},
		{"wider than four attempts: no more than three spacings", []float64{40, 40, 40}, 5, 15},
		{"narrower than a spacing: none", []float64{3, 4, 4}, 5, 0},
		{"no comb", []float64{16, 16, 16}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, on := waves(tc.widths...)
			if got := mergedCombSpan(ws, on, tc.spacing); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("mergedCombSpan = %g, want %g", got, tc.want)
			}
		})
	}
}

func TestTruncatedWave(t *testing.T) {
	// A storm of waves of four merged attempts, 87 s wide, every 244.5 s.
	type burst struct {
		start, width float64
		size         int64
		on           bool
	}
	storm := []burst{{0, 87, 164, true}, {244.5, 87, 92, true}, {489, 87, 59, true}}
	tests := []struct {
		name  string
		extra burst
		want  bool
	}{
		{"the next wave with its later attempts missing", burst{733.7, 31, 17, false}, true},
		{"two periods on", burst{978, 20, 9, false}, true},
		{"starting 20 s off the grid (its tolerance is 14.7 s)", burst{753.5, 31, 17, false}, false},
		{"as wide as the waves: its centre would place it", burst{733.7, 87, 17, false}, false},
		{"larger than a wave on the grid", burst{733.7, 31, 70, false}, false},
		{"before the last wave on the grid", burst{366.75, 31, 17, false}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bursts := append(append([]burst(nil), storm...), tc.extra)
			waves, on := make([]Wave, len(bursts)), make([]bool, len(bursts))
			slices.SortFunc(bursts, func(a, b burst) int { return cmp.Compare(a.start, b.start) })
			self := -1
			for i, b := range bursts {
				waves[i], on[i] = Wave{Start: time.Unix(1000, 0).Add(secs2d(b.start)), Width: b.width, Size: b.size}, b.on
				if b == tc.extra {
					self = i
				}
			}
			if got := truncatedWave(waves, on, self, 244.5); got != tc.want {
				t.Errorf("truncatedWave = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("narrow waves centre where they start", func(t *testing.T) {
		waves := []Wave{{Start: time.Unix(1000, 0), Width: 2, Size: 90}, {Start: time.Unix(1100, 0), Width: 2, Size: 50}, {Start: time.Unix(1200, 0), Width: 2, Size: 30}, {Start: time.Unix(1300, 0), Width: 1, Size: 10}}
		if truncatedWave(waves, []bool{true, true, true, false}, 3, 100) {
			t.Error("a burst beside waves as narrow as the grid's tolerance is no truncated wave")
		}
	})
}

func TestFoldCombBursts(t *testing.T) {
	// burst: start and width in seconds, size, on the grid, a comb burst.
	type burst struct {
		start, width float64
		size         int64
		on, comb     bool
	}
	type wave struct {
		start, width float64
		size         int64
	}
	tests := []struct {
		name            string
		bursts          []burst
		period, spacing float64
		// tol is how far from whole spacings a comb burst may sit: 1.5 s
		// on whole-second stamps, 0.5 s elsewhere here.
		tol float64
		// judged is how many bursts the grid was judged on (0: all).
		judged int
		want   []wave
	}{
		{"two waves of three attempts 3 s apart, each attempt a burst", []burst{
			{0, 0, 300, true, false}, {3, 0, 293, false, true}, {6, 0, 293, false, true},
			{16, 0, 208, true, false}, {19, 0, 201, false, true}, {22, 1, 201, false, true},
		}, 16, 3, 0.5, 0, []wave{{0, 6, 886}, {16, 7, 610}}},
		{"whole seconds, a comb of four attempts half a period long: the last retry is nearer the next wave, but follows its own", []burst{
			{0, 0, 60, true, false}, {4, 0, 53, false, true}, {8, 0, 50, false, true}, {12, 0, 48, false, true},
			{24, 0, 36, true, false}, {29, 0, 27, false, true}, {33, 0, 24, false, true}, {37, 0, 19, false, true},
			{49, 0, 10, true, false},
		}, 24.5, 4, 1.5, 0, []wave{{0, 12, 211}, {24, 13, 106}, {49, 0, 10}}},
		{"a stray stays a burst of its own", []burst{
			{0, 0, 60, true, false}, {4, 0, 53, false, true}, {11, 0, 5, false, false}, {24, 0, 36, true, false},
		}, 24, 4, 0.5, 0, []wave{{0, 4, 113}, {11, 0, 5}, {24, 0, 36}}},
		{"a wave's first attempts before its grid point, where the grid runs through its retries", []burst{
			{0, 0, 40, false, true}, {3, 1, 35, true, false}, {16, 0, 30, false, true}, {19, 1, 25, true, false},
		}, 16, 3.5, 0.5, 0, []wave{{0, 4, 75}, {16, 4, 55}}},
		{"a comb burst a period from the waves either side stays apart", []burst{
			{0, 0, 50, true, false}, {30, 0, 20, false, true}, {60, 0, 30, true, false},
		}, 30, 7, 0.5, 0, []wave{{0, 0, 50}, {30, 0, 20}, {60, 0, 30}}},
		{"a burst at whole spacings past half a period from the wave before it is the next wave, not a retry", []burst{
			{0, 0, 300, true, false}, {13.5, 0, 25, false, true},
		}, 15, 1.5, 0.5, 0, []wave{{0, 0, 300}, {13.5, 0, 25}}},
		{"a wave added past the judged ones stays as it is", []burst{
			{0, 0, 50, true, false}, {2, 0, 40, false, true}, {10, 0, 30, true, false}, {20, 0, 8, false, false},
		}, 10, 2, 0.5, 3, []wave{{0, 2, 90}, {10, 0, 30}, {20, 0, 8}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Unix(1000, 0)
			var waves []Wave
			var centres []float64
			var on, comb []bool
			for i, b := range tc.bursts {
				waves = append(waves, Wave{Start: t0.Add(secs2d(b.start)), Width: b.width, Size: b.size})
				centres = append(centres, float64(t0.Add(secs2d(b.start+b.width/2)).UnixNano()))
				if tc.judged == 0 || i < tc.judged {
					on, comb = append(on, b.on), append(comb, b.comb)
				}
			}
			got := foldCombBursts(waves, centres, on, comb, tc.period, tc.spacing, 1, tc.tol)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d waves, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				g := got[i]
				if s := g.Start.Sub(t0).Seconds(); math.Abs(s-w.start) > 1e-9 || math.Abs(g.Width-w.width) > 1e-9 || g.Size != w.size {
					t.Errorf("wave %d = start %g, width %g, size %d; want %g, %g, %d", i, s, g.Width, g.Size, w.start, w.width, w.size)
				}
			}
		})
	}
}

func TestAllowedGrowth(t *testing.T) {
	tests := []struct {
		acf, threshold, want float64
	}{
		{0.60, 0.10, survivorGrowth},
		{0.26, 0.10, survivorGrowth},
		{0.25, 0.10, 1},
		{0.11, 0.10, 1},
	}
	for _, tc := range tests {
		if got := allowedGrowth(tc.acf, tc.threshold); got != tc.want {
			t.Errorf("allowedGrowth(%v, %v) = %v, want %v", tc.acf, tc.threshold, got, tc.want)
		}
	}
}

func TestLongestSlotRun(t *testing.T) {
	tests := []struct {
		name     string
		period   float64   // 60 unless given
		at       []float64 // seconds
		onGrid   []bool
		strayIdx []int
		shared   bool
		want     int
	}{
		{name: "waves every period", at: []float64{0, 60, 120, 180}, onGrid: []bool{true, true, true, true}, want: 4},
		{name: "a period without a wave ends the row", at: []float64{0, 60, 180, 240, 300}, onGrid: []bool{true, true, true, true, true}, want: 3},
		{name: "bursts on a grid far apart", at: []float64{0, 817, 1722}, onGrid: []bool{true, true, true}, want: 1},
		// Merged waves off the grid but explained by its comb fill their
		// periods as well as waves on it do.
		{name: "comb bursts fill the periods", period: 19.27, at: []float64{20, 25, 41.7, 61.1, 78, 83, 97, 102},
			onGrid: []bool{true, false, false, false, true, false, true, false}, want: 5},
		{name: "strays do not", at: []float64{0, 90, 150, 400, 460}, onGrid: []bool{true, false, false, true, true},
			strayIdx: []int{1, 2}, want: 2},
		{name: "strays at one offset are a comb", at: []float64{0, 70, 130, 180}, onGrid: []bool{true, false, false, true},
			strayIdx: []int{1, 2}, shared: true, want: 4},
		{name: "the same strays at scattered offsets", at: []float64{0, 70, 130, 180}, onGrid: []bool{true, false, false, true},
			strayIdx: []int{1, 2}, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			centres := make([]float64, len(tc.at))
			for i, a := range tc.at {
				centres[i] = (100 + a) * 1e9
			}
			period := tc.period
			if period == 0 {
				period = 60
			}
			if got := longestSlotRun(centres, tc.onGrid, tc.strayIdx, tc.shared, period); got != tc.want {
				t.Errorf("run %d, want %d", got, tc.want)
			}
		})
	}
}

// TestSurrogatesAlikeOnAnyCores: the shuffles are drawn in one order and
// only measured in parallel, so a seed gives the same thresholds on one
// core as on several.
func TestSurrogatesAlikeOnAnyCores(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	prepare := func(x []float64) []float64 { return centre(boxSmooth(x, 2)) }
	tests := []struct {
		name             string
		bins, n, maxBins int
		step             int
	}{
		{"short", 300, 49, maxSurrogateBins, 1},
		{"sampled", 20000, 19, 8192, 1},
		{"decimated", 6000, 19, maxSurrogateBins, 3},
		{"one shuffle", 200, 1, maxSurrogateBins, 1},
	}
	for _, tt := range tests {
		series := make([]float64, tt.bins)
		for i := range series {
			series[i] = float64(rng.IntN(20))
		}
		lo, hi := 3, tt.bins/(2*tt.step)
		prev := runtime.GOMAXPROCS(1)
		one := surrogateThresholdsOf(series, prepare, lo, hi, tt.n, 7, tt.maxBins, tt.step)
		runtime.GOMAXPROCS(max(prev, 4))
		many := surrogateThresholdsOf(series, prepare, lo, hi, tt.n, 7, tt.maxBins, tt.step)
		runtime.GOMAXPROCS(prev)
		if one != many {
			t.Errorf("%s: %+v on one core, %+v on several", tt.name, one, many)
		}
	}
}

// TestBurstGridPeriod pins when the bursts make a period of their own:
// every one on the grid through the shortest gap, four or more periods in
// a row, the gap long enough against the stamps for the grid to mean
// anything.
func TestBurstGridPeriod(t *testing.T) {
	tests := []struct {
		name   string
		at     []float64 // seconds
		bin    float64
		want   float64 // 0: no period
		wantOn int
	}{
		// Accuracy stream 1711: a period with no wave between the fourth
		// and the last still leaves four in a row.
		{name: "four waves in a row and a late one", at: []float64{0, 256, 512, 768, 1280}, bin: 1, want: 256, wantOn: 5},
		{name: "four waves a whole-second period apart", at: []float64{0, 95.7, 191.5, 287}, bin: 1, want: 95.7, wantOn: 4},
		{name: "three waves are too few", at: []float64{0, 256, 512}, bin: 1},
		{name: "a burst off the grid", at: []float64{0, 100, 200, 300, 350}, bin: 1},
		{name: "no four periods in a row", at: []float64{0, 100, 200, 400, 500}, bin: 1},
		// Two storms, or one grid whose phase slips by a third of a period.
		{name: "two segments out of phase", at: []float64{0, 100, 200, 333, 433, 533}, bin: 1},
		// 1.5 s of stamps is 17% of a 9 s period: any bursts fit some grid.
		{name: "a period too short for whole seconds", at: []float64{0, 9, 18, 27, 36}, bin: 1},
		{name: "the same period stamped finer", at: []float64{0, 9, 18, 27, 36}, bin: 0.1, want: 9, wantOn: 5},
		{name: "a gap under the shortest period", at: []float64{0, 1.5, 3, 4.5}, bin: 0.1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			centres := make([]float64, len(tc.at))
			for i, a := range tc.at {
				centres[i] = (100 + a) * 1e9
			}
			got, on, ok := burstGridPeriod(centres, tc.bin, 2)
			if tc.want == 0 {
				if ok {
					t.Errorf("period %.2f s, want none", got)
				}
				return
			}
			n := 0
			for _, m := range on {
				if m {
					n++
				}
			}
			if !ok || math.Abs(got-tc.want) > 0.01*tc.want || n != tc.wantOn {
				t.Errorf("period %.2f s (ok %v, %d on the grid), want %.2f s with %d", got, ok, n, tc.want, tc.wantOn)
			}
		})
	}
}

// TestStepContrastChanceProperties holds the chance that steps stand out
// of the changes within runs to what a chance must be: within [0, 1], a
// half where steps and changes are one sample, smaller when every step
// grows by as much, and untouched by a stray step however large (the
// medians).
func TestStepContrastChanceProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for trial := range 500 {
		within := make([]float64, 2+rng.IntN(10))
		steps := make([]float64, 2+rng.IntN(6))
		for i := range within {
			within[i] = float64(rng.IntN(8))
		}
		for i := range steps {
			steps[i] = float64(rng.IntN(20))
		}
		p := stepContrastChance(within, steps)
		if p < 0 || p > 1 || math.IsNaN(p) {
			t.Fatalf("trial %d: chance %v outside [0, 1]", trial, p)
		}
		if same := stepContrastChance(within, within); math.Abs(same-0.5) > 1e-9 {
			t.Fatalf("trial %d: changes against themselves give %v, want 0.5", trial, same)
		}
		raised := make([]float64, len(steps))
		by := 1 + float64(rng.IntN(5))
		for i, s := range steps {
			raised[i] = s + by
		}
		if q := stepContrastChance(within, raised); q > p+1e-12 {
			t.Fatalf("trial %d: raising every step by %v raised the chance from %v to %v", trial, by, p, q)
		}
	}
	// A step from a stray burst before the train, however large, moves
	// neither the steps' median nor their spread.
	within, steps := []float64{3, 1, 0, 0}, []float64{217, 32, 26, 23}
	if a, b := stepContrastChance(within, steps), stepContrastChance(within, []float64{1e6, 32, 26, 23}); a != b {
		t.Errorf("a stray step of 217 gives %v, of 1e6 %v: want them equal", a, b)
	}
}

// TestBackgroundLevel pins the background estimate of a block: Poisson
// traffic alone, a wave over it, and a block that a retry comb fills, where
// the block's mean is mostly the comb's attempts.
func TestBackgroundLevel(t *testing.T) {
	const bins, block, smooth = 2000, 200, 10
	poisson := func(rng *rand.Rand, rate float64) []float64 {
		c := make([]float64, bins)
		for i := range c {
			c[i] = poissonDraw(rng, rate)
		}
		return c
	}
	// bursts adds size arrivals spread over width bins, every every bins
	// from first.
	bursts := func(c []float64, first, every, width, size int) []float64 {
		for at := first; at+width <= len(c); at += every {
			for k := range size {
				c[at+k*width/size]++
			}
		}
		return c
	}
	tests := []struct {
		name   string
		counts func(rng *rand.Rand) []float64
		// want is the background per bin, within tol.
		want, tol float64
	}{
		{name: "busy Poisson traffic", counts: func(rng *rand.Rand) []float64 { return poisson(rng, 2) }, want: 2, tol: 0.3},
		{name: "sparse Poisson traffic", counts: func(rng *rand.Rand) []float64 { return poisson(rng, 0.004) }, want: 0.004, tol: 0.01},
		{name: "one wave over busy traffic", counts: func(rng *rand.Rand) []float64 {
			return bursts(poisson(rng, 1), 500, bins, 10, 400)
		}, want: 1, tol: 0.15},
		// A comb of 16 arrivals over 1.3 s every 3.3 s, in 100 ms bins: a
		// mean of 0.49 a bin, against 0.004 between the attempts.
		{name: "a retry comb filling every block", counts: func(rng *rand.Rand) []float64 {
			return bursts(poisson(rng, 0.004), 5, 33, 13, 16)
		}, want: 0.004, tol: 0.05},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			counts := tc.counts(rand.New(rand.NewPCG(1, 2)))
			prefix := make([]float64, len(counts)+1)
			for i, c := range counts {
				prefix[i+1] = prefix[i] + c
			}
			level := backgroundLevel(prefix, block, smooth)
			for b := 0; b < bins; b += block {
				if math.Abs(level[b]-tc.want) > tc.tol {
					t.Fatalf("block at bin %d: level %.3f a bin, want %.3f ± %.3f", b, level[b], tc.want, tc.tol)
				}
			}
		})
	}
}
