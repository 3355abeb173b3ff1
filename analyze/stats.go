package analyze

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// percentileSorted is the p-quantile (0..1) of ascending values by linear
// interpolation between closest ranks, so it is monotone in p. This is the
// estimator numpy and spreadsheets default to (Hyndman and Fan's type 7);
// gonum's stat.Quantile offers only the empirical CDF and its type-4
// interpolation, which would move every percentile the reports give.
func percentileSorted(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if p <= 0 {
		return sorted[0]
	}
	if p >= 1 {
		return sorted[n-1]
	}
	pos := p * float64(n-1)
	lo := int(pos)
	frac := pos - float64(lo)
	if lo+1 >= n {
		return sorted[n-1]
	}
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}

// percentile sorts a copy of values and returns their p-quantile.
func percentile(values []float64, p float64) float64 {
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	return percentileSorted(s, p)
}

// meanSigma returns the mean and the population standard deviation.
func meanSigma(values []float64) (mean, sigma float64) {
	if len(values) == 0 {
		return 0, 0
	}
	return stat.PopMeanStdDev(values, nil)
}

// lineFit is the least-squares line y = a + b*x and its coefficient of
// determination. A vertical spread of x gives no slope (b = 0, R² 0), and
// points on a flat line fit it exactly (R² 1): gonum would give NaN for
// both.
func lineFit(x, y []float64) (a, b, r2 float64) {
	if len(x) < 2 {
		return 0, 0, 0
	}
	if stat.Variance(x, nil) == 0 {
		return stat.Mean(y, nil), 0, 0
	}
	a, b = stat.LinearRegression(x, y, nil, false)
	if stat.Variance(y, nil) == 0 {
		return a, b, 1
	}
	return a, b, stat.RSquared(x, y, nil, a, b)
}

// geometricFit fits size_i = s0 * ratio^i as a Poisson GLM (fitDecay);
// r2 is its deviance R².
func geometricFit(sizes []float64) (ratio, r2 float64) {
	f := fitDecay(sizes, nil)
	return f.ratio, f.r2
}

// ratio divides, returning 0 for an empty denominator.
func ratio(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return num / den
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// decayFit is a geometric decay fitted to counts: count_i ≈ first ·
// ratio^i (times exposure_i when given), as a Poisson GLM with a log link.
//
// Least squares on log(count) weighs every wave alike, so the last waves of
// a few calls, whose logarithms swing widely, pull the slope and push the
// fitted first wave far above the real one. A Poisson fit weighs each wave
// by its size (the variance of log N is about 1/N), which is what the counts
// support. The interval is quasi-Poisson: when the waves scatter more than
// Poisson noise (they do when the decay is not quite geometric), the
// variance is scaled up by the Pearson dispersion, never down.
type decayFit struct {
	ok bool
	// a and b are the fit on the log scale: log mean_i = a + b·i.
	a, b float64
	// ratio = exp(b); low, high bound it with 95% confidence (Student t on
	// b with n-2 degrees of freedom, zero without them).
	ratio, low, high float64
	// first is the fitted count of wave 1: exp(a).
	first float64
	// r2 is the deviance R², the share of the deviance of a constant fit
	// the decay explains: 1 for an exact geometric series.
	r2 float64
	// dispersion is the Pearson chi-square per degree of freedom, at
	// least 1.
	dispersion float64
}

// fitDecay fits counts (negative ones count as 0) by iteratively
// reweighted least squares. exposure, when not nil, multiplies each mean
// (an offset log exposure_i), so that rates per unit of exposure decay
// geometrically.
func fitDecay(counts, exposure []float64) decayFit {
	var f decayFit
	n := len(counts)
	y := make([]float64, n)
	off := make([]float64, n)
	var total float64
	for i, c := range counts {
		y[i] = max(c, 0)
		total += y[i]
		if exposure != nil {
			if exposure[i] <= 0 {
				return f
			}
			off[i] = math.Log(exposure[i])
		}
	}
	if n < 2 || total <= 0 {
		return f
	}
	// Start from the log-linear fit weighted by size; a wave of zero starts
	// at half a call.
	x := make([]float64, n)
	w := make([]float64, n)
	z := make([]float64, n)
	for i := range y {
		x[i] = float64(i)
		w[i] = max(y[i], 0.5)
		z[i] = math.Log(max(y[i], 0.5)) - off[i]
	}
	a, b := weightedLine(x, z, w)
	for iter := 0; iter < 100; iter++ {
		for i := range y {
			mu := math.Exp(a + b*x[i] + off[i])
			w[i] = mu
			z[i] = a + b*x[i] + (y[i]-mu)/mu
		}
		na, nb := weightedLine(x, z, w)
		done := math.Abs(nb-b) < 1e-12 && math.Abs(na-a) < 1e-12
		a, b = na, nb
		if done {
			break
		}
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return f
	}
	f.ok, f.a, f.b = true, a, b
	f.ratio, f.first = math.Exp(b), math.Exp(a)
	var sw, swx float64
	for i := range y {
		w[i] = math.Exp(a + b*x[i] + off[i])
		sw += w[i]
		swx += w[i] * x[i]
	}
	mx := swx / sw
	var sxx, chi2, dev, dev0 float64
	mean := total / float64(n)
	for i := range y {
		mu := w[i]
		sxx += mu * (x[i] - mx) * (x[i] - mx)
		chi2 += (y[i] - mu) * (y[i] - mu) / mu
		dev += poissonDeviance(y[i], mu)
		dev0 += poissonDeviance(y[i], mean)
	}
	f.r2 = 1
	if dev0 > 0 {
		f.r2 = max(0, 1-dev/dev0)
	}
	df := float64(n - 2)
	if df < 1 || sxx <= 0 {
		return f
	}
	f.dispersion = max(1, chi2/df)
	se := math.Sqrt(f.dispersion / sxx)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	f.low, f.high = math.Exp(b-t*se), math.Exp(b+t*se)
	return f
}

// poissonDeviance is one count's contribution to the Poisson deviance.
func poissonDeviance(y, mu float64) float64 {
	d := -(y - mu)
	if y > 0 {
		d += y * math.Log(y/mu)
	}
	return 2 * d
}

// weightedLine is the weighted least-squares line z = a + b·x.
func weightedLine(x, z, w []float64) (a, b float64) {
	var sw, sx, sz float64
	for i := range x {
		sw += w[i]
		sx += w[i] * x[i]
		sz += w[i] * z[i]
	}
	mx, mz := sx/sw, sz/sw
	var sxx, sxz float64
	for i := range x {
		dx := x[i] - mx
		sxx += w[i] * dx * dx
		sxz += w[i] * dx * (z[i] - mz)
	}
	if sxx == 0 {
		return mz, 0
	}
	b = sxz / sxx
	return mz - b*mx, b
}

// decayProjection is the geometric fit of wave sizes with its confidence
// and where it ends.
type decayProjection struct {
	decayFit
	// waves is how many waves the fit predicts in all before a wave holds
	// less than one call; 0 when the upper bound does not decay. wavesHigh
	// is the same count at the ratio's upper bound.
	waves, wavesHigh int
}

// projectDecay fits the sizes and projects when the waves end: the fitted
// size a + b·i reaches log(1) = 0 at i = -a/b.
func projectDecay(sizes []float64) decayProjection {
	p := decayProjection{decayFit: fitDecay(sizes, nil)}
	if !p.ok || len(sizes) < 3 || p.high == 0 {
		return p
	}
	if p.b < 0 && p.high < 1 {
		p.waves = max(int(math.Floor(-p.a/p.b))+1, len(sizes))
		// An upper bound just below 1 projects waves without end; a
		// million says as much.
		p.wavesHigh = max(int(math.Min(math.Floor(-p.a/math.Log(p.high)), 1e6))+1, p.waves)
	}
	return p
}
