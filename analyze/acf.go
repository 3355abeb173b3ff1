package analyze

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// acfEngine computes normalised autocorrelations by FFT for series of one
// length, reusing its plan and buffers across the surrogate tests.
type acfEngine struct {
	n      int
	fft    *fourier.FFT
	padded []float64
	coeff  []complex128
	out    []float64
	// pow is the periodogram of the last series passed to acf: |X_k|^2 at
	// k/m cycles per bin, for k = 0..m/2.
	pow []float64
}

func newACFEngine(n int) *acfEngine {
	// Zero-padding to at least 2n turns the FFT's circular correlation into
	// the linear one: without it, lag k would also correlate the end of the
	// series with its start.
	m := fftSize(2 * n)
	return &acfEngine{n: n, fft: fourier.NewFFT(m), padded: make([]float64, m),
		coeff: make([]complex128, m/2+1), out: make([]float64, m), pow: make([]float64, m/2+1)}
}

// fftSize is the smallest length >= n whose only prime factors are 2, 3 and
// 5, which the FFT handles at full speed; it wastes far less padding than
// the next power of two.
func fftSize(n int) int {
	best := 1
	for best < n {
		best <<= 1
	}
	for p5 := 1; p5 < best; p5 *= 5 {
		for p35 := p5; p35 < best; p35 *= 3 {
			m := p35
			for m < n {
				m <<= 1
			}
			best = min(best, m)
		}
	}
	return best
}

// acf returns r[k] = sum_i x[i]x[i+k] / sum_i x[i]^2 for k < n (the biased
// estimator, which keeps |r| <= 1). x must already be centred. The returned
// slice is owned by the engine and is overwritten by the next call.
func (e *acfEngine) acf(x []float64) []float64 {
	copy(e.padded, x)
	clear(e.padded[len(x):])
	c := e.fft.Coefficients(e.coeff, e.padded)
	for i, v := range c {
		p := real(v)*real(v) + imag(v)*imag(v)
		c[i] = complex(p, 0)
		e.pow[i] = p
	}
	s := e.fft.Sequence(e.out, c)
	r := s[:e.n]
	r0 := r[0]
	if r0 <= 0 {
		clear(r)
		return r
	}
	inv := 1 / r0
	for i := range r {
		r[i] *= inv
	}
	r[0] = 1
	return r
}

// acfDirect is the O(n^2) definition, kept for tests and tiny series.
func acfDirect(x []float64) []float64 {
	n := len(x)
	r := make([]float64, n)
	var r0 float64
	for _, v := range x {
		r0 += v * v
	}
	if r0 == 0 {
		return r
	}
	for k := 0; k < n; k++ {
		var s float64
		for i := 0; i+k < n; i++ {
			s += x[i] * x[i+k]
		}
		r[k] = s / r0
	}
	return r
}

// removeBaseline subtracts a slowly varying level from counts and centres the
// result. The level is the median of blocks of `block` bins, interpolated
// between block centres: a median ignores the bursts themselves, so what is
// removed is background traffic and slow drift, not the waves.
func removeBaseline(counts []float64, block int) (resid, level []float64) {
	n := len(counts)
	resid = make([]float64, n)
	level = make([]float64, n)
	if n == 0 {
		return
	}
	if block < 1 {
		block = 1
	}
	nb := blockCount(n, block)
	meds := make([]float64, nb)
	centres := make([]float64, nb)
	tmp := make([]float64, 0, n/nb+1)
	for b := 0; b < nb; b++ {
		lo, hi := b*n/nb, (b+1)*n/nb
		tmp = append(tmp[:0], counts[lo:hi]...)
		sort.Float64s(tmp)
		meds[b] = percentileSorted(tmp, 0.5)
		centres[b] = float64(lo+hi-1) / 2
	}
	b := 0
	for i := 0; i < n; i++ {
		fi := float64(i)
		for b+1 < nb && centres[b+1] <= fi {
			b++
		}
		switch {
		case fi <= centres[0]:
			level[i] = meds[0]
		case b+1 >= nb:
			level[i] = meds[nb-1]
		default:
			t := (fi - centres[b]) / (centres[b+1] - centres[b])
			level[i] = meds[b] + t*(meds[b+1]-meds[b])
		}
	}
	var mean float64
	for i, c := range counts {
		resid[i] = c - level[i]
		mean += resid[i]
	}
	mean /= float64(n)
	for i := range resid {
		resid[i] -= mean
	}
	return resid, level
}

// boxSmooth is the centred moving mean over s bins; it lets a wave spread
// over several bins correlate with the next one although their bins do not
// line up exactly.
func boxSmooth(x []float64, s int) []float64 {
	out := make([]float64, len(x))
	if s <= 1 {
		copy(out, x)
		return out
	}
	var sum float64
	half := s / 2
	for i := 0; i < len(x)+half; i++ {
		if i < len(x) {
			sum += x[i]
		}
		if j := i - s; j >= 0 {
			sum -= x[j]
		}
		if c := i - half; c >= 0 && c < len(x) {
			out[c] = sum / float64(s)
		}
	}
	return out
}

// centre subtracts the mean in place and returns x.
func centre(x []float64) []float64 {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(max(len(x), 1))
	for i := range x {
		x[i] -= mean
	}
	return x
}

// blockCount splits n bins into blocks of about the given size, all of equal
// length: a short trailing block holding a single wave would take that wave
// for its background.
func blockCount(n, block int) int {
	if block < 1 {
		block = 1
	}
	return max(1, int(math.Round(float64(n)/float64(block))))
}

// peakCandidate is a local maximum of the ACF scored by its multiples.
type peakCandidate struct {
	lag   int
	acf   float64
	score float64
}

// localMaxima lists lags in [lo, hi] where the ACF is a positive local
// maximum standing on a hill: somewhere between lag 0 and it the ACF dips to
// half its height or less. Bursts of some width keep the ACF high and bumpy at
// lags shorter than that width; those bumps sit on the slope down from lag 0,
// not on a hill, and are not a repeat.
func localMaxima(r []float64, lo, hi int) []peakCandidate {
	var out []peakCandidate
	if lo < 1 {
		lo = 1
	}
	dip := math.Inf(1)
	for k := 1; k < lo && k < len(r); k++ {
		dip = math.Min(dip, r[k])
	}
	for k := lo; k <= hi && k+1 < len(r); k++ {
		if r[k] > 0 && r[k] > r[k-1] && r[k] >= r[k+1] && dip <= 0.5*r[k] {
			out = append(out, peakCandidate{lag: k, acf: r[k]})
		}
		dip = math.Min(dip, r[k])
	}
	return out
}

// harmonicScore is the mean ACF at the first three multiples of lag that fit
// in the series. A true period repeats at P, 2P and 3P; a comb of retries
// spaced c apart inside each wave has peaks at c and 2c but none at 3c, so
// its score drops. Each multiple takes the best value within ±j bins because
// a fractional period drifts off the integer grid.
func harmonicScore(r []float64, lag, maxLag int) float64 {
	var sum float64
	var n int
	for j := 1; j <= 3; j++ {
		t := j * lag
		if t > maxLag {
			break
		}
		best := math.Inf(-1)
		for d := -j + 1; d <= j-1; d++ {
			if u := t + d; u > 0 && u < len(r) && r[u] > best {
				best = r[u]
			}
		}
		sum += best
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// tieTolerance: candidates scoring within this fraction of the best are
// near-ties, and the smallest lag among them wins, so that 2P (whose
// multiples 2P, 4P, 6P also line up) never displaces P.
const tieTolerance = 0.85

// subharmonicFloor: a shorter near-tie wins only if its own ACF peak is at
// least this share of the best-scoring candidate's.
const subharmonicFloor = 0.7

// choosePeriod picks the lag that best explains the ACF as a repeat among
// every hill in [minLag, maxLag]: the autocorrelation's own candidates.
func choosePeriod(r []float64, minLag, maxLag int) (best peakCandidate, ok bool) {
	return chooseAmong(r, localMaxima(r, minLag, maxLag))
}

// chooseAmong picks, among candidates in ascending lag order, the one that
// best explains the ACF as a repeat: the shortest near-tie on harmonic score
// whose own ACF peak stands beside the best one's.
func chooseAmong(r []float64, cands []peakCandidate) (best peakCandidate, ok bool) {
	if len(cands) == 0 {
		return peakCandidate{}, false
	}
	top := math.Inf(-1)
	var topACF float64
	for i := range cands {
		cands[i].score = harmonicScore(r, cands[i].lag, len(r)-1)
		if cands[i].score > top {
			top, topACF = cands[i].score, cands[i].acf
		}
	}
	if top <= 0 {
		return peakCandidate{}, false
	}
	for _, c := range cands {
		// A fraction P/k of the true period borrows P's value into its
		// harmonic score; it must stand as a repeat of its own too.
		if c.score >= tieTolerance*top && c.acf >= subharmonicFloor*topACF {
			return c, true
		}
	}
	return peakCandidate{}, false
}

// harmonics is how many harmonics the periodogram statistic sums. A train
// of narrow waves spreads its power over many harmonics of 1/P, and with
// only a few waves each line alone hardly stands above the noise; summing
// the first few pools them back (as pulsar searches do), so the statistic
// peaks at the fundamental.
const harmonics = 8

// freqBand is the range of periodogram ordinates k (frequency k/m cycles
// per bin, period m/k bins) whose periods lie in [minLag, maxLag].
func freqBand(m, minLag, maxLag int) (kLo, kHi int) {
	return max(1, (m+maxLag-1)/maxLag), m / max(minLag, 1)
}

// harmonicPower returns, for k in [kLo, kHi], the periodogram's share of
// the total power summed over the first harmonics of k: for the j-th
// harmonic, the largest ordinate within ±j/2 of j·k (a period that is not a
// whole number of ordinates drifts by up to j/2 there), the window narrowed
// for low k so that neighbouring harmonics' windows do not meet. Index
// k-kLo.
func harmonicPower(pow []float64, kLo, kHi int) []float64 {
	if kHi < kLo {
		return nil
	}
	var total float64
	for _, p := range pow[1:] {
		total += p
	}
	out := make([]float64, kHi-kLo+1)
	if total <= 0 {
		return out
	}
	last := len(pow) - 1
	for k := kLo; k <= kHi; k++ {
		var sum float64
		// Windows of neighbouring harmonics stay a few ordinates apart, so
		// one line (a few ordinates wide after zero-padding) is never
		// counted twice.
		wMax := max(0, (k-3)/2)
		for j := 1; j <= harmonics && j*k <= last; j++ {
			c, w := j*k, min(j/2, wMax)
			best := 0.0
			for u := max(1, c-w); u <= min(last, c+w); u++ {
				best = max(best, pow[u])
			}
			sum += best
		}
		out[k-kLo] = sum / total
	}
	return out
}

// maxHints bounds the periodogram peaks validated on the ACF; the strongest
// few hold the period and its multiples.
const maxHints = 16

// periodogramHints lists the ordinates k where the harmonic-summed power hs
// (index k-kLo) has a local maximum above threshold, strongest first.
func periodogramHints(hs []float64, kLo int, threshold float64) []int {
	var ks []int
	for i := range hs {
		if hs[i] > threshold && (i == 0 || hs[i] > hs[i-1]) && (i+1 == len(hs) || hs[i] >= hs[i+1]) {
			ks = append(ks, i)
		}
	}
	sort.SliceStable(ks, func(a, b int) bool { return hs[ks[a]] > hs[ks[b]] })
	ks = ks[:min(len(ks), maxHints)]
	for i := range ks {
		ks[i] += kLo
	}
	return ks
}

// validateHints keeps the periodogram hints that sit on a hill of the ACF
// and moves each to that hill's top (AUTOPERIOD), adding the hills at
// the top's whole fractions. Ordinate k stands for a
// period known only to the periodogram's resolution, about m/(k±1) bins
// (and the harmonic sum may peak an ordinate off); the ACF's highest hill
// in that range is the candidate. Candidates come back in ascending lag.
func validateHints(r []float64, hints []int, m, minLag, maxLag int) []peakCandidate {
	var out []peakCandidate
	seen := map[int]bool{}
	// Every hill in [minLag, maxLag], found once; each range below is a
	// slice of them.
	all := localMaxima(r, minLag, maxLag)
	within := func(lo, hi int) []peakCandidate {
		a := sort.Search(len(all), func(i int) bool { return all[i].lag >= lo })
		z := sort.Search(len(all), func(i int) bool { return all[i].lag > hi })
		return all[a:max(a, z)]
	}
	for _, k := range hints {
		lo := max(minLag, int(float64(m)/(float64(k)+1.5))-1)
		hi := maxLag
		if k > 2 {
			hi = min(maxLag, int(math.Ceil(float64(m)/(float64(k)-1.5)))+1)
		}
		var best peakCandidate
		for _, c := range within(lo, hi) {
			if c.acf > best.acf {
				best = c
			}
		}
		if best.lag == 0 {
			continue
		}
		if !seen[best.lag] {
			seen[best.lag] = true
			out = append(out, best)
		}
		// A short series resolves low frequencies coarsely, and the
		// harmonic sum can peak at a multiple of the period; the ACF hills
		// at the hill's fractions join the candidates, so the harmonic
		// choice can still reach the fundamental.
		for d := 2; d <= harmonics && best.lag/d >= minLag; d++ {
			at := float64(best.lag) / float64(d)
			tol := max(1, int(0.1*at))
			var frac peakCandidate
			for _, c := range within(int(at)-tol, int(math.Ceil(at))+tol) {
				if c.acf > frac.acf {
					frac = c
				}
			}
			if frac.lag > 0 && !seen[frac.lag] {
				seen[frac.lag] = true
				out = append(out, frac)
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].lag < out[b].lag })
	return out
}

// hintPower is the harmonic-summed power at the ordinate of a period of
// lag bins, the best within one ordinate.
func hintPower(hs []float64, kLo, m int, lag float64) float64 {
	if lag <= 0 || len(hs) == 0 {
		return 0
	}
	k := int(math.Round(float64(m)/lag)) - kLo
	best := 0.0
	for i := max(0, k-1); i <= min(len(hs)-1, k+1); i++ {
		best = max(best, hs[i])
	}
	return best
}

// parabolicPeak refines an integer ACF peak to a fractional lag by fitting a
// parabola through it and its neighbours.
func parabolicPeak(r []float64, k int) float64 {
	if k <= 0 || k+1 >= len(r) {
		return float64(k)
	}
	a, b, c := r[k-1], r[k], r[k+1]
	den := a - 2*b + c
	if den >= 0 {
		return float64(k)
	}
	d := 0.5 * (a - c) / den
	if d > 0.5 || d < -0.5 {
		return float64(k)
	}
	return float64(k) + d
}

// maxACF is the largest ACF value in [lo, hi].
func maxACF(r []float64, lo, hi int) float64 {
	best := 0.0
	for k := max(lo, 1); k <= hi && k < len(r); k++ {
		best = max(best, r[k])
	}
	return best
}

// maxSurrogateBins bounds the length of each surrogate so that the
// significance test costs the same on a day of 100 ms bins as on an hour.
const maxSurrogateBins = 1 << 16

// minParallelSurrogateBins is the shortest sample whose surrogates are
// measured on several cores.
const minParallelSurrogateBins = 1 << 12

// significance holds the surrogate thresholds of both statistics.
type significance struct {
	acf, periodogram float64
}

// surrogateThresholds are the 99th percentiles, over n shuffles of the bins,
// of the best ACF peak at lags in [lo, hi] and of the best harmonic-summed
// periodogram power at periods in [lo, hi], each shuffle passed through the
// same prepare step (smoothing, centring) as the real series. Shuffling
// keeps the distribution of bin counts (burstiness) but destroys any order,
// so a value above its threshold is unlikely to be chance. Both statistics
// come from the same FFT of each shuffle.
//
// Long series are tested on a random sample of maxSurrogateBins bins (a
// shuffle's prefix) and the thresholds rescaled. Without order, the ACF at
// one lag has a spread proportional to 1/sqrt(bins), and a periodogram
// ordinate's share of the power is proportional to 1/bins; the largest of L
// lags grows as sqrt(ln L), of L ordinates as ln L.
func surrogateThresholds(series []float64, prepare func([]float64) []float64, lo, hi, n int, seed uint64) significance {
	return surrogateThresholdsOf(series, prepare, lo, hi, n, seed, maxSurrogateBins, 1)
}

// surrogateThresholdsOf is surrogateThresholds with surrogates of at most
// maxBins bins (a search over short lags needs no longer sample), each
// decimated by step after prepare, as the real series was; lo and hi are
// then in decimated bins.
func surrogateThresholdsOf(series []float64, prepare func([]float64) []float64, lo, hi, n int, seed uint64, maxBins, step int) significance {
	rng := rand.New(rand.NewPCG(seed, 0x5eed5eed))
	x := append([]float64(nil), series...)
	m := min(len(x), maxBins)
	md, nd := (m+step-1)/step, (len(x)+step-1)/step
	subHi := hi
	scale, pgScale := 1.0, 1.0
	eng := newACFEngine(md)
	mSub := len(eng.padded)
	kLo, kHi := freqBand(mSub, lo, hi)
	if m < len(x) {
		subHi = min(hi, md/2)
		kLo, kHi = freqBand(mSub, lo, subHi)
		lFull, lSub := float64(hi-lo+2), float64(max(subHi-lo+2, 3))
		scale = math.Sqrt(float64(md)/float64(nd)) * math.Sqrt(math.Log(lFull)/math.Log(lSub))
		mFull := fftSize(2 * nd)
		kLoF, kHiF := freqBand(mFull, lo, hi)
		oFull, oSub := float64(max(kHiF-kLoF+1, 3)), float64(max(kHi-kLo+1, 3))
		pgScale = float64(mSub) / float64(mFull) * math.Log(oFull) / math.Log(oSub)
	}
	peaks := make([]float64, n)
	powers := make([]float64, n)
	measure := func(eng *acfEngine, s int, sub []float64) {
		peaks[s] = maxACF(eng.acf(decimate(prepare(sub), step)), lo, subHi) * scale
		best := 0.0
		for _, v := range harmonicPower(eng.pow, kLo, kHi) {
			best = max(best, v)
		}
		powers[s] = best * pgScale
	}
	// The shuffles are drawn here, one after another, so that a seed gives
	// the same surrogates however many cores measure them; the FFTs, most
	// of the cost, run on every core. Each worker has its own engine and a
	// shuffle's copy of the sample, handed back once measured.
	workers := min(cores(), n)
	if m < minParallelSurrogateBins {
		// A short series' FFTs cost less than a second engine and the
		// goroutines that would share them.
		workers = 1
	}
	type job struct {
		s   int
		sub []float64
	}
	jobs := make(chan job)
	free := make(chan []float64, workers+1)
	for range workers + 1 {
		free <- make([]float64, m)
	}
	var wg sync.WaitGroup
	for w := range workers - 1 {
		own := eng
		if w > 0 {
			own = newACFEngine(md)
		}
		wg.Go(func() {
			for j := range jobs {
				measure(own, j.s, j.sub)
				free <- j.sub
			}
		})
	}
	last := eng
	if workers > 1 {
		last = newACFEngine(md)
	}
	for s := 0; s < n; s++ {
		// Partial Fisher-Yates: the first m slots become a uniform random
		// sample in random order.
		for i := 0; i < m; i++ {
			j := i + rng.IntN(len(x)-i)
			x[i], x[j] = x[j], x[i]
		}
		sub := <-free
		copy(sub, x[:m])
		if workers == 1 {
			measure(last, s, sub)
			free <- sub
			continue
		}
		select {
		case jobs <- job{s, sub}:
		default:
			// Every worker is busy: this goroutine measures it itself.
			measure(last, s, sub)
			free <- sub
		}
	}
	close(jobs)
	wg.Wait()
	sort.Float64s(peaks)
	sort.Float64s(powers)
	return significance{acf: percentileSorted(peaks, 0.99), periodogram: percentileSorted(powers, 0.99)}
}
