package whatif

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/timeline"
)

// traceLoad is what the trace shows of the limiter's answers: attempts in
// its window, the interactive attempts and how many were throttled, the
// batch attempts it admitted, and how long it stayed closed after bursts.
type traceLoad struct {
	requests, interactive, interactiveThrottled, batchAdmitted int64
	// closedS is the median over bursts of batch throttles of the time
	// from a burst's last throttle to the next admission of any class.
	closedS float64
}

// answer is one attempt as closedAfterBursts reads it: its start in
// seconds from the trace's start, and what the limiter did.
type answer struct {
	at              float64
	batch, admitted bool
	throttled       bool
}

func measureLoad(tl *timeline.Timeline, start int64, gapS, resolutionS float64) traceLoad {
	var l traceLoad
	var ans []answer
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP {
			continue
		}
		l.requests++
		a := answer{at: float64(e.Start-start) / 1e9, batch: e.Class == timeline.ClassBatch,
			admitted: e.Outcome == timeline.OutcomeOK, throttled: e.Outcome == timeline.OutcomeThrottled}
		ans = append(ans, a)
		switch e.Class {
		case timeline.ClassInteractive:
			l.interactive++
			if a.throttled {
				l.interactiveThrottled++
			}
		case timeline.ClassBatch:
			if a.admitted {
				l.batchAdmitted++
			}
		}
	}
	l.closedS = closedAfterBursts(ans, gapS, resolutionS)
	return l
}

// closedAfterBursts groups batch throttles into bursts (a gap longer than
// gapS starts a new one) and takes the median time from a burst's last
// throttle to the next admission. Times are first cut to resolutionS, as
// the trace's stamps are, so that a replay is measured as coarsely.
func closedAfterBursts(ans []answer, gapS, resolutionS float64) float64 {
	cut := func(t float64) float64 {
		if resolutionS > 0 {
			return math.Floor(t/resolutionS) * resolutionS
		}
		return t
	}
	var throttles, admitted []float64
	for _, a := range ans {
		switch {
		case a.admitted:
			admitted = append(admitted, cut(a.at))
		case a.batch && a.throttled:
			throttles = append(throttles, cut(a.at))
		}
	}
	slices.Sort(throttles)
	slices.Sort(admitted)
	var closed []float64
	for i, t := range throttles {
		if i+1 < len(throttles) && throttles[i+1]-t <= gapS {
			continue
		}
		// The first admission after the burst's last throttle.
		if j, _ := slices.BinarySearch(admitted, math.Nextafter(t, math.Inf(1))); j < len(admitted) {
			closed = append(closed, admitted[j]-t)
		}
	}
	return quantile(closed, 0.5)
}

// measureLimiter sets how the limiter charges rejections: as given; else,
// when the quota is given, fitted to the trace; else a plain bucket,
// assumed. A refill measured from the admissions already holds what the
// charges took, so there is nothing to fit then.
func measureLimiter(p *Params, tl *timeline.Timeline, res *analyze.Result, given Given, start int64) {
	sc := &p.Scenario
	sc.Bucket.RejectFraction, sc.Bucket.DebtFloor = given.RejectCharge, given.DebtTokens
	p.Sources["reject charge"], p.Sources["debt tokens"] = "given", "given"
	if given.RejectCharge != 0 || given.DebtTokens != 0 {
		return
	}
	p.Sources["reject charge"], p.Sources["debt tokens"] = "assumed", "assumed"
	if p.Sources["tokens per minute"] != "given" {
		return
	}
	// Bursts are a wave's attempts: retries come within a few seconds,
	// the next wave after the requeue delay.
	gap := math.Max(2*float64(sc.SDK.RetryAfterS), 2)
	if sc.Runner.RequeueJitter == simulate.JitterNone {
		gap = math.Max(gap, sc.Runner.RequeueDelayS/2)
	}
	resolution := res.Waves.BucketResolution
	sc.Bucket.RejectFraction, sc.Bucket.DebtFloor = fitLimiter(*sc, measureLoad(tl, start, gap, resolution), p.TraceDurationS, gap, resolution)
	p.Sources["reject charge"], p.Sources["debt tokens"] = "measured", "measured"
	p.Notes = append(p.Notes, fmt.Sprintf("the logs show the limiter by its effect only; replays of the incident fit it best as %s (give --reject-charge and --debt-tokens when known)",
		describeLimiter(sc.Bucket.RejectFraction, sc.Bucket.DebtFloor)))
}

// rejectCharges are the shares of a request's cost a rejection may cost.
// A wave pins a charging limiter at its floor whatever the share, so the
// logs tell shares apart only by a wave's stragglers; on the botocore
// incident, whose own backoff blurs them, a share of a half fitted best
// and predicted the real re-run's tasks done as 7 where it finished 44.
// The fit keeps to shares up to a fifth.
var rejectCharges = []float64{0, 0.05, 0.1, 0.2}

// fitSeeds is how many seeds each candidate is replayed with: a storm's
// admissions vary from seed to seed by more than neighbouring candidates
// differ.
const fitSeeds = 4

// fitLimiter picks how the limiter charges rejections, when the user has
// not said. The logs show a charging limiter only by its effect: while it
// pays a debt back it admits nothing, though the quota refills. The debt
// is what the quota refills while the limit stays closed after a wave's
// last throttle (emptyForS, measured by the wave analysis); the charge is
// the candidate whose replay of the incident comes closest to the trace's
// throttled interactive share, admitted batch attempts and requests.
func fitLimiter(sc simulate.Scenario, load traceLoad, windowS, gapS, resolutionS float64) (charge, debt float64) {
	if load.requests == 0 || windowS <= 0 {
		return 0, 0
	}
	// The limit reopens when it holds the next caller's cost.
	debt = math.Max(0, sc.Bucket.RefillPerS*load.closedS-math.Min(sc.Interactive.Cost, sc.Batch.Cost))
	if debt == 0 {
		return 0, 0
	}
	// Stragglers may end every burst well after the refill began, so
	// debts of the bucket's own size are tried too.
	var debts []float64
	for _, d := range debtScales {
		debts = append(debts, d*debt, d*sc.Bucket.Capacity)
	}
	best := math.Inf(1)
	horizon := math.Ceil(windowS * 1.2)
	for _, f := range rejectCharges {
		for i, d := range debts {
			if f == 0 && i > 0 {
				continue
			}
			c := sc
			c.Bucket.RejectFraction, c.Bucket.DebtFloor = f, d
			var loss float64
			for seed := range uint64(fitSeeds) {
				out, err := simulate.Run(Prepare(c, horizon, sc.Seed+seed))
				if err != nil {
					return 0, 0
				}
				loss += loadLoss(load, replayLoad(out, windowS, gapS, resolutionS), resolutionS)
			}
			if loss < best-1e-9 {
				best, charge, debt = loss, f, d
			}
		}
	}
	if charge == 0 {
		return 0, 0
	}
	return charge, math.Round(debt)
}

// debtScales multiply the debt the closed limit shows, and the bucket's
// size: a wave's last throttle may come from a straggling retry after the
// limit began to refill, so the time it stayed closed shows at least the
// debt.
var debtScales = []float64{1, 1.5, 2}

// replayLoad counts a replay as measureLoad counts the trace, over the
// trace's window.
func replayLoad(out *simulate.Output, windowS, gapS, resolutionS float64) traceLoad {
	var l traceLoad
	var ans []answer
	end := time.Duration(windowS * float64(time.Second))
	for i := range out.Attempts {
		a := &out.Attempts[i]
		if a.Arrived > end {
			continue
		}
		l.requests++
		ans = append(ans, answer{at: a.Arrived.Seconds(), batch: a.Kind == simulate.Batch, admitted: a.Status == 200, throttled: a.Status == 429})
		switch {
		case a.Kind == simulate.Interactive:
			l.interactive++
			if a.Status == 429 {
				l.interactiveThrottled++
			}
		case a.Status == 200:
			l.batchAdmitted++
		}
	}
	l.closedS = closedAfterBursts(ans, gapS, resolutionS)
	return l
}

// loadLoss weighs the misses alike: the interactive share in points, the
// others as relative errors; the closed time's only beyond one step of
// the trace's resolution, which a cut to whole seconds may add or take.
func loadLoss(trace, sim traceLoad, resolutionS float64) float64 {
	rel := func(t, s int64) float64 { return math.Abs(float64(s-t)) / math.Max(1, float64(t)) }
	share := func(l traceLoad) float64 {
		return float64(l.interactiveThrottled) / math.Max(1, float64(l.interactive))
	}
	closed := math.Max(0, math.Abs(sim.closedS-trace.closedS)-resolutionS) / math.Max(1, trace.closedS)
	return math.Abs(share(sim)-share(trace)) + rel(trace.batchAdmitted, sim.batchAdmitted) + rel(trace.requests, sim.requests) + closed
}

func describeLimiter(charge, debt float64) string {
	if charge == 0 {
		return "a plain bucket that refills under its rejected callers"
	}
	return fmt.Sprintf("a limiter that charges a rejected request %.0f%% of its tokens and keeps a debt of up to %s tokens", 100*charge, thousands(debt))
}
