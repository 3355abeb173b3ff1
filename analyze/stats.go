package analyze

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// percentileSorted is the p-quantile (0..1) of ascending values by linear
// interpolation between closest ranks, so it is monotone in p.
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
	for _, v := range values {
		mean += v
	}
	mean /= float64(len(values))
	var ss float64
	for _, v := range values {
		d := v - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss / float64(len(values)))
}

// lineFit is the least-squares line y = a + b*x and its coefficient of
// determination.
func lineFit(x, y []float64) (a, b, r2 float64) {
	n := float64(len(x))
	if len(x) < 2 {
		return 0, 0, 0
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return my, 0, 0
	}
	b = sxy / sxx
	a = my - b*mx
	if syy == 0 {
		return a, b, 1
	}
	return a, b, sxy * sxy / (sxx * syy)
}

// geometricFit fits size_i = s0 * ratio^i by least squares on log(size);
// sizes <= 0 are left out because their logarithm is undefined.
func geometricFit(sizes []float64) (ratio, r2 float64) {
	var x, y []float64
	for i, s := range sizes {
		if s > 0 {
			x = append(x, float64(i))
			y = append(y, math.Log(s))
		}
	}
	if len(x) < 2 {
		return 0, 0
	}
	_, b, r2 := lineFit(x, y)
	return math.Exp(b), r2
}

// ratio divides, returning 0 for an empty denominator.
func ratio(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return num / den
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// decayProjection is the geometric fit of wave sizes with its confidence.
type decayProjection struct {
	// low, high bound the ratio with 95% confidence (Student t on the
	// slope of log size against wave index).
	low, high float64
	// waves is how many waves the fit predicts in all before a wave holds
	// less than one call; 0 when the upper bound does not decay.
	waves int
}

// projectDecay fits log(size) = a + b·i and projects when the waves end.
func projectDecay(sizes []float64) decayProjection {
	var x, y []float64
	for i, s := range sizes {
		if s > 0 {
			x = append(x, float64(i))
			y = append(y, math.Log(s))
		}
	}
	var p decayProjection
	if len(x) < 3 {
		return p
	}
	a, b, _ := lineFit(x, y)
	var mx float64
	for _, v := range x {
		mx += v
	}
	mx /= float64(len(x))
	var sse, sxx float64
	for i := range x {
		e := y[i] - (a + b*x[i])
		sse += e * e
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	df := float64(len(x) - 2)
	se := math.Sqrt(sse / df / sxx)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	p.low, p.high = math.Exp(b-t*se), math.Exp(b+t*se)
	if b < 0 && p.high < 1 {
		// The fitted size a + b·i reaches log(1) = 0 at i = -a/b.
		p.waves = int(math.Floor(-a/b)) + 1
		p.waves = max(p.waves, len(sizes))
	}
	return p
}
