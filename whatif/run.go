package whatif

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/ingest"
	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/timeline"
)

// Options tune a comparison.
type Options struct {
	// Seeds is how many seeds each row runs (DefaultSeeds when 0); the
	// seeds are the scenario's seed and the ones after it.
	Seeds int
	// Tolerance is the relative error the replay may have against the
	// trace's requests, waves and period (default 0.05).
	Tolerance float64
}

// Metrics are one replay's figures.
type Metrics struct {
	Requests, BatchRequests        int64
	PeakPerSecond, PeakBatchPerSec int64
	BucketEmptyS                   float64
	InteractiveAttempts            int64
	InteractiveThrottled           int64
	InteractiveP99S                float64
	DrainS                         float64 // NaN when the backlog did not drain
	Billed                         int64
	TasksDone, TasksGivenUp        int64
	MaxAttemptsPerTask             int64
	RetryWindowS                   float64
	// RequeueWindowS is the central 90% width of the first attempts of
	// the second queue attempts: the first wave the job runner requeued.
	RequeueWindowS   float64
	RequestsInWindow int64
	MaxInFlight      int64
	// InteractiveCalls and InteractiveOK count interactive SDK calls and
	// those that succeeded.
	InteractiveCalls, InteractiveOK int64
	Output                          *simulate.Output
}

// InteractiveShare is throttled interactive attempts over all of them.
func (m Metrics) InteractiveShare() float64 {
	if m.InteractiveAttempts == 0 {
		return 0
	}
	return float64(m.InteractiveThrottled) / float64(m.InteractiveAttempts)
}

// Horizon is the simulated span every row shares, in seconds: long enough
// for the slowest policy to drain (twice the capacity bound) and for the
// trace's whole window. Interactive traffic runs over all of it, so every
// row serves the same interactive demand.
func Horizon(p Params) float64 {
	sc := p.Scenario
	drain := CapacityOf(sc).Drain(int64(sc.Batch.Tasks))
	if math.IsInf(drain, 0) || drain > 12*3600 {
		drain = 12 * 3600
	}
	return math.Ceil(math.Max(sc.Batch.SubmitS+2*drain+120, p.TraceDurationS*1.2))
}

// Prepare fixes a row's scenario to the shared horizon and a seed.
func Prepare(sc simulate.Scenario, horizon float64, seed uint64) simulate.Scenario {
	sc.Seed = seed
	sc.EndS = horizon
	sc.TailS = horizon
	sc.Interactive.EndS = horizon
	return sc
}

// Replay runs one scenario and measures it; window is the trace's
// duration in seconds (0: none).
func Replay(sc simulate.Scenario, window float64) (Metrics, error) {
	out, err := simulate.Run(sc)
	if err != nil {
		return Metrics{}, err
	}
	m := Metrics{Output: out, Requests: int64(len(out.Attempts))}
	var firstRetries, requeued []float64
	for i := range out.Attempts {
		a := &out.Attempts[i]
		if a.Status == 200 {
			m.Billed++
		}
		if window > 0 && a.Arrived.Seconds() <= window {
			m.RequestsInWindow++
		}
		switch a.Kind {
		case simulate.Batch:
			m.BatchRequests++
			if a.QueueAttempt == 1 && a.Retry == 1 {
				firstRetries = append(firstRetries, a.Arrived.Seconds())
			}
			if a.QueueAttempt == 2 && a.Retry == 0 {
				requeued = append(requeued, a.Arrived.Seconds())
			}
		case simulate.Interactive:
			m.InteractiveAttempts++
			if a.Status == 429 {
				m.InteractiveThrottled++
			}
		}
	}
	m.PeakPerSecond, m.PeakBatchPerSec = busiestSecond(out.Attempts)
	if len(firstRetries) > 1 {
		m.RetryWindowS = quantile(firstRetries, 0.95) - quantile(firstRetries, 0.05)
	}
	if len(requeued) > 1 {
		m.RequeueWindowS = quantile(requeued, 0.95) - quantile(requeued, 0.05)
	}
	var lat []float64
	for i := range out.Calls {
		if c := &out.Calls[i]; c.Kind == simulate.Interactive {
			lat = append(lat, (c.End - c.Start).Seconds())
			m.InteractiveCalls++
			if c.OK {
				m.InteractiveOK++
			}
		}
	}
	m.InteractiveP99S = quantile(lat, 0.99)
	m.BucketEmptyS = out.Stats.BucketEmpty.Seconds()
	t := out.Truth
	m.DrainS = math.NaN()
	if t.Window.BatchResolvedS >= 0 {
		m.DrainS = t.Window.BatchResolvedS - sc.Batch.SubmitS
	}
	m.TasksDone = t.Tasks.Succeeded
	m.TasksGivenUp = t.Tasks.Abandoned + t.Tasks.PendingAtEnd
	m.MaxAttemptsPerTask = int64(out.Stats.MaxAttemptsPerTask)
	m.MaxInFlight = int64(out.Stats.MaxInFlight)
	return m, nil
}

// busiestSecond is the most attempts, all and batch, arriving within one
// second: over any second, not the clock's, since where a burst falls
// against the clock's seconds is chance (a wave of 300 sent over 0.3 s
// may land in one of them or be split between two).
func busiestSecond(attempts []simulate.Attempt) (all, batch int64) {
	peak := func(keep func(*simulate.Attempt) bool) int64 {
		var at []time.Duration
		for i := range attempts {
			if keep(&attempts[i]) {
				at = append(at, attempts[i].Arrived)
			}
		}
		slices.Sort(at)
		var most, j int
		for i := range at {
			for at[i]-at[j] >= time.Second {
				j++
			}
			most = max(most, i-j+1)
		}
		return int64(most)
	}
	return peak(func(*simulate.Attempt) bool { return true }), peak(func(a *simulate.Attempt) bool { return a.Kind == simulate.Batch })
}

// AnalyzeReplay feeds a replay's written logs (the nginx access log and the
// SDK call log) back through ingest and analyze, as a user's logs would be.
func AnalyzeReplay(out *simulate.Output) (*analyze.Result, error) {
	tl := &timeline.Timeline{}
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{simulate.AccessLogFile, func(b *bytes.Buffer) error { return out.WriteAccessLog(b) }},
		{simulate.CallsFile, func(b *bytes.Buffer) error { return out.WriteCalls(b) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			return nil, err
		}
		part, err := ingest.Read(&b, f.name, ingest.Options{})
		if err != nil {
			return nil, fmt.Errorf("what-if: read back %s: %w", f.name, err)
		}
		tl.Append(part)
	}
	timeline.ApplyClassRules(tl, timeline.DefaultClassRules, false)
	timeline.ResolveClasses(tl)
	tl.Sort()
	return analyze.Run(tl, analyze.Options{Seed: 1}), nil
}

// row is one policy's replays.
type row struct {
	policy  Policy
	metrics []Metrics
}

func (r *row) spread(f func(Metrics) float64) analyze.Spread {
	v := make([]float64, 0, len(r.metrics))
	for _, m := range r.metrics {
		if x := f(m); !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) < len(r.metrics) {
		// Some seeds drained and some did not: the median of the drained
		// ones would flatter the policy.
		return analyze.Spread{Median: -1, Min: -1, Max: -1}
	}
	if len(v) == 0 {
		// No seed has the figure (no replay drained): -1, never NaN,
		// which JSON cannot carry.
		return analyze.Spread{Median: -1, Min: -1, Max: -1}
	}
	return analyze.Spread{Median: round(quantile(v, 0.5), 3), Min: round(slices.Min(v), 3), Max: round(slices.Max(v), 3)}
}

// Run replays every policy over the seeds and assembles the comparison.
func Run(p Params, opt Options) (*analyze.WhatIf, error) {
	if opt.Seeds <= 0 {
		opt.Seeds = DefaultSeeds
	}
	if opt.Tolerance <= 0 {
		opt.Tolerance = 0.05
	}
	if err := p.Scenario.Validate(); err != nil {
		return nil, fmt.Errorf("what-if: %w", err)
	}
	horizon := Horizon(p)
	policies := Policies(p.Scenario)
	rows := make([]row, len(policies))
	wi := &analyze.WhatIf{
		Source:            "trace",
		Parameters:        p.Parameters(),
		Recommendations:   []string{},
		NonRetryable:      p.NonRetryable,
		NonRetryableBound: p.NonRetryableBound,
		Notes:             slices.Clone(p.Notes),
	}
	if p.TraceRequests == 0 {
		wi.Source = "scenario " + p.Scenario.Name
	}
	if wi.NonRetryable == nil {
		wi.NonRetryable = []analyze.RetriedError{}
	}
	wi.NonRetryableBound.Rows = maxCodeRows
	for i := range opt.Seeds {
		wi.Seeds = append(wi.Seeds, p.Scenario.Seed+uint64(i))
	}
	for i, pol := range policies {
		rows[i].policy = pol
		rows[i].metrics = make([]Metrics, len(wi.Seeds))
	}
	err := onEveryCore(len(policies)*len(wi.Seeds), func(k int) error {
		r, s := &rows[k/len(wi.Seeds)], k%len(wi.Seeds)
		m, err := Replay(Prepare(r.policy.Scenario, horizon, wi.Seeds[s]), p.TraceDurationS)
		if err != nil {
			return fmt.Errorf("what-if %s: %w", r.policy.Name, err)
		}
		r.metrics[s] = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range rows {
		r := &rows[i]
		wi.Rows = append(wi.Rows, analyze.WhatIfRow{
			Policy:                r.policy.Name,
			Description:           r.policy.Description,
			Requests:              r.spread(func(m Metrics) float64 { return float64(m.Requests) }),
			PeakPerSecond:         r.spread(func(m Metrics) float64 { return float64(m.PeakPerSecond) }),
			BucketEmptyS:          r.spread(func(m Metrics) float64 { return m.BucketEmptyS }),
			InteractiveThrottled:  r.spread(func(m Metrics) float64 { return float64(m.InteractiveThrottled) }),
			InteractiveShare:      r.spread(func(m Metrics) float64 { return m.InteractiveShare() }),
			InteractiveP99S:       r.spread(func(m Metrics) float64 { return m.InteractiveP99S }),
			DrainS:                r.spread(func(m Metrics) float64 { return m.DrainS }),
			Billed:                r.spread(func(m Metrics) float64 { return float64(m.Billed) }),
			TasksDone:             r.spread(func(m Metrics) float64 { return float64(m.TasksDone) }),
			TasksGivenUp:          r.spread(func(m Metrics) float64 { return float64(m.TasksGivenUp) }),
			MaxAttemptsPerTask:    r.spread(func(m Metrics) float64 { return float64(m.MaxAttemptsPerTask) }),
			PeakBatchPerSecond:    r.spread(func(m Metrics) float64 { return float64(m.PeakBatchPerSec) }),
			RetryWindowS:          r.spread(func(m Metrics) float64 { return m.RetryWindowS }),
			RequestsInTraceWindow: r.spread(func(m Metrics) float64 { return float64(m.RequestsInWindow) }),
		})
	}
	c := CapacityOf(p.Scenario)
	wi.Capacity = analyze.WhatIfCapacity{
		TokensPerMinute: round(c.TokensPerMinute, 3), InteractiveTokensPerMinute: round(c.InteractiveTokensPerMinute, 3),
		TaskTokens: c.TaskTokens, TasksPerMinute: round(c.TasksPerMinute(), 3),
		Tasks: int64(p.Scenario.Batch.Tasks), DrainS: round(c.Drain(int64(p.Scenario.Batch.Tasks)), 3),
	}
	if p.TraceRequests > 0 {
		checks, waves, err := validate(p, &rows[0], horizon, opt.Tolerance)
		if err != nil {
			return nil, err
		}
		wi.Validation = checks
		othersOK := true
		for _, c := range checks {
			othersOK = othersOK && (c.OK || c.Name == "waves")
		}
		for _, c := range checks {
			if c.OK {
				continue
			}
			if c.Name == "waves" && othersOK && c.Trace >= slices.Min(waves) && c.Trace <= slices.Max(waves) {
				// The requests and the period agree: only the count of
				// the last, smallest waves differs, and the seeds make
				// the trace's count too.
				wi.Notes = append(wi.Notes, fmt.Sprintf("the replay's median of %g waves misses the trace's %g, which %d of its %d seeds make: the last waves are a few tasks, and whether one more comes is the job runner's draw of which to give up",
					c.Simulated, c.Trace, count(waves, c.Trace), len(waves)))
				break
			}
			wi.Notes = append(wi.Notes, fmt.Sprintf("the replay misses the trace's %s by %.0f%%: the simulator lacks something this incident had (a client-wide retry quota, a limiter that keeps a debt: see --reject-charge and --debt-tokens); read the comparison as direction, not figures", c.Name, 100*c.Error))
			break
		}
	}
	recs, notes, err := recommend(p, rows, c)
	if err != nil {
		return nil, err
	}
	wi.Recommendations = append(wi.Recommendations, recs...)
	for _, nr := range wi.NonRetryable {
		wi.Recommendations = append(wi.Recommendations, nr.Text)
	}
	wi.Notes = append(wi.Notes, notes...)
	wi.Notes = append(wi.Notes, fmt.Sprintf("every row simulates %s s with the same interactive traffic throughout, so billed inferences and interactive figures compare across rows; the spread is the median and range over %d seeds", thousands(horizon), opt.Seeds))
	tr, err := LoadTrackRecord()
	if err != nil {
		return nil, err
	}
	if tr.ReRuns > 0 {
		wi.Notes = append(wi.Notes, tr.String())
	}
	return wi, nil
}

// DefaultSeeds is how many seeds each row runs unless asked otherwise.
const DefaultSeeds = 5

// WaveSeeds is how many seeds the "as measured" row's wave count is the
// median of when the rows run DefaultSeeds or more; a user who asks for
// fewer seeds to save time gets the count over the rows' own. Whether a storm's last few tasks
// make one more wave is the job runner's give-up draw: over 40 seeds the
// recorded incidents' replays make their most frequent count in 48 to 95%
// of them, so the median of five seeds lands on a rarer count up to one
// time in four; over 21 that takes a count nearly as frequent.
const WaveSeeds = 21

// waveSeedCount is how many seeds the wave check counts over when the
// rows run rowSeeds.
func waveSeedCount(rowSeeds int) int {
	if rowSeeds < DefaultSeeds {
		return rowSeeds
	}
	return max(rowSeeds, WaveSeeds)
}

// validate compares the "as measured" replay with the trace: requests in
// the trace's window, and the waves and period the analysis finds in the
// replay's own logs. The waves are counted over WaveSeeds seeds: the
// row's, then as many more as that takes.
func validate(p Params, measured *row, horizon, tol float64) (checks []analyze.WhatIfCheck, waves []float64, err error) {
	var periods []float64
	n := waveSeedCount(len(measured.metrics))
	counted := make([]float64, n)
	period := make([]float64, n) // 0: not periodic
	err = onEveryCore(n, func(i int) error {
		var out *simulate.Output
		if i < len(measured.metrics) {
			out = measured.metrics[i].Output
		} else {
			o, err := simulate.Run(Prepare(measured.policy.Scenario, horizon, p.Scenario.Seed+uint64(i)))
			if err != nil {
				return err
			}
			out = o
		}
		res, err := AnalyzeReplay(out)
		if err != nil {
			return err
		}
		counted[i] = float64(len(res.Waves.Waves))
		if res.Waves.Periodic {
			period[i] = res.Waves.Period
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	waves = counted
	for i := range measured.metrics {
		if period[i] > 0 {
			periods = append(periods, period[i])
		}
	}
	check := func(name string, trace, sim float64) analyze.WhatIfCheck {
		c := analyze.WhatIfCheck{Name: name, Trace: round(trace, 3), Simulated: round(sim, 3), Tolerance: tol}
		if trace != 0 {
			c.Error = round(math.Abs(sim-trace)/math.Abs(trace), 4)
			c.OK = c.Error <= tol
		} else {
			c.OK = sim == 0
		}
		return c
	}
	out := []analyze.WhatIfCheck{
		check("HTTP requests in the trace's window", float64(p.TraceRequests), measured.spread(func(m Metrics) float64 { return float64(m.RequestsInWindow) }).Median),
		check("waves", float64(p.TraceWaves), quantile(waves, 0.5)),
	}
	if p.TracePeriodS > 0 {
		out = append(out, check("period (s)", p.TracePeriodS, quantile(periods, 0.5)))
	}
	return out, waves, nil
}

// onEveryCore runs f(0) to f(n-1) on every core: each replay and its
// analysis stand alone, and they are most of whatif's time. The errors
// come back together, in order.
func onEveryCore(n int, f func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				errs[i] = f(i)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// count is how many of v equal x.
func count(v []float64, x float64) int {
	n := 0
	for _, y := range v {
		if y == x {
			n++
		}
	}
	return n
}

// recommend derives the recommendations from the parameters and checks
// each number against the replays; a recommendation a replay contradicts is
// left out and the contradiction noted.
func recommend(p Params, rows []row, c Capacity) (recs, notes []string, err error) {
	byName := map[string]*row{}
	for i := range rows {
		byName[rows[i].policy.Name] = &rows[i]
	}
	sc := p.Scenario
	measured, jitter, capped, limited := byName[RowMeasured], byName[RowJitter], byName[RowCap], byName[RowLimit]
	med := func(r *row, f func(Metrics) float64) float64 { return r.spread(f).Median }

	// Concurrency first: it bounds the burst at its source.
	limit := ConcurrencyLimit(sc)
	peakNow := med(measured, func(m Metrics) float64 { return float64(m.PeakBatchPerSec) })
	peakLimited := limited.spread(func(m Metrics) float64 { return float64(m.PeakBatchPerSec) }).Max
	if peakLimited < peakNow {
		res, err := AnalyzeReplay(limited.metrics[0].Output)
		if err != nil {
			return nil, nil, err
		}
		periodic := "the analysis of its simulated logs finds no periodic waves"
		if res.Waves.Periodic {
			periodic = fmt.Sprintf("the analysis of its simulated logs still finds a %.1f s period", res.Waves.Period)
		}
		inFlight := limited.spread(func(m Metrics) float64 { return float64(m.MaxInFlight) }).Max
		recs = append(recs, fmt.Sprintf("bound batch concurrency at %d: a wave becomes %s requests in flight, not %s; the busiest second carries %s batch requests instead of %s, and %s",
			limit, thousands(inFlight), thousands(float64(sc.Batch.Tasks)), thousands(peakLimited), thousands(peakNow), periodic))
	} else {
		notes = append(notes, fmt.Sprintf("a concurrency limit of %d did not lower the peak batch rate (%s vs %s requests/s)", limit, thousands(peakLimited), thousands(peakNow)))
	}

	// Jitter: the width of the requeued wave against the bucket's refill.
	// The SDK's sleep is the SDK's code, so the job runner's delay is the
	// one to jitter.
	capTasks, spare := bucketTasks(sc)
	wNow := med(measured, func(m Metrics) float64 { return m.RequeueWindowS })
	wJit := med(jitter, func(m Metrics) float64 { return m.RequeueWindowS })
	if sc.Runner.RequeueJitter == simulate.JitterNone && sc.Runner.RequeueDelayS > 0 && wJit > wNow {
		refill := math.Inf(1)
		if spare > 0 {
			refill = capTasks / spare
		}
		versus := "past"
		if wJit < refill {
			versus = "still short of"
		}
		recs = append(recs, fmt.Sprintf("add full jitter to the requeue delay, U(0, %g s): the first requeued wave arrives over %.1f s instead of %.1f s, %s the %.1f s the bucket needs to refill from empty",
			sc.Runner.RequeueDelayS, wJit, wNow, versus, refill))
	}

	// Attempt cap: a finite integral for the retry traffic.
	capQ := queueCap(sc)
	bound := AttemptsPerTaskBound(sc, capQ)
	maxCapped := capped.spread(func(m Metrics) float64 { return float64(m.MaxAttemptsPerTask) }).Max
	now := "now unbounded"
	if sc.Runner.MaxQueueAttempts > 0 {
		now = fmt.Sprintf("now %d", AttemptsPerTaskBound(sc, sc.Runner.MaxQueueAttempts))
	}
	if p.MaxAttemptsPerTask > 0 {
		now += fmt.Sprintf(", up to %s in the trace", thousands(float64(p.MaxAttemptsPerTask)))
	}
	if maxCapped <= float64(bound) {
		givenUp := med(capped, func(m Metrics) float64 { return float64(m.TasksGivenUp) })
		givenUpLimited := med(limited, func(m Metrics) float64 { return float64(m.TasksGivenUp) })
		recs = append(recs, fmt.Sprintf("cap queue attempts at %d: bounds attempts per task at %d (%s); without a concurrency limit the cap gives up %s tasks, with one %s",
			capQ, bound, now, thousands(givenUp), thousands(givenUpLimited)))
	} else {
		notes = append(notes, fmt.Sprintf("the capped replay made %s attempts for one task, above the bound %d", thousands(maxCapped), bound))
	}

	// Drain: the capacity arithmetic no policy moves.
	drain := c.Drain(int64(sc.Batch.Tasks))
	if !math.IsInf(drain, 0) {
		fastest := math.Inf(1)
		for i := range rows {
			if d := rows[i].spread(func(m Metrics) float64 { return m.DrainS }).Median; !math.IsNaN(d) && d < fastest && med(&rows[i], func(m Metrics) float64 { return float64(m.TasksGivenUp) }) == 0 {
				fastest = d
			}
		}
		text := fmt.Sprintf("drain time is %.1f min at %.1f tasks/min whatever the retry policy: %s",
			drain/60, c.TasksPerMinute(), c.String())
		if !math.IsInf(fastest, 0) {
			text += fmt.Sprintf("; the fastest replay that finished every task took %.1f min", fastest/60)
		}
		recs = append(recs, text)
	}

	doneNow := med(measured, func(m Metrics) float64 { return float64(m.TasksDone) })
	doneLimited := med(limited, func(m Metrics) float64 { return float64(m.TasksDone) })
	if sc.Runner.Survival < 1 && doneLimited > doneNow {
		notes = append(notes, fmt.Sprintf("the job runner brings back only %.0f%% of failed tasks, so a policy that fails fewer tasks finishes more of them: %s tasks done as measured, %s with a concurrency limit; billed inferences differ between rows by that work, not by retries (a throttled attempt is not billed)",
			100*sc.Runner.Survival, thousands(doneNow), thousands(doneLimited)))
	}
	return recs, notes, nil
}

// FromAnalysis measures the parameters from an analysed trace and runs the
// comparison.
func FromAnalysis(tl *timeline.Timeline, res *analyze.Result, given Given, opt Options) (*analyze.WhatIf, error) {
	p, err := Measure(tl, res, given)
	if err != nil {
		return nil, err
	}
	return Run(p, opt)
}
