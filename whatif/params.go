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

// Given are figures the logs cannot show (token sizes and the quota) or
// that a user wants to override; zero leaves a field to be measured or
// assumed.
type Given struct {
	TokensPerMinute   float64
	BucketTokens      float64
	TaskTokens        float64
	InteractiveTokens float64
	// RejectCharge and DebtTokens model a limiter that charges rejected
	// requests a share of their cost and lets the bucket run this many
	// tokens into debt; both 0 is a plain bucket that refills under
	// rejected callers.
	RejectCharge float64
	DebtTokens   float64
}

// Assumed token sizes when neither the logs nor the user give them: a task
// is one unit of 1,000 tokens and an interactive call a twentieth of that.
// Only the ratio matters to the replay, and the notes say it was assumed.
const (
	assumedTaskTokens        = 1000
	assumedInteractiveTokens = 50
)

// Params are the simulator's inputs for the incident, with the trace's own
// figures for validating the replay.
type Params struct {
	Scenario simulate.Scenario
	// Sources says, by parameter name, "measured", "given" or "assumed".
	Sources map[string]string
	// Trace figures: zero when the parameters came from a scenario file.
	TraceRequests  int64
	TraceWaves     int
	TracePeriodS   float64
	TraceDurationS float64
	// MaxAttemptsPerTask is the most attempts one task made in the trace.
	MaxAttemptsPerTask int64
	// NonRetryable is what the trace retried that could never succeed.
	NonRetryable []analyze.RetriedError
	// NonRetryableBound says how NonRetryable was cut.
	NonRetryableBound analyze.TableBound
	// Limiter is how whatif fitted the limiter's reject charge and debt,
	// nil when they were given or not fitted.
	Limiter *LimiterFit
	// BucketFit is how whatif fitted the bucket's size, nil when it was
	// given or not fitted.
	BucketFit *BucketFit
	Notes     []string
}

// FromScenario takes every parameter from a scenario file.
func FromScenario(sc simulate.Scenario) Params {
	p := Params{Scenario: sc, Sources: map[string]string{}}
	for _, k := range paramNames {
		p.Sources[k] = "given"
	}
	return p
}

// The parameter names, in the order reports list them.
var paramNames = []string{
	"tasks", "task tokens", "interactive tokens", "tokens per minute", "bucket tokens", "reject charge", "debt tokens",
	"interactive rate", "retry-after", "retry-after handling", "sdk attempts per call",
	"calls per queue attempt", "requeue delay", "requeue jitter", "queue attempt cap",
	"return after failure", "batch submit", "first wave", "response handling",
}

// Parameters lists the inputs for a report.
func (p Params) Parameters() []analyze.WhatIfParameter {
	sc := p.Scenario
	layer := 1
	for _, l := range sc.Layers {
		layer *= l.MaxAttempts
	}
	vals := map[string]struct {
		v    float64
		text string
	}{
		"tasks":                   {float64(sc.Batch.Tasks), thousands(float64(sc.Batch.Tasks))},
		"task tokens":             {sc.Batch.Cost, thousands(sc.Batch.Cost)},
		"interactive tokens":      {sc.Interactive.Cost, thousands(sc.Interactive.Cost)},
		"tokens per minute":       {sc.Bucket.RefillPerS * 60, thousands(sc.Bucket.RefillPerS * 60)},
		"bucket tokens":           {sc.Bucket.Capacity, thousands(sc.Bucket.Capacity)},
		"reject charge":           {sc.Bucket.RejectFraction, fmt.Sprintf("%.0f%%", 100*sc.Bucket.RejectFraction)},
		"debt tokens":             {sc.Bucket.DebtFloor, thousands(sc.Bucket.DebtFloor)},
		"interactive rate":        {sc.Interactive.RatePerS, fmt.Sprintf("%.2f/s", sc.Interactive.RatePerS)},
		"retry-after":             {sc.SDK.RetryAfterWait(), retryAfterText(sc.SDK)},
		"retry-after handling":    {0, sc.SDK.RetryAfterMode},
		"sdk attempts per call":   {float64(sc.SDK.MaxAttempts), fmt.Sprint(sc.SDK.MaxAttempts)},
		"calls per queue attempt": {float64(layer), fmt.Sprint(layer)},
		"requeue delay":           {sc.Runner.RequeueDelayS, fmt.Sprintf("%g s", sc.Runner.RequeueDelayS)},
		"requeue jitter":          {sc.Runner.RequeueJitterPct, requeueJitterText(sc.Runner)},
		"queue attempt cap":       {float64(sc.Runner.MaxQueueAttempts), capWord(sc.Runner.MaxQueueAttempts)},
		"return after failure":    {sc.Runner.Survival, fmt.Sprintf("%.2f", sc.Runner.Survival)},
		"batch submit":            {sc.Batch.SubmitS, fmt.Sprintf("at %.1f s over %.1f s", sc.Batch.SubmitS, sc.Batch.SubmitWindowS)},
		"first wave":              {sc.Batch.FirstWaveMs, firstWaveText(sc.Batch.FirstWaveMs)},
		"response handling":       {sc.Batch.HandleMs, handleText(sc.Batch.HandleMs)},
	}
	out := make([]analyze.WhatIfParameter, 0, len(paramNames))
	for _, k := range paramNames {
		v := vals[k]
		out = append(out, analyze.WhatIfParameter{Name: k, Value: round(v.v, 6), Text: v.text, Source: p.Sources[k]})
	}
	return out
}

func handleText(ms float64) string {
	if ms == 0 {
		return "at once"
	}
	return fmt.Sprintf("%.1f ms each, one at a time", ms)
}

func firstWaveText(ms float64) string {
	if ms == 0 {
		return "as quick as later waves"
	}
	return fmt.Sprintf("a call fails %.0f ms after it starts at the soonest", ms)
}

func capWord(n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprint(n)
}

// Measure reads the parameters off an analysis of the incident's logs and
// its timeline. Token sizes and the quota come from given when set; the
// bucket is otherwise measured in tasks (admissions at a wave's start, less
// what refilled while they arrived, give its size, admissions over the rest
// of the wave its spare refill) and converted at assumed token sizes.
func Measure(tl *timeline.Timeline, res *analyze.Result, given Given) (Params, error) {
	if res == nil || tl == nil {
		return Params{}, fmt.Errorf("what-if: no analysis to measure from")
	}
	p := Params{Sources: map[string]string{}}
	sc := simulate.DefaultScenario()
	sc.Name = "as measured"
	sc.Description = "replay of the measured incident"
	sc.Start = res.Window.Start
	sc.EndS = 0

	src := func(name, s string) { p.Sources[name] = s }
	batch := batchAttempts(tl)
	if len(batch) == 0 {
		return Params{}, fmt.Errorf("what-if: the trace has no batch attempts to replay")
	}
	start := res.Window.Start.UnixNano()

	tasks := res.Amplification.Tasks
	if tasks == 0 {
		tasks = int64(distinctTasks(batch))
	}
	if tasks == 0 {
		return Params{}, fmt.Errorf("what-if: no task ids in the trace, so the backlog size is unknown")
	}
	sc.Batch.Tasks = int(tasks)
	src("tasks", "measured")
	sc.Batch.SubmitS = math.Max(0, float64(batch[0].Start-start)/1e9)
	src("first wave", "assumed")
	if sc.Batch.FirstWaveMs = firstWaveMs(tl); sc.Batch.FirstWaveMs > 0 {
		src("first wave", "measured")
	}
	sc.Batch.SubmitWindowS = 1
	if len(res.Waves.Waves) > 0 && res.Waves.Waves[0].Width > 0 {
		// The width holds the central 90% of the first wave.
		sc.Batch.SubmitWindowS = res.Waves.Waves[0].Width / 0.9
	}
	src("batch submit", "measured")

	// Retry-after and how the SDK treats it.
	ra, sdkDelay, requeue := delay(res, "retry-after"), delay(res, "sdk retry delay"), delay(res, "requeue delay")
	sc.SDK.RetryAfterS = 0
	if ra != nil {
		sc.SDK.RetryAfterS = int(math.Round(ra.P50))
		src("retry-after", "measured")
	} else {
		src("retry-after", "assumed")
	}
	// An access log without $sent_http_retry_after does not show the
	// header, but an SDK that sleeps it shows it as its retry delay.
	honours := sleepsRetryAfter(res)
	raNote := ""
	if ra == nil && sdkDelay != nil && honours {
		if v := math.Round(delayFloor(sdkDelay)); v >= 1 {
			sc.SDK.RetryAfterS = int(v)
			src("retry-after", "measured")
			raNote = fmt.Sprintf("the logs do not carry retry-after; %s sleeps it, so it is read from the SDK's retry delays: %d s", batchSDK(res), sc.SDK.RetryAfterS)
		}
	}
	sc.SDK.RetryAfterMode = simulate.RetryAfterExact
	src("retry-after handling", "measured")
	switch {
	case sdkDelay == nil:
		if !synchronising(res) {
			sc.SDK.RetryAfterMode = simulate.RetryAfterIgnore
		}
		src("retry-after handling", "assumed")
	case (sdkDelay.Fixed || sdkDelay.WholeSeconds && honours && sc.SDK.RetryAfterS > 0) && math.Abs(delayFloor(sdkDelay)-float64(sc.SDK.RetryAfterS)) < 0.5:
		// Whole-second stamps cannot show a fixed delay as fixed; the
		// SDK's own code says it is.
	case sdkDelay.Mean >= 0.95*float64(sc.SDK.RetryAfterS) && sc.SDK.RetryAfterS > 0:
		sc.SDK.RetryAfterMode = simulate.RetryAfterJitter
	default:
		sc.SDK.RetryAfterMode = simulate.RetryAfterIgnore
		sc.SDK.BackoffCapS = 2 * sdkDelay.Max
	}
	if ms, ok := subSecondRetryAfter(res, sc.SDK); ok && honours && sc.SDK.RetryAfterMode == simulate.RetryAfterExact {
		sc.SDK.RetryAfterMs = ms
		sc.SDK.RetryAfterS = int(math.Ceil(ms / 1e3))
		src("retry-after", "measured")
		raNote = fmt.Sprintf("%s sleeps retry-after, and its waits are %g s, not a whole number of seconds: a retry-after-ms header the logs do not show, replayed as retry-after-ms %s", batchSDK(res), round(ms/1e3, 3), thousands(ms))
	}
	if raNote != "" {
		p.Notes = append(p.Notes, raNote)
	}

	// Attempts per layer.
	for _, l := range res.Amplification.Layers {
		n := int(l.Max)
		if l.Capped && l.Cap > 0 {
			n = int(l.Cap)
		}
		switch l.Name {
		case "attempts per call":
			sc.SDK.MaxAttempts = max(1, min(n, 100))
			src("sdk attempts per call", "measured")
		case "calls per queue attempt":
			if n > 1 {
				sc.Layers = []simulate.RetryLayer{{Name: "application", MaxAttempts: min(n, 100), Backoff: simulate.BackoffFull, BackoffBaseS: 1, BackoffCapS: 20}}
			}
			src("calls per queue attempt", "measured")
		case "queue attempts per task":
			if l.Capped && l.Cap > 0 {
				sc.Runner.MaxQueueAttempts = int(l.Cap)
			} else {
				sc.Runner.MaxQueueAttempts = 0
			}
			sc.Runner.Survival = 1 - l.GiveUpRate
			src("queue attempt cap", "measured")
			src("return after failure", "measured")
		}
	}
	if p.Sources["sdk attempts per call"] == "" {
		src("sdk attempts per call", "assumed")
	}
	if sc.SDK.RetryAfterMode == simulate.RetryAfterIgnore && sdkDelay != nil {
		// Full jitter over [0, base·2^n] has mean base·2^n/2, and the
		// delays measured mix the retries n = 0 … attempts−2, whose
		// ceilings double: base is twice the mean over their mean 2^n.
		k := float64(max(1, sc.SDK.MaxAttempts-1))
		sc.SDK.BackoffBaseS = math.Max(0.05, 2*sdkDelay.Mean*k/(math.Exp2(k)-1))
		if b, ok := knownBackoff[batchSDK(res)]; ok {
			// Gaps between whole-second stamps blur a sub-second
			// backoff; the SDK's own code knows it.
			sc.SDK.BackoffBaseS, sc.SDK.Backoff = b.base, b.curve
			if b.cap > 0 {
				sc.SDK.BackoffCapS = b.cap
			}
		}
		sc.SDK.BackoffCapS = math.Max(sc.SDK.BackoffBaseS, sc.SDK.BackoffCapS)
	}
	if p.Sources["queue attempt cap"] == "" {
		src("queue attempt cap", "assumed")
		src("return after failure", "assumed")
	}
	if p.Sources["calls per queue attempt"] == "" {
		src("calls per queue attempt", "assumed")
	}

	// The job runner's requeue delay.
	sc.Runner.RequeueJitter = simulate.JitterNone
	switch {
	case requeue != nil:
		sc.Runner.RequeueDelayS = requeue.P50
		// Half the delays on one floor, the rest trailing above it, is a
		// fixed delay run late now and then (a runner busy at the time).
		onFloor := requeue.P50-requeue.P10 < 0.02*requeue.P50
		if !requeue.Fixed && !onFloor && !requeue.TooCoarse {
			sc.Runner.RequeueJitter = simulate.JitterFull
			sc.Runner.RequeueDelayS = 2 * requeue.Mean
			// A delay spread by a share of itself, d × U(1 − p, 1 + p),
			// spans [d(1 − p), d(1 + p)]; full jitter starts near 0.
			// A fixed delay run late now and then has its median at the
			// floor, not the midpoint.
			mid, half := (requeue.Max+requeue.Min)/2, (requeue.Max-requeue.Min)/2
			if spread := half / mid; requeue.Min > 0 && spread < maxPctJitter && math.Abs(requeue.P50-mid) < half/2 {
				sc.Runner.RequeueJitter = simulate.JitterPct
				sc.Runner.RequeueDelayS = round((requeue.Max+requeue.Min)/2, 3)
				sc.Runner.RequeueJitterPct = round(100*spread, 1)
			}
		}
		src("requeue delay", "measured")
		if requeue.TooCoarse {
			// Whole-second stamps cannot tell this delay's jitter: the
			// replay keeps it fixed, and says so.
			src("requeue jitter", "assumed")
		} else {
			src("requeue jitter", "measured")
		}
	case res.Waves.Periodic:
		sc.Runner.RequeueDelayS = math.Max(0, res.Waves.Period-float64(sc.SDK.MaxAttempts-1)*sc.SDK.RetryAfterWait())
		src("requeue delay", "measured")
		src("requeue jitter", "assumed")
	default:
		src("requeue delay", "assumed")
		src("requeue jitter", "assumed")
	}

	// Interactive traffic.
	// Calls, not attempts: the replay's SDK makes the retries itself.
	sc.Interactive.RatePerS = 0
	if res.Window.Duration > 0 {
		n := int64(interactiveCalls(tl))
		for _, c := range res.Reconcile.ByClass {
			if c.Class == timeline.ClassInteractive.String() && c.App.Calls > 0 {
				n = c.App.Calls
			}
		}
		sc.Interactive.RatePerS = float64(n) / res.Window.Duration
	}
	sc.Interactive.StartS = 0
	src("interactive rate", "measured")

	// Latencies: the medians of admitted and rejected attempts.
	okMs, rejectMs := latencies(batch)
	if okMs > 0 {
		sc.Latency.OKMs, sc.Latency.OKJitterMs = okMs, okMs/3
	}
	if rejectMs > 0 {
		sc.Latency.RejectMs = rejectMs
	}

	// The bucket: given in tokens, or measured in tasks.
	bursts, spare := measureBucket(batch, res, sc.SDK.RetryAfterWait())
	sc.Batch.Cost, sc.Interactive.Cost = given.TaskTokens, given.InteractiveTokens
	src("task tokens", "given")
	src("interactive tokens", "given")
	if sc.Batch.Cost <= 0 {
		sc.Batch.Cost = assumedTaskTokens
		src("task tokens", "assumed")
	}
	if sc.Interactive.Cost <= 0 {
		sc.Interactive.Cost = sc.Batch.Cost * assumedInteractiveTokens / assumedTaskTokens
		src("interactive tokens", "assumed")
	}
	if given.TokensPerMinute > 0 {
		sc.Bucket.RefillPerS = given.TokensPerMinute / 60
		src("tokens per minute", "given")
	} else {
		sc.Bucket.RefillPerS = spare*sc.Batch.Cost + sc.Interactive.RatePerS*sc.Interactive.Cost
		if spare <= 0 {
			// Interactive traffic took everything the bucket refilled
			// while the batch was throttled: the refill is then what all
			// classes got through over the throttled stretch.
			sc.Bucket.RefillPerS = admittedWhileThrottled(tl, batch, sc.Batch.Cost, sc.Interactive.Cost)
		}
		if sc.Bucket.RefillPerS <= 0 {
			if _, _, throttled := throttledSpan(batch); !throttled {
				return Params{}, fmt.Errorf("what-if: the batch was never throttled, so the logs do not show the limit's refill; give --tokens-per-minute to replay it anyway")
			}
			return Params{}, fmt.Errorf("what-if: no attempts were admitted while the batch was throttled, so the bucket's refill is unknown; give --tokens-per-minute")
		}
		src("tokens per minute", "measured")
	}
	sc.Bucket.RejectFraction, sc.Bucket.DebtFloor = given.RejectCharge, given.DebtTokens
	if given.BucketTokens > 0 {
		sc.Bucket.Capacity = given.BucketTokens
		src("bucket tokens", "given")
	} else {
		_, refill := bucketTasks(sc)
		sc.Bucket.Capacity = math.Max(1, bucketSize(bursts, refill)) * sc.Batch.Cost
		src("bucket tokens", "measured")
	}
	sc.Bucket.Capacity = math.Max(sc.Bucket.Capacity, math.Max(sc.Batch.Cost, sc.Interactive.Cost))
	if p.Sources["task tokens"] == "assumed" || p.Sources["interactive tokens"] == "assumed" {
		p.Notes = append(p.Notes, fmt.Sprintf("token sizes are not in the logs: assumed %s tokens per task and %s per interactive call (give --task-tokens and --interactive-tokens); the bucket was measured in tasks, so only the interactive figures depend on the assumption",
			thousands(sc.Batch.Cost), thousands(sc.Interactive.Cost)))
	}

	for _, c := range res.Clients {
		if c.UserAgent != "" {
			sc.SDK.UserAgent = sanitizeAgent(c.UserAgent)
			break
		}
	}
	// A botocore User-Agent without its retry mode is standard when the
	// attempts stop at standard's 3 (legacy makes 5).
	if sdk := batchSDK(res); awsRetryQuota[sdk] || (sdk == "botocore" && sc.SDK.MaxAttempts == 3) {
		// The client-wide quota stops retries once a burst has spent it:
		// most calls then make one attempt whatever max_attempts says.
		sc.SDK.Budget = &simulate.RetryBudget{MaxTokens: 500, RetryCost: 5, TokenRatio: 1}
		// Interactive calls come from another process, with its own quota.
		interactive := sc.SDK
		interactive.Budget = &simulate.RetryBudget{MaxTokens: 500, RetryCost: 5, TokenRatio: 1}
		sc.InteractiveSDK = &interactive
		p.Notes = append(p.Notes, fmt.Sprintf("%s keeps a client-wide retry quota (500 tokens, 5 per retry); the replay models it from the SDK's defaults", sdk))
	}
	// Only a client whose waves nothing else spreads shows its handling
	// time in their width: not one with a backoff of its own, a jittered
	// requeue, or a retry quota that ends some calls after one attempt and
	// others after all.
	src("response handling", "assumed")
	if sc.SDK.RetryAfterMode == simulate.RetryAfterExact && sc.Runner.RequeueJitter == simulate.JitterNone && sc.SDK.Budget == nil {
		if sc.Batch.HandleMs = handleMs(tl); sc.Batch.HandleMs > 0 {
			src("response handling", "measured")
		}
	}
	p.Scenario = sc
	p.TraceRequests = res.Reconcile.HTTP.Attempts
	p.TraceWaves = len(res.Waves.Waves)
	if res.Waves.Periodic {
		p.TracePeriodS = res.Waves.Period
	}
	p.TraceDurationS = res.Window.Duration
	p.MaxAttemptsPerTask = maxAttemptsPerTask(batch)
	p.NonRetryable, p.NonRetryableBound = RetriedNonRetryable(tl)
	if err := sc.Validate(); err != nil {
		return Params{}, fmt.Errorf("what-if: measured parameters do not make a scenario: %w", err)
	}
	measureLimiter(&p, tl, res, given, start)
	return p, nil
}

// handleMs is how long the batch client took to handle one response, in
// milliseconds, from the call log: 0 when the log has no queue attempts
// or no sub-second times. A client that sleeps retry-after exactly and
// requeues after a fixed delay sends a wave as tightly as it sent the
// last, yet the recorded clients' requeued waves arrive over a third of a
// second and more: a single-threaded client handles a burst's 429s one
// after another, and each call sleeps only from its turn. The first
// requeued wave is as wide as the first wave's failed calls took to be
// handled, less the spread the first wave already had.
func handleMs(tl *timeline.Timeline) float64 {
	var first, second []float64
	failed := 0
	whole := true
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerCall || e.Class != timeline.ClassBatch {
			continue
		}
		whole = whole && e.Start%int64(time.Second) == 0
		switch e.QueueAttempt {
		case 1:
			first = append(first, float64(e.Start)/1e9)
			if e.Outcome != timeline.OutcomeOK {
				failed++
			}
		case 2:
			second = append(second, float64(e.Start)/1e9)
		}
	}
	if whole || failed == 0 || len(second) < 2 {
		return 0
	}
	width := func(v []float64) float64 { return quantile(v, 0.95) - quantile(v, 0.05) }
	spread := width(second) - width(first)
	if spread <= 0 {
		return 0
	}
	// The central 90% of the requeued calls came back over 90% of the
	// failures' handling.
	return round(1000*spread/(0.9*float64(failed)), 3)
}

// firstWaveMs is, from the call log, the median time the first wave's
// calls that failed after one attempt took to fail, in milliseconds: 0
// when the log has none or no sub-second times. An SDK that gives up after
// one throttled attempt (a spent retry quota) fails such a call once it
// has sent it and handled the answer, and a client that opens a connection
// for each call of a burst does both slower on the first wave than on the
// next, which finds them open: the AWS SDK for JavaScript took 0.36 to
// 1.94 s, its later waves' calls 4 to 12 ms. The replay would requeue the
// call the moment the endpoint answered. Its calls start when their first
// attempt arrives, so the wait includes the time the real call took to
// get there: the access log's clock need not be the call log's, and the
// clock estimate reads a lag like this one as an offset.
func firstWaveMs(tl *timeline.Timeline) float64 {
	var failed []float64
	whole := true
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerCall || e.Class != timeline.ClassBatch || e.QueueAttempt != 1 {
			continue
		}
		whole = whole && e.Start%int64(time.Second) == 0
		if e.Outcome != timeline.OutcomeOK && e.Attempts == 1 && e.End > 0 {
			failed = append(failed, float64(e.Duration())/1e6)
		}
	}
	if whole || len(failed) == 0 {
		return 0
	}
	return round(quantile(failed, 0.5), 1)
}

// maxPctJitter is the widest spread read as a delay jittered by a share
// of itself rather than full jitter, whose range starts near 0.
const maxPctJitter = 0.5

// knownBackoff is the backoff of SDKs when they do not sleep a
// retry-after, from their code: botocore's U(0, 1 s·2^n) (its measured cap
// stays: a call's attempts never reach botocore's 20 s), and the Stainless
// SDKs' min(0.5 s·2^n, 8 s) × U(0.75, 1].
var knownBackoff = map[string]struct {
	base, cap float64
	curve     string
}{
	"botocore standard": {1, 0, simulate.BackoffFull}, "botocore adaptive": {1, 0, simulate.BackoffFull}, "botocore legacy": {1, 0, simulate.BackoffFull},
	"openai-node": {0.5, 8, simulate.BackoffQuarter}, "openai-python": {0.5, 8, simulate.BackoffQuarter},
	"anthropic-typescript": {0.5, 8, simulate.BackoffQuarter}, "anthropic-python": {0.5, 8, simulate.BackoffQuarter},
}

// awsRetryQuota are the SDKs whose standard retry mode shares one retry
// quota across the client.
var awsRetryQuota = map[string]bool{"botocore standard": true, "botocore adaptive": true, "aws-sdk-js-v3": true}

// batchSDK is the SDK that sent the most throttled attempts.
func batchSDK(res *analyze.Result) string {
	best, most := "", int64(-1)
	for _, c := range res.Clients {
		if c.Throttled > most {
			best, most = c.SDK, c.Throttled
		}
	}
	return best
}

func delay(res *analyze.Result, kind string) *analyze.DelayStats {
	for i := range res.Waves.Delays {
		if d := &res.Waves.Delays[i]; d.Kind == kind && d.N > 0 {
			return d
		}
	}
	return nil
}

// sleepsRetryAfter says whether the batch SDK sleeps the server's
// retry-after: exactly (openai, anthropic), or as the floor of a backoff
// that stays below it for the first retries (AWS SDK for JavaScript v3).
func sleepsRetryAfter(res *analyze.Result) bool {
	sdk := batchSDK(res)
	for _, c := range res.Clients {
		if c.SDK == sdk && c.Synchronising {
			return true
		}
	}
	return sdk == "aws-sdk-js-v3"
}

// subSecondRetryAfter is the retry-after, in milliseconds, that an SDK
// honouring it exactly slept when the period's split times that sleep at
// a fraction of a second off any whole number: the server's
// retry-after-ms, which openai and anthropic read before retry-after.
// The header's whole seconds, when logged, must be its ceiling.
func subSecondRetryAfter(res *analyze.Result, sdk simulate.SDKPolicy) (float64, bool) {
	for _, s := range res.Waves.Suspects {
		if s.Layer != "sdk" || s.Delay < 1 {
			continue
		}
		off := math.Abs(s.Delay - math.Round(s.Delay))
		if off < minSubSecondS || sdk.RetryAfterS > 0 && math.Abs(s.Delay-float64(sdk.RetryAfterS)) >= 1 {
			return 0, false
		}
		return math.Round(s.Delay * 1e3), true
	}
	return 0, false
}

// minSubSecondS is how far from a whole second an SDK's fixed wait must
// be to be read as milliseconds: a busy client's lateness puts some tens
// of milliseconds on a whole-second wait.
const minSubSecondS = 0.1

func retryAfterText(p simulate.SDKPolicy) string {
	if p.RetryAfterMs > 0 {
		return fmt.Sprintf("%g s (retry-after-ms)", round(p.RetryAfterWait(), 3))
	}
	return fmt.Sprintf("%d s", p.RetryAfterS)
}

// delayFloor is the delay a client ran, late now and then but never
// early: the median, or between whole-second stamps, which round gaps
// up as often as down, the lower tenth.
func delayFloor(d *analyze.DelayStats) float64 {
	if d.WholeSeconds {
		return d.P10
	}
	return d.P50
}

func synchronising(res *analyze.Result) bool {
	for _, c := range res.Clients {
		if c.Synchronising {
			return true
		}
	}
	return len(res.Clients) == 0
}

// admittedWhileThrottled is the rate, in tokens per second, at which
// attempts of any class were admitted between the batch's first and last
// throttle: while the bucket is drained, what gets through is its refill.
func admittedWhileThrottled(tl *timeline.Timeline, batch []*timeline.Event, batchCost, interactiveCost float64) float64 {
	first, last, ok := throttledSpan(batch)
	if !ok {
		return 0
	}
	var tokens float64
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP || e.Outcome != timeline.OutcomeOK || e.Start < first || e.Start > last {
			continue
		}
		if e.Class == timeline.ClassInteractive {
			tokens += interactiveCost
		} else {
			tokens += batchCost
		}
	}
	return tokens / (float64(last-first) / 1e9)
}

// throttledSpan is the time from the first throttled batch attempt to the
// last; ok is false when they are not two distinct moments.
func throttledSpan(batch []*timeline.Event) (first, last int64, ok bool) {
	first, last = -1, -1
	for _, e := range batch {
		if e.Outcome == timeline.OutcomeThrottled {
			if first < 0 {
				first = e.Start
			}
			last = e.Start
		}
	}
	return first, last, first >= 0 && last > first
}

// batchAttempts are the batch HTTP attempts in time order.
func batchAttempts(tl *timeline.Timeline) []*timeline.Event {
	var out []*timeline.Event
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer == timeline.LayerHTTP && e.Class == timeline.ClassBatch {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b *timeline.Event) int { return cmpInt(a.Start, b.Start) })
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func distinctTasks(batch []*timeline.Event) int {
	seen := map[timeline.Sym]bool{}
	for _, e := range batch {
		if e.TaskID != timeline.NoSym {
			seen[e.TaskID] = true
		}
	}
	return len(seen)
}

func maxAttemptsPerTask(batch []*timeline.Event) int64 {
	per := map[timeline.Sym]int64{}
	var top int64
	for _, e := range batch {
		if e.TaskID != timeline.NoSym {
			per[e.TaskID]++
			top = max(top, per[e.TaskID])
		}
	}
	return top
}

func interactiveCalls(tl *timeline.Timeline) int {
	n := 0
	for i := range tl.Events {
		if e := &tl.Events[i]; e.Layer == timeline.LayerHTTP && e.Class == timeline.ClassInteractive && e.Attempt <= 1 {
			n++
		}
	}
	return n
}

func latencies(batch []*timeline.Event) (okMs, rejectMs float64) {
	var ok, rej []float64
	for _, e := range batch {
		d := e.Duration()
		if d <= 0 {
			continue
		}
		ms := float64(d) / float64(time.Millisecond)
		switch e.Outcome {
		case timeline.OutcomeOK:
			ok = append(ok, ms)
		case timeline.OutcomeThrottled:
			rej = append(rej, ms)
		}
	}
	return quantile(ok, 0.5), quantile(rej, 0.5)
}

// burst is what a wave's first moments got from a bucket it found full:
// admitted batch attempts, the last spanS after the first.
type burst struct {
	admitted, spanS float64
}

// bucketSize is the bucket in tasks that the bursts show. A wave's
// arrivals may spread over a second or more (a requeue jitter, stamps to
// the second), and the bucket refills meanwhile: of what a burst admitted,
// the batch's refill over its span (refillPerS, in tasks), to the nearest
// whole task, came after the start. The most a burst found: a later wave
// may arrive before the bucket has refilled (a limiter still paying a
// debt back).
func bucketSize(bursts []burst, refillPerS float64) float64 {
	var size float64
	for _, b := range bursts {
		size = math.Max(size, b.admitted-math.Round(refillPerS*b.spanS))
	}
	return size
}

// measureBucket finds the bursts the bucket's size is measured from: the
// admitted batch attempts in a wave's first moments; and its spare
// refill: those admitted over the rest of the wave, while it was still
// being throttled. Waves the bucket never ran dry for are left out.
// Without waves the burst is what was admitted until a window after the
// first throttle, and the spare refill the admitted rate over the
// throttled span.
func measureBucket(batch []*timeline.Event, res *analyze.Result, retryAfter float64) (bursts []burst, sparePerS float64) {
	window := int64(time.Second)
	if retryAfter > 0 {
		window = min(window, int64(retryAfter*float64(time.Second)/2))
	}
	var rates []float64
	waves := res.Waves.Waves
	for i, w := range waves {
		// A wave's start is that of its first bin of call starts, which
		// may lie after the first arrivals the bucket admitted: take the
		// first batch attempt within a width before it, or within the
		// stamps' resolution (an access log's whole second stamps an
		// attempt up to a second before the call log's clock, and an
		// admitted one a duration earlier still).
		lead := int64(math.Max(math.Max(w.Width, 0.5), res.Waves.BucketResolution) * 1e9)
		t0 := w.Start.UnixNano()
		if j, _ := slices.BinarySearchFunc(batch, t0-lead, func(e *timeline.Event, t int64) int { return cmpInt(e.Start, t) }); j < len(batch) {
			t0 = min(t0, batch[j].Start)
		}
		t1 := int64(math.MaxInt64)
		if i+1 < len(waves) {
			t1 = waves[i+1].Start.UnixNano() - int64(math.Max(waves[i+1].Width, 0.5)*1e9)
		}
		var first, rest, throttledLate int64
		last, firstOK, lastOK := t0, int64(-1), int64(-1)
		for _, e := range batch {
			if e.Start < t0 || e.Start >= t1 {
				continue
			}
			last = max(last, e.Start)
			switch {
			case e.Outcome == timeline.OutcomeOK && e.Start < t0+window:
				first++
				if firstOK < 0 {
					firstOK = e.Start
				}
				lastOK = e.Start
			case e.Outcome == timeline.OutcomeOK:
				rest++
			case e.Outcome == timeline.OutcomeThrottled && e.Start >= t0+window:
				throttledLate++
			}
		}
		if first == 0 || throttledLate == 0 {
			continue
		}
		bursts = append(bursts, burst{float64(first), float64(lastOK-firstOK) / 1e9})
		if span := float64(last-t0-window) / 1e9; span > 0 {
			rates = append(rates, float64(rest)/span)
		}
	}
	if len(bursts) > 0 && len(rates) > 0 {
		return bursts, quantile(rates, 0.5)
	}
	// No usable waves: the admitted rate from the first throttle to the last.
	firstT, lastT, throttled := throttledSpan(batch)
	if !throttled {
		return nil, 0
	}
	var ok, okFirst int64
	for _, e := range batch {
		if e.Outcome == timeline.OutcomeOK && e.Start >= firstT && e.Start <= lastT {
			ok++
		}
		if e.Outcome == timeline.OutcomeOK && e.Start < firstT+window {
			okFirst++
		}
	}
	return []burst{{admitted: float64(okFirst)}}, float64(ok) / (float64(lastT-firstT) / 1e9)
}

// sanitizeAgent keeps a User-Agent the simulator can write into a log line.
func sanitizeAgent(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r == '"' || r == '\\' || r == '\n' || r == '\r' {
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

// quantile is the q-quantile of v by linear interpolation; 0 for none.
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

func round(v float64, decimals int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow10(decimals)
	return math.Round(v*p) / p
}

// requeueJitterText is the requeue jitter as the parameters list it.
func requeueJitterText(r simulate.RunnerPolicy) string {
	if r.RequeueJitter == simulate.JitterPct {
		return fmt.Sprintf("± %g%%", r.RequeueJitterPct)
	}
	return r.RequeueJitter
}
