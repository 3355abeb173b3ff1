package whatif

import (
	"fmt"
	"math"
	"slices"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/timeline"
)

// LimiterFit is what the trace says of how the limiter charges rejections,
// when whatif fitted it: the trace's own attempts, in their order, are put
// through a token bucket of the given refill and the measured size under
// each candidate, and the candidate whose admissions and rejections agree
// best with the limiter's answers wins.
type LimiterFit struct {
	// Charge and DebtTokens are the fit: a share of a rejected request's
	// cost, and how far the charges may take the bucket below zero. Both
	// 0 is a plain bucket.
	Charge, DebtTokens float64
	// Judged is false when a plain bucket and a charging limiter explain
	// the answers alike, or most of the charges tried do: the replay then
	// assumes a plain bucket.
	Judged bool
	// The charges, and at Charge the debts, whose answers are within
	// ToleranceS of the best: the trace cannot tell them apart.
	ChargeLow, ChargeHigh, DebtLow, DebtHigh float64
	// DebtOpen says the debts that fit reach the largest tried: the
	// bursts never took the bucket to its floor, so the trace shows only
	// that the debt is at least DebtLow.
	DebtOpen bool
	// LossS is the fit's disagreement with the limiter's answers, in
	// seconds (see inconsistency); PlainLossS a plain bucket's.
	LossS, PlainLossS, ToleranceS float64
}

// measureLimiter sets how the limiter charges rejections and, unless it
// was given, the bucket's size: as given; else, when the quota is given,
// fitted to the trace; else a plain bucket, assumed, of the size the
// bursts show. A refill measured from the admissions already holds what
// the charges took, so there is nothing to fit then.
func measureLimiter(p *Params, tl *timeline.Timeline, res *analyze.Result, given Given, start int64) {
	sc := &p.Scenario
	sc.Bucket.RejectFraction, sc.Bucket.DebtFloor = given.RejectCharge, given.DebtTokens
	p.Sources["reject charge"], p.Sources["debt tokens"] = "given", "given"
	chargeGiven := given.RejectCharge != 0 || given.DebtTokens != 0
	if !chargeGiven {
		p.Sources["reject charge"], p.Sources["debt tokens"] = "assumed", "assumed"
	}
	sizeGiven := p.Sources["bucket tokens"] == "given"
	if p.Sources["tokens per minute"] != "given" || chargeGiven && sizeGiven {
		return
	}
	resolution := res.Waves.BucketResolution
	ans := limiterAnswers(tl, start, sc.Batch.Cost, sc.Interactive.Cost, resolution)
	fit, size := fitLimiter(ans, sc.Bucket, resolution, !chargeGiven, !sizeGiven)
	if !sizeGiven {
		p.BucketFit = &size
		if size.Judged {
			sc.Bucket.Capacity = size.Tokens
			p.Notes = append(p.Notes, "the bucket's size: "+size.describe())
		} else {
			p.Notes = append(p.Notes, fmt.Sprintf("the limiter's answers cannot tell the bucket's size (%s); the replay uses the %s tokens the waves' first moments admitted (give --bucket-tokens when known)", size.describe(), thousands(size.BurstTokens)))
		}
	}
	if chargeGiven {
		return
	}
	p.Limiter = &fit
	if !fit.Judged {
		p.Notes = append(p.Notes, fmt.Sprintf("the logs show the limiter by its effect only, and they cannot tell how it charges rejections: put through a bucket of the quota, the trace's own attempts disagree with its answers by %.1f s under a plain bucket and by %.1f s under the best limiter that charges them, with charges of %.0f to %.0f%% within %g s of it; the replay assumes a plain bucket (give --reject-charge and --debt-tokens when known)",
			fit.PlainLossS, fit.LossS, 100*fit.ChargeLow, 100*fit.ChargeHigh, fit.ToleranceS))
		return
	}
	sc.Bucket.RejectFraction, sc.Bucket.DebtFloor = fit.Charge, fit.DebtTokens
	p.Sources["reject charge"], p.Sources["debt tokens"] = "measured", "measured"
	p.Notes = append(p.Notes, fmt.Sprintf("the logs show the limiter by its effect only; put through a bucket of the quota, the trace's own attempts fit best %s (give --reject-charge and --debt-tokens when known)", fit.describe()))
}

// describe says what the fit found and how closely the trace pins it.
func (f LimiterFit) describe() string {
	s := describeLimiter(f.Charge, f.DebtTokens)
	if f.Charge == 0 {
		return fmt.Sprintf("%s (%.1f s of disagreement with the limiter's answers; every limiter that charges rejections %.1f s or more)", s, f.PlainLossS, f.LossS)
	}
	charges := fmt.Sprintf("a charge of %g%%", 100*f.Charge)
	if f.ChargeLow < f.ChargeHigh {
		charges = fmt.Sprintf("charges of %g to %g%%", 100*f.ChargeLow, 100*f.ChargeHigh)
	}
	debts := fmt.Sprintf("debts of %s to %s tokens", thousands(f.DebtLow), thousands(f.DebtHigh))
	switch {
	case f.DebtOpen:
		debts = fmt.Sprintf("debts of %s tokens or more (no burst took the bucket to its floor)", thousands(f.DebtLow))
	case f.DebtLow == f.DebtHigh:
		debts = fmt.Sprintf("a debt of %s tokens", thousands(f.DebtLow))
	}
	return fmt.Sprintf("%s: %s and %s agree with the limiter's answers within %g s of the best %.1f s; a plain bucket disagrees by %.1f s",
		s, charges, debts, f.ToleranceS, f.LossS, f.PlainLossS)
}

// limiterAnswer is one attempt the limiter answered: when it arrived, in
// seconds from the trace's start, its cost and whether it was admitted.
type limiterAnswer struct {
	at, cost float64
	admitted bool
	// ahead is the cost admitted in the timestamps' resolution after at:
	// attempts stamped that close together may have arrived in either
	// order, and a burst's admissions may be stamped after the rejections
	// that followed them (an admitted attempt takes longer to answer, and
	// its start is its end's whole second less its duration).
	ahead float64
}

// limiterAnswers are the trace's admitted and throttled HTTP attempts in
// arrival order; other answers leave a token bucket as it was.
func limiterAnswers(tl *timeline.Timeline, start int64, batchCost, interactiveCost, resolutionS float64) []limiterAnswer {
	var out []limiterAnswer
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP || e.Outcome != timeline.OutcomeOK && e.Outcome != timeline.OutcomeThrottled {
			continue
		}
		cost := batchCost
		if e.Class == timeline.ClassInteractive {
			cost = interactiveCost
		}
		out = append(out, limiterAnswer{at: float64(e.Start-start) / 1e9, cost: cost, admitted: e.Outcome == timeline.OutcomeOK})
	}
	slices.SortStableFunc(out, func(a, b limiterAnswer) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	// admittedBy[i] is the cost admitted by the answers before i.
	admittedBy := make([]float64, len(out)+1)
	for i, a := range out {
		admittedBy[i+1] = admittedBy[i]
		if a.admitted {
			admittedBy[i+1] += a.cost
		}
	}
	lo, hi := 0, 0
	for i := range out {
		for lo < len(out) && out[lo].at <= out[i].at {
			lo++
		}
		for hi < len(out) && out[hi].at <= out[i].at+resolutionS {
			hi++
		}
		out[i].ahead = admittedBy[hi] - admittedBy[lo]
	}
	return out
}

// inconsistency puts the answers through a token bucket that starts full
// and charges a rejected request charge of its cost, down to -debt, and
// sums how far each answer disagrees with the bucket, in seconds of its
// refill: an admission when it held less than the cost, a rejection when
// it held the cost and more (less what the answers stamped just after it
// admitted). After each answer the bucket holds what the answer shows it
// held, so that one late stamp costs once, not on every later answer, and
// a wave of rejections counts as much under a limiter that charges them
// as under one that does not.
func inconsistency(ans []limiterAnswer, capacity, refill, charge, debt float64) float64 {
	level, last, loss := capacity, 0.0, 0.0
	if len(ans) > 0 {
		last = ans[0].at
	}
	for _, a := range ans {
		level = math.Min(capacity, level+refill*(a.at-last))
		last = a.at
		if a.admitted {
			loss += math.Max(0, a.cost-level)
			level = math.Max(level, a.cost) - a.cost
			continue
		}
		loss += math.Max(0, level-a.ahead-a.cost)
		level = math.Min(level, a.cost)
		if charge > 0 {
			level = math.Max(-debt, level-charge*a.cost)
		}
	}
	return loss / refill
}

// rejectCharges are the shares of a request's cost a rejection may cost.
// The answers tell neighbouring shares apart by a second or two over a
// storm of 1-second stamps, so the steps are coarse.
var rejectCharges = []float64{0.05, 0.1, 0.15, 0.2, 0.3, 0.5}

// Debts are tried up to maxDebtBuckets bucket sizes, first in debtSteps
// steps, then in eighths of a step around the best and across the debts
// that fit alike.
const (
	maxDebtBuckets = 3
	debtSteps      = 64
)

// minToleranceS is the least disagreement, in seconds, that tells two
// limiters apart when the timestamps are finer than a second: latency
// jitter moves an attempt by tens of milliseconds.
const minToleranceS = 0.25

// fitCharge finds the charge and debt whose bucket of the given size
// agrees best with the limiter's answers. Two limiters that disagree with
// them by less than the timestamps' resolution, summed over the trace, fit
// alike.
func fitCharge(ans []limiterAnswer, capacity, refill, resolutionS float64) LimiterFit {
	fit := LimiterFit{ToleranceS: math.Max(resolutionS, minToleranceS)}
	if len(ans) == 0 || refill <= 0 || capacity <= 0 {
		return fit
	}
	loss := func(charge, debt float64) float64 { return inconsistency(ans, capacity, refill, charge, debt) }
	fit.PlainLossS = loss(0, 0)
	maxDebt := maxDebtBuckets * capacity
	step := maxDebt / debtSteps
	type best struct{ loss, debt float64 }
	perCharge := make([]best, len(rejectCharges))
	coarse := make([][]float64, len(rejectCharges))
	for i, c := range rejectCharges {
		coarse[i] = make([]float64, debtSteps+1)
		b := best{math.Inf(1), 0}
		for k := range coarse[i] {
			coarse[i][k] = loss(c, float64(k)*step)
			if coarse[i][k] < b.loss-1e-9 {
				b = best{coarse[i][k], float64(k) * step}
			}
		}
		for d := b.debt - step; d <= b.debt+step; d += step / 8 {
			if l := loss(c, d); d >= 0 && d <= maxDebt && l < b.loss-1e-9 {
				b = best{l, d}
			}
		}
		perCharge[i] = b
	}
	bi := 0
	for i, b := range perCharge {
		if b.loss < perCharge[bi].loss-1e-9 {
			bi = i
		}
	}
	fit.LossS = perCharge[bi].loss
	fit.Charge, fit.DebtTokens = rejectCharges[bi], perCharge[bi].debt
	within := fit.LossS + fit.ToleranceS
	alike := 0
	fit.ChargeLow, fit.ChargeHigh = math.Inf(1), math.Inf(-1)
	for i, b := range perCharge {
		if b.loss <= within {
			alike++
			fit.ChargeLow, fit.ChargeHigh = math.Min(fit.ChargeLow, rejectCharges[i]), math.Max(fit.ChargeHigh, rejectCharges[i])
		}
	}
	if math.Abs(fit.PlainLossS-fit.LossS) <= fit.ToleranceS {
		return fit
	}
	if fit.PlainLossS < fit.LossS {
		fit.Judged = true
		fit.Charge, fit.DebtTokens, fit.ChargeLow, fit.ChargeHigh = 0, 0, 0, 0
		return fit
	}
	if alike > len(rejectCharges)/2 {
		return fit
	}
	fit.Judged = true
	// The debts that fit alike, from the coarse steps within the
	// tolerance and one step either side.
	klo, khi := debtSteps, 0
	for k, l := range coarse[bi] {
		if l <= within {
			klo, khi = min(klo, k), max(khi, k)
		}
	}
	k0 := int(math.Round(perCharge[bi].debt / step))
	klo, khi = max(0, min(klo, k0)-1), min(debtSteps, max(khi, k0)+1)
	fit.DebtLow, fit.DebtHigh = math.Inf(1), math.Inf(-1)
	for j := klo * 8; j <= khi*8; j++ {
		d := float64(j) * step / 8
		if loss(rejectCharges[bi], d) <= within {
			fit.DebtLow, fit.DebtHigh = math.Min(fit.DebtLow, d), math.Max(fit.DebtHigh, d)
		}
	}
	fit.DebtOpen = fit.DebtHigh >= maxDebt
	if !fit.DebtOpen {
		// The loss rises faster on one side of the debt than the other
		// (a debt too deep holds back admissions the trace shows; one
		// too shallow only lets through rejections the stamps may have
		// reordered): the middle of the debts that fit alike is nearer
		// the limiter's than the least loss.
		fit.DebtTokens = (fit.DebtLow + fit.DebtHigh) / 2
	}
	// To the power of ten below a step: the trace pins the debt no finer.
	unit := math.Pow(10, math.Floor(math.Log10(step)))
	fit.DebtTokens, fit.DebtLow, fit.DebtHigh = unit*math.Round(fit.DebtTokens/unit), unit*math.Round(fit.DebtLow/unit), unit*math.Round(fit.DebtHigh/unit)
	return fit
}

// fitRounds is how many times fitLimiter refits the charge and the size
// in turn: each moves the other little, so they settle in one or two.
const fitRounds = 3

// fitLimiter fits what the user has not said of the limiter to its
// answers: the charge and debt, the bucket's size, or both. Both are
// fitted in turn, starting from the size in b (the bursts' measure), each
// under the other's latest fit: a size too small shows as admissions the
// bucket could not hold, one too large as rejections it could have
// admitted, whatever the charge; the charge shows in how long the bucket
// takes to admit again after a wave.
func fitLimiter(ans []limiterAnswer, b simulate.BucketConfig, resolutionS float64, charge, size bool) (LimiterFit, BucketFit) {
	tolerance := math.Max(resolutionS, minToleranceS)
	fit := LimiterFit{Charge: b.RejectFraction, DebtTokens: b.DebtFloor, Judged: true, ToleranceS: tolerance}
	var sf BucketFit
	capacity := b.Capacity
	for round := 0; ; round++ {
		if charge {
			fit = fitCharge(ans, capacity, b.RefillPerS, resolutionS)
		}
		if !size || round == fitRounds {
			break
		}
		// Under the best charge even when it is not judged: a size the
		// bursts measured wrong can leave the charges alike until the
		// size is right.
		sf = fitBucket(ans, b.RefillPerS, fit.Charge, fit.DebtTokens, tolerance, b.Capacity)
		if !sf.Judged || sf.Tokens == capacity {
			break
		}
		capacity = sf.Tokens
	}
	return fit, sf
}

// BucketFit is the bucket's size as the limiter's answers show it, when
// whatif fitted it: the trace's attempts put through buckets of the quota,
// under the charge and debt the replay uses, at each size.
type BucketFit struct {
	// Tokens is the size the replay uses: the roundest of those that fit
	// best when Judged, else BurstTokens.
	Tokens float64
	// Low and High are the sizes whose answers are within ToleranceS of
	// the best: the trace cannot tell them apart.
	Low, High float64
	// BestLow and BestHigh are the sizes within minToleranceS of the
	// best, of which Tokens is the roundest: a bucket larger by less than
	// a request leaves room only an interactive rejection could show, so
	// the answers fit a plateau about a request wide, and quotas are set
	// in round numbers.
	BestLow, BestHigh float64
	// Judged is false when the sizes that fit alike reach the least or
	// the largest tried: the replay then keeps BurstTokens.
	Judged bool
	// BurstTokens is what the waves' first moments admitted, the size
	// measured without the answers.
	BurstTokens float64
	// LossS is the best size's disagreement with the limiter's answers, in
	// seconds (see inconsistency).
	LossS, ToleranceS float64
}

// describe says what the size fit found and how closely the trace pins it.
func (f BucketFit) describe() string {
	if !f.Judged {
		return fmt.Sprintf("put through a bucket of the quota, the trace's own attempts agree with them within %g s of the best %.1f s at sizes of %s to %s tokens, the least or the largest tried", f.ToleranceS, f.LossS, thousands(f.Low), thousands(f.High))
	}
	return fmt.Sprintf("put through a bucket of the quota, the trace's own attempts fit best a bucket of %s tokens: sizes of %s to %s tokens agree with the limiter's answers within %g s of the best %.1f s; the waves' first moments admitted %s (give --bucket-tokens when known)",
		thousands(f.Tokens), thousands(f.Low), thousands(f.High), f.ToleranceS, f.LossS, thousands(f.BurstTokens))
}

// maxBucketS is the largest bucket tried, in seconds of its refill: twice
// a quota per minute held whole.
const maxBucketS = 120

// bucketRatio is the step between the sizes first tried, an eighth of an
// octave: the loss rises by the refill's time for each token a size is
// off at each burst, so the best lies between its neighbours.
var bucketRatio = math.Pow(2, 1.0/8)

// fitBucket finds the bucket's size whose answers agree best with the
// limiter's under the given charge and debt, from one request's cost to
// maxBucketS of refill (or four times the bursts' measure, burst), first
// an eighth of an octave apart, then in round steps near a 64th of an
// octave across the sizes that fit alike.
func fitBucket(ans []limiterAnswer, refill, charge, debt, tolerance, burst float64) BucketFit {
	f := BucketFit{BurstTokens: burst, ToleranceS: tolerance, Tokens: burst}
	var least float64
	for _, a := range ans {
		least = math.Max(least, a.cost)
	}
	if least <= 0 || refill <= 0 {
		return f
	}
	loss := func(c float64) float64 { return inconsistency(ans, c, refill, charge, debt) }
	most := math.Max(refill*maxBucketS, 4*burst)
	var sizes, losses []float64
	for c := least; c <= most*bucketRatio; c *= bucketRatio {
		sizes, losses = append(sizes, c), append(losses, loss(c))
	}
	kb := 0
	for k, l := range losses {
		if l < losses[kb]-1e-9 {
			kb = k
		}
	}
	f.LossS = losses[kb]
	within := f.LossS + tolerance
	klo, khi := kb, kb
	for k, l := range losses {
		if l <= within {
			klo, khi = min(klo, k), max(khi, k)
		}
	}
	lo, hi := sizes[max(0, klo-1)], sizes[min(len(sizes)-1, khi+1)]
	// The finer sizes are round numbers, as quotas are: multiples of 1, 2
	// or 5 times a power of ten, near a 64th of an octave.
	step := roundStep(sizes[kb] * (bucketRatio - 1) / 8)
	var fine, fineLoss []float64
	for c := math.Ceil(lo/step) * step; c <= hi; c += step {
		fine, fineLoss = append(fine, c), append(fineLoss, loss(c))
		f.LossS = math.Min(f.LossS, fineLoss[len(fineLoss)-1])
	}
	within = f.LossS + tolerance
	f.Low, f.High = math.Inf(1), math.Inf(-1)
	bestLow, bestHigh := math.Inf(1), math.Inf(-1)
	for i, c := range fine {
		if fineLoss[i] <= within {
			f.Low, f.High = math.Min(f.Low, c), math.Max(f.High, c)
		}
		if fineLoss[i] <= f.LossS+minToleranceS {
			bestLow, bestHigh = math.Min(bestLow, c), math.Max(bestHigh, c)
		}
	}
	if f.Low > f.High {
		f.Low, f.High = sizes[klo], sizes[khi]
	}
	f.Judged = klo > 0 && khi < len(sizes)-1 && bestLow <= bestHigh
	if f.Judged {
		f.Tokens = roundest(bestLow, bestHigh)
		f.BestLow, f.BestHigh = bestLow, bestHigh
	}
	return f
}

// roundest is the roundest number in [lo, hi]: a multiple of the largest
// power of ten, or else of half of it, that one holds; the least of them on
// a tie.
func roundest(lo, hi float64) float64 {
	for u := math.Pow(10, math.Ceil(math.Log10(hi))); u >= 1; u /= 10 {
		for _, m := range []float64{u, u / 2} {
			if c := math.Ceil(lo/m) * m; c <= hi {
				return c
			}
		}
	}
	return lo
}

// roundStep is the 1, 2 or 5 times a power of ten nearest below v.
func roundStep(v float64) float64 {
	unit := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2} {
		if m*unit <= v {
			return m * unit
		}
	}
	return unit
}

func describeLimiter(charge, debt float64) string {
	if charge == 0 {
		return "a plain bucket that refills under its rejected callers"
	}
	return fmt.Sprintf("a limiter that charges a rejected request %.0f%% of its tokens and keeps a debt of up to %s tokens", 100*charge, thousands(debt))
}
