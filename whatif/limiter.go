package whatif

import (
	"fmt"
	"math"
	"time"

	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/timeline"
)

// traceLoad is what the trace shows of the limiter's answers: attempts in
// its window, the interactive attempts and how many were throttled, and
// the batch attempts it admitted.
type traceLoad struct {
	requests, interactive, interactiveThrottled, batchAdmitted int64
}

func measureLoad(tl *timeline.Timeline) traceLoad {
	var l traceLoad
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP {
			continue
		}
		l.requests++
		switch e.Class {
		case timeline.ClassInteractive:
			l.interactive++
			if e.Outcome == timeline.OutcomeThrottled {
				l.interactiveThrottled++
			}
		case timeline.ClassBatch:
			if e.Outcome == timeline.OutcomeOK {
				l.batchAdmitted++
			}
		}
	}
	return l
}

// Limiters that charge rejected requests: the shares of a request's cost a
// rejection may cost, and the debts, in bucket sizes, they may run to.
var (
	rejectCharges = []float64{0, 0.05, 0.1, 0.2, 0.5, 1}
	debtBuckets   = []float64{0.5, 1, 2}
)

// fitLimiter picks how the limiter charges rejections, when the user has
// not said: the candidate whose replay of the incident comes closest to
// the trace's throttled interactive share, admitted batch attempts and
// requests. The logs show a charging limiter only by its effect: while it
// pays a debt back it admits nothing, though the quota refills, so
// interactive traffic stays throttled between waves and fewer tasks get
// through than the quota allows.
func fitLimiter(sc simulate.Scenario, load traceLoad, windowS float64) (charge, debt float64) {
	if load.requests == 0 || windowS <= 0 {
		return 0, 0
	}
	best := math.Inf(1)
	horizon := math.Ceil(windowS * 1.2)
	for _, f := range rejectCharges {
		for _, d := range debtBuckets {
			if f == 0 && d != debtBuckets[0] {
				continue
			}
			c := sc
			c.Bucket.RejectFraction, c.Bucket.DebtFloor = f, 0
			if f > 0 {
				c.Bucket.DebtFloor = d * sc.Bucket.Capacity
			}
			var loss float64
			for seed := range uint64(2) {
				out, err := simulate.Run(Prepare(c, horizon, sc.Seed+seed))
				if err != nil {
					return 0, 0
				}
				loss += loadLoss(load, replayLoad(out, windowS))
			}
			if loss < best-1e-9 {
				best, charge, debt = loss, c.Bucket.RejectFraction, c.Bucket.DebtFloor
			}
		}
	}
	return charge, debt
}

// replayLoad counts a replay as measureLoad counts the trace, over the
// trace's window.
func replayLoad(out *simulate.Output, windowS float64) traceLoad {
	var l traceLoad
	end := time.Duration(windowS * float64(time.Second))
	for i := range out.Attempts {
		a := &out.Attempts[i]
		if a.Arrived > end {
			continue
		}
		l.requests++
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
	return l
}

// loadLoss weighs the misses alike: the interactive share in points, the
// others as relative errors.
func loadLoss(trace, sim traceLoad) float64 {
	rel := func(t, s int64) float64 { return math.Abs(float64(s-t)) / math.Max(1, float64(t)) }
	share := func(l traceLoad) float64 {
		return float64(l.interactiveThrottled) / math.Max(1, float64(l.interactive))
	}
	return math.Abs(share(sim)-share(trace)) + rel(trace.batchAdmitted, sim.batchAdmitted) + rel(trace.requests, sim.requests)
}

func describeLimiter(charge, debt float64) string {
	if charge == 0 {
		return "a plain bucket that refills under its rejected callers"
	}
	return fmt.Sprintf("a limiter that charges a rejected request %.0f%% of its tokens and keeps a debt of up to %s tokens", 100*charge, thousands(debt))
}
