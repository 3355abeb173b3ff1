package analyze

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
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

func TestPeriodSlots(t *testing.T) {
	s := func(secs ...float64) []float64 {
		out := make([]float64, len(secs))
		for i, v := range secs {
			out[i] = v * 1e9
		}
		return out
	}
	tests := []struct {
		name    string
		centres []float64
		period  float64
		want    int
	}{
		{"one burst per period", s(0, 60, 120, 180), 60, 4},
		{"two attempts per wave", s(0, 12, 60, 72, 120, 132), 60, 3},
		{"first wave's attempt slightly early", s(0, 59, 118), 60, 3},
		{"random bursts", s(0, 10, 25, 100, 230), 60, 3},
		{"empty", nil, 60, 0},
	}
	for _, tc := range tests {
		if got := periodSlots(tc.centres, tc.period); got != tc.want {
			t.Errorf("%s: %d slots, want %d", tc.name, got, tc.want)
		}
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

// TestProjectDecay: exact geometric sizes give a zero-width interval and
// the wave at which the fitted size drops below one call; noisy sizes widen
// the interval around the ratio; growth projects nothing.
func TestProjectDecay(t *testing.T) {
	exact := projectDecay([]float64{256, 128, 64, 32})
	if math.Abs(exact.low-0.5) > 1e-9 || math.Abs(exact.high-0.5) > 1e-9 || exact.waves != 9 {
		t.Errorf("exact halving: %+v, want ratio 0.5 ± 0 and 9 waves (256 down to 1)", exact)
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
