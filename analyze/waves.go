package analyze

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stampede/stampede/spill"
	"github.com/stampede/stampede/timeline"
)

// FindWaves looks for periodic retry waves in the timeline and for the fixed
// delays that would explain their period. Its caveats are in Run's Warnings.
func FindWaves(tl *timeline.Timeline, opt Options) Waves {
	return findWaves(buildJoins(tl), opt, true)
}

// maxBins bounds the binned series; wider spans get wider bins.
const maxBins = 2_000_000

// series is what the period detector bins: arrival times of one kind of
// event, in Unix nanoseconds, ascending.
type series struct {
	name  string
	times []int64
}

// pickSeries prefers batch call starts because each call appears once however
// many attempts it made; attempts would add the SDK's own retry comb to the
// requeue period.
func pickSeries(j *joins) series {
	tl := j.tl
	batch := false
	for i := range tl.Events {
		if tl.Events[i].Class == timeline.ClassBatch {
			batch = true
			break
		}
	}
	prefix := "all"
	if batch {
		prefix = "batch"
	}
	keep := func(c timeline.Class) bool { return !batch || c == timeline.ClassBatch }

	var s series
	numbered := false
	for _, i := range j.http {
		if e := &tl.Events[i]; keep(e.Class) && e.Attempt > 0 {
			numbered = true
			break
		}
	}
	if numbered && j.callsFromLog && secondQuantised(j, keep) {
		// Access logs stamp requests to the second; an SDK log that keeps
		// sub-second call starts gives the same series, sharper.
		numbered = false
	}
	if numbered {
		s.name = prefix + " call starts (first attempts)"
		n := j.tally.firstAttempts
		if batch {
			n = j.tally.firstByClass[timeline.ClassBatch]
		}
		s.times = httpWhere(j, n, func(e *timeline.Event) (int64, bool) { return e.Start, keep(e.Class) && e.Attempt == 1 })
		return s
	}
	if j.callsFromLog {
		s.name = prefix + " call starts (SDK log)"
		s.times = spill.Make[int64](0, len(j.calls))
		for i := range j.calls {
			if keep(j.calls[i].class) {
				s.times = append(s.times, j.calls[i].start)
			}
		}
		if len(s.times) > 0 {
			return s
		}
		spill.Free(s.times)
	}
	if j.joinedByCallID > 0 {
		s.name = prefix + " call starts (first attempt per call id)"
		s.times = spill.Make[int64](0, len(j.heads))
		for _, h := range j.heads {
			if keep(h.class) {
				s.times = append(s.times, tl.Events[h.first].Start)
			}
		}
		slices.Sort(s.times)
		if len(s.times) > 0 {
			return s
		}
		spill.Free(s.times)
	}
	s.name = prefix + " attempts"
	n := j.tally.attempts
	if batch {
		n = j.tally.byClass[timeline.ClassBatch]
	}
	s.times = httpWhere(j, n, func(e *timeline.Event) (int64, bool) { return e.Start, keep(e.Class) })
	if len(s.times) == 0 {
		// No HTTP attempts at all: fall back to whatever was logged.
		s.name = prefix + " events"
		for i := range tl.Events {
			if keep(tl.Events[i].Class) {
				s.times = append(s.times, tl.Events[i].Start)
			}
		}
	}
	return s
}

// secondQuantised reports whether the HTTP attempts carry only whole-second
// times (a Start derived as end minus duration counts as whole-second when
// End is whole) while the SDK log's calls do not.
func secondQuantised(j *joins, keep func(timeline.Class) bool) bool {
	for _, i := range j.http {
		e := &j.tl.Events[i]
		if !keep(e.Class) {
			continue
		}
		t := e.Start
		if e.End != 0 {
			t = e.End
		}
		if t%int64(time.Second) != 0 {
			return false
		}
	}
	for i := range j.calls {
		if c := &j.calls[i]; keep(c.class) && c.start%int64(time.Second) != 0 {
			return true
		}
	}
	return false
}

// autoBinWidth follows the timestamp resolution: 1 s when every timestamp
// is a whole second, else 100 ms.
func autoBinWidth(times []int64) int64 {
	for _, t := range times {
		if t%int64(time.Second) != 0 {
			return int64(100 * time.Millisecond)
		}
	}
	return int64(time.Second)
}

// minBinWidth is the narrowest bin that keeps the series within maxBins.
func minBinWidth(times []int64) int64 { return minBinWidthFor(times, maxBins) }

// minBinWidthFor is the narrowest bin that keeps the series within budget
// bins. The span is taken unsigned: times centuries apart (a damaged log)
// overflow an int64 difference.
func minBinWidthFor(times []int64, budget int64) int64 {
	return spanBinWidth(times[0], times[len(times)-1], budget)
}

// spanBinWidth is minBinWidthFor of ascending times from first to last.
func spanBinWidth(first, last, budget int64) int64 {
	span := uint64(last) - uint64(first)
	return int64(span/uint64(budget) + 1)
}

// binBudget bounds the bins of a series of n arrivals: a bin for every
// 0.1 s of a span of weeks would be millions of empty bins, and hundreds of
// megabytes, for a handful of events, and a repeat needs arrivals to show.
// The floor is above what any recorded incident needs (they have fewer
// bins than arrivals), so that their series are binned as they always were.
func binBudget(n int) int64 { return min(maxBins, max(minBinBudget, binsPerArrival*int64(n))) }

const (
	minBinBudget   = 1 << 16
	binsPerArrival = 16
	// busyShare is the share of the arrivals that the busiest stretch
	// within the budget must hold to be searched alone (an incident, and
	// a few stray lines days away); with less, the whole span is searched
	// in wider bins.
	busyShare = 0.9
)

// busiestStretch returns the arrivals [lo, hi) of ascending times that
// fall within span of each other and are the most such (the earliest of
// equals).
func busiestStretch(times []int64, span uint64) (lo, hi int) {
	for i, k := 0, 0; k < len(times); k++ {
		for uint64(times[k])-uint64(times[i]) > span {
			i++
		}
		if k+1-i > hi-lo {
			lo, hi = i, k+1
		}
	}
	return lo, hi
}

// fitSpan makes a series of times fit binBudget bins at width bw: it
// returns the times to search, the bin width, and why either changed ("" if
// neither did; a sentence when the times were cut, a reason when the
// width changed). A series whose busiest stretch within the budget holds
// nearly all arrivals is cut to it; any other is binned wider. auto rounds
// a wider width to a multiple of bw.
func fitSpan(times []int64, bw int64, auto bool, unit string) (kept []int64, width int64, why string) {
	budget := binBudget(len(times))
	need := minBinWidthFor(times, budget)
	if need <= bw {
		return times, bw, ""
	}
	if lo, hi := busiestStretch(times, uint64(budget-2)*uint64(bw)); float64(hi-lo) >= busyShare*float64(len(times)) {
		far := max(uint64(times[lo])-uint64(times[0]), uint64(times[len(times)-1])-uint64(times[hi-1]))
		return times[lo:hi], bw, fmt.Sprintf("waves are looked for from %s to %s, where %d of the %d %s are: the other %d lie up to %s from them, and with them the series would need more than %d bins of %s",
			time.Unix(0, times[lo]).UTC().Format(time.RFC3339), time.Unix(0, times[hi-1]).UTC().Format(time.RFC3339),
			hi-lo, len(times), unit, len(times)-(hi-lo), spanText(far), budget, time.Duration(bw))
	}
	width = need
	if auto {
		width = (need + bw - 1) / bw * bw
	}
	return times, width, fmt.Sprintf("%d %s spread over %s need no more than %d bins",
		len(times), unit, spanText(uint64(times[len(times)-1])-uint64(times[0])), budget)
}

// spanText says how long a span of ns nanoseconds is, in days past two.
func spanText(ns uint64) string {
	if d := float64(ns) / float64(24*time.Hour); d >= 2 {
		return fmt.Sprintf("%.1f days", d)
	}
	return time.Duration(ns).Round(time.Second).String()
}

// binned is the series as counts per bin from t0.
type binned struct {
	t0, width int64
	counts    []float64
}

func binSeries(times []int64, width int64) binned {
	if len(times) == 0 {
		return binned{width: width}
	}
	return binTimes(times[0], times[len(times)-1], width, slices.Values(times))
}

// binTimes is binSeries of ascending times from first to last.
func binTimes(first, last, width int64, times iter.Seq[int64]) binned {
	b := binned{width: width}
	// Floored, so that times before 1970 start their bin, not the next.
	r := first % width
	if r < 0 {
		r += width
	}
	b.t0 = first - r
	n := int(uint64(last-b.t0)/uint64(width)) + 1
	b.counts = make([]float64, n)
	for t := range times {
		b.counts[uint64(t-b.t0)/uint64(width)]++
	}
	return b
}

// periodResult is the detector's verdict on binned counts.
type periodResult struct {
	found        bool
	lag          float64 // bins, refined by parabolic interpolation
	acf          float64
	threshold    float64
	intraSpacing float64 // bins, 0 when none
	// intraACF is the ACF at the spacing, intraThreshold its threshold.
	intraACF, intraThreshold float64
	// source names where the period's candidate came from: a periodogram
	// peak validated on the ACF, or an ACF hill.
	source string
	// power is the harmonic-summed periodogram's share of the power at the
	// period, powerThreshold its surrogate threshold.
	power, powerThreshold float64
	// curve is the ACF that acf and threshold belong to, one value per
	// curveStep bins; the detector's own buffer is copied into it.
	curve     []float64
	curveStep int
	// rawACF is the ACF at every lag in bins, kept when curve becomes an
	// outer period's smoothed one.
	rawACF []float64
}

const (
	sourcePeriodogram = "periodogram"
	sourceACF         = "autocorrelation"
	// sourceGroups: the period of groups of bursts that repeat at a
	// shorter lag, the retry comb inside each wave.
	sourceGroups = "burst groups"
	// sourceBursts: the period of the bursts themselves, every one on its
	// grid, where the ACF's own lag is no period.
	sourceBursts = "bursts"
)

// detectPeriod runs baseline removal, the FFT periodogram and
// autocorrelation, the surrogate tests and the harmonic period choice over
// binned counts. Candidates are periodogram peaks above their surrogate
// threshold that sit on a hill of the ACF, refined to the hill's top, with
// the hills at their whole fractions; the ACF's own best hill joins them.
func detectPeriod(counts []float64, minLag int, seed uint64) periodResult {
	var pr periodResult
	n := len(counts)
	// The square root tames the first wave: one bin of 300 calls would
	// otherwise outweigh all later waves together in the ACF and in the
	// shuffled surrogates.
	root := make([]float64, n)
	for i, c := range counts {
		root[i] = math.Sqrt(c)
	}
	// At least two bins: a period that is not a whole number of bins puts
	// successive waves alternately k and k+1 bins apart, which splits the
	// ACF peak between two lags unless each wave covers two bins.
	smooth := max(2, minLag/4)
	prepare := func(x []float64) []float64 { return centre(boxSmooth(x, smooth)) }
	maxLag := n / 2
	if n < 4 || maxLag <= minLag {
		return pr
	}
	resid, _ := removeBaseline(boxSmooth(root, smooth), min(n, max(n/8, 8*minLag)))
	eng := newACFEngine(n)
	r := eng.acf(resid)
	m := len(eng.padded)
	kLo, kHi := freqBand(m, minLag, maxLag)
	hs := harmonicPower(eng.pow, kLo, kHi)
	pr.curve, pr.curveStep = append([]float64(nil), r[:maxLag+1]...), 1
	pr.rawACF = pr.curve
	surrogates := 49
	if n > 1<<14 {
		surrogates = 19
	}
	sig := surrogateThresholds(root, prepare, minLag, maxLag, surrogates, seed)
	pr.powerThreshold = sig.periodogram
	cands := validateHints(r, periodogramHints(hs, kLo, sig.periodogram), m, minLag, maxLag)
	fromPeriodogram := map[int]bool{}
	for _, c := range cands {
		fromPeriodogram[c.lag] = true
	}
	// The ACF's own best hill joins the candidates: a few waves, or a
	// comb inside each wave, spread the power over many harmonics, and the
	// period's ordinate can stay below its threshold while the ACF still
	// sees the repeat.
	if c, ok := choosePeriod(r, minLag, maxLag); ok && !fromPeriodogram[c.lag] {
		cands = append(cands, c)
		sort.Slice(cands, func(a, b int) bool { return cands[a].lag < cands[b].lag })
	}
	best, ok := chooseAmong(r, cands)
	if !ok {
		return pr
	}
	pr.source = sourceACF
	if fromPeriodogram[best.lag] {
		pr.source = sourcePeriodogram
	}
	pr.found = true
	pr.lag = parabolicPeak(r, best.lag)
	pr.acf = r[best.lag]
	pr.threshold = sig.acf
	pr.power = hintPower(hs, kLo, m, pr.lag)
	if outer, ok := outerPeriod(root, r, best.lag, pr.threshold, n, surrogates, seed); ok {
		// The chosen lag is the retry comb inside each wave; the waves
		// themselves repeat at the outer period.
		pr.intraSpacing, pr.intraACF, pr.intraThreshold = pr.lag, pr.acf, pr.threshold
		pr.lag, pr.acf, pr.threshold = outer.lag, outer.acf, outer.threshold
		pr.curve, pr.curveStep = outer.curve, outer.curveStep
		pr.source = sourceACF
		pr.power = hintPower(hs, kLo, m, pr.lag)
		return pr
	}
	pr.intraSpacing = combSpacing(r, minLag, best.lag, pr.threshold)
	if pr.intraSpacing > 0 {
		pr.intraACF, pr.intraThreshold = r[int(math.Round(pr.intraSpacing))], pr.threshold
	}
	return pr
}

// outerPeriod looks for a longer repeat that the lag inner nests in: a
// retry-after comb of three or four attempts repeats at c, 2c and 3c, which
// passes the harmonic test and can outscore the requeue period when the
// waves decay fast. Smoothing over the comb's spacing merges each wave's
// attempts into one hump, so the waves' own period becomes the ACF's hill.
// It counts only if it clears its own surrogate threshold and is not just a
// further multiple of inner (then inner is the period: the ACF stays high
// at every multiple between).
func outerPeriod(root, r []float64, inner int, innerThreshold float64, n, surrogates int, seed uint64) (periodResult, bool) {
	var pr periodResult
	minLag := 2*inner + 1
	maxLag := n / 2
	if maxLag <= minLag {
		return pr, false
	}
	smooth := inner
	prepare := func(x []float64) []float64 { return centre(boxSmooth(x, smooth)) }
	// Smoothed over inner bins, the series holds nothing finer than that:
	// every step-th bin keeps the ACF at the lags searched (at least
	// 2 x inner) and makes the search step times cheaper.
	step := max(1, smooth/4)
	dec := decimate(boxSmooth(root, smooth), step)
	nd := len(dec)
	minLagD, maxLagD := (minLag+step-1)/step, nd/2
	if maxLagD <= minLagD {
		return pr, false
	}
	resid, _ := removeBaseline(dec, min(nd, max(nd/8, 8*minLagD)))
	r2 := newACFEngine(nd).acf(resid)
	best, ok := choosePeriod(r2, minLagD, maxLagD)
	if !ok {
		return pr, false
	}
	// Smoothing blurs the peak; on the raw ACF every attempt of one wave
	// lines up with its counterpart in the next only at the exact period.
	// The multiples test needs that lag too: the decimated one is only
	// within a step of it, far coarser than the test's tolerance.
	coarse := best.lag * step
	lag := coarse
	reach := inner/2 + step
	for k := max(1, coarse-reach); k <= coarse+reach && k+1 < len(r); k++ {
		if r[k] > r[lag] {
			lag = k
		}
	}
	if isSubharmonic(r, inner, lag, innerThreshold) {
		return pr, false
	}
	// The surrogates go through the same smoothing and decimation, so the
	// threshold is on the scale of r2.
	threshold := surrogateThresholdsOf(root, prepare, minLagD, maxLagD, surrogates, seed^0x0e7e, maxSurrogateBins, step).acf
	if r2[best.lag] <= threshold {
		return pr, false
	}
	// The outer period's value and threshold are on the smoothed,
	// decimated ACF, so that is the curve to show beside them.
	return periodResult{found: true, lag: parabolicPeak(r, lag), acf: r2[best.lag], threshold: threshold,
		curve: append([]float64(nil), r2[:maxLagD+1]...), curveStep: step}, true
}

// attemptComb looks for the retry-after comb on the wire when the period
// was judged on call starts: each call counts once there, so the SDK's
// retries inside a wave leave no trace in that series, while the attempts
// repeat at the retry spacing. The spacing is the strongest ACF hill of the
// attempts between the minimum lag and half the period, if it clears its
// own surrogate threshold; it returns zeros otherwise.
//
// Only lags up to half the period matter, so the search runs on bins
// coarser by step (at most a quarter of the minimum lag) and surrogates
// just long enough for those lags; the hill is then refined on the
// attempts at the original bins, where only the few lags around it are
// computed.
func attemptComb(j *joins, window [2]int64, bw int64, minLag int, periodBins float64, seed uint64) (spacing, acf, threshold float64, name string) {
	hi := int(periodBins / 2)
	if hi <= minLag {
		return 0, 0, 0, ""
	}
	attempts, name := attemptStartsIn(j, window)
	first, last, two := attempts.ends()
	step := max(1, min(minLag/4, hi/64))
	if !two || spanBinWidth(first, last, maxBins) > bw*int64(step) {
		// Attempts far outside the call starts' span (a damaged line)
		// would not fit in the bins.
		return 0, 0, 0, ""
	}
	b := binTimes(first, last, bw*int64(step), attempts.all())
	n := len(b.counts)
	lo, hiC := (minLag+step-1)/step, hi/step
	if n/2 <= hiC || hiC <= lo {
		return 0, 0, 0, ""
	}
	root := make([]float64, n)
	for i, c := range b.counts {
		root[i] = math.Sqrt(c)
	}
	smooth := max(2, lo/4)
	prepare := func(x []float64) []float64 { return centre(boxSmooth(x, smooth)) }
	resid, _ := removeBaseline(boxSmooth(root, smooth), min(n, max(n/8, 8*lo)))
	r := newACFEngine(n).acf(resid)
	var best peakCandidate
	for _, c := range localMaxima(r, lo, hiC) {
		if c.acf > best.acf {
			best = c
		}
	}
	if best.lag == 0 {
		return 0, 0, 0, ""
	}
	threshold = surrogateThresholdsOf(root, prepare, lo, hiC, 49, seed^0xc0b, max(1<<13, 64*hiC), 1).acf
	if best.acf <= threshold {
		return 0, 0, 0, ""
	}
	lag := parabolicPeak(r, best.lag) * float64(step)
	if step > 1 && spanBinWidth(first, last, maxBins) <= bw {
		lag = refineLag(binTimes(first, last, bw, attempts.all()), (best.lag-1)*step, (best.lag+1)*step)
	}
	return lag * seconds(bw), best.acf, threshold, name
}

// attemptStarts are the start times of the batch attempts (all attempts
// when no class is known) within a window, ascending. They are read in
// place from j.http, which is in start order: the comb search only bins
// them and counts them between two times, and a copy would be 8 bytes an
// attempt.
type attemptStarts struct {
	j     *joins
	batch bool
	// lo and hi bound the stretch of j.http within the window.
	lo, hi int
}

// attemptStartsIn are the attempt starts within window (inclusive), and
// the series' name.
func attemptStartsIn(j *joins, window [2]int64) (attemptStarts, string) {
	a := attemptStarts{j: j, batch: hasClass(j, timeline.ClassBatch)}
	a.lo = sort.Search(len(j.http), func(k int) bool { return j.tl.Events[j.http[k]].Start >= window[0] })
	a.hi = sort.Search(len(j.http), func(k int) bool { return j.tl.Events[j.http[k]].Start > window[1] })
	if a.batch {
		return a, "batch attempts"
	}
	return a, "all attempts"
}

// at returns the start of j.http[k], and whether it is one of a's.
func (a attemptStarts) at(k int) (int64, bool) {
	e := &a.j.tl.Events[a.j.http[k]]
	return e.Start, !a.batch || e.Class == timeline.ClassBatch
}

// all yields the starts in order.
func (a attemptStarts) all() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for k := a.lo; k < a.hi; k++ {
			if t, ok := a.at(k); ok && !yield(t) {
				return
			}
		}
	}
}

// ends returns the first and last start; two is false with fewer than
// two starts.
func (a attemptStarts) ends() (first, last int64, two bool) {
	lo, hi := a.lo, a.hi-1
	for ; lo < a.hi; lo++ {
		if t, ok := a.at(lo); ok {
			first = t
			break
		}
	}
	for ; hi > lo; hi-- {
		if t, ok := a.at(hi); ok {
			last = t
			break
		}
	}
	return first, last, hi > lo
}

// count is how many starts fall in [from, to).
func (a attemptStarts) count(from, to int64) int {
	start := func(t int64) int {
		return a.lo + sort.Search(a.hi-a.lo, func(k int) bool { t0, _ := a.at(a.lo + k); return t0 >= t })
	}
	n := 0
	for k, hi := start(from), start(to); k < hi; k++ {
		if _, ok := a.at(k); ok {
			n++
		}
	}
	return n
}

// countIn counts ascending times in [from, to), for combInWaves.
func countIn(times []int64) func(from, to int64) int {
	return func(from, to int64) int { return len(between(times, from, to)) }
}

// combInWaves checks a spacing against the waves themselves. A retry comb
// puts its second attempts from one spacing to one and a half spacings
// after each wave's start (the first attempts spread over at most half a
// spacing, or the comb smears away), and nothing half a spacing earlier.
// An ACF peak from waves that are merely wide, or from the background, puts
// as many arrivals in the earlier window as in the later one. The comb
// stands when the later windows, summed over the waves, hold more than the
// earlier ones by more than Poisson noise allows (three standard
// deviations). Both windows open a bin early: times truncated to the bin
// put the second attempts up to a bin before start + spacing.
//
// count is how many arrivals fall between two times (countIn).
func combInWaves(count func(from, to int64) int, waves []Wave, spacing float64, bin int64) bool {
	c := int64(spacing * 1e9)
	var later, earlier float64
	for _, w := range waves {
		t := w.Start.UnixNano() - bin
		later += float64(count(t+c, t+c+c/2))
		earlier += float64(count(t+c/2, t+c))
	}
	return later > earlier+3*math.Sqrt(earlier+1)
}

// refineLag is the lag in [lo, hi] bins where the ACF of the square-rooted
// counts of b peaks, with parabolic interpolation, computed directly at
// those lags only.
func refineLag(b binned, lo, hi int) float64 {
	x := make([]float64, len(b.counts))
	for i, c := range b.counts {
		x[i] = math.Sqrt(c)
	}
	x = centre(boxSmooth(x, 2))
	lo = max(lo, 1)
	r := make([]float64, hi+2)
	for k := lo - 1; k <= hi+1 && k < len(x); k++ {
		var sum float64
		for i := 0; i+k < len(x); i++ {
			sum += x[i] * x[i+k]
		}
		r[k] = sum
	}
	best := lo
	for k := lo; k <= hi; k++ {
		if r[k] > r[best] {
			best = k
		}
	}
	return parabolicPeak(r, best)
}

// decimate keeps every step-th value.
func decimate(x []float64, step int) []float64 {
	if step <= 1 {
		return x
	}
	out := make([]float64, 0, len(x)/step+1)
	for i := 0; i < len(x); i += step {
		out = append(out, x[i])
	}
	return out
}

// combSpacing is the strongest ACF peak between minLag and half the period
// (the retry spacing inside each wave), if it clears the surrogate
// threshold. A fraction P/k of the period that really were the period would
// have been chosen as the period already (choosePeriod prefers the shortest
// near-tie), so a peak there is a comb that divides the period by
// coincidence (84 s = 7 x 12 s).
func combSpacing(r []float64, minLag, period int, threshold float64) float64 {
	var best peakCandidate
	// Above half the period sit the period's own shoulders and its
	// combinations with the comb (P-c, P-2c), which are not a new spacing.
	for _, c := range localMaxima(r, minLag, period/2) {
		if c.acf > best.acf {
			best = c
		}
	}
	if best.lag == 0 || best.acf <= threshold {
		return 0
	}
	return parabolicPeak(r, best.lag)
}

// isSubharmonic reports whether lag is P/k for some k >= 2 with the ACF
// above threshold at every multiple of lag up to P. A retry-after comb can
// divide the period by coincidence (84 s = 7 x 12 s) but repeats only a few
// times inside each wave, so it fails the multiples test.
func isSubharmonic(r []float64, lag, period int, threshold float64) bool {
	k := int(math.Round(float64(period) / float64(lag)))
	if k < 2 || math.Abs(float64(period)-float64(k*lag)) > float64(k) {
		return false
	}
	for m := 2; m < k; m++ {
		best := math.Inf(-1)
		for u := m*lag - m; u <= m*lag+m && u < len(r); u++ {
			if u > 0 {
				best = math.Max(best, r[u])
			}
		}
		if best <= threshold {
			return false
		}
	}
	return true
}

// burst is a run of bins holding more arrivals than the background explains.
type burst struct{ lo, hi int } // inclusive bin range

// hotThreshold is the most arrivals a window expecting lambda background
// arrivals plausibly holds: about four Poisson standard deviations above.
func hotThreshold(lambda float64) float64 {
	return lambda + 4*math.Sqrt(lambda) + 1
}

// backgroundLevel estimates the background arrivals per bin, block by block:
// start from the block's mean (inflated by any waves in it), drop the windows
// that are hot against that level, and re-average what is left until it
// settles. A median would say 0 for sparse traffic (most 100 ms bins are
// empty even at a few requests per second), and every stray pair of
// background arrivals would then look like a burst.
//
// A block that a retry comb fills, its waves' attempts a few seconds apart,
// has a mean so inflated that no window stands out against it, and the
// level stays near the mean. There, where the windows' counts also vary far
// more than Poisson traffic's would, the quietest quarter of them gives a
// second start, which climbs to the background from below; where that ends
// under half the first, the block's waves are what inflated the first.
// Busy traffic alone is never started from below: its estimate would
// settle under its true level, and its own noise would make bursts.
func backgroundLevel(prefix []float64, block, smooth int) []float64 {
	n := len(prefix) - 1
	level := make([]float64, n)
	hot := make([]bool, n)
	nb := blockCount(n, block)
	for b := 0; b < nb; b++ {
		lo, hi := b*n/nb, (b+1)*n/nb
		mean := (prefix[hi] - prefix[lo]) / float64(hi-lo)
		lambda := settleLevel(prefix, hot, lo, hi, smooth, mean)
		if lambda >= 0.9*mean {
			// Nothing stood out against the mean.
			lambda = quietLevel(prefix, hot, lo, hi, smooth, lambda)
		}
		for i := lo; i < hi; i++ {
			level[i] = lambda
		}
	}
	return level
}

// quietLevel is the background of bins [lo, hi) settled from their
// quietest quarter of windows, where the windows' counts are overdispersed
// and that ends under half of lambda, the estimate from the mean; else
// lambda.
func quietLevel(prefix []float64, hot []bool, lo, hi, smooth int, lambda float64) float64 {
	var windows []float64
	for i := lo; i+smooth <= hi; i += max(1, smooth/2) {
		windows = append(windows, prefix[i+smooth]-prefix[i])
	}
	if len(windows) < 8 || !overdispersed(windows) {
		return lambda
	}
	sort.Float64s(windows)
	if low := settleLevel(prefix, hot, lo, hi, smooth, windows[len(windows)/4]/float64(smooth)); low < lambda/2 {
		return low
	}
	return lambda
}

// overdispersed says whether counts vary far more than Poisson counts of
// their mean would (a variance over four times the mean): bursts among
// quiet stretches, not busy traffic, whose quietest windows are only its
// own noise.
func overdispersed(counts []float64) bool {
	var sum, sq float64
	for _, c := range counts {
		sum += c
		sq += c * c
	}
	n := float64(len(counts))
	mean := sum / n
	return sq/n-mean*mean > 4*mean
}

// settleLevel is the background of bins [lo, hi) from the first guess
// lambda: the mean of the bins outside windows hot against the guess, over
// again until it settles. hot is scratch space.
func settleLevel(prefix []float64, hot []bool, lo, hi, smooth int, lambda float64) float64 {
	for iter := 0; iter < 8; iter++ {
		clear(hot[lo:hi])
		for i := lo; i < hi; i++ {
			a, b := max(lo, i-smooth/2), min(hi, i-smooth/2+smooth)
			if prefix[b]-prefix[a] > hotThreshold(lambda*float64(b-a)) {
				for k := a; k < b; k++ {
					hot[k] = true
				}
			}
		}
		var sum float64
		var cnt int
		for i := lo; i < hi; i++ {
			if !hot[i] {
				sum += prefix[i+1] - prefix[i]
				cnt++
			}
		}
		if cnt == 0 {
			break
		}
		next := sum / float64(cnt)
		if math.Abs(next-lambda) <= 1e-9+1e-3*lambda {
			return next
		}
		lambda = next
	}
	return lambda
}

// findBursts marks bins whose smoothed count exceeds what Poisson background
// at the estimated level would plausibly give, and merges runs separated by
// fewer than mergeGap bins.
func findBursts(counts []float64, block, smooth, mergeGap int) ([]burst, []float64) {
	n := len(counts)
	prefix := make([]float64, n+1)
	for i, c := range counts {
		prefix[i+1] = prefix[i] + c
	}
	level := backgroundLevel(prefix, block, smooth)
	half := smooth / 2
	var out []burst
	open, last := -1, -1
	for i := 0; i < n; i++ {
		lo, hi := max(0, i-half), min(n, i-half+smooth)
		lambda := level[i] * float64(hi-lo)
		if prefix[hi]-prefix[lo] <= hotThreshold(lambda) || counts[i] == 0 {
			continue
		}
		if open >= 0 && i-last-1 < mergeGap {
			last = i
			continue
		}
		if open >= 0 {
			out = append(out, burst{open, last})
		}
		open, last = i, i
	}
	if open >= 0 {
		out = append(out, burst{open, last})
	}
	return out, level
}

// minWaveSize is the smallest excess over background that counts as a wave.
const minWaveSize = 3

// findWaves finds the waves of the whole timeline; with groups it also
// finds those of each runner the requeue delays tell apart.
//
// findWaves lets go of j's slices as it finishes with them, so that their
// memory can go back before its last passes over the attempts (see Run):
// a caller that reads the joins again gives it a copy.
func findWaves(j *joins, opt Options, groups bool) Waves {
	w := Waves{Waves: []Wave{}, Delays: []DelayStats{}, Suspects: []FixedDelay{}}
	s := pickSeries(j)
	defer spill.Free(s.times)
	w.Series = s.name
	// The delays read the calls and tasks alone, and are measured while
	// the series is searched.
	var delays sync.WaitGroup
	var measured []DelayStats
	var pastRetryAfter DelayStats
	goOrNow(&delays, func() {
		measured, pastRetryAfter = measureDelays(j)
		// Past the series, only the delays walk the attempt groups (the
		// runners' wave searches join their own): they go back as soon
		// as the delays are measured, while the series is searched.
		j.heads, j.nextAttempt = nil, nil
	})
	if len(s.times) < 2 {
		delays.Wait()
		w.Delays = measured
		return w
	}
	bw := int64(opt.BinWidth)
	if bw <= 0 {
		bw = autoBinWidth(s.times)
	}
	whole := false
	if !strings.Contains(s.name, "SDK log") && wholeSecondAttempts(j) && bw < int64(time.Second) {
		// Starts derived from whole-second completion stamps (less the
		// request time) keep the second's grid: finer bins would find it
		// as a 1 or 2 s period.
		bw, whole = int64(time.Second), true
	}
	// A series of few arrivals over a long span is cut to its busy part
	// or binned wider; times is what the search looks at from here on.
	times, bw, why := fitSpan(s.times, bw, opt.BinWidth <= 0, strings.TrimPrefix(strings.TrimPrefix(s.name, "all "), "batch "))
	window := [2]int64{math.MinInt64, math.MaxInt64}
	cut := len(times) < len(s.times)
	if cut {
		// The attempts of the comb search may reach a little past the
		// series, as far as the budget leaves room for.
		// Unsigned, and saturated at the ends of time.
		lo, hi := times[0], times[len(times)-1]
		pad := (uint64(binBudget(len(times))-2)*uint64(bw) - (uint64(hi) - uint64(lo))) / 2
		window = [2]int64{math.MinInt64, math.MaxInt64}
		// The differences wrap, and read unsigned are the distances.
		if pad < uint64(lo-math.MinInt64) {
			window[0] = lo - int64(pad)
		}
		if pad < uint64(math.MaxInt64-hi) {
			window[1] = hi + int64(pad)
		}
	}
	switch {
	case cut:
		j.warnf("%s", why)
	case why != "" && opt.BinWidth > 0:
		j.warnf("bin width %s asked, %s used: %s", opt.BinWidth, time.Duration(bw), why)
	case why != "":
		j.warnf("bins of %s: %s", time.Duration(bw), why)
	case opt.BinWidth > 0 && whole:
		j.warnf("bin width %s asked, %s used: the attempts are stamped to the whole second", opt.BinWidth, time.Duration(bw))
	}
	b := binSeries(times, bw)
	w.BinWidth = seconds(bw)
	w.Bins = len(b.counts)
	minLag := int64(opt.MinLag)
	if minLag <= 0 {
		minLag = max(3*bw, int64(2*time.Second))
	}
	minLagBins := int((minLag + bw - 1) / bw)
	w.MinLag = float64(minLagBins) * seconds(bw)
	w.MinRepeats = minRepeats

	// A series too short for any period still gets its bursts counted.
	pr := detectPeriod(b.counts, minLagBins, opt.Seed)
	periodBins := 0.0
	if pr.found {
		periodBins = pr.lag
		w.ACF = pr.acf
		w.Threshold = pr.threshold
		w.Significance = ratio(pr.acf, pr.threshold)
		w.CandidateSource = pr.source
		w.PeriodogramPower, w.PeriodogramThreshold = pr.power, pr.powerThreshold
	}

	smooth, mergeGap := max(1, minLagBins/3), max(1, minLagBins/2)
	if pr.found {
		// Smooth over a twentieth of the period but at least a second, so a
		// late wave of a few calls still stands out of the background.
		smooth = max(1, int(math.Round(periodBins/20)), int(int64(time.Second)/bw))
		mergeGap = max(1, int(periodBins/4))
	}
	block := max(len(b.counts)/8, 8*minLagBins)
	if pr.found {
		block = max(block, int(4*periodBins))
	}
	bursts, level := findBursts(b.counts, min(block, len(b.counts)), smooth, mergeGap)
	var centres []float64
	// centreErrs is each centre's standard error: how far the mean of a
	// wave's arrivals may stray from where its delay put it.
	var centreErrs []float64
	addWave := func(arrivals []int64, bg float64) {
		p5, p95 := quantileTimes(arrivals, 0.05), quantileTimes(arrivals, 0.95)
		// The mean, not the median, places the wave on the period's grid:
		// a wave of several retry-after attempts is multimodal, and its
		// median jumps from one attempt's cluster to the next.
		var sum float64
		for _, t := range arrivals {
			sum += float64(t - arrivals[0])
		}
		mean := float64(arrivals[0]) + sum/float64(len(arrivals))
		size := int64(len(arrivals)) - int64(math.Round(bg))
		w.Waves = append(w.Waves, Wave{Start: time.Unix(0, p5).UTC(), Width: seconds(p95 - p5), Size: size})
		centres = append(centres, mean)
		var squares float64
		for _, t := range arrivals {
			d := float64(t) - mean
			squares += d * d
		}
		centreErrs = append(centreErrs, math.Sqrt(squares)/float64(len(arrivals)))
		stop := time.Unix(0, arrivals[len(arrivals)-1]).UTC()
		w.BurstsStopped = &stop
	}
	addBursts := func(bursts []burst, level []float64) {
		for _, br := range bursts {
			lo, hi := b.t0+int64(br.lo)*bw, b.t0+int64(br.hi+1)*bw
			arrivals := between(times, lo, hi)
			var bg float64
			for i := br.lo; i <= br.hi; i++ {
				bg += level[i]
			}
			if int64(len(arrivals))-int64(math.Round(bg)) >= minWaveSize {
				addWave(arrivals, bg)
			}
		}
	}
	addBursts(bursts, level)
	if narrow := max(1, int(int64(time.Second)/bw)); pr.found && smooth > narrow {
		// Smoothing over a twentieth of a long period dilutes narrow waves
		// in a busy background until only the first stand out, or one in
		// the storm's midst sinks. Where that leaves too few on the grid
		// for a period (or for the grid's own evidence, under the
		// threshold), or a period with none between two that have one,
		// the bursts are looked for again over a second, and the second
		// look is kept if more waves land on the grid.
		_, on, members := refinePeriodGrid(periodBins*seconds(bw), seconds(bw), centres)
		var off []int
		for i, m := range members {
			if !m {
				off = append(off, i)
			}
		}
		if on < minRepeats || (pr.acf <= pr.threshold && on < minGridOnly) || longestSlotRun(centres, members, off, false, periodBins*seconds(bw)) < min(on, minRepeats) {
			kept, keptCentres, keptErrs, keptStop, keptLevel := w.Waves, centres, centreErrs, w.BurstsStopped, level
			w.Waves, centres, centreErrs, w.BurstsStopped = nil, nil, nil, nil
			var nb []burst
			nb, level = findBursts(b.counts, min(block, len(b.counts)), narrow, mergeGap)
			addBursts(nb, level)
			if _, on2, _ := refinePeriodGrid(periodBins*seconds(bw), seconds(bw), centres); on2 <= on {
				w.Waves, centres, centreErrs, w.BurstsStopped, level = kept, keptCentres, keptErrs, keptStop, keptLevel
			} else {
				smooth = narrow
			}
		}
	}
	if fine := max(1, minLagBins/2); pr.found && mergeGap > fine {
		// Bursts less than a quarter period apart are merged, and so are
		// the attempts of a retry comb whose spacing is that short: each
		// wave, or several, or the whole storm, becomes one burst. Where
		// too few then land on the grid, or a burst outlasts the period
		// (waves run together), the bursts are looked for again merged
		// only as far as without a period, and that look is kept if its
		// grid holds more waves less twice the bursts no comb explains
		// (the margin the grid test below asks for).
		margin := func() (int, int) {
			lag, on, members := refinePeriodGrid(periodBins*seconds(bw), seconds(bw), centres)
			return on, on - 2*strayBursts(centres, w.Waves, members, lag, pr.intraSpacing*seconds(bw), seconds(bw))
		}
		merged := false
		for _, wv := range w.Waves {
			merged = merged || wv.Width > periodBins*seconds(bw)
		}
		// A comb spaced less than twice the merge gap can have its
		// attempts merged or not as their calls spread over one bin or
		// two: some waves one burst, others several, and the grid
		// through the first kind misses the second's attempts.
		rounding := pr.intraSpacing > 0 && pr.intraSpacing < 2*float64(mergeGap) &&
			mergedAndApart(w.Waves, pr.intraSpacing*seconds(bw), seconds(bw))
		if on, m := margin(); on < minRepeats || merged || rounding {
			kept, keptCentres, keptErrs, keptStop, keptLevel := w.Waves, centres, centreErrs, w.BurstsStopped, level
			w.Waves, centres, centreErrs, w.BurstsStopped = nil, nil, nil, nil
			var nb []burst
			nb, level = findBursts(b.counts, min(block, len(b.counts)), smooth, fine)
			addBursts(nb, level)
			if _, m2 := margin(); m2 <= m {
				w.Waves, centres, centreErrs, w.BurstsStopped, level = kept, keptCentres, keptErrs, keptStop, keptLevel
			} else {
				mergeGap = fine
			}
		}
	}
	// isComb says whether a spacing is a retry comb inside the waves: the
	// waves repeat it, or the wire's retry-after says it is one (a busy
	// background can drown a long comb's attempts in the windows the
	// waves are checked in).
	// wireComb is the wire's comb spacing, and whether the wire shows
	// one, read once the delays are measured; onWireComb says whether a
	// spacing is that comb.
	var wireSpacing float64
	var wireRead, onWire bool
	wireComb := func() (float64, bool) {
		if !wireRead {
			delays.Wait()
			wireSpacing, onWire = wireCombSpacing(j, measured)
			wireRead = true
		}
		return wireSpacing, onWire
	}
	onWireComb := func(spacing float64) bool {
		wire, ok := wireComb()
		return ok && math.Abs(spacing-wire) <= max(gridTolerance*spacing, 1.5*seconds(bw))
	}
	isComb := func(spacing float64) bool {
		return combInWaves(countIn(s.times), w.Waves, spacing, bw) || onWireComb(spacing)
	}
	if pr.intraSpacing > 0 && !isComb(pr.intraSpacing*seconds(bw)) {
		// A spacing that is no comb must not keep the bursts from being
		// read as one: a third of a comb's own spacing can stand out of
		// its ACF.
		pr.intraSpacing, pr.intraACF, pr.intraThreshold = 0, 0, 0
	}
	if pr.found && pr.intraSpacing == 0 && !strings.Contains(s.name, "call starts") {
		// Bursts one lag apart that come in groups, the groups repeating
		// at a longer period, are a retry comb inside waves whose own
		// period the ACF did not single out (a few waves, or fast decay,
		// leave its hill below the comb's). Call starts count each call
		// once, so they hold no comb: bursts alike in size there are a
		// slowly decaying storm, not a wave's attempts.
		lagOnWire := onWireComb(periodBins * seconds(bw))
		outer, ok := groupPeriod(centres, periodBins*seconds(bw), seconds(bw), lagOnWire)
		// Where the wire's retry-after is the lag, the bursts are known to
		// be attempts, and their sizes need only say where each wave
		// begins; elsewhere they must also rule out a storm that merely
		// decays.
		onWire := !ok && lagOnWire
		if !ok {
			outer, ok = sizeGroupPeriod(centres, w.Waves, periodBins*seconds(bw), seconds(bw), false, onWire)
		}
		if !ok {
			outer, ok = alternatingPeriod(centres, w.Waves, periodBins*seconds(bw), seconds(bw), onWire)
		}
		if !ok {
			outer, ok = gapRunPeriod(centres, periodBins*seconds(bw), seconds(bw), false)
		}
		if !ok {
			// Where the bursts' spacing is the retry-after comb the wire
			// shows, they are a wave's attempts, and weaker evidence of
			// where each wave begins will do; it is asked for only once
			// every reading that needs no such knowledge has failed, so
			// that a comb of two attempts is still read from its pairs.
			if onWire {
				outer, ok = sizeGroupPeriod(centres, w.Waves, periodBins*seconds(bw), seconds(bw), true, true)
				if !ok {
					outer, ok = gapRunPeriod(centres, periodBins*seconds(bw), seconds(bw), true)
				}
			}
		}
		if ok {
			lag := outer / seconds(bw)
			if k := int(math.Round(lag)); pr.curveStep == 1 && k+1 < len(pr.curve) {
				pr.intraSpacing, pr.intraACF, pr.intraThreshold = periodBins, pr.acf, pr.threshold
				pr.acf = max(pr.curve[k-1], pr.curve[k], pr.curve[k+1])
				pr.lag, periodBins = lag, lag
				w.ACF, w.Significance = pr.acf, ratio(pr.acf, pr.threshold)
				w.CandidateSource = sourceGroups
			}
		}
	}
	// levelAt is the background level per bin at a time.
	levelAt := func(t int64) float64 { return level[min(len(level)-1, max(0, int((t-b.t0)/bw)))] }
	// arrivalsDue is the arrivals in the window reaching at least reach
	// either side of where a wave is due; the background expected in it;
	// and its width in bins. A narrow window keeps the expected
	// background tiny.
	arrivalsDue := func(due, reach int64, period float64) (arrivals []int64, lambda float64, bins int) {
		half := max(reach, int64(period*1e9/40))
		// Never wider than a quarter period: a window reaching back into
		// the wave before would find it again.
		half = min(half, int64(period*1e9/4))
		bins = int(2 * half / bw)
		return between(times, due-half, due+half), levelAt(due) * float64(bins), bins
	}
	// cameBack reports whether at least half of expect arrivals over the
	// background came within a wave's width (of the wave a period before)
	// of where it is due: the wave there, whether or not it stood out as
	// a burst. Where half of expect would not stand out of the
	// background's noise (three standard deviations), an empty point
	// cannot be told from a wave's tail, and the wave is taken to have
	// come back. The background is taken halfway back to that wave: a
	// wave that no burst was found for is background to the level where
	// it lies.
	cameBack := func(due int64, width, period float64, expect int64) bool {
		arrivals, _, bins := arrivalsDue(due, max(int64(width*1e9), 2*bw), period)
		lambda := levelAt(due-int64(period*1e9/2)) * float64(bins)
		half := float64(expect) / 2
		return half < 3*math.Sqrt(lambda) || float64(len(arrivals))-lambda >= half
	}
	// nextDue is arrivalsDue where the wave after the last is due, one
	// period on.
	nextDue := func(period float64, minHalf int64) (arrivals []int64, lambda float64, bins int) {
		// Within twice the last wave's width of it.
		return arrivalsDue(int64(centres[len(centres)-1]+period*1e9), max(int64(2*w.Waves[len(w.Waves)-1].Width*1e9), minHalf), period)
	}
	// dueWaves adds the waves due every period after the last: the last
	// waves of a decaying storm can be too small to stand out of the
	// background on their own, but where the period says the next wave is
	// due, even a few calls above background are one. It returns how many
	// it added.
	dueWaves := func(period float64) int {
		added := 0
		for len(centres) > 0 {
			arrivals, lambda, _ := nextDue(period, 2*bw)
			if len(arrivals) == 0 || float64(len(arrivals)) <= lambda+3*math.Sqrt(lambda) {
				return added
			}
			addWave(arrivals, lambda)
			added++
		}
		return added
	}
	// takeBurstLag makes a lag the bursts found (lagBins bins, k rounded)
	// the candidate in place of the ACF's: its ACF is the raw curve's
	// there, and the ACF's comb goes with the ACF's lag.
	takeBurstLag := func(lagBins float64, k int) {
		w.ACF, w.Significance, w.CandidateSource = pr.rawACF[k], ratio(pr.rawACF[k], pr.threshold), sourceBursts
		pr.intraSpacing, pr.intraACF, pr.intraThreshold = 0, 0, 0
		pr.lag, pr.acf, pr.curve, pr.curveStep = lagBins, pr.rawACF[k], pr.rawACF, 1
	}
	// periodMembers is which bursts the last judgement's period keeps to.
	var periodMembers []bool
	// judge decides whether the bursts found make a period, and fills in
	// the period, its evidence or the reason it was rejected.
	judge := func() {
		var onGrid int
		var members []bool
		w.BestLag, onGrid, members = refinePeriodGrid(periodBins*seconds(bw), seconds(bw), centres)
		// onPeriod is which bursts the period accepted keeps to.
		onPeriod := members
		w.OnGrid = onGrid
		if pr.intraSpacing > 0 && !isComb(pr.intraSpacing*seconds(bw)) {
			// A spacing the waves do not repeat is no comb.
			pr.intraSpacing, pr.intraACF, pr.intraThreshold = 0, 0, 0
		}
		// Three waves at the period, not just three bursts anywhere, and
		// few bursts elsewhere: bursts at random times make ACF peaks at
		// random lags, and a few of them always fall on some grid. A wave
		// whose retry-after attempts stand apart is several bursts, one
		// on the grid and the rest a whole number of comb spacings from
		// it; only bursts that are neither count against the period.
		strayIdx, shared := strays(centres, w.Waves, members, w.BestLag, pr.intraSpacing*seconds(bw), seconds(bw))
		strayIdx = dropTail(strayIdx, centres, w.Waves, members, w.BestLag)
		w.FirstWaveGap, w.FirstWaveCallDifference = 0, 0
		if len(strayIdx) > 0 && strayIdx[0] == 0 {
			if gap, diff, ok := firstWaveCallsDiffer(j, centres, w.Waves, members, w.BestLag, seconds(bw)); ok {
				strayIdx = strayIdx[1:]
				w.FirstWaveGap, w.FirstWaveCallDifference = gap, diff
			}
		}
		stray := strayCount(strayIdx, shared)
		// A wave's attempts merged into one burst span several of its
		// comb's spacings: the ACF's, or the wire's fixed retry-after.
		combSpacing := pr.intraSpacing * seconds(bw)
		if combSpacing == 0 && onGrid > minRepeats {
			if wire, ok := wireComb(); ok {
				combSpacing = wire
			}
		}
		mergedComb := max(pr.intraSpacing*seconds(bw), mergedCombSpan(w.Waves, members, combSpacing))
		// Waves wider than sharpWaves allows are still a storm's where
		// they narrow as it shrinks and every burst is on the grid, but
		// for a first wave whose calls' length explains its place:
		// three random bursts of five shrank and narrowed on a 612 s
		// grid, the other two off it (stream 11018, trace 74).
		allButFirst := onGrid == len(centres) || (onGrid == len(centres)-1 && !members[0] && w.FirstWaveGap > 0)
		sharp := (onGrid > minRepeats && !runTogether(w.Waves, members, w.BestLag, mergedComb)) ||
			sharpWaves(w.Waves, members, w.BestLag, pr.intraSpacing*seconds(bw), seconds(bw)) ||
			(allButFirst && narrowsAsItShrinks(w.Waves, members, w.BestLag, pr.intraSpacing*seconds(bw), seconds(bw)))
		// A burst outlasting the period would run into the next wave:
		// it is bursts run together, not a wave.
		apart := true
		for i, on := range members {
			apart = apart && !(on && w.Waves[i].Width > w.BestLag)
		}
		// Under a weak ACF, a burst of a few calls on the grid that a
		// later wave outgrows is the background's clump, not a wave: a
		// storm's waves only shrink. It does not count towards the
		// repeats.
		clumps := 0
		if allowedGrowth(pr.acf, pr.threshold) == 1 {
			clumps = outgrownClumps(w.Waves, members)
			if !holdsStormWave(w.Waves, members) {
				// A storm begins with its largest wave: a grid of bursts
				// of a few calls each has no storm to replay.
				clumps = onGrid
			} else if len(centres) == minRepeats && stormWaves(w.Waves, members) < 2 {
				// A storm's second wave is its first's failures sent
				// again: where only one of three bursts is more than a
				// clump, the clumps alone would make the period.
				clumps = onGrid
			}
		}
		gridded := onGrid-clumps >= minRepeats && 2*stray <= onGrid
		// A fixed delay replays one storm: its waves come every period
		// until it ends, and each is what the waves before it left.
		// A clump that a later wave outgrows holds no wave: its period
		// is an empty one.
		runCentres, runMembers, runStrays := centres, members, strayIdx
		if allowedGrowth(pr.acf, pr.threshold) == 1 {
			runCentres, runMembers, runStrays = dropClumps(centres, w.Waves, members, strayIdx)
		}
		run := longestSlotRun(runCentres, runMembers, runStrays, shared, w.BestLag)
		inRow := run >= minRepeats
		// Three bursts on the grid and no more make the ACF between them
		// alone, however far over its threshold: only their sizes tell one
		// storm replayed from bursts at random times, and a storm's waves
		// only shrink.
		growth := allowedGrowth(pr.acf, pr.threshold)
		if onGrid <= minRepeats {
			growth = 1
		}
		smaller, larger, grows := outgrowsSurvivors(w.Waves, members, growth)
		wave, retry, retriesGrow := -1, -1, false
		if pr.intraSpacing > 0 {
			wave, retry, retriesGrow = retriesOutgrowWave(centres, w.Waves, members, strayIdx, w.BestLag)
		}
		w.Periodic = pr.acf > pr.threshold && gridded && sharp && apart && inRow && !grows && !retriesGrow
		switch {
		case pr.acf <= pr.threshold:
		case !gridded:
			w.Rejected = rejectedGrid
		case !sharp:
			w.Rejected = rejectedWide
		case !apart:
			w.Rejected = rejectedOverlap
		case !inRow:
			w.Rejected, w.GridRun = rejectedScattered, run
		case grows:
			w.Rejected, w.Outgrown = rejectedGrowth, []int64{w.Waves[smaller].Size, w.Waves[larger].Size}
		case retriesGrow:
			w.Rejected, w.Outgrown = rejectedRetries, []int64{w.Waves[wave].Size, w.Waves[retry].Size}
		}
		// Every burst is on the grid, or at one offset from it with as
		// many waves: each wave's retry, a second grid beside the first.
		allOnGrids := onGrid == len(centres)
		// Every burst off the grid is a retry of a wave on it, a whole
		// number of spacings of a comb the waves repeat.
		combed := pr.intraSpacing > 0 && len(strayIdx) == 0 && onGrid < len(centres)
		if shared && len(strayIdx) >= minRepeats {
			// Retries at one offset from every wave are a grid of their
			// own, as a comb of two attempts makes: structure, not bursts
			// that might have lined up by chance.
			allOnGrids = allOnGrids || onGrid+len(strayIdx) == len(centres)
			strayIdx = nil
		}
		if w.Periodic && len(strayIdx) > 0 && pr.acf <= strongGridACF*pr.threshold {
			// Only a weak ACF needs the test: random bursts that line up
			// lift it a little over its shuffled threshold, while an ACF
			// several times over it is a repeat across the whole series,
			// which a stray burst or two beside the waves cannot make.
			tested, testedOn := gridAndStrays(centres, members, strayIdx)
			chance := gridChance(tested, testedOn, w.BestLag, seconds(bw), float64(mergeGap)*seconds(bw), w.MinLag, opt.Seed)
			w.GridChance, w.MaxGridChance = &chance, maxGridChance
			if chance > maxGridChance {
				w.Periodic, w.Rejected = false, rejectedChance
			}
		}
		if w.Periodic && onGrid == minRepeats && stormWaves(w.Waves, members) == minRepeats {
			// Three bursts on the grid make the period alone, and the
			// grid's tolerance lets the middle one sit a few per cent of
			// the period from its place: halfway, or wherever the grid
			// puts it when the three are not in consecutive periods
			// (stream 8024, trace 121: a storm's first, second and fourth
			// waves). A fixed delay puts it there to within the waves' own
			// spread; bursts at random times seldom land that close, and
			// with bursts off the grid to choose from, some three of them
			// often line up that loosely (stream 8044, trace 254: three of
			// five random bursts 297 s apart, the middle 34 standard
			// errors off). A burst of a few calls is not asked: it may be
			// a fragment of its wave over the background, its centre off
			// the wave's by more than its own spread says.
			if offset, stdErr, off := midwayOffGrid(centres, centreErrs, members, w.BestLag, seconds(bw)); off {
				w.Periodic, w.Rejected = false, rejectedUneven
				w.MidwayOffset, w.MidwayError = offset, stdErr
			}
		}
		if w.Periodic {
			w.PeriodEvidence = evidenceACF
		} else if pr.acf <= pr.threshold && pr.acf > weakGridACFShare*pr.threshold && sharp && apart && inRow && !grows &&
			((onGrid-clumps >= minGridOnly && allOnGrids && (pr.acf > gridACFShare*pr.threshold || shrinksAsStorm(w.Waves, members))) ||
				(combed && onGrid-clumps >= minRepeats && len(centres)-clumps >= minGridOnly && shrinksAsStorm(w.Waves, members) && midwayOnGrid(centres, centreErrs, members, w.BestLag, seconds(bw)))) {
			// A short series (a few waves stamped to the whole second)
			// gives the shuffled-bin test little room: its threshold is
			// high, and a period that is not a whole number of bins splits
			// the ACF's peak between two lags. Every burst keeping to one
			// grid (or to it and its retries' grid) is evidence of its own
			// there. So are three waves of a storm whose every other burst
			// is their retry comb, at whole spacings the waves repeat:
			// nine bursts of three four-attempt waves over 54 whole seconds
			// leave the ACF at 0.85 of its threshold (the combined log of
			// the recording openai-ra4-fixed12-max3-short). Three waves
			// still need their middle where the period puts it.
			w.Periodic, w.PeriodEvidence = true, evidenceGrid
		} else if lag, on, ok := burstGridPeriod(centres, seconds(bw), w.MinLag); ok {
			// The ACF's lag is no period, yet every burst keeps to a grid
			// of its own: a storm of few waves stamped to the whole second
			// over a long quiet span, whose background (a bin each second)
			// outweighs the waves in the ACF. The bursts are evidence
			// enough when they are one storm replayed (four or more
			// periods in a row, none outgrowing an earlier one, sharp and
			// apart), the ACF agrees in sign, and random bursts seldom
			// line up as well. An ACF over its threshold at that lag is
			// no such dilution: its own tests judged the lag.
			k := int(math.Round(lag / seconds(bw)))
			gridAgrees := k < len(pr.rawACF) && pr.rawACF[k] > 0 && pr.rawACF[k] <= pr.threshold
			storm := shrinksAsStorm(w.Waves, on) && len(centres)-outgrownClumps(w.Waves, on) >= minGridOnly
			sharpOn := sharpWaves(w.Waves, on, lag, 0, seconds(bw))
			if gridAgrees && storm && sharpOn && noneWiderThan(w.Waves, lag) {
				chance := gridChance(centres, on, lag, seconds(bw), float64(mergeGap)*seconds(bw), w.MinLag, opt.Seed)
				if chance <= maxBurstGridChance {
					w.Periodic, w.PeriodEvidence, w.Rejected = true, evidenceGrid, ""
					onPeriod = on
					w.BestLag, w.OnGrid, w.GridChance, w.MaxGridChance = lag, len(centres), &chance, maxBurstGridChance
					takeBurstLag(lag/seconds(bw), k)
				}
			}
		}
		if !w.Periodic && len(centres) == minRepeats {
			// Three bursts and no more, too few for the grid's own
			// evidence above, with the ACF at their spacing short of its
			// threshold (a storm of three waves over a long quiet span).
			// They are a storm's waves when they shrink as one does, the
			// middle one sits halfway between the others to within the
			// waves' spread, and the middle of bursts at random times
			// seldom lands that close: at most maxMidwayChance of the
			// room between them.
			lag := (centres[2] - centres[0]) / 2e9
			k := int(math.Round(lag / seconds(bw)))
			if lag >= w.MinLag && k < len(pr.rawACF) && pr.rawACF[k] > weakGridACFShare*pr.threshold && pr.rawACF[k] <= pr.threshold {
				period, n, on := refinePeriodGrid(lag, seconds(bw), centres)
				storm := n == minRepeats && shrinksAsStorm(w.Waves, on) && stormWaves(w.Waves, on) >= 2
				sharpOn := sharpWaves(w.Waves, on, period, 0, seconds(bw))
				offset, stdErr := midway(centres, centreErrs, seconds(bw))
				midwayShare := midwayChance(centres, offset, stdErr, float64(mergeGap)*seconds(bw))
				chance := midwayShare
				bar := maxMidwayChance
				var next []int64
				var expected float64
				var nextChance *float64
				if storm && sharpOn && chance > maxMidwayChance {
					// Bursts a few bins apart leave the middle few places
					// to land in, too few for its place alone to tell. A
					// fixed delay keeps its grid after the bursts stop:
					// the storm's next wave, too small to stand out as a
					// burst, is due a period after the last. Where
					// background alone seldom brings as many arrivals
					// there, they are that wave, four waves stand on one
					// grid, and the burst grid's bar holds for how often
					// the middle's place and that count come about
					// together (independent under bursts at random times
					// over background). A quiet background's level is
					// taken no lower than three arrivals over the whole
					// series, the most that seeing none rules out.
					var bins int
					next, expected, bins = nextDue(period, bw)
					expected = max(expected, 3*float64(bins)/float64(len(b.counts)))
					if tail := poissonAtLeast(len(next), expected); tail <= maxNextWaveChance {
						nextChance = &tail
						chance, bar = bothByChance(midwayShare, tail), maxBurstGridChance
					}
				}
				var rhythmChanceOf *float64
				var rhythm taskRhythm
				if storm && sharpOn && chance > bar {
					// The tasks' own rhythm, where a fixed delay makes it
					// one spacing, names the period before the bursts are
					// looked at: bursts at random times keep to it only
					// as often as their spacing lands that close to it,
					// independent of where the middle one lands. It is
					// measured only here, where it can decide.
					var one bool
					rhythm, one = measureTaskRhythm(j, rhythmResolution(j))
					tol := max(periodTolerance*period, seconds(bw))
					if one && math.Abs(period-rhythm.spacing) <= tol {
						share := rhythmChance(tol, w.MinLag, float64(len(b.counts))*seconds(bw))
						if both := bothByChance(midwayShare, share); both <= maxBurstGridChance {
							rhythmChanceOf = &share
							chance, bar = both, maxBurstGridChance
							nextChance = nil
						}
					}
				}
				if storm && sharpOn && noneWiderThan(w.Waves, period) && offset <= maxMidwayErrors*stdErr && chance <= bar {
					w.Periodic, w.PeriodEvidence, w.Rejected = true, evidenceGrid, ""
					onPeriod = on
					w.BestLag, w.OnGrid, w.GridChance, w.MaxGridChance = period, n, &chance, bar
					w.MidwayOffset, w.MidwayError, w.MidwayChance = offset, stdErr, midwayShare
					if nextChance != nil {
						w.NextWaveArrivals, w.NextWaveExpected, w.NextWaveChance = len(next), expected, nextChance
					}
					if rhythmChanceOf != nil {
						w.TaskRhythm = &TaskRhythm{Spacing: rhythm.spacing, Low: rhythm.low, High: rhythm.high, Gaps: rhythm.n, Chance: *rhythmChanceOf}
					}
					if math.Abs(float64(k)-pr.lag) > 1 {
						// The ACF singled out another lag: the bursts
						// made this candidate.
						takeBurstLag(float64(k), k)
					}
				}
			}
		}
		if w.Periodic {
			w.Period = w.BestLag
			w.IntraWaveSpacing = pr.intraSpacing * seconds(bw)
			if pr.intraSpacing > 0 {
				w.IntraWaveACF, w.IntraWaveThreshold = pr.intraACF, pr.intraThreshold
			} else if !strings.HasSuffix(s.name, "attempts") {
				w.IntraWaveSpacing, w.IntraWaveACF, w.IntraWaveThreshold, w.IntraWaveSeries = attemptComb(j, window, bw, minLagBins, w.Period/seconds(bw), opt.Seed)
			}
			dueWaves(w.Period)
			// A fixed delay keeps its waves while the throttling lasts:
			// each throttled call it holds back comes again one period
			// later. Where the throttling goes on at a quarter of its
			// pace or more once the bursts have stopped, the waves due
			// after them included (counted in as long a stretch as the
			// bursts took, so that a long log after a storm that ended
			// does not count), they were one synchronised start retried
			// at that spacing (a retry-after comb), and the storm after
			// them was spread out: the spacing is not the storm's period.
			from, stop := w.Waves[0].Start.UnixNano(), w.BurstsStopped.UnixNano()
			after := stop + int64(w.Period*1e9)
			afterEnd := after + stop - from
			during := throttledBetween(j, from, stop)
			next := throttledBetween(j, after, afterEnd)
			if during > 0 && 4*next >= during && !onGridContinued(j, w.Waves, centres, members, w.Period, bw, after, afterEnd) {
				w.Periodic, w.Period, w.PeriodEvidence, w.Rejected = false, 0, "", rejectedOutlasted
				w.IntraWaveSpacing, w.IntraWaveACF, w.IntraWaveThreshold, w.IntraWaveSeries = 0, 0, 0, ""
				w.ThrottledDuringBursts, w.ThrottledAfterBursts = during, next
			}
		}
		if w.Periodic {
			if failed, wave, ok := outnumbersFailures(j, w.Waves, onPeriod); ok {
				w.Periodic, w.Period, w.PeriodEvidence, w.Rejected = false, 0, "", rejectedUnfailed
				w.IntraWaveSpacing, w.IntraWaveACF, w.IntraWaveThreshold, w.IntraWaveSeries = 0, 0, 0, ""
				w.Outgrown = []int64{failed, w.Waves[wave].Size}
			}
		}
		if w.Periodic {
			if wave, throttled, after, ok := skippedSlot(j, w.Waves, centres, onPeriod, w.Period, seconds(bw), cameBack); ok {
				w.Periodic, w.Period, w.PeriodEvidence, w.Rejected = false, 0, "", rejectedSkipped
				w.IntraWaveSpacing, w.IntraWaveACF, w.IntraWaveThreshold, w.IntraWaveSeries = 0, 0, 0, ""
				w.Skipped = &SkippedSlot{Wave: w.Waves[wave].Start, Throttled: throttled, NextAfter: after}
			}
		}
		periodMembers = onPeriod
	}
	if pr.found {
		// A short storm of whole-second stamps can leave its fourth wave
		// too small to stand out of the background on its own, and three
		// bursts on a grid are too few for the grid's own evidence when
		// the ACF falls just short of its threshold. A storm that sheds
		// half its calls a wave over a busy background can likewise leave
		// two bursts, the ACF over its threshold at their spacing, and its
		// third wave a few calls above the background where that spacing
		// says it is due. The waves the grid says are due are looked for,
		// and kept only if the period then holds on its own evidence, with
		// every wave sharp (more than three on the grid excuse wide ones
		// elsewhere, but here the extra waves were only looked for because
		// of the grid); otherwise the judgement is made again on the
		// bursts alone.
		lag, on, _ := refinePeriodGrid(periodBins*seconds(bw), seconds(bw), centres)
		savedW, savedCentres, savedErrs, savedPR := w, centres, centreErrs, pr
		weakOnThree := pr.acf <= pr.threshold && pr.acf > gridACFShare*pr.threshold && on >= minRepeats
		strongOnTwo := pr.acf > pr.threshold && on == minRepeats-1
		extended := (weakOnThree || strongOnTwo) && on == len(centres) && on < minGridOnly && dueWaves(lag) > 0
		judge()
		if extended && !(w.Periodic && sharpWaves(w.Waves, slices.Repeat([]bool{true}, len(w.Waves)), w.BestLag, 0, seconds(bw))) {
			w, centres, centreErrs, pr = savedW, savedCentres, savedErrs, savedPR
			judge()
		}
	}
	if w.IntraWaveSpacing > 0 {
		count := countIn(times)
		if w.IntraWaveSeries != "" {
			attempts, _ := attemptStartsIn(j, window)
			count = attempts.count
		}
		if !combInWaves(count, w.Waves, w.IntraWaveSpacing, bw) && !onWireComb(w.IntraWaveSpacing) {
			w.IntraWaveSpacing, w.IntraWaveACF, w.IntraWaveThreshold, w.IntraWaveSeries = 0, 0, 0, ""
		}
	}
	if w.Periodic && w.IntraWaveSpacing > 0 && w.IntraWaveSeries == "" {
		// The comb's attempts that stand apart as bursts of their own are
		// their wave's retries: a wave is counted, sized and fitted whole,
		// as where its attempts run together.
		folded := foldComb(centres, w.Waves, periodMembers, w.Period, w.IntraWaveSpacing, seconds(bw))
		w.CombBursts, w.Waves = len(w.Waves)-len(folded), folded
	}
	w.ACFCurve, w.ACFLagStep = acfCurve(pr, w.Period/seconds(bw), bw)
	countWaveAttempts(j, w.Waves)
	if len(w.Waves) >= 3 {
		sizes := make([]float64, len(w.Waves))
		for i, wv := range w.Waves {
			sizes[i] = float64(wv.Size)
		}
		proj := projectDecay(sizes)
		w.DecayRatio, w.DecayR2 = proj.ratio, proj.r2
		w.DecayLow, w.DecayHigh, w.DecayFirst = proj.low, proj.high, proj.first
		w.ProjectedWaves, w.ProjectedWavesHigh = proj.waves, proj.wavesHigh
		if w.Periodic && proj.waves > 0 {
			end := w.Waves[0].Start.Add(time.Duration(float64(proj.waves-1) * w.Period * 1e9))
			w.ProjectedEnd = &end
		}
	}
	period := 0.0
	if w.Periodic {
		period = w.Period
	}
	if len(w.Waves) > 0 && lastWaveSucceeded(j, w.Waves[len(w.Waves)-1], period, seconds(bw)) {
		// A wave with no failed call leaves nothing to requeue: the storm is
		// over, whatever the decay fit would extrapolate.
		w.Ended = true
		w.ProjectedWaves, w.ProjectedWavesHigh = len(w.Waves), len(w.Waves)
		w.ProjectedEnd = nil
	}
	if !w.Periodic {
		// Only a period puts the first wave off its grid.
		w.FirstWaveGap, w.FirstWaveCallDifference = 0, 0
	}
	delays.Wait()
	w.Delays = measured
	if w.Periodic {
		w.Suspects, w.UnseenDelay = explainPeriod(j, w.Period, w.Delays, pastRetryAfter)
	}
	if groups {
		w.Groups = findGroupWaves(j, opt)
	}
	// The anatomy reads the attempts alone: calls, queue attempts and
	// tasks can go back before its passes over them.
	j.calls, j.queueAttempts, j.queueCalls, j.tasks, j.taskQueueAttempts = nil, nil, nil, nil, nil
	describeAnatomy(j, &w)
	return w
}

// onGridContinued reports whether the throttled attempts of the series'
// class in [from, to] keep to the grid of the waves on it, carried on
// past the last of them: more than twice as dense within reach of its
// points as between them. A storm whose later waves were too small to
// find as bursts still throttles on its grid; a storm spread out by a
// jittered delay throttles evenly.
func onGridContinued(j *joins, waves []Wave, centres []float64, onGrid []bool, period float64, binWidth, from, to int64) bool {
	var anchor float64
	var widths []float64
	for i, on := range onGrid {
		if on {
			anchor = centres[i]
			widths = append(widths, waves[i].Width)
		}
	}
	if len(widths) == 0 || to <= from {
		return false
	}
	slices.Sort(widths)
	// Within half the waves' usual width of a point, and a bin either side
	// for the stamps' rounding.
	reach := widths[len(widths)/2]/2*1e9 + float64(binWidth)
	step := period * 1e9
	if 2*reach >= step {
		// Waves as wide as the period leave no time between points: the
		// throttling cannot be shown to have left the grid.
		return true
	}
	// The period is known to a few per cent, and the grid is carried on
	// over as many periods as the bursts took: an error that small walks
	// the later points off their waves. Periods within half the grid's
	// tolerance are tried, each step moving the stretch's far end by at
	// most half the reach, and the one that keeps most throttles near its
	// points is judged.
	var times []float64 // from the anchor, ascending
	for t := range throttledIn(j, from, to) {
		times = append(times, float64(t)-anchor)
	}
	if len(times) == 0 {
		return false
	}
	delta := max(reach/2*step/(float64(to)-anchor), 1e-6*step)
	tries := int(math.Ceil(gridTolerance / 2 * step / delta))
	var near int
	for k := -tries; k <= tries; k++ {
		if p := step + float64(k)*delta; 2*reach < p {
			near = max(near, nearGridPoints(times, p, reach))
		}
	}
	share := 2 * reach / step
	// Densities: near over the share of time near a point, far over the
	// rest.
	return float64(near)/share > 2*float64(len(times)-near)/(1-share)
}

// nearGridPoints counts the ascending times within reach of a multiple
// of step, which is more than twice reach.
func nearGridPoints(times []float64, step, reach float64) int {
	n := 0
	first, last := times[0], times[len(times)-1]
	for m := math.Ceil((first - reach) / step); m*step-reach <= last; m++ {
		lo, _ := slices.BinarySearch(times, m*step-reach)
		hi, found := slices.BinarySearch(times, m*step+reach)
		for found && hi < len(times) && times[hi] == m*step+reach {
			hi++
		}
		n += hi - lo
	}
	return n
}

// throttledBetween counts the throttled attempts in [from, to] of the
// series' class.
func throttledBetween(j *joins, from, to int64) int64 {
	var n int64
	for range throttledIn(j, from, to) {
		n++
	}
	return n
}

// outnumbersFailures finds a wave on the grid that holds more requests
// than failed, past counting noise, in the wave on the grid before it and
// the lulls either side: wave is its index, failed that count. A
// fixed delay sends again only what failed, so each wave of one storm
// after its first is at most what the period before it left; bursts at
// random times, most of whose requests succeed, that happen to keep to a
// grid are not. The storm's first wave is new work, so the waves are
// compared from the first that is more than a clump of the background.
func outnumbersFailures(j *joins, waves []Wave, onGrid []bool) (failed int64, wave int, ok bool) {
	margin := wholeSecondMargin(j)
	var idx []int
	var bursts [][2]int64
	for i, on := range onGrid {
		if on && (len(idx) > 0 || waves[i].Size >= minFloorWave) {
			idx = append(idx, i)
			from := waves[i].Start.UnixNano() - margin
			bursts = append(bursts, [2]int64{from, from + int64(waves[i].Width*1e9) + 2*margin})
		}
	}
	// A wave's failures are counted up to the middle of the lull after
	// its burst, not to the next burst's start: a burst found a little
	// late, or a clump of the background taken for its start, must not
	// hand the wave's own failures to the stretch before it.
	cuts := make([]int64, len(bursts))
	for k := range bursts {
		switch {
		case k > 0:
			cuts[k] = min((bursts[k-1][1]+bursts[k][0])/2, bursts[k][0])
		case len(bursts) > 1:
			cuts[k] = bursts[0][0] - max(bursts[1][0]-bursts[0][1], 0)/2
		default:
			cuts[k] = bursts[0][0]
		}
	}
	fails, raw, known := failuresBetween(j, bursts, cuts)
	if !known {
		return 0, 0, false
	}
	sizes := make([]int64, len(idx))
	for k, i := range idx {
		sizes[k] = waves[i].Size
	}
	k, ok := outnumbered(sizes, raw, fails)
	if !ok {
		return 0, 0, false
	}
	return fails[k-1], idx[k], true
}

// outnumbered finds the first wave k (from 1) whose size, net of the
// background, is larger than the failures in the stretch before it,
// fails[k-1], past the counting noise of both: raw[k] is the count in the
// wave's burst before the background came off.
func outnumbered(sizes, raw, fails []int64) (int, bool) {
	for k := 1; k < len(sizes) && k-1 < len(fails); k++ {
		background := float64(max(raw[k]-sizes[k], 0))
		f := float64(fails[k-1])
		if float64(sizes[k]) > f+3*math.Sqrt(f+2*background)+3 {
			return k, true
		}
	}
	return 0, false
}

// failuresBetween counts, of the series' class (batch where there is
// one), the failed attempts in each stretch from one cut to the next, and
// all the requests in each burst. Attempts, not calls: a call whose first
// attempt was throttled and whose retry got through sent that retry
// because of the throttle, as a concurrency limit's next calls wait on it,
// so its throttled attempt is part of what a later wave replays. Without
// an HTTP log a call's failed attempts are those before its last, and its
// last if the call failed, all at its start; a call whose attempts are not
// logged failed one at least. An unknown outcome counts as failed; known
// is false when no outcome is known, and then nothing can be told.
func failuresBetween(j *joins, bursts [][2]int64, cuts []int64) (fails, raw []int64, known bool) {
	if len(bursts) < 2 {
		return nil, nil, false
	}
	fails, raw = make([]int64, len(cuts)-1), make([]int64, len(bursts))
	attempts := len(j.http) > 0
	var batch bool
	if attempts {
		batch = hasClass(j, timeline.ClassBatch)
	} else {
		batch = callsHaveClass(j, timeline.ClassBatch)
	}
	add := func(start int64, class timeline.Class, outcome timeline.Outcome, failed int64) {
		if batch && class != timeline.ClassBatch {
			return
		}
		known = known || outcome != timeline.OutcomeUnknown
		// The bursts and cuts are in time order: the last one starting
		// at or before this request is the only one it can be in.
		if b := sort.Search(len(bursts), func(k int) bool { return bursts[k][0] > start }) - 1; b >= 0 && start <= bursts[b][1] {
			raw[b]++
		}
		k := sort.Search(len(cuts), func(k int) bool { return cuts[k] > start }) - 1
		if k >= 0 && k < len(fails) {
			fails[k] += failed
		}
	}
	if !attempts {
		for i := range j.calls {
			c := &j.calls[i]
			failed := int64(max(c.attempts-1, 0))
			if c.outcome != timeline.OutcomeOK {
				failed++
			}
			add(c.start, c.class, c.outcome, failed)
		}
		return fails, raw, known
	}
	for _, i := range j.http {
		e := &j.tl.Events[i]
		var failed int64
		if e.Outcome != timeline.OutcomeOK {
			failed = 1
		}
		add(e.Start, e.Class, e.Outcome, failed)
	}
	return fails, raw, known
}

// throttledIn yields the start of each throttled attempt in [from, to] of
// the series' class (batch where there is one). The attempts are in time
// order, so only the stretch is read.
func throttledIn(j *joins, from, to int64) iter.Seq[int64] {
	return func(yield func(int64) bool) {
		batch := hasClass(j, timeline.ClassBatch)
		lo, _ := slices.BinarySearchFunc(j.http, from, func(i int32, t int64) int { return cmp.Compare(j.tl.Events[i].Start, t) })
		for _, i := range j.http[lo:] {
			e := &j.tl.Events[i]
			if e.Start > to {
				return
			}
			if e.Outcome == timeline.OutcomeThrottled && (!batch || e.Class == timeline.ClassBatch) && !yield(e.Start) {
				return
			}
		}
	}
}

// skippedSlot finds a wave on the grid whose throttled attempts did not
// come back a period later while the storm went on: no burst, nor half
// a wave's arrivals over the background (cameBack), came near its next
// grid point, and the next wave on the grid, more than a clump, comes
// over half a period past it. A fixed delay sends every throttled call
// again one period on, so an empty grid point inside a storm says the
// spacing is not the delay every retry waits. The attempts of one
// call spaced by an honoured retry-after leave such gaps where each call
// ends and its task waits out a longer requeue delay: on whole-second
// stamps, with no call or retry count logged, they are runs of bursts
// one retry-after apart (the combined log of the recording
// anthropic-ra5-pct10-10-short: three attempts 5 s apart, then 9 s to
// the next queue attempt's first). So the period is rejected where the
// runs of waves between skipped grid points are on average no longer
// than a call's attempts: a limit on calls in flight can keep such a
// comb going across calls, dozens of waves with a skip here and there,
// and there the spacing is the traffic's own. A wave held back by the
// limiter comes less than half a period late, a phase slip of the grid,
// and skips nothing. It returns the first skipped wave's index, its
// throttled attempts, and the seconds from its centre to the next wave
// on the grid.
func skippedSlot(j *joins, waves []Wave, centresNs []float64, onGrid []bool, period, binWidth float64, cameBack func(due int64, width, period float64, expect int64) bool) (wave int, throttled int64, after float64, ok bool) {
	if period <= 0 {
		return 0, 0, 0, false
	}
	tol := max(gridTolerance*period, 1.5*binWidth)
	margin := wholeSecondMargin(j)
	runs, skips := 0, 0
	for i, on := range onGrid {
		if !on {
			continue
		}
		from := waves[i].Start.UnixNano() - margin
		to := waves[i].Start.UnixNano() + int64((waves[i].Width+binWidth)*1e9)
		n := throttledBetween(j, from, to)
		if n < minFloorWave {
			continue
		}
		runs++
		centre := centresNs[i] / 1e9
		due := centre + period
		next := -1
		// Waves past onGrid were added a period after the last burst, on
		// the grid or off it, and are not asked.
		for k := i + 1; k < len(onGrid); k++ {
			// A burst whose centre is off the point but whose span takes
			// it in came back too: a wave and its retry-after comb can run
			// together into one wide burst.
			c := centresNs[k] / 1e9
			start := float64(waves[k].Start.UnixNano()) / 1e9
			if math.Abs(c-due) <= tol || (start-tol <= due && due <= start+waves[k].Width+tol) {
				break
			}
			if onGrid[k] && c > due {
				next = k
				break
			}
		}
		if next < 0 || centresNs[next]/1e9-due <= period/2 || waves[next].Size < minFloorWave {
			continue
		}
		// The last waves of a decaying storm can be too small to stand
		// out as bursts, yet come where they are due: half the calls of
		// the smaller of this wave's throttles and the next wave on the
		// grid is taken for one there, where an empty point holds the
		// background alone.
		if cameBack(int64(due*1e9), waves[i].Width, period, min(n, waves[next].Size)) {
			continue
		}
		if skips == 0 {
			wave, throttled, after = i, n, centresNs[next]/1e9-centre
		}
		skips++
	}
	if skips == 0 {
		return 0, 0, 0, false
	}
	attempts := maxFailedCallAttempts(j)
	if len(j.calls) == 0 {
		attempts = defaultCallAttempts
	}
	return wave, throttled, after, runs <= attempts*(skips+1)
}

// defaultCallAttempts is the most attempts a call makes under the SDKs'
// default retry settings (botocore's legacy mode: five), for when no log
// shows calls.
const defaultCallAttempts = 5

// lastWaveSucceeded reports whether the calls are known and none failed
// that started in the last wave, or, failing that, after it: a last wave of
// a few calls may be too small to stand out of the background, and if none
// of its calls failed the storm ended there all the same. With a period,
// the last wave's failures come back a period on: where every call from
// halfway there succeeded, and the log runs until they were due, that
// wave, too small to stand out, ended the storm (a wave's tail of late
// first attempts that failed at once is still its own).
func lastWaveSucceeded(j *joins, last Wave, period, binWidth float64) bool {
	latest, latestFailed := latestCallStarts(j, callsHaveClass(j, timeline.ClassBatch))
	// Calls started at or after from, and none of them failed.
	succeededFrom := func(from int64) bool { return latest >= from && latestFailed < from }
	if succeededFrom(last.Start.UnixNano() - wholeSecondMargin(j)) {
		return true
	}
	if succeededFrom(last.Start.UnixNano() + int64(last.Width*1e9) + int64(time.Second)) {
		return true
	}
	if period <= 0 {
		return false
	}
	half := last.Start.UnixNano() + int64(period/2*1e9)
	due := last.Start.UnixNano() + int64((period-max(periodTolerance*period, binWidth))*1e9)
	return succeededFrom(half) && latest >= due
}

// latestCallStarts is the latest start of a call, and of a failed call
// (batch calls only, with batch); math.MinInt64 where there is none. One
// walk over the calls answers every "did calls start, and none fail,
// from then on" that lastWaveSucceeded asks.
func latestCallStarts(j *joins, batch bool) (latest, latestFailed int64) {
	latest, latestFailed = math.MinInt64, math.MinInt64
	for i := range j.calls {
		c := &j.calls[i]
		if batch && c.class != timeline.ClassBatch {
			continue
		}
		latest = max(latest, c.start)
		if c.failed() {
			latestFailed = max(latestFailed, c.start)
		}
	}
	return latest, latestFailed
}

// maxACFPoints bounds the ACF curve kept in the result: enough for a chart
// a screen wide, small enough for a JSON report.
const maxACFPoints = 1000

// acfPeriods is how many periods of lag the kept curve covers: the period
// and three harmonics, with a margin so the last peak is whole.
const acfPeriods = 4.25

// acfCurve cuts the detector's ACF to acfPeriods periods (periodBins > 0)
// and downsamples it to at most maxACFPoints by the largest value over each
// step, so a peak narrower than a step is not skipped. Values are rounded
// to four decimals: finer digits say nothing and would make the JSON report
// differ across CPUs.
func acfCurve(pr periodResult, periodBins float64, binWidth int64) ([]float64, float64) {
	r, unit := pr.curve, max(pr.curveStep, 1)
	if len(r) < 2 {
		return nil, 0
	}
	if periodBins > 0 {
		r = r[:min(len(r), int(math.Ceil(acfPeriods*periodBins/float64(unit)))+1)]
	}
	step := (len(r) + maxACFPoints - 1) / maxACFPoints
	out := make([]float64, 0, (len(r)+step-1)/step)
	for lo := 0; lo < len(r); lo += step {
		best := math.Inf(-1)
		for _, v := range r[lo:min(len(r), lo+step)] {
			best = max(best, v)
		}
		v := math.Round(best*1e4) / 1e4
		if v == 0 {
			v = 0 // not -0 in the JSON
		}
		out = append(out, v)
	}
	return out, seconds(int64(step*unit) * binWidth)
}

// minRepeats is the fewest waves on the period's grid that make it a period.
const minRepeats = 3

// between returns the ascending times in [lo, hi).
func between(times []int64, lo, hi int64) []int64 {
	a := sort.Search(len(times), func(i int) bool { return times[i] >= lo })
	z := sort.Search(len(times), func(i int) bool { return times[i] >= hi })
	return times[a:z]
}

// quantileTimes is the q-quantile of ascending times (nearest rank).
func quantileTimes(ts []int64, q float64) int64 {
	if len(ts) == 0 {
		return 0
	}
	return ts[int(math.Round(q*float64(len(ts)-1)))]
}

// gridTolerance is how far, as a share of the period, a wave centre may sit
// from the period's grid. A fixed delay keeps waves far closer than this;
// bursts at random times land within a loose tolerance of some grid too
// often.
const gridTolerance = 0.06

// refinePeriod replaces the ACF period (quantised to bins) by the
// least-squares slope of wave centres against their index, where a missed
// wave advances the index by the number of periods elapsed. The centres are
// not quantised, so the slope is sharper than one bin.
//
// It also returns how many waves sit on the period's grid.
func refinePeriod(acfPeriod, binWidth float64, centresNs []float64) (float64, int) {
	p, n, _ := refinePeriodGrid(acfPeriod, binWidth, centresNs)
	return p, n
}

// refinePeriodGrid is refinePeriod that also marks the centres on the
// grid; with fewer than three centres every one counts as on it.
func refinePeriodGrid(acfPeriod, binWidth float64, centresNs []float64) (float64, int, []bool) {
	// Timestamps truncated to the bin put a centre up to a bin off.
	tol := max(gridTolerance*acfPeriod, 1.5*binWidth)
	used := make([]bool, len(centresNs))
	if len(centresNs) < 3 || acfPeriod <= 0 {
		for k := range used {
			used[k] = true
		}
		return acfPeriod, len(centresNs), used
	}
	// The grid is anchored on whichever wave puts the most waves on it,
	// not on the first: a first wave that is one burst of first attempts,
	// while later waves spread over their retries, sits off the grid the
	// later waves keep. A wave held back by the limiter (another runner's
	// wave had emptied it) shifts the grid for every wave after it, so
	// the waves outside the best grid are searched again for a grid of
	// their own: segments of one period with a phase of their own each.
	var segs [][2][]float64
	onGrid := 0
	for {
		var bx, by []float64
		var members []int
		for a := range centresNs {
			if used[a] {
				continue
			}
			cx, cy, idx := gridChain(centresNs, a, used, acfPeriod, tol)
			// Of two grids holding as many waves, the one leaving fewer
			// periods empty: a first wave whose calls retried longer than
			// the later ones' (a client's retry quota running out) sits
			// off the grid they keep, and a grid through it skips the
			// wave after.
			longer := len(cx) > len(bx) || (len(cx) == len(bx) && len(cx) > 0 && cx[len(cx)-1] < bx[len(bx)-1])
			// A phase slip happens at one time: a further segment lies
			// wholly before or after the ones found, never among them.
			if longer && !overlapsSegments(cy, segs) {
				bx, by, members = cx, cy, idx
			}
		}
		// A first segment may be short; a further one needs three waves,
		// since two bursts at random lie a whole number of periods apart
		// all too often.
		if len(bx) < 2 || (len(segs) > 0 && (len(bx) < minRepeats || len(segs[0][0]) < minRepeats)) {
			break
		}
		for _, k := range members {
			used[k] = true
		}
		segs = append(segs, [2][]float64{bx, by})
		onGrid += len(bx)
	}
	if onGrid < 3 {
		return acfPeriod, max(onGrid, 1), used
	}
	slope, ok := segmentSlope(segs)
	if !ok || slope <= 0 || math.Abs(slope-acfPeriod) > 0.1*acfPeriod {
		return acfPeriod, onGrid, used
	}
	return slope, onGrid, used
}

// groupPeriod finds the period of groups of bursts when bursts follow one
// another lag apart: within a group every burst is a whole number of lags
// after the group's first, and the groups' first bursts sit on a grid of a
// period of more than two lags. ok is false unless at least three groups,
// most of them of two bursts or more, are on that grid.
func groupPeriod(centresNs []float64, lag, binWidth float64, lagOnWire bool) (float64, bool) {
	tol := max(gridTolerance*lag, 1.5*binWidth)
	var starts []float64
	// sizes counts each group's bursts.
	var sizes []int
	inGroup, onComb := 0, 0
	// widest is the longest group, first burst to last, in seconds, of
	// those whose bursts all follow one another a lag apart.
	var first, widest float64
	even := true
	for i, c := range centresNs {
		if i == 0 || (c-centresNs[i-1])/1e9 > 1.5*lag {
			starts = append(starts, c)
			sizes = append(sizes, 1)
			first, even = c, true
			continue
		}
		inGroup++
		sizes[len(sizes)-1]++
		d := (c - first) / 1e9
		even = even && math.Abs((c-centresNs[i-1])/1e9-lag) <= tol
		if even {
			widest = max(widest, d)
		}
		if k := math.Round(d / lag); k >= 1 && math.Abs(d-k*lag) <= tol*k {
			onComb++
		}
	}
	if len(starts) < minRepeats || 2*inGroup < len(starts) || 3*onComb < 2*inGroup {
		return 0, false
	}
	gaps := make([]float64, 0, len(starts)-1)
	for i := 1; i < len(starts); i++ {
		gaps = append(gaps, (starts[i]-starts[i-1])/1e9)
	}
	sort.Float64s(gaps)
	// The shortest gaps are whole periods; later ones may skip a wave
	// too small to find. A group is one wave's attempts, which end before
	// the next wave: a group of bursts each a lag after the last that
	// outlasts a period is waves one lag apart, the period itself (stream
	// 12019, trace 32: ten waves 258 s apart, then two more after a gap,
	// read as groups 516 s apart). Two waves' combs run together by a
	// requeue shorter than 1.5 lags break that step, and stay one group
	// (stream 12034, trace 281). Where the lag is the retry-after the
	// wire shows (lagOnWire), bursts a lag apart are calls' attempts,
	// and a requeue as long as the comb's spacing runs every wave into
	// the next at that one step (stream 9007, trace 232: two attempts
	// 10 s apart in a 20 s period).
	if lagOnWire {
		widest = 0
	}
	if guess := gaps[len(gaps)/3]; guess > 2*lag {
		if period, on, _ := refinePeriodGrid(guess, binWidth, starts); on >= minRepeats && 3*on >= 2*len(starts) && widest < period {
			return period, true
		}
	}
	// Failing that, a short gap may come from a group split where one of
	// its attempts was too small to find, or groups may begin late where
	// their first attempts were: each gap is tried as the period. Its grid
	// must fill two thirds of its slots over the groups' span, which a
	// fraction of the period cannot, and a group whose first attempts
	// were too small to find counts as on it (groupsOnGrid). The grid that
	// holds the most groups wins, then the one with the most first bursts
	// on it, then the longer period. The groups must be alike, each at
	// most twice the median's bursts: a longer one is several waves run
	// together, whose comb fills the period, and the gaps after it are no
	// periods.
	sorted := slices.Sorted(slices.Values(sizes))
	median, largest := sorted[len(sorted)/2], sorted[len(sorted)-1]
	if largest > 2*median {
		return 0, false
	}
	span := (starts[len(starts)-1] - starts[0]) / 1e9
	var period float64
	on, explained := 0, 0
	for i, guess := range gaps {
		if guess <= 2*lag || (i > 0 && guess-gaps[i-1] <= binWidth) {
			continue
		}
		p, n, _ := refinePeriodGrid(guess, binWidth, starts)
		if slots := math.Round(span/p) + 1; 3*float64(n) < 2*slots || widest >= p {
			continue
		}
		if e := groupsOnGrid(starts, sizes, median, largest, p, lag, binWidth); e > explained || (e == explained && n >= on) {
			period, on, explained = p, n, e
		}
	}
	// Three groups, and most of them, must begin on the grid.
	if explained < minRepeats || 3*explained < 2*len(starts) {
		return 0, false
	}
	return period, true
}

// groupsOnGrid counts the groups (their first bursts and sizes) that
// begin on the grid of period through the first one, or k lags after one
// of its points: those that lost their first k attempts. k is less than
// the median group's size, and leaves the group no larger than the
// largest less k. The grid's tolerance adds to the comb's, as the period
// is not yet refined.
func groupsOnGrid(starts []float64, sizes []int, median, largest int, period, lag, binWidth float64) int {
	tol := max(gridTolerance*lag, 1.5*binWidth)
	gridTol := max(gridTolerance*period, 1.5*binWidth)
	n := 0
	for i, st := range starts {
		d := (st - starts[0]) / 1e9
		after := d - math.Floor(d/period+0.5)*period
		if math.Abs(after) <= gridTol {
			n++
			continue
		}
		after = d - math.Floor(d/period)*period
		if k := int(math.Round(after / lag)); k >= 1 && k < median && k+sizes[i] <= largest && math.Abs(after-float64(k)*lag) <= gridTol+tol*float64(k) {
			n++
		}
	}
	return n
}

// alternatingPeriod finds twice the lag when bursts follow one another
// evenly lag apart but their sizes come in pairs: a retry comb of two
// attempts whose spacing is half the period, where only the sizes tell a
// wave's first attempts from its retries (see pairPhase). ok is false
// unless at least six bursts are evenly spaced and pair up.
func alternatingPeriod(centresNs []float64, waves []Wave, lag, binWidth float64, onWire bool) (float64, bool) {
	const minBursts = 6
	tol := max(gridTolerance*lag, 1.5*binWidth)
	if len(centresNs) < minBursts {
		return 0, false
	}
	for i := 1; i < len(centresNs); i++ {
		if math.Abs((centresNs[i]-centresNs[i-1])/1e9-lag) > tol {
			return 0, false
		}
	}
	phase, ok := pairPhase(waves, onWire)
	if !ok {
		return 0, false
	}
	var firsts []float64
	for i := phase; i < len(centresNs); i += 2 {
		firsts = append(firsts, centresNs[i])
	}
	period, on, _ := refinePeriodGrid(2*lag, binWidth, firsts)
	if on < minRepeats {
		return 0, false
	}
	return period, true
}

// sizeGroupPeriod finds k lags when bursts follow one another about lag
// apart and their sizes come in runs of k alike, stepping between runs: a
// retry comb of k attempts whose spacing fills the whole period, as when
// the requeue delay is about the retry-after. A call throttled on every
// attempt sends the same number of requests in each of its wave's
// attempts, so only the steps between waves show where a wave begins. ok
// is false unless the runs are too alike for independent counts, the
// steps stand out of the runs' own variation, and at least three runs'
// first bursts keep to one grid.
//
// The requeue between waves is first taken to be no shorter than the
// comb's spacing; failing that, it may be shorter, down to a quarter of
// it (a requeue shorter than the retry-after): bursts closer than that
// were merged, a quarter of the period being the merge gap. Only the
// first reading lets a burst half a lag from its neighbour, such as the
// background's clump, break the train rather than join it.
func sizeGroupPeriod(centresNs []float64, waves []Wave, lag, binWidth float64, comb, onWire bool) (float64, bool) {
	tol := max(gridTolerance*lag, 1.5*binWidth)
	if p, ok := sizeGroupPeriodFrom(centresNs, waves, lag, binWidth, lag-tol, comb, onWire); ok {
		return p, true
	}
	return sizeGroupPeriodFrom(centresNs, waves, lag, binWidth, lag/4, comb, onWire)
}

// sizeGroupPeriodFrom is sizeGroupPeriod with requeue gaps between runs of
// at least minGap seconds. onWire says the lag is the retry-after comb the
// wire shows, and comb that its looser bars apply (see sizeRuns).
func sizeGroupPeriodFrom(centresNs []float64, waves []Wave, lag, binWidth, minGap float64, comb, onWire bool) (float64, bool) {
	tol := max(gridTolerance*lag, 1.5*binWidth)
	if len(centresNs) != len(waves) {
		return 0, false
	}
	// The train is the longest stretch of bursts about a lag apart; a late
	// straggler or an early burst of other traffic stands outside it.
	lo, hi := 0, 0
	for a := 0; a < len(centresNs); {
		b := a + 1
		for b < len(centresNs) {
			gap := (centresNs[b] - centresNs[b-1]) / 1e9
			if gap < minGap || gap > 1.5*lag {
				break
			}
			b++
		}
		if b-a > hi-lo {
			lo, hi = a, b
		}
		a = b
	}
	centresNs, waves = centresNs[lo:hi], waves[lo:hi]
	if len(centresNs) < 2*minRepeats {
		return 0, false
	}
	bestK, bestPhase, bestRatio := 0, 0, 0.0
	for k := 2; k <= maxCombAttempts; k++ {
		if len(waves) < minRepeats*k {
			break
		}
		for phase := range k {
			ratio, ok := sizeRuns(centresNs, waves, k, phase, lag, tol, minGap, binWidth, comb, onWire)
			if ok && ratio > bestRatio {
				bestK, bestPhase, bestRatio = k, phase, ratio
			}
		}
	}
	if bestK == 0 {
		return 0, false
	}
	return everyKthPeriod(centresNs, bestPhase, bestK, binWidth)
}

// everyKthPeriod is the period of the waves a comb of k attempts begins:
// every k-th of the centres from phase on. The requeue need not be the
// comb's spacing, so those waves' own mean spacing, not k lags, seeds the
// grid.
func everyKthPeriod(centresNs []float64, phase, k int, binWidth float64) (float64, bool) {
	var firsts []float64
	for i := phase; i < len(centresNs); i += k {
		firsts = append(firsts, centresNs[i])
	}
	guess := (firsts[len(firsts)-1] - firsts[0]) / 1e9 / float64(len(firsts)-1)
	period, on, _ := refinePeriodGrid(guess, binWidth, firsts)
	if on < minRepeats {
		return 0, false
	}
	return period, true
}

// sizeRuns tests runs of k bursts starting at phase: within a run the
// bursts must be lag apart and alike in size, between runs the gap may be
// longer (the requeue is not exactly the comb's spacing) and the sizes
// step. It returns how many times the mean step exceeds the mean change
// within a run.
//
// The sizes' likeness is one piece of evidence and the gaps' another: a
// requeue that is not the comb's spacing puts every run's gaps on one side
// of every requeue's, which bursts at independent times seldom do. The two
// chances multiply, so a short storm whose runs are a little less alike
// than the bar alone asks is still read when its gaps split cleanly.
func sizeRuns(centresNs []float64, waves []Wave, k, phase int, lag, tol, minGap, binWidth float64, comb, onWire bool) (float64, bool) {
	var within float64
	var steps, withinDiffs, requeueGaps, retryGaps []float64
	var nWithin, loud int
	var alike float64 // log-probability of runs this alike by chance
	for i := range len(waves) - 1 {
		gap := (centresNs[i+1] - centresNs[i]) / 1e9
		a, b := waves[i].Size, waves[i+1].Size
		d := math.Abs(float64(a - b))
		if (i+1-phase)%k == 0 {
			// The requeue may be longer or shorter than the comb's
			// spacing; only the retries inside a wave keep to it.
			if gap < minGap || gap > 1.5*lag {
				return 0, false
			}
			steps = append(steps, d)
			requeueGaps = append(requeueGaps, gap)
			continue
		}
		if math.Abs(gap-lag) > tol {
			return 0, false
		}
		retryGaps = append(retryGaps, gap)
		withinDiffs = append(withinDiffs, d)
		within += d
		nWithin++
		alike += math.Log(probAsAlike(a, b))
		if d > 3*math.Sqrt(max(1, float64(a+b))) {
			loud++
		}
	}
	if len(steps) < minRepeats-1 || nWithin == 0 || 10*loud > nWithin {
		return 0, false
	}
	// The median step, not the mean: runs of half the true length step at
	// every other boundary, and their mean step is still large.
	sort.Float64s(steps)
	step := percentileSorted(steps, 0.5)
	meanWithin := within / float64(nWithin)
	ratio, bar := minStepRatio, math.Log(maxAlikeChance)
	if comb {
		// Steps nearer the runs' noise are read only from runs far more
		// alike than chance: a storm that merely decays, its rounding
		// making some neighbours equal, reaches one in 10⁵ for some k
		// and phase; twelve waves of four attempts resent by the same
		// calls reach one in 10²⁵.
		ratio, bar = minCombStepRatio, 2*bar
	}
	gapChance := gapSplitChance(requeueGaps, retryGaps, binWidth)
	if step < minStep || step <= ratio*meanWithin || alike+math.Log(gapChance) >= bar {
		return 0, false
	}
	if !onWire && gapChance == 1 && float64(k)*stepContrastChance(withinDiffs, steps) > maxAlikeChance {
		// Evenly spaced bursts that the wire does not show to be a comb's
		// are read as runs only if their sizes leave a storm that merely
		// decays no chance: such a storm's neighbours are alike at every
		// burst, so likeness alone, which it has, says nothing of where
		// runs end.
		return 0, false
	}
	return step / max(meanWithin, 0.5), true
}

// stepContrastChance is how likely the steps between runs are to exceed
// the changes within runs by as much as they do, were all of them one
// spread of differences, as in a storm that sheds about as many calls at
// every burst: the one-sided chance of a two-sample t statistic that
// large. Medians and median absolute deviations stand for the means and
// spreads, so that one step from a stray burst before the train, which
// may be ten times the others, neither makes nor hides the contrast. The
// spread is held at least minDiffSpread, so that runs exactly alike do
// not make any step infinitely sure.
func stepContrastChance(within, steps []float64) float64 {
	n1, n2 := len(within), len(steps)
	if n1 == 0 || n2 == 0 || n1+n2 < 3 {
		return 1
	}
	m1, s1 := medianSpread(within)
	m2, s2 := medianSpread(steps)
	df := float64(n1 + n2 - 2)
	sd := max(math.Sqrt((float64(n1-1)*s1*s1+float64(n2-1)*s2*s2)/df), minDiffSpread)
	t := (m2 - m1) / (sd * math.Sqrt(1/float64(n1)+1/float64(n2)))
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(t)
}

// medianSpread is the median of xs and their median absolute deviation
// from it, scaled to a normal spread's standard deviation.
func medianSpread(xs []float64) (median, spread float64) {
	sorted := slices.Sorted(slices.Values(xs))
	median = percentileSorted(sorted, 0.5)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - median)
	}
	slices.Sort(dev)
	return median, 1.4826 * percentileSorted(dev, 0.5)
}

// minDiffSpread is the least spread, in requests, of the differences
// between neighbouring bursts' sizes that stepContrastChance assumes:
// counts are whole, so no two bursts are known to agree to better than
// half a request.
const minDiffSpread = 0.5

// gapSplitChance is how likely gaps in a random order are to put the
// requeue gaps all at one end, as they are, or 1 when they are not apart:
// every requeue gap beyond every retry gap on one side, and their means
// more than a bin apart (truncating stamps to the bin shifts a gap by up
// to one on its own).
func gapSplitChance(requeues, retries []float64, binWidth float64) float64 {
	if len(requeues) == 0 || len(retries) == 0 {
		return 1
	}
	rqLo, rqHi := slices.Min(requeues), slices.Max(requeues)
	rtLo, rtHi := slices.Min(retries), slices.Max(retries)
	rqMean, _ := meanSigma(requeues)
	rtMean, _ := meanSigma(retries)
	if !(rqHi < rtLo || rqLo > rtHi) || math.Abs(rqMean-rtMean) <= binWidth {
		return 1
	}
	return 1 / binomial(len(requeues)+len(retries), len(requeues))
}

// binomial is n choose m, as a float: how many ways m of n things can be
// picked.
func binomial(n, m int) float64 {
	lgN, _ := math.Lgamma(float64(n) + 1)
	lgM, _ := math.Lgamma(float64(m) + 1)
	lgR, _ := math.Lgamma(float64(n-m) + 1)
	return math.Exp(lgN - lgM - lgR)
}

// minStepRatio is how many times the mean change within a run the mean
// step between runs must be. A storm that merely decays changes by about
// as much at every burst, so its runs of three differ three times more
// across than within only by where the rounding falls.
const minStepRatio = 5.0

// minCombStepRatio is minStepRatio where the bursts' spacing is the
// retry-after comb the wire shows: the bursts are then known to be a
// wave's attempts, and a storm that decays by a fifth a wave steps only
// three or four times its runs' noise.
const minCombStepRatio = 3.0

// minStep is the least mean step between runs, in requests: runs that
// step by less are a storm too small to tell from rounding.
const minStep = 2.0

// maxCombAttempts is the most attempts per call sizeGroupPeriod looks
// for: SDK retry budgets run to five attempts, botocore's legacy mode's.
const maxCombAttempts = 6

// gapRunPeriod finds k lags when bursts follow one another about lag
// apart and every k-th gap stands apart from all the others: a retry comb
// of k attempts whose requeue is not its spacing, though within a lag of
// it. Where a wave's attempts are the same calls again, their sizes step
// only between waves, and a slowly decaying storm's steps are too small to
// show; the requeue's gap still comes every k bursts. ok is false unless
// at least minRepeats such gaps (and as many others) fall on one side of
// the rest, their mean more than a bin from the others' (truncating
// timestamps to the bin shifts a gap by less than one, and a period of a
// whole number plus a fraction of bins makes such a pattern on its own),
// and no more than maxAlikeChance of orderings of the gaps would pick out
// as regular a set among the ways tried. With comb (the lag is the
// retry-after comb the wire shows) the wire already says the bursts come
// in groups of a wave's attempts; what is left to find is where each group
// begins, and the other readings tried are not held against the one that
// fits.
func gapRunPeriod(centresNs []float64, lag, binWidth float64, comb bool) (float64, bool) {
	// The train is the longest stretch of bursts about a lag apart; a
	// requeue as short as the merge gap (a quarter of the period) still
	// leaves the waves apart.
	lo, hi := 0, 0
	for a := 0; a < len(centresNs); {
		b := a + 1
		for b < len(centresNs) {
			if gap := (centresNs[b] - centresNs[b-1]) / 1e9; gap < lag/4 || gap > 1.5*lag {
				break
			}
			b++
		}
		if b-a > hi-lo {
			lo, hi = a, b
		}
		a = b
	}
	train := centresNs[lo:hi]
	gaps := make([]float64, 0, max(len(train)-1, 0))
	for i := 1; i < len(train); i++ {
		gaps = append(gaps, (train[i]-train[i-1])/1e9)
	}
	tries := 0
	bestK, bestPhase, bestChance := 0, 0, math.Inf(1)
	for k := 2; k <= maxCombAttempts; k++ {
		for phase := range k {
			// Gap i runs from burst i to i+1: a requeue when burst i+1
			// starts a wave.
			var requeues, retries []float64
			for i, g := range gaps {
				if (i+1-phase)%k == 0 {
					requeues = append(requeues, g)
				} else {
					retries = append(retries, g)
				}
			}
			if len(requeues) < minRepeats || len(retries) < len(requeues) {
				continue
			}
			tries++
			// Of the orderings of these gaps, a share 1/C(n, m) puts these
			// m at one end.
			chance := gapSplitChance(requeues, retries, binWidth)
			if chance == 1 {
				continue
			}
			if chance < bestChance {
				bestK, bestPhase, bestChance = k, phase, chance
			}
		}
	}
	if comb {
		tries = 1
	}
	if bestK == 0 || bestChance*float64(tries) > maxAlikeChance {
		return 0, false
	}
	return everyKthPeriod(train, bestPhase, bestK, binWidth)
}

// pairPhase says whether consecutive bursts pair up, and which burst
// starts a pair. A wave's retries are its failed calls again, so the two
// bursts of a wave are either alike in size (every call failed) with the
// steps between waves, or large then small in turn (some succeeded). Noise
// makes either pattern now and then in a storm that merely decays, so
// each must be more than Poisson counts would give: sizes in turn above
// and below their neighbours by several standard deviations, or pairs
// more alike than independent counts of their size are.
func pairPhase(waves []Wave, onWire bool) (int, bool) {
	var within, across [2]float64 // by the parity of a pair's first burst
	var steps [2]int              // how many differences across holds
	var peaks [2]int
	var peakZ [2]float64 // the peaks' and troughs' summed z-scores
	// alike is the log-probability, under independent Poisson counts,
	// of pairs as alike as they are.
	var alike [2]float64
	var withinDiffs, acrossDiffs [2][]float64
	for i := range waves {
		if i+1 < len(waves) {
			d := math.Abs(float64(waves[i].Size - waves[i+1].Size))
			within[i%2] += d
			across[(i+1)%2] += d
			withinDiffs[i%2] = append(withinDiffs[i%2], d)
			acrossDiffs[(i+1)%2] = append(acrossDiffs[(i+1)%2], d)
			steps[(i+1)%2]++
			alike[i%2] += math.Log(probAsAlike(waves[i].Size, waves[i+1].Size))
		}
		if i > 0 && i+1 < len(waves) {
			prev, s, next := waves[i-1].Size, waves[i].Size, waves[i+1].Size
			mid := float64(prev+next) / 2
			z := math.Abs(float64(s)-mid) / math.Sqrt(max(1, float64(s)+mid/2))
			switch {
			case s > prev && s > next:
				peaks[i%2]++
				peakZ[i%2] += z
			case s < prev && s < next:
				peaks[(i+1)%2]++
				peakZ[(i+1)%2] += z
			}
		}
	}
	inner := len(waves) - 2
	for phase := range 2 {
		if inner > 0 && peaks[phase] >= inner-inner/10 && peakZ[phase] > minPairZ*math.Sqrt(float64(inner)) {
			return phase, true
		}
	}
	for phase := range 2 {
		// Steps between waves of more than rounding makes, three times
		// what changes within a wave, and pairs too alike for chance. The
		// steps need not stand out of the counts' Poisson noise: a slowly
		// decaying storm steps by a few requests a wave, and the pairs'
		// likeness already says the counts are not independent. Nor are
		// a decaying storm's: each wave is the last one's survivors, so
		// neighbours are alike at every burst. What pairs have and such a
		// storm lacks is steps that stand out of the changes within pairs;
		// either phase may show them, so the chance counts twice. Where
		// the wire's retry-after is the spacing (onWire), the bursts are
		// known to be attempts, and that storm is ruled out already.
		if steps[phase] > 0 && across[phase]/float64(steps[phase]) >= minPairStep && across[phase] > 3*within[phase] &&
			alike[phase] < math.Log(maxAlikeChance) && (onWire || 2*stepContrastChance(withinDiffs[phase], acrossDiffs[phase]) <= maxAlikeChance) {
			return phase, true
		}
	}
	return 0, false
}

const (
	// minPairStep is the least mean step between pairs, in requests. A
	// storm of one burst a wave that sheds one or two requests a wave
	// rounds its sizes into steps of one and two in turn (41, 39, 38, 36,
	// 35, 33), which pair up as neatly as a wave's retries do; only a
	// step of three or more is beyond that rounding.
	minPairStep = 3.0
	// minPairZ is the mean z-score, per inner burst, that sizes in turn
	// above and below their neighbours must reach.
	minPairZ = 4.0
	// maxAlikeChance is how likely, under independent Poisson counts,
	// the pairs may be to come out as alike as they are.
	maxAlikeChance = 1e-3
)

// probAsAlike is about how likely two independent Poisson counts of means
// a and b are to differ by no more than they do: the difference is nearly
// normal with variance a + b.
func probAsAlike(a, b int64) float64 {
	sd := math.Sqrt(max(1, float64(a+b)))
	d := math.Abs(float64(a - b))
	return math.Min(1, math.Erf((d+0.5)/(sd*math.Sqrt2)))
}

// strayBursts counts the bursts off the grid that no retry comb explains.
// With a comb of spacing comb, a wave's retries are bursts a whole number
// of spacings (short of the next wave) from a wave on the grid, in its own
// slot or the next, and a wave whose attempts merged into one wide burst
// covers such a point; either way the burst belongs to the waves. Without
// a comb every burst off the grid is a stray.
func strayBursts(centresNs []float64, waves []Wave, onGrid []bool, period, comb, binWidth float64) int {
	return strayCount(strays(centresNs, waves, onGrid, period, comb, binWidth))
}

// strayCount is how many of the strays count against the period: none
// when they share one offset.
func strayCount(idx []int, shared bool) int {
	if shared {
		return 0
	}
	return len(idx)
}

// strays are the indices of the bursts off the grid that no comb explains;
// shared says they all sit at one offset from it (see strayBursts).
func strays(centresNs []float64, waves []Wave, onGrid []bool, period, comb, binWidth float64) (idx []int, shared bool) {
	step, tol := combReach(waves, onGrid, comb, binWidth)
	var offsets []float64
	// besideWave: every stray so far whose grid point lies within the
	// grid's span has a wave on the grid there or a period on: its
	// retries, or its first attempts where the grid runs through the
	// retries. Past the last wave on the grid, a retry can stand out
	// where its own wave, smaller or merged, did not.
	besideWave := true
	// limit is how far bursts at one offset may differ, and how near
	// their wave must be.
	limit := max(gridTolerance/2*period, 1.5*binWidth)
	first, last := gridSpan(centresNs, onGrid)
	for i, c := range centresNs {
		if onGrid[i] {
			continue
		}
		if comb > 0 && period > 0 && combExplains(centresNs, waves, onGrid, i, period, comb, step, tol, binWidth) {
			continue
		}
		if period > 0 && truncatedWave(waves, onGrid, i, period) {
			continue
		}
		offset := 0.0
		if before, ok := gridPointBefore(centresNs, onGrid, c/1e9, period); ok {
			offset = c/1e9 - before
			if before >= first-limit && before <= last+limit {
				besideWave = besideWave && (onGridNear(centresNs, onGrid, before, limit) || onGridNear(centresNs, onGrid, before+period, limit))
			}
		}
		offsets = append(offsets, offset)
		idx = append(idx, i)
	}
	// Bursts that all sit at one offset from the grid are a second
	// attempt of every wave that the ACF did not single out as a comb,
	// such as a retry-after comb of two attempts: they repeat at the
	// period too. Bursts at random times scatter over the period. Each
	// must sit beside its wave: bursts at one offset in periods whose own
	// slots are empty are the grid's phase shifting, as a storm whose
	// period holds three bursts a third of it apart, read at the bursts'
	// spacing, shifts it where the requeue delay takes over from the
	// retry-after (the combined log of openai-ra4-fixed6-short).
	if len(offsets) >= 2 && period > 0 {
		sorted := append([]float64(nil), offsets...)
		sort.Float64s(sorted)
		if sorted[len(sorted)-1]-sorted[0] <= limit && besideWave {
			return idx, true
		}
		if comb == 0 {
			if kept, ok := mergedPairs(centresNs, waves, onGrid, idx, offsets, period, limit, 1.5*binWidth); ok {
				return kept, true
			}
		}
	}
	return idx, false
}

// combReach is the steps, in comb spacings, at which a wave's retries lie
// from its grid point, and how far from them they may sit.
func combReach(waves []Wave, onGrid []bool, comb, binWidth float64) (step, tol float64) {
	tol = max(gridTolerance*comb, 1.5*binWidth)
	// A grid through waves whose attempts merged runs through the middle
	// of their comb, so where other waves stand apart their attempts lie
	// half spacings from it. It takes half the waves on the grid merged:
	// one wave of sharp ones stamped a bin wider is no grid through merged
	// waves (stream 12074, trace 145).
	step = 1.0
	merged, on := 0, 0
	for g, isOn := range onGrid {
		if isOn {
			on++
			if waves[g].Width >= comb/2 {
				merged++
			}
		}
	}
	if 2*merged >= on && merged > 0 {
		step = 0.5
	}
	return step, tol
}

// foldComb is foldCombBursts over the bursts off the grid that the retry
// comb explains (combExplains): attempts of a wave on the grid, standing
// apart from its first.
func foldComb(centresNs []float64, waves []Wave, onGrid []bool, period, comb, binWidth float64) []Wave {
	step, tol := combReach(waves, onGrid, comb, binWidth)
	explained := make([]bool, len(onGrid))
	for i := range onGrid {
		explained[i] = !onGrid[i] && combExplains(centresNs, waves, onGrid, i, period, comb, step, tol, binWidth)
	}
	return foldCombBursts(waves, centresNs, onGrid, explained, period, comb, step, tol)
}

// foldCombBursts makes each wave on the grid one wave with its comb's
// bursts: its start the earliest, its window reaching to the latest's
// end, its size theirs added up. A comb burst is the retries of the wave
// on the grid before it when it follows that wave's centre by whole steps
// of the spacing (within tol), and else the first attempts of the wave
// after it, where the grid runs through the retries; either way within
// half a period (and tol), as far as a wave's attempts reach before they
// would run into the next wave. Other bursts, and waves added after the
// grid was judged, stay as they are.
func foldCombBursts(waves []Wave, centresNs []float64, onGrid, comb []bool, period, spacing, step, tol float64) []Wave {
	// steps reports whether d seconds is a whole number (at least one) of
	// steps of the spacing, within a wave's reach.
	steps := func(d float64) bool {
		k := math.Round(d / (step * spacing))
		return k >= 1 && d <= period/2+tol && math.Abs(d-k*step*spacing) <= tol
	}
	owner := make([]int, len(waves))
	for i := range waves {
		owner[i] = -1
		if i >= len(comb) || !comb[i] {
			continue
		}
		before, after := -1, -1
		for g, on := range onGrid {
			switch {
			case !on:
			case centresNs[g] <= centresNs[i]:
				before = g
			case after < 0:
				after = g
			}
		}
		switch {
		case before >= 0 && steps((centresNs[i]-centresNs[before])/1e9):
			owner[i] = before
		case after >= 0 && steps((centresNs[after]-centresNs[i])/1e9):
			owner[i] = after
		}
	}
	var out []Wave
	at := make([]int, len(waves))
	for i, wv := range waves {
		if owner[i] < 0 {
			at[i] = len(out)
			out = append(out, wv)
		}
	}
	for i, wv := range waves {
		g := owner[i]
		if g < 0 {
			continue
		}
		whole := &out[at[g]]
		end := whole.Start.Add(time.Duration(whole.Width * 1e9))
		if e := wv.Start.Add(time.Duration(wv.Width * 1e9)); e.After(end) {
			end = e
		}
		if wv.Start.Before(whole.Start) {
			whole.Start = wv.Start
		}
		whole.Width = end.Sub(whole.Start).Seconds()
		whole.Size += wv.Size
	}
	slices.SortStableFunc(out, func(a, b Wave) int { return a.Start.Compare(b.Start) })
	return out
}

// truncatedWave says whether burst i is the grid's next wave with its
// later attempts missing: it follows every wave on the grid, starts where
// the grid puts a wave's start, and is narrower and smaller than each of
// them. A wave of merged attempts centres where its attempts weigh in,
// and a storm's last waves, whose calls mostly succeed at once, lose the
// later ones: their centre moves off a grid their start keeps to
// (stream 8084, trace 157: waves of four attempts 28.8 s apart, 87 s
// wide, and a fourth 31 s wide starting 0.2 s from its place). Waves as
// narrow as the grid's tolerance centre where they start; they are left
// to the centres.
func truncatedWave(waves []Wave, onGrid []bool, i int, period float64) bool {
	tol := gridTolerance * period
	last := -1
	for g, on := range onGrid {
		if !on {
			continue
		}
		if g > i || waves[g].Width <= 2*tol || waves[i].Width >= waves[g].Width || waves[i].Size >= waves[g].Size {
			return false
		}
		last = g
	}
	if last < 0 {
		return false
	}
	since := waves[i].Start.Sub(waves[last].Start).Seconds()
	k := math.Round(since / period)
	return k >= 1 && math.Abs(since-k*period) <= tol
}

// mergedPairs drops from the strays (idx, at offsets from the grid) the
// waves whose two attempts merged into one burst, where the others share
// one offset: such a burst lies between its grid point and its retry's,
// off both, and spans the two. It keeps the strays at the shared offset
// (the median one, with at least two there); ok is false unless every
// other stray spans a pair.
func mergedPairs(centresNs []float64, waves []Wave, onGrid []bool, idx []int, offsets []float64, period, limit, tol float64) ([]int, bool) {
	sorted := append([]float64(nil), offsets...)
	sort.Float64s(sorted)
	shared := sorted[len(sorted)/2]
	var kept []int
	for k, i := range idx {
		if math.Abs(offsets[k]-shared) <= limit {
			kept = append(kept, i)
			continue
		}
		w := waves[i]
		before, ok := gridPointBefore(centresNs, onGrid, centresNs[i]/1e9, period)
		if !ok || w.Width > period/2 {
			return nil, false
		}
		lo := float64(w.Start.UnixNano())/1e9 - tol
		hi := lo + w.Width + 2*tol
		covers := func(t float64) bool { return t >= lo && t <= hi }
		// The retry follows its grid point by the offset, or the grid
		// runs through the retries and the first attempt precedes the
		// next point by the period less the offset.
		if !covers(before+shared) || !(covers(before) || covers(before+period)) {
			return nil, false
		}
	}
	if len(kept) < 2 || len(kept) == len(idx) {
		return nil, false
	}
	// As tightly as when no wave merged.
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, i := range idx {
		if slices.Contains(kept, i) {
			lo, hi = min(lo, offsets[k]), max(hi, offsets[k])
		}
	}
	return kept, hi-lo <= limit
}

// sharpWaves reports whether the waves on the grid look like one wave
// replayed: narrow against the period (their median width at most an
// eighth of it, and a comb spacing more where a wave's first attempts and
// retries may have run together, with none filling two thirds of it) or
// all of about one width. Three bursts a
// period apart are the least evidence a period gets, and three wide
// bursts, each many smaller ones run together, line up that well by
// chance; a fixed delay's waves are sharp, or keep their shape.
func sharpWaves(waves []Wave, onGrid []bool, period, comb, binWidth float64) bool {
	widths := gridWidths(waves, onGrid, binWidth)
	if len(widths) == 0 {
		return false
	}
	// A burst filling most of the period leaves no lull before the next:
	// a comb wide enough to excuse that is bursts run together. Stamps to
	// the bin read a wave up to a bin wider than it was: a requeue
	// jittered by 10% spreads a 15 s storm's waves over 1.6 s, which
	// whole-second stamps put over 2 s (openai-ra3-pct10-9-short).
	narrow := widths[len(widths)/2] <= period/8+comb+binWidth && widths[len(widths)-1] <= 2*period/3
	return narrow || widths[len(widths)-1] <= 2*widths[0]
}

// narrowsAsItShrinks reports whether the waves on the grid are at most a
// fifth of the period wide at the median and, in time order, each hold no
// more calls than the one before and span no more time, give or take a
// bin: a storm whose first wave's calls failed over a spread (botocore's
// retry quota running out during it) replays that spread, narrowing as
// fewer calls come back, where bursts at random times vary in width
// whatever their size (boto-standard-fixed8-haproxy-short).
func narrowsAsItShrinks(waves []Wave, onGrid []bool, period, comb, binWidth float64) bool {
	widths := gridWidths(waves, onGrid, binWidth)
	if len(widths) == 0 || widths[len(widths)/2] > period/5+comb+binWidth {
		return false
	}
	prev, n := -1, 0
	for i, on := range onGrid {
		if !on {
			continue
		}
		if prev >= 0 && (waves[i].Size > waves[prev].Size || waves[i].Width > waves[prev].Width+binWidth) {
			return false
		}
		prev, n = i, n+1
	}
	return n >= minRepeats
}

// runTogether reports whether the waves on the grid are, at the median,
// wider than a third of the period (a comb spacing more): bursts that long
// are many smaller ones merged, however many of them a grid holds.
func runTogether(waves []Wave, onGrid []bool, period, comb float64) bool {
	widths := gridWidths(waves, onGrid, 0)
	return len(widths) > 0 && widths[len(widths)/2] > period/3+comb
}

// maxMergedCombSteps is the most retry-after spacings one wave's attempts
// span: four attempts, as many as SDKs make by default.
const maxMergedCombSteps = 3

// mergedCombSpan is how much of the median wave on the grid a retry comb
// of the given spacing explains: a wave whose attempts merged into one
// burst spans as many spacings as fit in it, up to maxMergedCombSteps.
func mergedCombSpan(waves []Wave, onGrid []bool, spacing float64) float64 {
	widths := gridWidths(waves, onGrid, 0)
	if len(widths) == 0 || spacing <= 0 {
		return 0
	}
	return min(maxMergedCombSteps, math.Floor(widths[len(widths)/2]/spacing)) * spacing
}

// gridWidths is the sorted widths of the waves on the grid, none taken as
// narrower than floor (a burst in one bin has width 0 but spans the bin).
func gridWidths(waves []Wave, onGrid []bool, floor float64) []float64 {
	var widths []float64
	for i, on := range onGrid {
		if on {
			widths = append(widths, max(waves[i].Width, floor))
		}
	}
	sort.Float64s(widths)
	return widths
}

// gridSpan is the centres, in seconds, of the first burst on the grid and
// the last; +Inf and -Inf without one.
func gridSpan(centresNs []float64, onGrid []bool) (first, last float64) {
	first, last = math.Inf(1), math.Inf(-1)
	for g, on := range onGrid {
		if on {
			first, last = min(first, centresNs[g]/1e9), max(last, centresNs[g]/1e9)
		}
	}
	return first, last
}

// onGridNear reports whether a burst on the grid is centred within tol of
// t seconds.
func onGridNear(centresNs []float64, onGrid []bool, t, tol float64) bool {
	for g, on := range onGrid {
		if on && math.Abs(centresNs[g]/1e9-t) <= tol {
			return true
		}
	}
	return false
}

// gridPointBefore is the grid point at or before t (seconds), the grid
// running through the wave on it nearest t; ok is false without one.
func gridPointBefore(centresNs []float64, onGrid []bool, t, period float64) (float64, bool) {
	nearest, best := 0.0, math.Inf(1)
	for g, on := range onGrid {
		if d := math.Abs(centresNs[g]/1e9 - t); on && d < best {
			nearest, best = centresNs[g]/1e9, d
		}
	}
	if math.IsInf(best, 1) || period <= 0 {
		return 0, false
	}
	return nearest + math.Floor((t-nearest)/period)*period, true
}

// combExplains says whether burst w is part of a wave on the grid: its
// retries or first attempts, a whole number of comb spacings (at most half
// the period; in steps of step spacings) from the wave's grid point, or
// the wave itself with its attempts merged into one burst at least half a
// spacing wide that covers its grid point. The grid point of a slot
// without a wave on the grid is one period on from the nearest wave that
// is; a burst from such a point within the grid's span needs another of
// its wave's attempts beside it (attemptsOfAWave).
func combExplains(centresNs []float64, waves []Wave, onGrid []bool, self int, period, comb, step, tol, binWidth float64) bool {
	w := waves[self]
	if w.Width > period/2 {
		// A wave's attempts span at most half the period, or the waves
		// would run into one another; a burst this wide holds a point of
		// any grid and so explains nothing.
		return false
	}
	lo := float64(w.Start.UnixNano())/1e9 - tol
	hi := lo + w.Width + 2*tol
	// The grid points either side of the burst's middle: retries follow
	// the one before by whole spacings, and when the grid runs through
	// the retries (they may keep time better than the first attempts),
	// first attempts precede the one after.
	before, ok := gridPointBefore(centresNs, onGrid, (lo+hi)/2, period)
	if !ok {
		return false
	}
	after := before + period
	for _, point := range []float64{before, after} {
		if w.Width >= comb/2 && point >= lo && point <= hi {
			return true
		}
	}
	if w.Width >= step*comb/2 {
		// A burst spanning half a step holds one of its points half the
		// time whatever its time; a retry's burst is as sharp as its
		// wave's first attempts.
		return false
	}
	if hi-lo >= step*comb {
		// The tolerance either side widens even a sharp burst to a whole
		// step where stamps are as coarse as a few per cent of the
		// spacing (whole seconds under a 5 s retry-after), and such a
		// window holds a point wherever the burst falls. The burst's
		// centre still places it: its stamps and those of the wave it
		// is measured from are truncated alike, so it sits within a bin
		// of its point.
		c := centresNs[self] / 1e9
		lo, hi = c-binWidth, c+binWidth
		if hi-lo >= step*comb {
			return false
		}
	}
	// Retries may follow their wave by most of the period: a retry-after
	// rounded up, or a requeue shorter than it, leaves the next wave only
	// a short gap. First attempts are looked for no further than half a
	// period before the point after, where a burst in a period with no
	// wave would otherwise pass for the next wave's.
	for k := step; k*comb < period-tol; k += step {
		if at := before + k*comb; at >= lo && at <= hi && attemptsOfAWave(centresNs, onGrid, self, before, period, comb*step, tol) && alikeInWidth(centresNs, waves, onGrid, w, before, period, tol) {
			return true
		}
		if k*comb > period/2+tol {
			continue
		}
		if at := after - k*comb; at >= lo && at <= hi && attemptsOfAWave(centresNs, onGrid, self, after, period, comb*step, tol) && alikeInWidth(centresNs, waves, onGrid, w, after, period, tol) {
			return true
		}
	}
	return false
}

// alikeInWidth reports whether burst w is no wider than an attempt of the
// wave on the grid at t (seconds) can be: twice that wave's width and the
// tolerance either side. A wave's attempts are its calls shifted by one
// fixed delay, so they spread alike; a burst many times wider is bursts
// run together. With no wave on the grid at t there is nothing to compare.
func alikeInWidth(centresNs []float64, waves []Wave, onGrid []bool, w Wave, t, period, tol float64) bool {
	for g, on := range onGrid {
		if on && math.Abs(centresNs[g]/1e9-t) <= gridTolerance*period {
			return w.Width <= 2*waves[g].Width+2*tol
		}
	}
	return true
}

// attemptsOfAWave reports whether burst self, a whole number of comb
// steps from grid point t (seconds), can be an attempt of the wave due
// there: a wave on the grid sits at t, another burst is a whole number of
// steps from self (its wave's other attempts), or t lies past either end
// of the grid, where the storm's first or last wave may show one attempt
// above the background and no more. In the storm's midst, a burst alone
// in a period with no wave is no retry: retries follow first attempts.
func attemptsOfAWave(centresNs []float64, onGrid []bool, self int, t, period, step, tol float64) bool {
	first, last := math.Inf(1), math.Inf(-1)
	for g, on := range onGrid {
		if !on {
			continue
		}
		c := centresNs[g] / 1e9
		if math.Abs(c-t) <= gridTolerance*period {
			return true
		}
		first, last = min(first, c), max(last, c)
	}
	return t < first-tol || t > last+tol || combPartner(centresNs, self, step, period, tol)
}

func overlapsSegments(y []float64, segs [][2][]float64) bool {
	lo, hi := y[0], y[len(y)-1]
	for _, sg := range segs {
		sy := sg[1]
		if lo <= sy[len(sy)-1] && hi >= sy[0] {
			return true
		}
	}
	return false
}

// segmentSlope is the least-squares slope shared by several segments of
// (index, time), each with its own intercept.
func segmentSlope(segs [][2][]float64) (float64, bool) {
	var sxy, sxx float64
	for _, sg := range segs {
		x, y := sg[0], sg[1]
		var mx, my float64
		for i := range x {
			mx += x[i]
			my += y[i]
		}
		mx /= float64(len(x))
		my /= float64(len(y))
		for i := range x {
			sxy += (x[i] - mx) * (y[i] - my)
			sxx += (x[i] - mx) * (x[i] - mx)
		}
	}
	if sxx == 0 {
		return 0, false
	}
	return sxy / sxx, true
}

// gridChain follows the period's grid from centre a: each later centre not
// yet used that lies a whole number of periods (within tol) after the last
// one taken joins it, indexed by the periods elapsed; others are stray
// bursts and are left out. A used centre ends the chain: it belongs to a
// segment of another phase.
func gridChain(centresNs []float64, a int, used []bool, period, tol float64) (x, y []float64, members []int) {
	x = []float64{0}
	y = []float64{centresNs[a] / 1e9}
	members = []int{a}
	idx := 0.0
	last := centresNs[a] / 1e9
	for i := a + 1; i < len(centresNs); i++ {
		if used[i] {
			break
		}
		c := centresNs[i] / 1e9
		d := c - last
		k := math.Round(d / period)
		if k < 1 || math.Abs(d-k*period) > tol {
			continue
		}
		idx += k
		last = c
		x = append(x, idx)
		y = append(y, c)
		members = append(members, i)
	}
	return x, y, members
}

// countWaveAttempts fills each wave's attempts and throttled attempts: every
// batch attempt from the wave's start to the next wave's start.
func countWaveAttempts(j *joins, waves []Wave) {
	if len(waves) == 0 {
		return
	}
	tl := j.tl
	batch := hasClass(j, timeline.ClassBatch)
	margin := wholeSecondMargin(j)
	// j.http is in Start order, so a moving index walks the waves once.
	w := -1
	for _, i := range j.http {
		e := &tl.Events[i]
		if batch && e.Class != timeline.ClassBatch {
			continue
		}
		for w+1 < len(waves) && e.Start >= waves[w+1].Start.UnixNano()-margin {
			w++
		}
		if w < 0 {
			continue
		}
		waves[w].Attempts++
		if e.Outcome == timeline.OutcomeThrottled {
			waves[w].Throttled++
		}
	}
}

// wholeSecondMargin is how much sooner a window over the attempts opens:
// an access log stamped to the whole second puts an attempt's start up to
// a second early, ahead of a wave start taken from a finer SDK log, and
// its first attempts must count in their wave, not in the one before.
func wholeSecondMargin(j *joins) int64 {
	if wholeSecondAttempts(j) {
		return int64(time.Second)
	}
	return 0
}

// wholeSecondAttempts reports whether every attempt was logged at a whole
// second, as joinAll found once: the joins and the wave search ask often.
func wholeSecondAttempts(j *joins) bool { return j.wholeSeconds }

// loggedWholeSeconds is wholeSecondAttempts measured: a pass over every
// attempt on a log stamped to the second, stopping at the first finer
// stamp on any other.
func loggedWholeSeconds(j *joins) bool {
	for _, i := range j.http {
		e := &j.tl.Events[i]
		logged := e.Start
		if e.End != 0 {
			logged = e.End
		}
		if logged%int64(time.Second) != 0 {
			return false
		}
	}
	return len(j.http) > 0
}

// delaySample collects gaps and whether every timestamp involved was a whole
// second, which limits how exactly a delay can be known.
type delaySample struct {
	kind   string
	gaps   []float64
	coarse bool
	// whole is set when the times were derived from whole-second stamps,
	// whatever digits the derivation added.
	whole bool
	// past holds, for the gaps that followed a retry-after, the gap less
	// that retry-after (addAfter): one in every pastStride of them, since
	// its quantiles need a sample, not millions of gaps.
	past       []float64
	pastStride int
	pastSeen   int
	// began and landed count, by millisecond of the wall-clock second, where
	// the gaps began and ended (nil: not counted), which tells a wait to a
	// clock time from a wait of a length (clockTimed).
	began, landed *[1000]int32
}

// phaseMs is the millisecond of the second t falls in.
func phaseMs(t int64) int { return int((t%1e9+1e9)%1e9) / 1e6 }

func (d *delaySample) add(from, to int64) {
	if to < from {
		return
	}
	d.gaps = append(d.gaps, seconds(to-from))
	if from%1e9 != 0 || to%1e9 != 0 {
		d.coarse = false
	}
	if d.landed != nil {
		d.began[phaseMs(from)]++
		d.landed[phaseMs(to)]++
	}
}

// countPhases makes d count where its gaps begin and end in the second.
func (d *delaySample) countPhases() {
	d.began, d.landed = new([1000]int32), new([1000]int32)
}

// addAfter is add for the gap after a failed attempt answered with a
// retry-after, which it also records less that retry-after: how much past
// the server's floor the SDK waited, attempt by attempt, which tells an SDK
// that honours a retry-after that varies from one that adds its own delay.
func (d *delaySample) addAfter(from, to int64, retryAfter time.Duration) {
	n := len(d.gaps)
	d.add(from, to)
	if len(d.gaps) > n && retryAfter > 0 {
		if d.pastSeen%max(d.pastStride, 1) == 0 {
			d.past = append(d.past, d.gaps[n]-retryAfter.Seconds())
		}
		d.pastSeen++
	}
}

func (d *delaySample) stats() DelayStats {
	ds := DelayStats{Kind: d.kind, N: int64(len(d.gaps))}
	if len(d.gaps) == 0 {
		return ds
	}
	// Sorted in place: the gaps are not read again, and a copy of millions
	// of them would be fresh memory.
	sorted := d.gaps
	sort.Float64s(sorted)
	ds.Mean, ds.Sigma = meanSigma(sorted)
	ds.P50 = percentileSorted(sorted, 0.5)
	ds.P10 = percentileSorted(sorted, 0.1)
	ds.P90 = percentileSorted(sorted, 0.9)
	ds.Min, ds.Max = sorted[0], sorted[len(sorted)-1]
	coarse := d.coarse || d.whole
	ds.Fixed = isFixed(ds, coarse)
	ds.WholeSeconds = coarse
	ds.TooCoarse = !ds.Fixed && coarse && !canJudgeWholeSeconds(ds)
	if d.landed != nil && !coarse {
		if timed, landing := clockTimed(ds, d.began, d.landed); timed {
			ds.ClockTimed, ds.Landing, ds.Fixed = true, landing, true
		}
	}
	return ds
}

// clockTimed: a client that waits until a clock time (a retry-after sent
// as an HTTP date, which names a whole second) sends each retry at the
// same point of the wall-clock second, however long the wait was; waits of
// a length, fixed or jittered, land wherever the failures they follow
// ended, spread at least as widely. So the retries land tightly (landing)
// where the waits themselves vary, and more tightly than the failures
// they follow ended.
func clockTimed(ds DelayStats, began, landed *[1000]int32) (bool, float64) {
	if ds.N < minFloorGaps || ds.P90-ds.P10 < minClockSpreadS {
		return false, 0
	}
	landing, beginning := phaseWindow(landed, clockShare), phaseWindow(began, clockShare)
	return landing <= maxClockLandingS && landing <= clockTighter*beginning, landing
}

const (
	// clockShare is the share of the gaps whose landing is measured.
	clockShare = 0.8
	// minClockSpreadS: waits spread less than this are fixed anyway.
	minClockSpreadS = 0.1
	// maxClockLandingS is the widest landing of a wait to a clock time: a
	// busy client sends a wave's retries over a few hundred milliseconds.
	// On the recordings, waits to an HTTP date landed 80% within 0.17 s;
	// waits of a length, over 0.41 s or more.
	maxClockLandingS = 0.25
	// clockTighter is how much tighter the landing must be than where the
	// failures ended: 0.51 for the HTTP date, 0.86 and above for waits of
	// a length.
	clockTighter = 2.0 / 3
)

// phaseWindow is the narrowest stretch of the second, in seconds, wrapping
// round, that holds share of the counts.
func phaseWindow(counts *[1000]int32, share float64) float64 {
	total := int64(0)
	for _, c := range counts {
		total += int64(c)
	}
	need := int64(math.Ceil(share * float64(total)))
	if need == 0 {
		return 0
	}
	best, held, hi := len(counts), int64(0), 0
	// Two pointers over the second laid twice end to end: the window
	// [lo, hi) grows until it holds enough, then its start moves on.
	for lo := range len(counts) {
		for held < need && hi < lo+len(counts) {
			held += int64(counts[hi%len(counts)])
			hi++
		}
		if held >= need {
			best = min(best, hi-lo)
		}
		held -= int64(counts[lo])
	}
	return float64(best) / 1e3
}

// isFixed: a delay is fixed when its spread is too small to be jitter. With
// whole-second timestamps the difference of two truncated times spreads by up
// to half a second even for an exact delay, and delays of a few seconds cannot
// be judged at all.
func isFixed(ds DelayStats, coarse bool) bool {
	if ds.N < 3 || ds.Mean <= 0 {
		return false
	}
	if coarse {
		// Truncation spreads a gap over two whole seconds as its ends
		// fall at different points of the second, unless both keep to
		// one point: an exact wait of whole seconds (both ends at the
		// failure's point), or a wait until a clock time (each retry at
		// the top of a second, whatever the failure's point). Jitter
		// moves the retry's point, so many gaps agreeing this closely
		// on such stamps have none. Gaps from a start the log derives
		// (the stamp less the request's own time) keep the request time's
		// fraction, so an exact wait of a few seconds agrees to within a
		// few per cent of itself there, which the narrowest jitter worth
		// naming (±10%, σ 5.8%) does not.
		if ds.N >= minFloorGaps && ds.Sigma <= math.Max(maxWholeSecondSigma, 0.02*ds.Mean) {
			return true
		}
		return ds.Mean >= 4 && ds.Sigma <= math.Max(0.02*ds.Mean, 0.55)
	}
	return ds.Sigma <= math.Max(0.02*ds.Mean, 0.002) || (tightFloor(ds.P10, ds.P50) && ds.P90-ds.P50 <= 0.15*ds.P50) ||
		lateTail(ds) || sharpFloor(ds)
}

// sharpFloor: a client too busy to run most retries on time still runs
// some on time, so the fastest tenth of its gaps sit on the delay itself,
// within a few per cent of the spread, however late the rest come. Jitter,
// uniform or full, spreads its fastest tenth over a tenth of its range. The
// lateness must stay a fraction of the delay, and enough gaps must show
// the floor.
func sharpFloor(ds DelayStats) bool {
	spread := ds.P90 - ds.P10
	return ds.N >= minFloorGaps && ds.Min > 0 && ds.P10-ds.Min <= 0.04*spread && ds.P90-ds.Min <= 0.25*ds.Min
}

// maxWholeSecondSigma is the widest spread of gaps on whole-second stamps
// that keep to one point of the second: one gap in a hundred crossing
// into the next second already spreads them by σ 0.1 s.
const maxWholeSecondSigma = 0.05

// minFloorGaps is the fewest gaps whose lower tenth can show a floor: in
// fewer, the lowest few sit close by chance.
const minFloorGaps = 50

// lateTail: a fixed delay that a busy client runs late by a fraction of it
// has its gaps skewed above the delay, with a lower half at most half as
// wide as the upper; jitter, uniform or full, spreads both halves alike.
func lateTail(ds DelayStats) bool {
	lower, upper := ds.P50-ds.P10, ds.P90-ds.P50
	return ds.P50 > 0 && lower <= 0.05*ds.P50 && lower <= 0.5*upper && upper <= 0.25*ds.P50
}

// tightFloor: a client that waits a fixed delay is only ever late, by how
// long its event loop or scheduler takes to run the retry, so its gaps pile
// up on the delay and trail off a little above it. Jitter spreads them below
// the median as much as above. The floor, the lower tenth against the
// median, tells the two apart where the spread does not; the upper tenth
// must stay near too, or two fixed delays mixed would pass.
func tightFloor(p10, p50 float64) bool {
	return p50 > 0 && p50-p10 <= math.Max(0.01*p50, 0.005)
}

const (
	kindRetryAfter = "retry-after"
	kindSDKDelay   = "sdk retry delay"
	kindRequeue    = "requeue delay"
	// kindPastRetryAfter is the SDK's gap less the retry-after it
	// followed, attempt by attempt.
	kindPastRetryAfter = "sdk wait past retry-after"
	// kindSlotTurnover is a failed call's time under a limit on calls in
	// flight: the slots free in step.
	kindSlotTurnover = "slot turnover"
)

// measureDelays measures the retry-after values the server sent, the SDK's
// gap between a failed attempt and the next one in the same call, and the job
// runner's gap between a failed queue attempt and the next one.
func measureDelays(j *joins) (delays []DelayStats, pastRetryAfter DelayStats) {
	tl := j.tl
	// Each sample is sized once: counted, or for the pairs of attempts or
	// queue attempts that could make a gap (see httpWhere); and each is
	// summed up and let go before the next is gathered, so that millions
	// of gaps of one kind are held at a time.
	var out []DelayStats
	done := func(d *delaySample) {
		if len(d.gaps) > 0 {
			out = append(out, d.stats())
		}
		spill.Free(d.gaps)
		d.gaps = nil
	}
	ra := delaySample{kind: kindRetryAfter,
		gaps: httpWhere(j, j.tally.retryAfters, func(e *timeline.Event) (float64, bool) { return e.RetryAfter.Seconds(), e.RetryAfter > 0 })}
	if len(ra.gaps) == 0 {
		// The attempts counted on the HTTP side come from the log closest to
		// the endpoint, which may not log the header; the SDK's log of the
		// same attempts may.
		for k := range tl.Events {
			if e := &tl.Events[k]; e.RetryAfter > 0 && e.Layer == timeline.LayerHTTP {
				ra.gaps = append(ra.gaps, e.RetryAfter.Seconds())
			}
		}
	}
	if len(ra.gaps) == 0 {
		for _, i := range j.callEvents {
			if e := &tl.Events[i]; e.RetryAfter > 0 {
				ra.gaps = append(ra.gaps, e.RetryAfter.Seconds())
			}
		}
	}
	done(&ra)
	// An access log stamps the completion to the second; a start derived
	// from it by subtracting $request_time has milliseconds but is no more
	// precise, so the sample's precision is the attempts' logged stamps.
	coarseAttempts := wholeSecondAttempts(j)
	// Each group's attempts but its first follow one.
	pairs := max(0, int(j.joinedAttempts())-len(j.heads))
	sdk := delaySample{kind: kindSDKDelay, coarse: true, whole: coarseAttempts, gaps: spill.Make[float64](0, pairs),
		pastStride: pastStrideFor(len(j.http))}
	sdk.countPhases()
	for _, h := range j.heads {
		prev := -1
		for i := range j.chain(h.first) {
			if prev >= 0 && tl.Events[prev].Outcome.Failed() {
				p := &tl.Events[prev]
				sdk.addAfter(eventEnd(p), tl.Events[i].Start, p.RetryAfter.Duration())
			}
			prev = i
		}
	}
	if sdk.whole {
		// The access log's stamps are too coarse for the SDK's gaps; an SDK
		// log of the same attempts, with milliseconds, times them.
		if fine := clientAttemptGaps(j); len(fine.gaps) >= 3 && !fine.coarse {
			spill.Free(sdk.gaps)
			sdk = fine
		} else {
			spill.Free(fine.gaps)
		}
	}
	done(&sdk)
	rq := delaySample{kind: kindRequeue, coarse: true, whole: coarseAttempts && !j.callsFromLog, gaps: spill.Make[float64](0, max(0, j.queueAttemptCount()-len(j.tasks)))}
	for ti := range j.tasks {
		qas := j.queueAttemptsOf(&j.tasks[ti])
		for k := 1; k < len(qas); k++ {
			prev, next := j.queueAttempt(qas[k-1]), j.queueAttempt(qas[k])
			if prev.failed {
				rq.add(prev.end, next.start)
			}
		}
	}
	done(&rq)
	if out == nil {
		out = []DelayStats{}
	}
	past := delaySample{kind: kindPastRetryAfter, gaps: sdk.past}
	return out, past.stats()
}

// pastStrideFor is the stride that keeps about maxPastSample of n gaps.
func pastStrideFor(n int) int { return max(1, n/maxPastSample) }

// maxPastSample bounds the sample of gaps less their retry-after.
const maxPastSample = 1 << 16

// clientAttemptGaps measures the SDK's gaps on the attempts an SDK log
// recorded that the HTTP side does not count (it counts the proxy's log of
// the same attempts), chained by their call id.
func clientAttemptGaps(j *joins) delaySample {
	tl := j.tl
	// The HTTP side counts whole sources (those of the best observer), so
	// the uncounted attempts are those of the other sources.
	counted := j.counted
	d := delaySample{kind: kindSDKDelay, coarse: true, gaps: spill.Make[float64](0, 0), pastStride: pastStrideFor(len(tl.Events))}
	d.countPhases()
	if !slices.Contains(counted, false) {
		return d
	}
	last := map[timeline.Sym]int{}
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP || e.CallID == timeline.NoSym || int(e.Source) >= len(counted) || counted[e.Source] {
			continue
		}
		if p, ok := last[e.CallID]; ok && tl.Events[p].Outcome.Failed() {
			d.addAfter(eventEnd(&tl.Events[p]), e.Start, tl.Events[p].RetryAfter.Duration())
		}
		last[e.CallID] = i
	}
	return d
}

func delayOf(ds []DelayStats, kind string) (DelayStats, bool) {
	for _, d := range ds {
		if d.Kind == kind && d.N > 0 {
			return d, true
		}
	}
	return DelayStats{}, false
}

// periodTolerance is how closely a sum of measured delays must match the
// period to be offered as its explanation.
const periodTolerance = 0.03

// explainPeriod tries period = requeue delay + (a-1) x SDK retry delay
// (+ a x attempt duration) for the attempts a that failed calls make, and,
// without a requeue layer, period = SDK retry delay (+ attempt duration).
func explainPeriod(j *joins, period float64, delays []DelayStats, pastRetryAfter DelayStats) (suspects []FixedDelay, unseen float64) {
	rq, haveRQ := delayOf(delays, kindRequeue)
	sdk, haveSDK := delayOf(delays, kindSDKDelay)
	ra, haveRA := delayOf(delays, kindRetryAfter)
	// Waves truncate to the same second together, so the truncation errors
	// of a whole-second sample do not average out: its median is the
	// delay, its mean is biased.
	// A fixed delay that a client runs late now and then keeps its median;
	// the late few pull its mean off it.
	// The same few inflate σ: beside the median, the spread of the
	// central 80% is the one to state, as the σ a normal spread of that
	// width has (p90 - p10 = 2.563 σ). Else a fixed delay reads
	// "2.01 s ± 0.61 s honoured exactly".
	robust := func(d *DelayStats) {
		d.Mean = d.P50
		// A central 80% all alike gives 0, which would read as exact
		// while some gaps differ: σ stays then.
		if r := (d.P90 - d.P10) / 2.563; d.Fixed && r > 0 && r < d.Sigma {
			d.Sigma = r
		}
	}
	if sdk.WholeSeconds || sdk.Fixed {
		robust(&sdk)
	}
	if rq.WholeSeconds || rq.Fixed {
		robust(&rq)
	}
	retry, retryKind := sdk, kindSDKDelay
	if !haveSDK && haveRA {
		retry, retryKind = ra, kindRetryAfter
	}
	dur := typicalAttemptDuration(j)
	maxA := maxFailedCallAttempts(j)
	spanEvidence := ""
	if !haveSDK && !haveRA && haveRQ && maxA > 1 {
		// No attempt is logged, but the call log says how many attempts a
		// failed call made and how long it took.
		if d, n, span, sigma, ok := callSpanDelay(j, maxA, dur); ok {
			sdk, retry, retryKind, haveSDK = d, d, kindSDKDelay, true
			spanEvidence = fmt.Sprintf("; from the call log: %s failed calls of %d attempts took at least %s (lower tenth), attempts not logged", count(int64(n)), maxA, secsSpread(span, sigma))
		}
	}
	if haveSDK && sdk.WholeSeconds && !sdk.Fixed && maxA > 1 {
		// Whole-second attempt stamps cannot time the SDK's gaps, but a call
		// log with milliseconds times the calls.
		if d, n, span, sigma, ok := callSpanDelay(j, maxA, dur); ok {
			sdk, retry = d, d
			spanEvidence = fmt.Sprintf("; %s failed calls of %d attempts took at least %s (lower tenth) in the call log", count(int64(n)), maxA, secsSpread(span, sigma))
		}
	}
	haveRetry := haveSDK || haveRA

	type fit struct {
		a       int
		withDur bool
		pred    float64
	}
	var best fit
	bestErr := math.Inf(1)
	try := func(f fit) {
		if e := math.Abs(f.pred-period) / period; e < bestErr-1e-9 {
			best, bestErr = f, e
		}
	}
	for a := 1; a <= maxA; a++ {
		switch {
		case a > 1 && !haveRetry:
			continue
		case !haveRQ && a != 2:
			// Without a requeue layer only one retry step can make a period:
			// the whole population retrying in step.
			continue
		}
		pred := float64(a-1) * retry.Mean
		if haveRQ {
			pred += rq.Mean
		}
		try(fit{a, false, pred})
		try(fit{a, true, pred + float64(a)*dur})
	}
	if bestErr > periodTolerance {
		if out := slotTurnover(j, period); len(out) > 0 {
			return out, 0
		}
		if haveRQ {
			return inferredRetryWait(j, period, rq, sdk, haveSDK, dur), 0
		}
		return unseenRemainder(j, period, dur, haveRetry, func(times int) (FixedDelay, string) {
			return sdkSuspect(times, retry, retryKind, sdk, ra, pastRetryAfter, haveRA, spanEvidence)
		}, retry.Mean)
	}
	var out []FixedDelay
	var parts []string
	if haveRQ {
		fd := FixedDelay{Layer: "job runner", Kind: kindRequeue, Delay: rq.Mean, Sigma: rq.Sigma, Times: 1}
		fd.Text = fmt.Sprintf("requeue delay %s (%s, job runner)", secsSpread(rq.Mean, rq.Sigma), fixedWord(rq))
		parts = append(parts, fd.Text)
		if runnerLate(rq) {
			// The two terms add up to the median the split was fitted with.
			fd.Delay, fd.Sigma = rq.P10, 0
			fd.Text = fmt.Sprintf("requeue delay %s (fixed, no jitter, job runner, from the fastest tenth of the requeues)", secs(rq.P10))
			parts[len(parts)-1] = fd.Text
			parts = append(parts, fmt.Sprintf("job runner lateness %s (the median requeue less the fastest tenth: a fixed timer only runs late, as a runner busy with a wave's failures starts some timers late)", secs(rq.Mean-rq.P10)))
		}
		out = append(out, fd)
	}
	if best.a > 1 {
		fd, lateBy := sdkSuspect(best.a-1, retry, retryKind, sdk, ra, pastRetryAfter, haveRA, spanEvidence)
		parts = append(parts, fd.Text)
		if lateBy != "" {
			parts = append(parts, lateBy)
		}
		out = append(out, fd)
	}
	// An attempt time too small to matter would only clutter the sentence;
	// "=" or "≈" then follows from the terms actually shown.
	shown := best.pred
	if best.withDur {
		if d := float64(best.a) * dur; d >= 0.001*period {
			parts = append(parts, fmt.Sprintf("%d x attempt time %s", best.a, secs(dur)))
		} else {
			shown -= d
		}
	}
	eq := "="
	if math.Abs(shown-period) > 0.005*period {
		eq = "≈"
	}
	text := fmt.Sprintf("period %s %s %s", secs(period), eq, strings.Join(parts, " + "))
	if haveRQ && best.a == 1 && haveSDK {
		text += fmt.Sprintf("; the SDK's own retries (mean %s, %s) add nothing to it", secs(sdk.Mean), fixedWord(sdk))
	}
	// The whole explanation rides on the first suspect, the one a report
	// shows first; each suspect keeps its own part too.
	out[0].Text = text
	return out, 0
}

// runnerLate: a fixed requeue timer never fires early, so where a busy
// job runner started some late, its fastest tenth sit on the delay and the
// median is late by how busy the runner was. Millisecond gaps must show
// it, and the lateness must be worth a term of its own.
func runnerLate(rq DelayStats) bool {
	return rq.Fixed && !rq.WholeSeconds && rq.N >= minFloorGaps && rq.Min > 0 && rq.P10 >= rq.Min && rq.P50-rq.P10 >= minRunnerLatenessS
}

// minRunnerLatenessS is the least lateness split off the requeue delay:
// a runner that is not busy starts its timers within a few milliseconds.
const minRunnerLatenessS = 0.05

// inferredRetryWait splits a period that a measured requeue delay and no
// measured SDK delay add up to: the SDK's waits are then what the period
// leaves, shared among the waits of a failed call of the median attempts.
// Where the SDK's gaps were measured too coarsely (whole seconds) or not at
// all (the server's retry-after differed from what the SDK waited, an
// HTTP-date one, a call log alone), the wait is inferred, within the range
// measured when there is one, and said to be inferred.
func inferredRetryWait(j *joins, period float64, rq, sdk DelayStats, haveSDK bool, dur float64) []FixedDelay {
	a := medianFailedCallAttempts(j)
	if a < 2 {
		return []FixedDelay{}
	}
	rest := period - rq.Mean
	durText := ""
	if d := float64(a) * dur; d >= 0.001*period {
		rest -= d
		durText = fmt.Sprintf(" + %d x attempt time %s", a, secs(dur))
	}
	wait := rest / float64(a-1)
	if wait <= 0 || haveSDK && (wait < sdk.Min-0.05 || wait > sdk.Max+0.05) {
		return []FixedDelay{}
	}
	var measured string
	if !haveSDK {
		// Nothing timed the SDK's gaps: the failed calls' own spans must
		// hold waits of about that length, or the period is not theirs.
		span, ok := medianFailedCallSpan(j, a)
		if !ok || math.Abs((span-float64(a)*dur)/float64(a-1)-wait) > math.Max(0.25*wait, 0.5) {
			return []FixedDelay{}
		}
		measured = fmt.Sprintf("no log times the SDK's gaps, but failed calls of %d attempts took %s at the median, as such waits would", a, secs(span))
	} else {
		measured = fmt.Sprintf("the SDK's gaps measured %s to %s", secs(sdk.Min), secs(sdk.Max))
		if sdk.WholeSeconds {
			measured += " on whole-second stamps"
		}
	}
	rqText := fmt.Sprintf("requeue delay %s (%s, job runner)", secsSpread(rq.Mean, rq.Sigma), fixedWord(rq))
	fd := FixedDelay{Layer: "sdk", Kind: kindSDKDelay, Delay: wait, Times: a - 1,
		Text: fmt.Sprintf("%d x SDK retry delay %s (inferred from the period, not measured: %s, so fixed or jittered cannot be told, SDK)", a-1, secs(wait), measured)}
	out := []FixedDelay{{Layer: "job runner", Kind: kindRequeue, Delay: rq.Mean, Sigma: rq.Sigma, Times: 1, Text: rqText}, fd}
	out[0].Text = fmt.Sprintf("period %s = %s + %s%s", secs(period), rqText, fd.Text, durText)
	return out
}

// unseenRemainder splits a period that the measured delays fall short of
// where no log times the job runner: the SDK's waits in a failed call of
// the usual attempts, and the rest, which lies between a failed call's end
// and its task's next call, where a requeue delay would. With the SDK log
// alone the user learns how long that unseen delay is and where it sits.
// suspect gives the SDK's part for a number of waits; retry is one wait.
// Calls that fail at their first attempt leave the SDK no part: the rest
// is then the period less one attempt, and no suspect carries it.
func unseenRemainder(j *joins, period, dur float64, haveRetry bool, suspect func(times int) (FixedDelay, string), retry float64) ([]FixedDelay, float64) {
	a := medianFailedCallAttempts(j)
	if a < 1 || a > 1 && !haveRetry {
		return []FixedDelay{}, 0
	}
	rest := period
	var parts []string
	var fd FixedDelay
	if a > 1 {
		var lateBy string
		fd, lateBy = suspect(a - 1)
		parts = append(parts, fd.Text)
		if lateBy != "" {
			parts = append(parts, lateBy)
		}
		rest -= float64(a-1) * retry
	}
	if d := float64(a) * dur; d >= 0.001*period {
		parts = append(parts, fmt.Sprintf("%d x attempt time %s", a, secs(dur)))
		rest -= d
	}
	// A remainder this small is the SDK's own spread, not a delay: the
	// period is measured to a few per cent. A tenth of it still holds a
	// short requeue after a long comb (3 s after 3 x 5 s, in an 18 s
	// period: openai-ra5-fixed3-max3-short).
	if rest < minUnseenShare*period {
		return []FixedDelay{}, 0
	}
	if a == 1 {
		return []FixedDelay{}, rest
	}
	parts = append(parts, fmt.Sprintf("%s that no log given shows, between a failed call's end and its task's next call (where a job runner's requeue delay would be; its log would time it)", secs(rest)))
	fd.Text = fmt.Sprintf("period %s = %s", secs(period), strings.Join(parts, " + "))
	return []FixedDelay{fd}, rest
}

// minUnseenShare is the least share of the period that the SDK log alone
// names as a delay no log shows.
const minUnseenShare = 0.1

// medianFailedCallSpan is the median time that failed batch calls of a
// attempts took, start to end; ok is false without any.
func medianFailedCallSpan(j *joins, a int) (float64, bool) {
	var d []float64
	for i := range j.calls {
		if c := &j.calls[i]; c.failed() && int(c.attempts) == a && c.end > c.start && c.class == timeline.ClassBatch {
			d = append(d, seconds(c.end-c.start))
		}
	}
	if len(d) == 0 {
		return 0, false
	}
	slices.Sort(d)
	return d[len(d)/2], true
}

// medianFailedCallAttempts is the median of the attempts that failed batch
// calls made (of every failed call without a batch class), 0 without any.
// Attempt counts are few distinct small numbers, so they are counted, not
// collected: a log of millions of calls allocates nothing here.
func medianFailedCallAttempts(j *joins) int {
	batch, all := map[int32]int64{}, map[int32]int64{}
	for i := range j.calls {
		if c := &j.calls[i]; c.failed() && c.attempts > 0 {
			all[c.attempts]++
			if c.class == timeline.ClassBatch {
				batch[c.attempts]++
			}
		}
	}
	if len(batch) > 0 {
		all = batch
	}
	var n int64
	for _, k := range all {
		n += k
	}
	seen := int64(0)
	for _, a := range slices.Sorted(maps.Keys(all)) {
		// The upper median, as all[len/2] of the sorted attempts.
		if seen += all[a]; seen > n/2 {
			return int(a)
		}
	}
	return 0
}

// sdkSuspect is the SDK's part of a period: times waits of its retry
// delay, named for what the gaps show (the retry-after honoured exactly,
// sent late by a busy client, honoured with jitter, or a delay of the
// SDK's own), and, for a retry-after sent late, the lateness as a term of
// its own.
func sdkSuspect(times int, retry DelayStats, retryKind string, sdk, ra, past DelayStats, haveRA bool, callEvidence string) (fd FixedDelay, lateBy string) {
	fd = FixedDelay{Layer: "sdk", Kind: retryKind, Delay: retry.Mean, Sigma: retry.Sigma, Times: times}
	spread := secsSpread(retry.Mean, retry.Sigma)
	switch {
	case retryKind == kindRetryAfter:
		// Only the server's header was seen: the SDK's own gaps could
		// not be measured.
		fd.Layer = "server"
		fd.Text = fmt.Sprintf("%d x retry-after %s (server; SDK gaps not measurable)", times, spread)
	case haveRA && math.Abs(sdk.Mean-ra.Mean) <= math.Max(0.03*ra.Mean, 0.05) && sdk.Fixed:
		fd.Text = fmt.Sprintf("%d x retry-after %s honoured exactly (SDK%s)", times, spread, callEvidence)
	case haveRA && sentLate(sdk, ra):
		// The SDK waits the retry-after exactly and its busy client
		// sends the retry late: the fixed delay is the server's, and
		// the lateness is a term of its own.
		// The two terms add up to the wait the split was fitted with.
		late := retry.Mean - ra.Mean
		fd.Kind, fd.Delay, fd.Sigma = kindRetryAfter, ra.Mean, ra.Sigma
		fd.Text = fmt.Sprintf("%d x retry-after %s honoured exactly (SDK)", times, secsSpread(ra.Mean, ra.Sigma))
		lateBy = fmt.Sprintf("%d x client lateness %s (a tenth of the retries left within %s of the retry-after: the SDK waits it exactly and a busy client sends late)",
			times, secs(late), secs(sdk.P10-ra.Mean))
	case haveRA && waitsEachRetryAfter(past, ra):
		// The server's retry-after varies (an HTTP date, a computed
		// wait): its spread is the server's, and the SDK waits each one.
		fd.Text = fmt.Sprintf("%d x retry-after %s honoured exactly (SDK; the server's retry-after ran %s to %s, and each retry waited its own, %s past it at the median)",
			times, spread, secs(ra.Min), secs(ra.Max), secs(past.P50))
	case sdk.ClockTimed:
		// What sets the clock time is not in the logs: a retry-after sent
		// as an HTTP date is what SDKs wait so, but a client retrying on a
		// timer's tick would too.
		fd.Text = fmt.Sprintf("%d x SDK retry delay %s (fixed, each until a clock time, as an SDK waits for a retry-after sent as an HTTP date: the waits ran %s to %s, but %.0f%% of the retries started in one %s stretch of the wall-clock second)",
			times, spread, secs(sdk.Min), secs(sdk.Max), 100*clockShare, secs(sdk.Landing))
	case sdk.Fixed && callEvidence != "":
		fd.Text = fmt.Sprintf("%d x SDK retry delay %s (fixed, no jitter, SDK%s)", times, spread, callEvidence)
	case haveRA && math.Abs(sdk.Mean-ra.Mean) <= math.Max(0.03*ra.Mean, 0.05):
		fd.Text = fmt.Sprintf("%d x retry-after %s honoured with jitter (SDK, %s)", times, spread, fixedWord(sdk))
	default:
		fd.Text = fmt.Sprintf("%d x SDK retry delay %s (%s, SDK)", times, spread, fixedWord(sdk))
	}
	return fd, lateBy
}

// waitsEachRetryAfter reports whether the SDK waited the retry-after each
// retry followed, where the server's varies: attempt by attempt, the gap
// less its retry-after sits on zero (no retry left before its floor, a
// tenth within 10 ms of it), and nine in ten came within a quarter of the
// retry-after after it, as a busy client's are (sentLate).
func waitsEachRetryAfter(past, ra DelayStats) bool {
	return past.N >= minFloorGaps && ra.P90 > ra.P10 && past.P10 >= -0.005 && past.P10 <= 0.01 &&
		past.P90 <= 0.25*ra.Mean
}

// sentLate reports whether the SDK's gaps are a fixed retry-after that a
// busy client runs late: the server sent one value, no retry left before
// it, the fastest tenth left within 1% (10 ms at least) of it, and the
// slowest tenth within a quarter of it after.
func sentLate(sdk, ra DelayStats) bool {
	return !sdk.WholeSeconds && ra.Fixed && ra.Sigma <= 0.001 && sdk.N >= minFloorGaps &&
		sdk.Min >= ra.Mean-0.005 && sdk.P10 >= sdk.Min && sdk.P90 >= sdk.P10 &&
		sdk.P10-ra.Mean <= math.Max(0.01*ra.Mean, 0.01) && sdk.P90-ra.Mean <= 0.25*ra.Mean
}

func fixedWord(d DelayStats) string {
	switch {
	case d.Fixed:
		return "fixed, no jitter"
	case d.TooCoarse:
		return fmt.Sprintf("%s to %s on whole-second stamps, too coarse to tell fixed from jittered", secs(d.Min), secs(d.Max))
	}
	return fmt.Sprintf("jittered, %s to %s", secs(d.Min), secs(d.Max))
}

// canJudgeWholeSeconds: truncating both ends to the second spreads an exact
// delay by up to a second, so only a delay long against that spread, or a
// spread far wider than it, shows jitter.
func canJudgeWholeSeconds(d DelayStats) bool {
	return d.Mean >= 4 || d.Sigma > 1
}

// callSpanDelay is the SDK's delay between attempts where failed calls of
// a attempts all take the same time: fixed delays, each the span less the
// attempts' own time, shared among the a-1 waits. It also returns the calls
// counted, the span and its spread.
func callSpanDelay(j *joins, a int, attemptTime float64) (d DelayStats, n int, span, sigma float64, ok bool) {
	span, sigma, n, ok = failedCallSpan(j, a)
	inner := (span - float64(a)*attemptTime) / float64(a-1)
	if !ok || inner <= 0 {
		return DelayStats{}, n, span, sigma, false
	}
	d = DelayStats{Kind: kindSDKDelay, N: int64(n), Mean: inner, Sigma: sigma / float64(a-1), P50: inner, P10: inner, Min: inner, Max: inner, Fixed: true}
	return d, n, span, sigma, true
}

// failedCallSpan is the floor (lower tenth) and spread of how long failed
// calls of a attempts took, from an SDK log with sub-second times; ok is false without
// enough of them.
func failedCallSpan(j *joins, a int) (floor, sigma float64, n int, ok bool) {
	if !j.callsFromLog {
		return 0, 0, 0, false
	}
	d := []float64{}
	for i := range j.calls {
		c := &j.calls[i]
		if c.failed() && int(c.attempts) == a && c.end > c.start && c.class == timeline.ClassBatch {
			if c.start%1e9 == 0 && c.end%1e9 == 0 {
				continue
			}
			d = append(d, seconds(c.end-c.start))
		}
	}
	if len(d) < 3 {
		return 0, 0, len(d), false
	}
	sort.Float64s(d)
	p50, p25, p10 := percentileSorted(d, 0.5), percentileSorted(d, 0.25), percentileSorted(d, 0.1)
	_, sigma = meanSigma(d)
	// A call's span adds a attempt times to its delays, each late by its
	// own scheduling, so its median drifts up; but calls that wait fixed
	// delays still pile up on the floor, where jittered ones spread out.
	// A busy client can leave only the fastest tenth on it (sharpFloor).
	spans := DelayStats{N: int64(len(d)), Min: d[0], P10: p10, P50: p50, P90: percentileSorted(d, 0.9)}
	if p25-p10 > 0.01*p50 && !sharpFloor(spans) {
		return p10, sigma, len(d), false
	}
	return p10, sigma, len(d), true
}

// typicalAttemptDuration is the median duration of batch attempts that have
// an end time, 0 when none do.
func typicalAttemptDuration(j *joins) float64 {
	// A median needs no more than a large sample.
	stride := max(1, len(j.http)/100_000)
	var d []float64
	for k := 0; k < len(j.http); k += stride {
		e := &j.tl.Events[j.http[k]]
		if e.Class == timeline.ClassBatch && e.End > e.Start {
			d = append(d, seconds(e.End-e.Start))
		}
	}
	if len(d) == 0 {
		return 0
	}
	return percentile(d, 0.5)
}

// maxFailedCallAttempts bounds the attempts-per-failed-call tried when
// explaining the period.
func maxFailedCallAttempts(j *joins) int {
	m := 1
	for i := range j.calls {
		if c := &j.calls[i]; c.failed() && int(c.attempts) > m {
			m = int(c.attempts)
		}
	}
	return min(m, 10)
}

// concurrencyLimit is the most batch calls in flight at once, where they sat
// at that many for at least half the time between the first batch call and
// the last: a job runner with a limit on calls in flight. 0 otherwise.
func concurrencyLimit(j *joins) int {
	// An edge is a time doubled, plus 1 for a start: sorted, ends come
	// before starts at the same time, since an end frees its slot first.
	// 8 bytes an edge, counted before they are made, for millions of calls.
	n := 0
	for i := range j.calls {
		if c := &j.calls[i]; c.class == timeline.ClassBatch && c.end > c.start {
			n += 2
		}
	}
	if n < 2*minGroupTasks {
		return 0
	}
	edges := spill.Make[int64](0, n)
	defer spill.Free(edges)
	for i := range j.calls {
		if c := &j.calls[i]; c.class == timeline.ClassBatch && c.end > c.start {
			edges = append(edges, 2*c.start+1, 2*c.end)
		}
	}
	slices.Sort(edges)
	delta := func(e int64) int {
		if e&1 != 0 {
			return 1
		}
		return -1
	}
	inFlight, most := 0, 0
	for _, e := range edges {
		inFlight += delta(e)
		most = max(most, inFlight)
	}
	var atMost int64
	inFlight = 0
	for k, e := range edges {
		inFlight += delta(e)
		// Within a few calls of the most: a freed slot is taken again a
		// moment later.
		if k+1 < len(edges) && most >= 2 && inFlight >= most-max(1, most/10) {
			atMost += edges[k+1]>>1 - e>>1
		}
	}
	span := edges[len(edges)-1]>>1 - edges[0]>>1
	if most < 2 || span <= 0 || 2*atMost < span {
		return 0
	}
	return most
}

// slotTurnover explains a period that no sum of delays makes, under a limit
// on calls in flight: the slots free when the calls in them end, so new
// calls start in step every failed call's time.
func slotTurnover(j *joins, period float64) []FixedDelay {
	limit := concurrencyLimit(j)
	maxA := maxFailedCallAttempts(j)
	if limit == 0 {
		return []FixedDelay{}
	}
	span, sigma, n, ok := failedCallSpan(j, maxA)
	if !ok {
		// Without a floor the median failed call still says how long a
		// slot is held.
		var d []float64
		for i := range j.calls {
			if c := &j.calls[i]; c.failed() && c.class == timeline.ClassBatch && c.end > c.start {
				d = append(d, seconds(c.end-c.start))
			}
		}
		if len(d) < 3 {
			return []FixedDelay{}
		}
		span = percentile(d, 0.5)
		_, sigma = meanSigma(d)
		n = len(d)
	}
	// The slots may free in k staggered cohorts, each in step.
	k := int(math.Round(span / period))
	if k < 1 || k > 4 || math.Abs(span/float64(k)-period)/period > periodTolerance {
		return []FixedDelay{}
	}
	fd := FixedDelay{Layer: "job runner", Kind: kindSlotTurnover, Delay: span, Sigma: sigma, Times: 1}
	cohorts := ""
	if k > 1 {
		cohorts = fmt.Sprintf(", in %d staggered cohorts", k)
	}
	fd.Text = fmt.Sprintf("period %s ≈ the time a failed call holds one of %d concurrency slots, %s over %d attempts (%s calls)%s: calls start in step as the slots free, so the waves are the limit's, not a requeue delay's",
		secs(period), limit, secsSpread(span, sigma), maxA, count(int64(n)), cohorts)
	return []FixedDelay{fd}
}

const (
	evidenceACF  = "autocorrelation"
	evidenceGrid = "burst grid"

	rejectedGrid      = "grid"
	rejectedWide      = "wide"
	rejectedChance    = "chance"
	rejectedGrowth    = "growth"
	rejectedRetries   = "retry growth"
	rejectedScattered = "scattered"
	rejectedOverlap   = "overlap"
	rejectedOutlasted = "outlasted"
	rejectedUnfailed  = "more than failed"
	rejectedUneven    = "uneven"
	rejectedSkipped   = "skipped"

	// strongGridACF is how many times its shuffled threshold an ACF must
	// be to carry a period strongly: enough that chance alignments of
	// random bursts, which lift the ACF only a little over the threshold,
	// need not be ruled out burst by burst.
	//
	// survivorGrowth bounds how many times the smallest wave on a grid a
	// later one may be where the autocorrelation carries the period
	// strongly. A wave's retries
	// are the survivors of the waves before it, so one replayed storm only
	// shrinks; the bound leaves room for a wave whose attempts merged into
	// one burst where an earlier wave's stood apart, its first attempts
	// alone counted. Under strongGridACF no wave may outgrow an earlier
	// one beyond Poisson noise: bursts at random times of unrelated sizes
	// are the likelier story there. On 40 unseen accuracy streams that cut
	// the aperiodic traces given a period from 5 to 1 and lost no periodic
	// one; with no room at any ACF, storms of merged combs (ACF 2.7 to 12
	// times its threshold) were lost.
	survivorGrowth = 6
	strongGridACF  = 2.5
	// minFloorWave is the smallest wave that bounds the later ones: a
	// burst of a few requests may be the background's own clump.
	minFloorWave = 10

	// maxGridChance is the largest share of random placements that may
	// line up as well as the bursts of a period the ACF carries do. It
	// can be loose, since such bursts must also replay their failures
	// (outnumbersFailures), which random bursts most of whose requests
	// succeed do not: from 0.05, 0.15 fixed 19 of 362 misses on 320
	// accuracy streams and gave no aperiodic trace a period.
	maxGridChance = 0.15
	// maxMidwayErrors is how many standard errors from halfway between
	// the other two the middle of three bursts of at least minFloorWave
	// calls may sit. On the 200 accuracy streams 3000-3099 and 5000-5099,
	// the middle of three such waves a fixed delay made sat at most 4.7
	// from it in 2,679 traces (a wave's requeue jitter makes its errors a
	// little short); the middle of three such bursts at random times sat
	// more than 6 from it in 643 of 728 aperiodic traces.
	maxMidwayErrors = 6
	// maxMidwayChance is the largest share of random places of the middle
	// burst that may put it as close to halfway, where three bursts are
	// the period's only evidence: a share of the room, so bursts at random
	// times pass at about this rate.
	maxMidwayChance = 0.01
	// maxBurstGridChance is the same for a period the bursts carry alone,
	// with the ACF under its threshold: there the grid is all the
	// evidence.
	maxBurstGridChance = 0.05
	// maxNextWaveChance is the largest chance of background alone bringing
	// as many arrivals as came where the grid puts the wave after three
	// bursts, for those arrivals to count as that wave.
	maxNextWaveChance = 0.05
	// gridACFShare is how far under its threshold the ACF of a series
	// whose bursts all keep to one grid may fall, and minGridOnly how
	// many such bursts it takes. Four waves stamped to the whole second
	// and decaying by half each time leave the ACF at 0.7-0.8 of its
	// threshold; no aperiodic trace of 10,240 scored reached the period
	// by this evidence at 0.6 or 0.7.
	gridACFShare = 0.7
	minGridOnly  = 4
	// weakGridACFShare is how far under its threshold the ACF may fall
	// when, besides, no wave on the grid outgrows an earlier one beyond
	// Poisson noise, as a replayed storm's survivors never do, and one of
	// them is more than a clump. Four or five waves of 40-150 calls stamped to the whole second
	// over a trace several times longer than the storm leave the ACF at
	// 0.45-0.7 of its threshold; bursts at random times seldom both keep
	// to one grid and shrink in order.
	weakGridACFShare = 0.5
)

// shrinksAsStorm reports whether the waves on the grid hold a storm wave
// and none outgrows an earlier one beyond Poisson noise.
func shrinksAsStorm(waves []Wave, onGrid []bool) bool {
	_, _, grows := outgrowsSurvivors(waves, onGrid, 1)
	return !grows && holdsStormWave(waves, onGrid)
}

// gridAndStrays are the bursts on the grid and the strays among the
// centres, with which of them are on the grid. Bursts a comb explains are
// left out: they are part of the waves, not bursts that might have lined
// up by chance.
func gridAndStrays(centresNs []float64, onGrid []bool, strayIdx []int) ([]float64, []bool) {
	var out []float64
	var on []bool
	next := 0
	for i, c := range centresNs {
		isStray := next < len(strayIdx) && strayIdx[next] == i
		if isStray {
			next++
		}
		if onGrid[i] || isStray {
			out = append(out, c)
			on = append(on, onGrid[i])
		}
	}
	return out, on
}

// maxGridTestBursts bounds the bursts the grid test draws: its search grows
// with the fourth power of their number, and a series with more bursts than
// this has given the autocorrelation enough to judge by.
const maxGridTestBursts = 32

// gridSurrogates is how many random placements the grid test draws; a
// period needs at most a hundredth of them to line up as well.
const gridSurrogates = 200

// gridChance is how often bursts at random times line up on some grid as
// well as these do: as many of them within as small a share of a period
// of its points, whatever the period (at least minPeriod) and phase. The
// random bursts keep the observed number and span, and stay minGap apart
// as found bursts must (closer ones were merged). Bursts a period apart
// are evidence only if random ones seldom manage it: with few bursts, a
// tolerance of a few per cent of the period, and periods free to be
// anything, they often do, and the autocorrelation of such a series
// (shuffled bins make its threshold) does not know it.
func gridChance(centresNs []float64, onGrid []bool, period, binWidth, minGap, minPeriod float64, seed uint64) float64 {
	n := len(centresNs)
	if n > maxGridTestBursts || n < minRepeats || period <= 0 {
		return 0
	}
	times := make([]float64, n)
	for i, c := range centresNs {
		times[i] = (c - centresNs[0]) / 1e9
	}
	// The observed grid's tolerance: the widest residual of its waves
	// around their mean, as a share of the period, never finer than the
	// timestamps allow.
	var res []float64
	var anchor float64
	first := true
	for i, on := range onGrid {
		if !on {
			continue
		}
		if first {
			anchor, first = times[i], false
		}
		k := math.Round((times[i] - anchor) / period)
		res = append(res, times[i]-anchor-k*period)
	}
	if len(res) < minRepeats {
		return 1
	}
	mean := 0.0
	for _, r := range res {
		mean += r
	}
	mean /= float64(len(res))
	spread := binWidth / 2
	for _, r := range res {
		spread = max(spread, math.Abs(r-mean))
	}
	// The search anchors its grids on a burst, not on the waves' mean:
	// the members of the observed grid then lie within the residuals'
	// range of it, and the period through two of them is off by as much.
	if 3*binWidth/2 > gridTolerance*period || spread > gridTolerance*period {
		// Stamps this coarse against the period put any bursts within
		// tolerance of some grid, and waves this far from one phase are
		// segments of several (a wave held back shifts the grid for
		// those after it, see refinePeriodGrid): the test cannot tell.
		return 0
	}
	share := 3 * spread / period
	span := times[n-1]
	observed := bestGridCount(times, share, minPeriod)
	room := span - float64(n-1)*minGap
	if room <= 0 {
		// The bursts fill their span as tightly as merging allows: they
		// are evenly spaced whatever made them.
		return 1
	}
	rng := rand.New(rand.NewPCG(seed, 0x96d))
	draw := make([]float64, n)
	asGood := 0
	for s := 0; s < gridSurrogates; s++ {
		draw[0], draw[n-1] = 0, room
		for i := 1; i < n-1; i++ {
			draw[i] = rng.Float64() * room
		}
		sort.Float64s(draw)
		for i := range draw {
			draw[i] += float64(i) * minGap
		}
		if bestGridCount(draw, share, minPeriod) >= observed {
			asGood++
		}
	}
	return float64(asGood) / gridSurrogates
}

// bestGridCount is the most of the ascending times within share of a
// period of one grid's points, over grids through one time with another a
// whole number of periods (at least minPeriod, and at most twice the
// bursts between them) later.
func bestGridCount(times []float64, share, minPeriod float64) int {
	best := 0
	n := len(times)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d := times[j] - times[i]
			for k := 1; k <= 2*(j-i); k++ {
				p := d / float64(k)
				if p < minPeriod {
					break
				}
				tol := share * p
				count := 0
				for _, t := range times {
					x := (t - times[i]) / p
					if math.Abs(x-math.Round(x))*p <= tol {
						count++
					}
				}
				best = max(best, count)
			}
		}
	}
	return best
}

// allowedGrowth is how many times the smallest earlier wave a wave on the
// grid may be, Poisson noise aside, given the ACF and its threshold.
func allowedGrowth(acf, threshold float64) float64 {
	if acf > strongGridACF*threshold {
		return survivorGrowth
	}
	return 1
}

// outgrowsSurvivors finds a wave on the grid more than growth times (and
// past Poisson noise) the smallest wave of at least
// minFloorWave on it before: later is the index of that wave, smallest
// that of the one it outgrew. Bursts at
// random times that happen to fall on a grid have unrelated sizes; the
// waves of one storm are what the waves before them left.
func outgrowsSurvivors(waves []Wave, onGrid []bool, growth float64) (smallest, later int, ok bool) {
	whole := wholeWaveSizes(waves, onGrid)
	smallest = -1
	for i, on := range onGrid {
		if !on {
			continue
		}
		if smallest >= 0 {
			floor := float64(max(whole[smallest], 1))
			if float64(whole[i]) > growth*floor+3*math.Sqrt(floor)+3 {
				return smallest, i, true
			}
		}
		if whole[i] >= minFloorWave && (smallest < 0 || whole[i] < whole[smallest]) {
			smallest = i
		}
	}
	return 0, 0, false
}

// wholeWaveSizes is the size of each burst on the grid together with the
// bursts off it that begin after it within the widest burst on the grid,
// before the next one on it. A retry comb whose attempts run together in
// one wave and stand apart in another is one burst there and several
// here; the wave is all of them either way, and a storm's waves compare
// whole.
func wholeWaveSizes(waves []Wave, onGrid []bool) []int64 {
	widest := 0.0
	for i, on := range onGrid {
		if on {
			widest = max(widest, waves[i].Width)
		}
	}
	whole := make([]int64, len(waves))
	for i, on := range onGrid {
		if !on {
			continue
		}
		whole[i] = waves[i].Size
		for j := i + 1; j < len(waves) && !onGrid[j]; j++ {
			after := waves[j].Start.Sub(waves[i].Start).Seconds()
			if after <= 0 || after > widest {
				break
			}
			whole[i] += waves[j].Size
		}
	}
	return whole
}

// retriesOutgrowWave finds a burst off the grid that the retry comb
// explains (it is no stray) and that holds more requests than the wave on
// the grid before it, within a period, past Poisson noise: retry is its
// index, wave that of the wave. A wave's retries are its failed calls
// sent again, so they never outnumber its first attempts; bursts at
// random times that a grid and a comb happen to explain have unrelated
// sizes.
func retriesOutgrowWave(centresNs []float64, waves []Wave, onGrid []bool, strayIdx []int, period float64) (wave, retry int, ok bool) {
	stray := make(map[int]bool, len(strayIdx))
	for _, i := range strayIdx {
		stray[i] = true
	}
	last := -1
	for i := range centresNs {
		if onGrid[i] {
			last = i
			continue
		}
		// A burst of a few requests on the grid may be the background's
		// clump, a grid through the retries having taken it in, and
		// bounds nothing.
		if last < 0 || stray[i] || (centresNs[i]-centresNs[last])/1e9 >= period || waves[last].Size < minFloorWave {
			continue
		}
		floor := float64(waves[last].Size)
		if next := nextOnGrid(onGrid, i); next >= 0 && waves[i].Width > waves[last].Width && (centresNs[next]-centresNs[i])/1e9 < period {
			// A burst wider than its wave may be its last retry run
			// together with the next wave's first attempts, a comb
			// spacing or less apart when the grid runs through the
			// retries: it holds at most both waves' calls.
			floor += float64(waves[next].Size)
		}
		if float64(waves[i].Size) > floor+3*math.Sqrt(floor)+3 {
			return last, i, true
		}
	}
	return -1, -1, false
}

// nextOnGrid is the index of the first burst on the grid after i, or -1.
func nextOnGrid(onGrid []bool, i int) int {
	for j := i + 1; j < len(onGrid); j++ {
		if onGrid[j] {
			return j
		}
	}
	return -1
}

// dropTail leaves out of the strays the bursts of fewer than
// minFloorWave calls in the period after the grid's last wave, when that
// wave is larger: the storm's next wave, a few calls of it above the
// background, as its first attempts or a retry. A storm ends with its
// smallest waves, and those show only in part.
func dropTail(idx []int, centresNs []float64, waves []Wave, onGrid []bool, period float64) []int {
	last := -1
	for g, on := range onGrid {
		if on {
			last = g
		}
	}
	if last < 0 || period <= 0 {
		return idx
	}
	out := idx[:0:0]
	for _, i := range idx {
		d := (centresNs[i] - centresNs[last]) / 1e9
		if d > period/2 && d < 1.5*period && waves[i].Size < minFloorWave && waves[last].Size > waves[i].Size {
			continue
		}
		out = append(out, i)
	}
	return out
}

// outgrownClumps counts the bursts on the grid of fewer than minFloorWave
// calls that a later wave on the grid outgrows beyond Poisson noise. Such
// a burst bounds no later wave (outgrowsSurvivors leaves it out, as the
// background's own clump may sit anywhere), and by the same token it is
// no wave of the storm: the storm's waves only shrink.
func outgrownClumps(waves []Wave, onGrid []bool) int {
	n := 0
	for i := range onGrid {
		if outgrownClump(waves, onGrid, i) {
			n++
		}
	}
	return n
}

// outgrownClump reports whether burst i is on the grid, of fewer than
// minFloorWave calls, and outgrown past Poisson noise by a later one on it.
func outgrownClump(waves []Wave, onGrid []bool, i int) bool {
	if !onGrid[i] || waves[i].Size >= minFloorWave {
		return false
	}
	floor := float64(max(waves[i].Size, 1))
	for j := i + 1; j < len(onGrid); j++ {
		if onGrid[j] && float64(waves[j].Size) > floor+3*math.Sqrt(floor)+3 {
			return true
		}
	}
	return false
}

// dropClumps is the centres, which of them are on the grid, and the
// indices of the strays among them, less the outgrown clumps.
func dropClumps(centresNs []float64, waves []Wave, onGrid []bool, strayIdx []int) ([]float64, []bool, []int) {
	index := make([]int, len(centresNs))
	var centres []float64
	var on []bool
	for i, c := range centresNs {
		index[i] = -1
		if !outgrownClump(waves, onGrid, i) {
			index[i] = len(centres)
			centres, on = append(centres, c), append(on, onGrid[i])
		}
	}
	var strays []int
	for _, i := range strayIdx {
		if index[i] >= 0 {
			strays = append(strays, index[i])
		}
	}
	return centres, on, strays
}

// mergedAndApart reports whether a comb of spacing comb (seconds) shows
// both ways among the bursts: one burst spanning a spacing (attempts
// merged) and one too sharp to hold two attempts (an attempt standing
// apart).
func mergedAndApart(waves []Wave, comb, binWidth float64) bool {
	merged, apart := false, false
	for _, w := range waves {
		merged = merged || w.Width >= comb-binWidth
		apart = apart || w.Width < comb/2
	}
	return merged && apart
}

// noneWiderThan reports whether every burst is at most period wide: a
// wider one would run into the next wave.
func noneWiderThan(waves []Wave, period float64) bool {
	for _, w := range waves {
		if w.Width > period {
			return false
		}
	}
	return true
}

// stormWaves counts the bursts on the grid of at least minFloorWave
// calls.
func stormWaves(waves []Wave, onGrid []bool) int {
	n := 0
	for i, on := range onGrid {
		if on && waves[i].Size >= minFloorWave {
			n++
		}
	}
	return n
}

// midway is, for three burst centres, how far the middle one sits from
// halfway between the others, in seconds, and that offset's standard
// error: the centres' own errors, and a bin's rounding each, since stamps
// cut to the bin can move a narrow wave's centre by up to a bin.
func midway(centresNs, errsNs []float64, binWidth float64) (offset, stdErr float64) {
	return midwayAt(centresNs, errsNs, binWidth, 0.5)
}

// midwayAt is midway for a middle burst whose place is the given share of
// the way from the first to the last: a half when the three are in
// consecutive periods, k/m when they are k and m periods after the first.
func midwayAt(centresNs, errsNs []float64, binWidth, share float64) (offset, stdErr float64) {
	offset = math.Abs(centresNs[1]-(centresNs[0]+share*(centresNs[2]-centresNs[0]))) / 1e9
	first, middle, last := errsNs[0]/1e9, errsNs[1]/1e9, errsNs[2]/1e9
	rounding := binWidth * binWidth / 12
	outer := (1 - share) * (1 - share) * (first*first + rounding)
	stdErr = math.Sqrt(middle*middle + rounding + outer + share*share*(last*last+rounding))
	return offset, stdErr
}

// gridShare is where the middle of three bursts on a grid of the given
// period sits between the outer two, as a share of the way: k/m when they
// are k and m periods after the first. It is 0 when they do not keep to
// three distinct grid points in order.
func gridShare(centresNs []float64, period float64) float64 {
	k := math.Round((centresNs[1] - centresNs[0]) / 1e9 / period)
	m := math.Round((centresNs[2] - centresNs[0]) / 1e9 / period)
	if k <= 0 || m <= k {
		return 0
	}
	return k / m
}

// midwayOffGrid reports whether the middle of three bursts on the grid
// sits further from where the period puts it than maxMidwayErrors
// standard errors, with the offset and its error; with more or fewer
// bursts on the grid, off is false.
func midwayOffGrid(centresNs, errsNs []float64, onGrid []bool, period, binWidth float64) (offset, stdErr float64, off bool) {
	gridCentres, gridErrs := onGridOnly(centresNs, onGrid), onGridOnly(errsNs, onGrid)
	if len(gridCentres) != minRepeats {
		return 0, 0, false
	}
	share := gridShare(gridCentres, period)
	offset, stdErr = midwayAt(gridCentres, gridErrs, binWidth, share)
	return offset, stdErr, share > 0 && offset > maxMidwayErrors*stdErr
}

// midwayOnGrid reports whether more than three bursts are on the grid, or
// the middle of three sits where the period puts it.
func midwayOnGrid(centresNs, errsNs []float64, onGrid []bool, period, binWidth float64) bool {
	_, _, off := midwayOffGrid(centresNs, errsNs, onGrid, period, binWidth)
	return !off
}

// onGridOnly is the values of the bursts on the grid, in order.
func onGridOnly(values []float64, onGrid []bool) []float64 {
	var out []float64
	for i, on := range onGrid {
		if on {
			out = append(out, values[i])
		}
	}
	return out
}

// poissonAtLeast is the chance that a Poisson count of the given mean
// reaches n.
func poissonAtLeast(n int, mean float64) float64 {
	if n <= 0 {
		return 1
	}
	return distuv.Poisson{Lambda: mean}.Survival(float64(n - 1))
}

// bothByChance is how often two independent chances, each no smaller
// than uniform where chance alone is at work, multiply to p1·p2 or less:
// c(1 − ln c) for c = p1·p2 (Fisher's method for two). The product
// itself would understate it: two middling chances often make a small
// one.
func bothByChance(p1, p2 float64) float64 {
	c := p1 * p2
	if c <= 0 {
		return 0
	}
	return min(1, c*(1-math.Log(c)))
}

// midwayChance is the share of places between the outer two of three
// bursts, kept minGap from each as found bursts are, that put the middle
// one as close to halfway: within the offset, or twice its standard error
// where that is larger, since the centres are known no better.
func midwayChance(centresNs []float64, offset, stdErr, minGap float64) float64 {
	room := (centresNs[2]-centresNs[0])/1e9 - 2*minGap
	if room <= 0 {
		return 1
	}
	return min(1, 2*max(offset, 2*stdErr)/room)
}

// holdsStormWave reports whether a burst on the grid has at least
// minFloorWave calls: a wave no clump of the background makes.
func holdsStormWave(waves []Wave, onGrid []bool) bool {
	return stormWaves(waves, onGrid) > 0
}

// longestSlotRun is how many periods in a row hold the waves on the grid
// or the bursts of their combs. A decaying storm's waves shrink from one
// to the next, so a period with none ends it: a wave after an empty
// period is another storm's, or chance.
func longestSlotRun(centresNs []float64, onGrid []bool, strayIdx []int, shared bool, period float64) int {
	anchor := -1.0
	for g, on := range onGrid {
		if on {
			anchor = centresNs[g] / 1e9
			break
		}
	}
	if anchor < 0 || period <= 0 {
		return 0
	}
	stray := make(map[int]bool, len(strayIdx))
	for _, i := range strayIdx {
		stray[i] = !shared
	}
	best, run := 0, 0
	prevSlot, prevT := math.MinInt, math.Inf(-1)
	for i, c := range centresNs {
		t := c / 1e9
		if !onGrid[i] && stray[i] {
			continue
		}
		slot := int(math.Round((t - anchor) / period))
		switch {
		case t-prevT > 1.5*period || slot-prevSlot > 1:
			run = 1
		case slot != prevSlot:
			run++
		}
		best, prevSlot, prevT = max(best, run), slot, t
	}
	return best
}

// burstGridPeriod is the period of the bursts (centres in ns) when every
// one of them sits on one grid of one phase, minGridOnly or more periods
// in a row: the
// grid through the shortest gap between neighbours (at least minLag
// seconds), refined through the bursts. The gap must be long enough for
// the grid test to tell (gridChance): with stamps as coarse as a few per
// cent of it, any bursts are near some grid.
func burstGridPeriod(centresNs []float64, binWidth, minLag float64) (float64, []bool, bool) {
	if len(centresNs) < minGridOnly {
		return 0, nil, false
	}
	gap := math.Inf(1)
	for i := 1; i < len(centresNs); i++ {
		gap = min(gap, (centresNs[i]-centresNs[i-1])/1e9)
	}
	if gap < minLag || 3*binWidth/2 > gridTolerance*gap {
		return 0, nil, false
	}
	lag, on, members := refinePeriodGrid(gap, binWidth, centresNs)
	if on < len(centresNs) || longestSlotRun(centresNs, members, nil, false, lag) < minGridOnly {
		return 0, nil, false
	}
	// One grid, not segments of several phases (refinePeriodGrid allows
	// those for a wave held back): a storm replayed keeps one phase, and
	// the grid test cannot judge several.
	tol := max(gridTolerance*lag, 1.5*binWidth)
	for _, c := range centresNs {
		d := (c - centresNs[0]) / 1e9
		if math.Abs(d-math.Round(d/lag)*lag) > tol {
			return 0, nil, false
		}
	}
	return lag, members, true
}

// combPartner reports whether another burst within half a period of burst
// self lies a whole number of steps from it: the other attempts of its
// wave, where none of them is on the grid.
func combPartner(centresNs []float64, self int, step, period, tol float64) bool {
	c := centresNs[self] / 1e9
	for j, o := range centresNs {
		d := math.Abs(o/1e9 - c)
		if j == self || d > period/2+tol || d < step-tol {
			continue
		}
		if k := math.Round(d / step); math.Abs(d-k*step) <= tol {
			return true
		}
	}
	return false
}

// wireCombSpacing is the retry-after comb's spacing the wire shows: the
// fixed retry-after the throttled attempts carry plus an attempt's own
// time (the middle of the first thousand throttled attempts').
func wireCombSpacing(j *joins, delays []DelayStats) (float64, bool) {
	ra, ok := delayOf(delays, kindRetryAfter)
	if !ok || ra.N == 0 || !ra.Fixed {
		return 0, false
	}
	var durs []float64
	for _, i := range j.http {
		if e := &j.tl.Events[i]; e.RetryAfter > 0 && e.End > e.Start {
			durs = append(durs, float64(e.End-e.Start)/1e9)
			if len(durs) >= 1000 {
				break
			}
		}
	}
	d := 0.0
	if len(durs) > 0 {
		sort.Float64s(durs)
		d = durs[len(durs)/2]
	}
	return ra.P50 + d, true
}
