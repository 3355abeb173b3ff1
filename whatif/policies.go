package whatif

import (
	"fmt"
	"math"

	"github.com/stampede/stampede/simulate"
)

// Policy is one row of the comparison: a retry policy and the scenario that
// plays it.
type Policy struct {
	Name        string
	Description string
	Scenario    simulate.Scenario
}

// The rows, in the order every report shows them.
const (
	RowMeasured  = "as measured"
	RowJitter    = "full jitter"
	RowCap       = "jitter + attempt cap"
	RowLimit     = "jitter + cap + concurrency limit"
	RowAdaptive  = "adaptive concurrency (AIMD)"
	capQueueDeft = 3
)

// bucketTasks is the bucket's size and spare refill, in tasks.
func bucketTasks(sc simulate.Scenario) (capacity, sparePerS float64) {
	if sc.Batch.Cost <= 0 {
		return 0, 0
	}
	spare := sc.Bucket.RefillPerS - sc.Interactive.RatePerS*sc.Interactive.Cost
	return sc.Bucket.Capacity / sc.Batch.Cost, math.Max(0, spare) / sc.Batch.Cost
}

// CapacityOf is the drain arithmetic of a scenario.
func CapacityOf(sc simulate.Scenario) Capacity {
	return Capacity{
		TokensPerMinute:            sc.Bucket.RefillPerS * 60,
		InteractiveTokensPerMinute: sc.Interactive.RatePerS * sc.Interactive.Cost * 60,
		TaskTokens:                 sc.Batch.Cost,
	}
}

// queueCap is the queue attempt cap the capped rows use: 3, or the
// measured cap when it is already tighter.
func queueCap(sc simulate.Scenario) int {
	if c := sc.Runner.MaxQueueAttempts; c > 0 && c < capQueueDeft {
		return c
	}
	return capQueueDeft
}

// ConcurrencyLimit is the fixed limit the limited row uses: the tasks the
// spare refill admits during one retry-after, so that slots coming back
// from a throttle find about as many tasks' tokens as there are slots.
func ConcurrencyLimit(sc simulate.Scenario) int {
	capTasks, spare := bucketTasks(sc)
	wait := sc.SDK.RetryAfterWait()
	if wait <= 0 {
		wait = math.Max(1, sc.SDK.BackoffCapS/2)
	}
	l := int(math.Round(spare * wait))
	if capTasks >= 1 {
		l = min(l, int(capTasks))
	}
	return max(1, l)
}

// AttemptsPerTaskBound is the most attempts a task can make under a queue
// attempt cap: cap × SDK attempts × every application layer's attempts.
func AttemptsPerTaskBound(sc simulate.Scenario, capQueue int) int {
	n := capQueue * sc.SDK.MaxAttempts
	for _, l := range sc.Layers {
		n *= l.MaxAttempts
	}
	return n
}

// Policies builds the comparison's rows from the measured scenario. Every
// row keeps the work (tasks, token sizes, interactive traffic, the runner's
// chance of bringing a failed task back) and changes only the retry policy.
func Policies(measured simulate.Scenario) []Policy {
	base := measured
	base.Name = RowMeasured

	// The SDK keeps its own handling of retry-after: openai-node and the
	// AWS SDKs sleep it in their own code, which a job runner does not
	// change. Replays that jittered the SDK's sleep too predicted longer
	// drains and more finished tasks than real re-runs of the same client.
	jitter := base
	jitter.Name = RowJitter
	jitter.Runner.RequeueJitter = simulate.JitterFull
	jitter.Layers = jitterLayers(base.Layers)

	capped := jitter
	capped.Name = RowCap
	capQ := queueCap(base)
	capped.Runner.MaxQueueAttempts = capQ

	limit := ConcurrencyLimit(base)
	limited := capped
	limited.Name = RowLimit
	limited.Batch.Concurrency = &simulate.Concurrency{Mode: simulate.ConcurrencyFixed, Limit: float64(limit)}

	capTasks, _ := bucketTasks(base)
	adaptive := capped
	adaptive.Name = RowAdaptive
	adaptive.Batch.Concurrency = &simulate.Concurrency{
		Mode: simulate.ConcurrencyAdaptive, Limit: float64(limit), Min: 1,
		Max: math.Max(float64(limit), math.Floor(capTasks)), Decrease: 0.5,
	}

	return []Policy{
		{RowMeasured, describeMeasured(base), base},
		{RowJitter, fmt.Sprintf("requeue delay drawn from U(0, %g s); the SDK handles retry-after as measured", base.Runner.RequeueDelayS), jitter},
		{RowCap, fmt.Sprintf("full jitter, and the job runner gives a task up after %d queue attempts (at most %d attempts per task)", capQ, AttemptsPerTaskBound(base, capQ)), capped},
		{RowLimit, fmt.Sprintf("jitter and cap, and at most %d batch queue attempts in flight", limit), limited},
		{RowAdaptive, fmt.Sprintf("jitter and cap, and an AIMD limit starting at %d: +1/limit per success, halved on a throttle (at most once a second), within 1 to %g", limit, adaptive.Batch.Concurrency.Max), adaptive},
	}
}

func jitterLayers(ls []simulate.RetryLayer) []simulate.RetryLayer {
	out := make([]simulate.RetryLayer, len(ls))
	for i, l := range ls {
		l.Backoff = simulate.BackoffFull
		out[i] = l
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func describeMeasured(sc simulate.Scenario) string {
	handling := map[string]string{
		simulate.RetryAfterExact:  fmt.Sprintf("waits retry-after %s exactly", retryAfterText(sc.SDK)),
		simulate.RetryAfterJitter: fmt.Sprintf("waits retry-after %s plus up to as much again", retryAfterText(sc.SDK)),
		simulate.RetryAfterIgnore: fmt.Sprintf("ignores retry-after and backs off over U(0, min(%g s, %g s·2^n))", sc.SDK.BackoffCapS, sc.SDK.BackoffBaseS),
	}[sc.SDK.RetryAfterMode]
	requeue := fmt.Sprintf("requeues after %g s", sc.Runner.RequeueDelayS)
	if sc.Runner.RequeueJitter != simulate.JitterNone {
		requeue = fmt.Sprintf("requeues after a delay with %s jitter up to %g s", sc.Runner.RequeueJitter, sc.Runner.RequeueDelayS)
		if sc.Runner.RequeueJitter == simulate.JitterPct {
			requeue = fmt.Sprintf("requeues after %.3g s ± %g%%", sc.Runner.RequeueDelayS, sc.Runner.RequeueJitterPct)
		}
	}
	capText := "no cap on queue attempts"
	if sc.Runner.MaxQueueAttempts > 0 {
		capText = fmt.Sprintf("at most %d queue attempts", sc.Runner.MaxQueueAttempts)
	}
	return fmt.Sprintf("%d SDK attempts per call, SDK %s; the runner %s, %s", sc.SDK.MaxAttempts, handling, requeue, capText)
}
