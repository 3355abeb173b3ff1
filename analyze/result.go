// Package analyze turns a Timeline into the one Result that every report
// format renders. Every analysis is a pure function of the timeline and its
// Options: no I/O, no clocks, seeded randomness only.
package analyze

import "time"

// SchemaVersion is the version of the JSON result schema (docs/result-schema.md).
// Bump the minor for additions, the major for renames or removals.
const SchemaVersion = "1.22"

// Result is everything stampede concludes about one incident.
type Result struct {
	SchemaVersion string `json:"schema_version"`
	// Window spans the first to the last event of the timeline.
	Window Window `json:"window"`
	// Inputs accounts for every line of every file read: past
	// InputsBound.Rows files, the last row, "other inputs", adds up the
	// rest.
	Inputs      []Input    `json:"inputs"`
	InputsBound TableBound `json:"inputs_bound"`
	// Findings are plain sentences with numbers, most important first.
	Findings      []string       `json:"findings"`
	Reconcile     Reconciliation `json:"reconcile"`
	Amplification Amplification  `json:"amplification"`
	Waves         Waves          `json:"waves"`
	// Clocks compares each log's clock with the access log's; past
	// ClocksBound.Rows logs, the last row, "other logs", stands for the
	// rest.
	Clocks      []ClockOffset `json:"clocks"`
	ClocksBound TableBound    `json:"clocks_bound"`
	// Clients are the SDKs seen in User-Agents, with their known retry
	// policies.
	Clients []Client `json:"clients"`
	// ClientsBound says how Clients was cut; its Uncounted are distinct
	// User-Agents.
	ClientsBound TableBound `json:"clients_bound"`
	// Warnings are caveats on the numbers above; every format shows them.
	Warnings []string `json:"warnings"`
	// Series is what the charts draw: attempts per second, and the
	// interactive class by window.
	Series Series `json:"-"`
	// WhatIf is the replay of the incident under other retry policies;
	// present only when asked for (analyze --whatif).
	WhatIf *WhatIf `json:"what_if,omitempty"`
}

// TableBound says how a table with a row per distinct value (client,
// error code, skip reason) was cut: a log can hold millions of distinct
// values, and neither the memory nor the report may grow with them. The
// busiest rows are kept and the rest added up in the table's last row,
// named "other …"; nothing is left out of the counts.
type TableBound struct {
	// Rows is the most rows the table holds, its "other" row included.
	Rows int `json:"rows"`
	// Counted is the most distinct values counted apart; values first
	// seen after them are counted in the "other" row from the start. 0
	// when every value was counted apart.
	Counted int `json:"counted"`
	// Folded is how many of the values counted apart the "other" row
	// holds.
	Folded int64 `json:"folded"`
	// Uncounted is how many distinct values the "other" row holds that
	// were first seen after the Counted ones.
	Uncounted int64 `json:"uncounted"`
	// UncountedAtLeast says Uncounted is a floor: past a bound, distinct
	// values are no longer told apart.
	UncountedAtLeast bool `json:"uncounted_at_least,omitempty"`
}

// Cut reports whether the table has an "other" row.
func (b TableBound) Cut() bool { return b.Folded > 0 || b.Uncounted > 0 }

// Window is the time span of the timeline.
type Window struct {
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Duration float64   `json:"duration_s"`
}

// Input is one file's line accounting: Parsed + Skipped == Lines.
type Input struct {
	Path    string       `json:"path"`
	Format  string       `json:"format"`
	Lines   int64        `json:"lines"`
	Parsed  int64        `json:"parsed"`
	Skipped int64        `json:"skipped"`
	Events  int64        `json:"events"`
	Samples []SkipSample `json:"skip_samples,omitempty"`
	// SkippedBy counts the skipped lines by reason, most frequent first;
	// the counts add up to Skipped. Past SkippedByBound.Counted reasons,
	// the rest count under "other reasons", last; its Uncounted is how
	// many distinct reasons that row holds.
	SkippedBy      []SkipReason `json:"skipped_by_reason"`
	SkippedByBound TableBound   `json:"skipped_by_reason_bound"`
	// Duplicates are events of this file dropped because an earlier input
	// held them too (a file given twice, rotated files that overlap);
	// Events counts only the events kept.
	Duplicates int64 `json:"duplicates"`
	// Shortened counts the events whose labels were shortened: past
	// 65,536 distinct routes, User-Agents or error codes in one run, the
	// rest are kept with each word that holds a digit written as "…", so
	// that memory does not grow with them (see the warnings).
	Shortened ShortenedLabels `json:"shortened_labels"`
}

// ShortenedLabels counts events by the label that was shortened.
type ShortenedLabels struct {
	Routes     int64 `json:"routes"`
	UserAgents int64 `json:"user_agents"`
	ErrorCodes int64 `json:"error_codes"`
}

// SkipReason is how many lines of a file were skipped for one reason, with
// the values the reason quotes left out.
type SkipReason struct {
	Reason string `json:"reason"`
	Lines  int64  `json:"lines"`
}

// SkipSample is one skipped line, as file:line and why.
type SkipSample struct {
	Position string `json:"position"`
	Reason   string `json:"reason"`
}

// Reconciliation explains why the HTTP throttle rate and the
// application-visible error rate differ: different numerators, different
// denominators.
type Reconciliation struct {
	HTTP HTTPSide `json:"http"`
	App  AppSide  `json:"app"`
	// AttemptsPerCall is HTTP attempts divided by calls, over the calls whose
	// attempts could be counted.
	AttemptsPerCall float64 `json:"attempts_per_call"`
	// The throttled attempts split three ways, or four when some calls'
	// outcome is unknown; the parts sum to HTTP.Throttled.
	ThrottledRecovered     int64 `json:"throttled_recovered"`
	ThrottledInFailedCalls int64 `json:"throttled_in_failed_calls"`
	ThrottledUnjoined      int64 `json:"throttled_unjoined"`
	// ThrottledInUnknownCalls are throttled attempts of calls whose last
	// attempt's outcome the log does not show: recovered if it succeeded,
	// in a failed call if not.
	ThrottledInUnknownCalls int64                 `json:"throttled_in_unknown_calls,omitempty"`
	CallsRecoveredByRetry   int64                 `json:"calls_recovered_by_retry"`
	ByClass                 []ClassReconciliation `json:"by_class"`
	// Method says how attempts were joined to calls ("exact: amz-sdk-invocation-id",
	// "estimated from counts", ...).
	Method string `json:"method"`
	// AttemptsJoined is how many of HTTP.Attempts were tied to a call.
	AttemptsJoined int64 `json:"attempts_joined"`
	// Explanation is the reconciliation in sentences with numbers.
	Explanation []string `json:"explanation"`

	// ThrottledByProxy are the throttled attempts the proxy in front of
	// the endpoint refused itself (timeline.IsProxyCode): its own limit,
	// not the endpoint's. ProxyCodes are their error codes, most first.
	ThrottledByProxy int64    `json:"throttled_by_proxy,omitempty"`
	ProxyCodes       []string `json:"proxy_codes,omitempty"`
}

// HTTPSide counts attempts on the wire.
type HTTPSide struct {
	Attempts     int64 `json:"attempts"`
	OK           int64 `json:"ok"`
	Throttled    int64 `json:"throttled"`
	Retryable    int64 `json:"retryable_errors"`
	NonRetryable int64 `json:"non_retryable_errors"`
	// Unknown are attempts whose outcome the log does not show (botocore's
	// standard mode at its attempt limit); they count in Attempts, so
	// ThrottleRate is a lower bound and ThrottleRateMax the upper one.
	Unknown         int64   `json:"unknown_outcome,omitempty"`
	ThrottleRate    float64 `json:"throttle_rate"`
	ThrottleRateMax float64 `json:"throttle_rate_max,omitempty"`
	// Inferred says how the counts were inferred where no attempt was
	// logged; absent when they were counted on the wire.
	Inferred string `json:"inferred,omitempty"`
}

// AppSide counts what the application saw: one outcome per call.
type AppSide struct {
	Calls          int64 `json:"calls"`
	Failed         int64 `json:"failed"`
	FailedThrottle int64 `json:"failed_throttled"`
	// Unknown are calls whose outcome the log does not show: ErrorRate is
	// then a lower bound and ErrorRateMax the upper one.
	Unknown      int64   `json:"unknown_outcome,omitempty"`
	ErrorRate    float64 `json:"error_rate"`
	ErrorRateMax float64 `json:"error_rate_max,omitempty"`
	// Source is "sdk log" when calls were logged, or how they were inferred.
	Source string `json:"source"`
}

// ClassReconciliation is the reconciliation for one traffic class.
type ClassReconciliation struct {
	Class           string   `json:"class"`
	HTTP            HTTPSide `json:"http"`
	App             AppSide  `json:"app"`
	AttemptsPerCall float64  `json:"attempts_per_call"`
}

// Amplification is how many requests the retry layers multiplied out of the
// real work. Layers multiply.
type Amplification struct {
	Layers []LayerStats `json:"layers"`
	// Product is the product of the layers' means: attempts sent per task.
	Product float64 `json:"product"`
	// Tasks is the number of distinct units of work.
	Tasks int64 `json:"tasks"`
	// Requests is the HTTP attempts sent for those tasks.
	Requests int64 `json:"requests"`
	// Billed is the number of successful inferences (ok attempts).
	Billed int64 `json:"billed"`
	// Exact is true when every layer was measured through join keys.
	Exact bool `json:"exact"`
	// UnsplitTaskAttempts is, when no call could be identified, how many
	// attempts carry a task id all the same: with no call id or attempt
	// number beside it, a task's attempts cannot be split into calls.
	UnsplitTaskAttempts int64 `json:"unsplit_task_attempts,omitempty"`
}

// LayerStats describes one retry layer's multiplication.
type LayerStats struct {
	// Name is "attempts per call", "calls per queue attempt" or
	// "queue attempts per task".
	Name  string  `json:"name"`
	Units int64   `json:"units"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	// Capped is true when the maximum looks like a configured bound; Cap is
	// that bound.
	Capped bool  `json:"capped"`
	Cap    int64 `json:"cap,omitempty"`
	// CapEvidence explains the capped/uncapped verdict in numbers.
	CapEvidence string `json:"cap_evidence"`
	// GiveUpRate is the share of failed tries, before the largest count
	// seen, after which a unit stopped: near 0 under a cap, roughly
	// constant and below 0.5 when tries grow unchecked. In a layer where
	// no unit made a second try it is g1, the share of failed first tries
	// (all of them, when any failed).
	GiveUpRate float64 `json:"give_up_rate"`
	Exact      bool    `json:"exact"`
	// Method says where the numbers came from.
	Method string `json:"method"`
	// Histogram maps count per unit to number of units, ascending.
	Histogram []Bucket `json:"histogram"`
}

// Bucket is one histogram bar.
type Bucket struct {
	Value int64 `json:"value"`
	Units int64 `json:"units"`
}

// Waves describes periodic retry waves and the fixed delays behind them.
type Waves struct {
	// Series names what was binned, e.g. "batch call starts".
	Series   string  `json:"series"`
	BinWidth float64 `json:"bin_width_s"`
	Bins     int     `json:"bins"`
	// MinLag is the shortest period that was considered.
	MinLag float64 `json:"min_lag_s"`
	// MinRepeats is the fewest waves that must sit on the period's grid
	// (and at least half of all bursts) for the period to be reported.
	MinRepeats int `json:"min_repeats,omitempty"`
	// OnGrid is how many waves sit on the best repeat's grid.
	OnGrid   int  `json:"on_grid,omitempty"`
	Periodic bool `json:"periodic"`
	// Period is set only when Periodic.
	Period float64 `json:"period_s,omitempty"`
	// BestLag is the strongest candidate repeat, reported even when it is
	// not significant, so a reader can see what was rejected.
	BestLag float64 `json:"best_lag_s,omitempty"`
	// ACF is the normalised autocorrelation at the period (at BestLag when
	// not periodic).
	ACF float64 `json:"acf,omitempty"`
	// Threshold is the surrogate (shuffled-bin) 99th percentile of the best
	// ACF peak; Significance is ACF/Threshold.
	Threshold    float64 `json:"threshold,omitempty"`
	Significance float64 `json:"significance,omitempty"`
	// CandidateSource says where the period's candidate came from:
	// "periodogram" (a periodogram peak above its surrogate threshold that
	// sits on a hill of the ACF, refined to the hill's top) or
	// "autocorrelation" (an ACF hill, used when no periodogram peak
	// survives, and for a period found around a retry comb).
	CandidateSource string `json:"candidate_source,omitempty"`
	// PeriodEvidence says what made the period: "autocorrelation" (the
	// ACF above its threshold, with the waves on its grid) or "burst
	// grid" (at least four bursts, every one on the grid, while the ACF
	// of so short a series stays a little under its threshold).
	PeriodEvidence string `json:"period_evidence,omitempty"`
	// Rejected says why a best repeat whose ACF is above its threshold is
	// no period: "grid" (too few waves on its grid, or too many bursts
	// off it), "wide" (three wide bursts of unlike widths, as bursts run
	// together are, or a burst filling most of the period), "overlap" (a
	// burst on the grid lasting longer than the period), "scattered"
	// (fewer than MinRepeats periods in a row hold a wave: see GridRun),
	// "growth" (a burst on the grid many times a smaller one before it:
	// see Outgrown), "retry growth" (a burst the retry comb puts after a
	// wave larger than that wave: see Outgrown), "chance" (bursts at
	// random times line up as well too often: see GridChance) or
	// "outlasted" (the throttling went on at a quarter of its pace or more
	// after the bursts stopped: see ThrottledAfterBursts) or "more than
	// failed" (a burst on the grid larger than the failures since the one
	// before it, which is all a fixed delay sends again: see Outgrown) or
	// "uneven" (the middle of the only three bursts on the grid sits
	// further from halfway between the others than their spread
	// explains: see MidwayOffset).
	Rejected string `json:"rejected,omitempty"`
	// Skipped is, when Rejected is "skipped", the wave on the grid whose
	// throttled attempts did not come back a period later while the storm
	// went on.
	Skipped *SkippedSlot `json:"skipped,omitempty"`
	// ThrottledDuringBursts is, when Rejected is "outlasted", how many
	// attempts of the series' class were throttled from the first wave's
	// start to BurstsStopped; ThrottledAfterBursts, how many in as long a
	// stretch beginning the best lag after BurstsStopped.
	ThrottledDuringBursts int64 `json:"throttled_during_bursts,omitempty"`
	ThrottledAfterBursts  int64 `json:"throttled_after_bursts,omitempty"`
	// GridRun is, when Rejected is "scattered", the most periods in a row
	// that held a wave on the grid or a burst of its comb.
	GridRun int `json:"grid_run,omitempty"`
	// Outgrown is, when Rejected is "growth" or "retry growth", the sizes
	// of the smaller wave on the grid and of the later burst that outgrew
	// it; when "more than failed", the failed attempts in the burst on the
	// grid before the burst and the lulls either side, and the burst's
	// size.
	Outgrown []int64 `json:"outgrown,omitempty"`
	// MidwayOffset is, when Rejected is "uneven" or three bursts alone
	// made a burst grid's period, how far in seconds the middle one sits
	// from where the period puts it between the other two (halfway, for
	// three in consecutive periods), and MidwayError that offset's
	// standard error: the spread of each burst's arrivals over the root
	// of their number, and the stamps' resolution.
	MidwayOffset float64 `json:"midway_offset_s,omitempty"`
	MidwayError  float64 `json:"midway_error_s,omitempty"`
	// MidwayChance is, where three bursts alone made a burst grid's
	// period, the share of places between the outer two that put the
	// middle one as close to halfway.
	MidwayChance float64 `json:"midway_chance,omitempty"`
	// NextWaveArrivals is, where MidwayChance alone was over 1%, the
	// arrivals within a bin (or twice the last wave's width, or a 40th of
	// the period) either side of where the grid puts the wave after the
	// last; NextWaveExpected, the background's share of them;
	// NextWaveChance, how often background alone brings as many, at most
	// 5% for them to count as that wave. GridChance is then how often
	// both come about by chance, c(1 − ln c) for their product c, held to
	// the burst grid's MaxGridChance.
	NextWaveArrivals int      `json:"next_wave_arrivals,omitempty"`
	NextWaveExpected float64  `json:"next_wave_expected,omitempty"`
	NextWaveChance   *float64 `json:"next_wave_chance,omitempty"`
	// FirstWaveGap is, where the first wave sits off the grid because its
	// failed calls took longer or shorter than the later waves' (a
	// client-wide retry quota running out during it, slower answers to
	// its load, waits to a clock time it began further into), how far in
	// seconds it came before the first wave on the grid;
	// FirstWaveCallDifference is how much longer, on average, its failed
	// calls took (negative: shorter). It then counts as no stray.
	FirstWaveGap            float64 `json:"first_wave_gap_s,omitempty"`
	FirstWaveCallDifference float64 `json:"first_wave_call_difference_s,omitempty"`
	// TaskRhythm is, where MidwayChance alone was over 1% and the tasks'
	// queue attempts came back at one spacing that the period matches, that
	// spacing. GridChance is then how often the middle's place and a
	// spacing as close come about together by chance, held to the burst
	// grid's MaxGridChance.
	TaskRhythm *TaskRhythm `json:"task_rhythm,omitempty"`
	// GridChance is the share of random placements of the bursts on the
	// grid and off it that line up as well; set when bursts off the grid
	// made it worth asking, or, for a period of three bursts and no more,
	// the share of places between the outer two that put the middle one
	// as close to halfway. A period needs at most MaxGridChance: 0.15
	// where the ACF carries it, 0.05 where the bursts' grid is all there
	// is, 0.01 where that grid is three bursts.
	GridChance    *float64 `json:"grid_chance,omitempty"`
	MaxGridChance float64  `json:"max_grid_chance,omitempty"`
	// PeriodogramPower is the periodogram's share of the series' power at
	// the period's frequency and its first harmonics (summed);
	// PeriodogramThreshold is the surrogate 99th percentile of its largest
	// value over the periods searched.
	PeriodogramPower     float64 `json:"periodogram_power,omitempty"`
	PeriodogramThreshold float64 `json:"periodogram_threshold,omitempty"`
	// IntraWaveSpacing is a shorter repeat inside each wave (a retry-after
	// comb), 0 when none.
	IntraWaveSpacing float64 `json:"intra_wave_spacing_s,omitempty"`
	// CombBursts is how many bursts off the grid the comb explains as
	// retries of a wave on it, each folded into its wave in Waves.
	CombBursts int `json:"comb_bursts,omitempty"`
	// IntraWaveSeries names the series the spacing was found on when it is
	// not Series: the period is judged on call starts, which hold one
	// arrival per call, and the comb shows only in the attempts.
	IntraWaveSeries string `json:"intra_wave_series,omitempty"`
	// IntraWaveACF is the ACF at the spacing and IntraWaveThreshold its
	// surrogate threshold.
	IntraWaveACF       float64 `json:"intra_wave_acf,omitempty"`
	IntraWaveThreshold float64 `json:"intra_wave_threshold,omitempty"`
	// ACFCurve is the autocorrelation the period was judged on, at lags 0,
	// ACFLagStep, 2*ACFLagStep, ... seconds: to a little over four periods
	// when periodic, else to half the series, and at most maxACFPoints
	// points. Each point is the largest value over its step of lags, so
	// peaks survive the downsampling. Empty when the series is too short.
	ACFCurve   []float64 `json:"acf_curve,omitempty"`
	ACFLagStep float64   `json:"acf_lag_step_s,omitempty"`
	Waves      []Wave    `json:"waves"`
	// DecayRatio is the fitted geometric ratio of successive wave sizes: a
	// Poisson fit (log link), which weighs each wave by its size; DecayR2 is
	// its deviance R².
	DecayRatio float64 `json:"decay_ratio,omitempty"`
	DecayR2    float64 `json:"decay_r2,omitempty"`
	// DecayLow and DecayHigh bound DecayRatio with 95% confidence
	// (quasi-Poisson: widened when the sizes scatter more than Poisson).
	DecayLow  float64 `json:"decay_ratio_low,omitempty"`
	DecayHigh float64 `json:"decay_ratio_high,omitempty"`
	// DecayFirst is the fitted size of wave 1; the fitted size of wave k
	// is DecayFirst × DecayRatio^(k-1).
	DecayFirst float64 `json:"decay_first,omitempty"`
	// ProjectedWaves is how many waves in all the decay fit predicts before
	// a wave holds less than one call; 0 when even the upper bound of the
	// ratio does not decay. ProjectedWavesHigh is the same count at
	// DecayHigh.
	ProjectedWaves     int `json:"projected_waves,omitempty"`
	ProjectedWavesHigh int `json:"projected_waves_high,omitempty"`
	// ProjectedEnd is when the last projected wave is due (periodic only).
	ProjectedEnd *time.Time `json:"projected_end,omitempty"`
	// Groups are the waves of each job runner, where the tasks' requeue
	// delays fall into separate groups (absent otherwise).
	Groups []WaveGroup `json:"groups,omitempty"`
	// Ended is true when no call of the last wave failed: nothing was left
	// to retry, so no wave is projected past it.
	Ended bool `json:"ended,omitempty"`
	// BurstsStopped is when the last wave ended.
	BurstsStopped *time.Time `json:"bursts_stopped,omitempty"`
	// Delays are the measured gaps per retry layer.
	Delays []DelayStats `json:"delays"`
	// Suspects are fixed delays that explain the period.
	Suspects []FixedDelay `json:"suspects"`
	// UnseenDelay is the part of the period that no log given shows, where
	// no requeue delay is measured (the SDK log alone): the period less the
	// SDK's waits and attempts in a failed call of the median attempts,
	// which lies between a failed call's end and its task's next call.
	UnseenDelay float64 `json:"unseen_delay_s,omitempty"`
	// BucketEmptyAfter is the median over waves of the time from a wave's
	// first batch attempt to its first throttle: how fast the burst drained
	// the rate limit (an upper bound: the log shows no token counts).
	BucketEmptyAfter *float64 `json:"bucket_empty_after_s,omitempty"`
	// BucketEmptyFor is the median over waves of the time from a wave's
	// last throttle to the next successful batch or interactive attempt:
	// how long the limit stayed too empty for one request (an upper bound
	// when no request arrived sooner).
	BucketEmptyFor *float64 `json:"bucket_empty_for_s,omitempty"`
	// BucketRefill is the median over waves of the time the limit takes to
	// refill what the wave found in it: the wave's ok attempts before its
	// first throttle, divided by its ok attempts per second from the first
	// throttle to the last (a limit kept empty admits what refills), less
	// the time to the first throttle (what refilled meanwhile). It is
	// measured on the same attempts as BucketEmptyAfter, so the two compare:
	// emptying versus refilling. A wave after whose last throttle the limit
	// went on refusing callers for longer than that interval (a limiter that
	// keeps a debt, or a window the wave emptied) gives none: its
	// admissions were no refill rate.
	BucketRefill *float64 `json:"bucket_refill_s,omitempty"`
	// BucketResolution is the timestamp resolution the bucket times are
	// known to: 1 when the attempts carry whole seconds only.
	BucketResolution float64 `json:"bucket_resolution_s,omitempty"`
	// BelowInteractiveWave is the first wave, counted from 1, whose arrival
	// rate (size / width, decaying by DecayRatio) the fit puts below the
	// interactive attempt rate; 0 when unknown or never. BelowInteractiveAt
	// is when that wave is due (periodic only).
	BelowInteractiveWave int        `json:"below_interactive_wave,omitempty"`
	BelowInteractiveAt   *time.Time `json:"below_interactive_at,omitempty"`
	// Interactive is the impact on interactive traffic; absent when the
	// log has no interactive attempts or no waves.
	Interactive *InteractiveImpact `json:"interactive,omitempty"`
}

// TaskRhythm is how far apart the tasks' queue attempts began: from each
// failed queue attempt's start to the start of the task's next one.
type TaskRhythm struct {
	// Spacing is the mean of the gaps between Low and High, their 10th
	// and 90th percentiles.
	Spacing float64 `json:"spacing_s"`
	Low     float64 `json:"p10_s"`
	High    float64 `json:"p90_s"`
	Gaps    int     `json:"gaps"`
	// Chance is the share of the spacings bursts at random times could
	// have (from the minimum lag to half the series) that land as close
	// to Spacing: within 3% of the period, or a bin.
	Chance float64 `json:"chance"`
}

// Wave is one burst of retries that arrived together.
type Wave struct {
	Start time.Time `json:"start"`
	// Width is the arrival window holding the central 90% of the wave's
	// arrivals.
	Width float64 `json:"width_s"`
	// Size is the number of calls (first attempts) in the wave, net of the
	// background rate measured between waves.
	Size      int64 `json:"size"`
	Attempts  int64 `json:"attempts"`
	Throttled int64 `json:"throttled"`
	// ThrottledShare is Throttled / Attempts.
	ThrottledShare float64 `json:"throttled_share"`
}

// WaveGroup is the wave analysis of one group of tasks that share a
// requeue delay, as one job runner's do.
type WaveGroup struct {
	RequeueDelay float64 `json:"requeue_delay_s"`
	Tasks        int     `json:"tasks"`
	Periodic     bool    `json:"periodic"`
	Period       float64 `json:"period_s,omitempty"`
	BestLag      float64 `json:"best_lag_s,omitempty"`
	Waves        int     `json:"waves"`
	// Explanation is the period split into delays, when one adds up.
	Explanation string `json:"explanation,omitempty"`
}

// DelayStats summarises one kind of measured gap.
type DelayStats struct {
	// Kind is "retry-after", "sdk retry delay" or "requeue delay".
	Kind  string  `json:"kind"`
	N     int64   `json:"n"`
	Mean  float64 `json:"mean_s"`
	Sigma float64 `json:"sigma_s"`
	P50   float64 `json:"p50_s"`
	// P10 is the lower tenth: a fixed delay that a client runs late keeps
	// it close to P50.
	P10 float64 `json:"p10_s"`
	// P90 is the upper tenth.
	P90 float64 `json:"p90_s"`
	Min float64 `json:"min_s"`
	Max float64 `json:"max_s"`
	// Fixed is true when the spread is too small to be jitter.
	Fixed bool `json:"fixed"`
	// WholeSeconds is true when the gaps were measured between whole-second
	// stamps, which hide jitter under a second.
	WholeSeconds bool `json:"whole_seconds,omitempty"`
	// TooCoarse is true when whole-second stamps spread even an exact
	// delay this short as widely as these gaps spread: neither fixed nor
	// jittered can be told, and Fixed is false.
	TooCoarse bool `json:"too_coarse,omitempty"`
	// ClockTimed is true when the waits ended on one point of the
	// wall-clock second while their lengths varied: each waited until a
	// clock time (a retry-after sent as an HTTP date), so Fixed is too.
	ClockTimed bool `json:"clock_timed,omitempty"`
	// Landing is, with ClockTimed, the stretch of the second that held 80%
	// of the waits' ends.
	Landing float64 `json:"landing_s,omitempty"`
}

// FixedDelay is a suspected constant behind the period.
type FixedDelay struct {
	// Layer is where the constant lives: "job runner", "sdk", "server".
	Layer string  `json:"layer"`
	Kind  string  `json:"kind"`
	Delay float64 `json:"delay_s"`
	Sigma float64 `json:"sigma_s"`
	// Times is how often it occurs within one period.
	Times int `json:"times"`
	// Text is the finding as a sentence.
	Text string `json:"text"`
}

// ClockOffset is how far one log's clock reads from the reference log's,
// estimated by lining up the starts both logs record.
type ClockOffset struct {
	Source    string `json:"source"`
	Reference string `json:"reference"`
	// Offset is the source's clock minus the reference's: +2.5 means the
	// source stamps events 2.5 s later than the reference does.
	Offset      float64 `json:"offset_s"`
	Uncertainty float64 `json:"uncertainty_s"`
	// Method is how the offset was measured: "call ids" (each call against
	// its first attempt, joined by call id) or "bursts" (the two logs'
	// series of starts lined up).
	Method string `json:"method,omitempty"`
	// Correlation is the normalised cross-correlation of the two series of
	// starts at the lag that lines them up best; Margin is how far it beats
	// the best alignment more than a second away. With Method "call ids"
	// they describe that alignment, which the offset does not come from.
	Correlation     float64 `json:"correlation"`
	Margin          float64 `json:"margin"`
	Events          int64   `json:"events"`
	ReferenceEvents int64   `json:"reference_events"`
	// Reliable is true when the alignment is clear enough to act on.
	Reliable bool `json:"reliable"`
	// Applied is true when the source's events were shifted by -Offset
	// before the other analyses (--align).
	Applied bool   `json:"applied"`
	Note    string `json:"note,omitempty"`
}

// Client is one SDK (name and version) seen in the access log's
// User-Agents, and the retry policy that version is known to follow.
type Client struct {
	// UserAgent is the first User-Agent seen for this SDK and version.
	UserAgent string `json:"user_agent"`
	// SDK is e.g. "openai-python", "botocore standard", or "unknown".
	SDK       string `json:"sdk"`
	Version   string `json:"version,omitempty"`
	Attempts  int64  `json:"attempts"`
	Throttled int64  `json:"throttled"`
	// Known is true when the version's policy is on record.
	Known       bool   `json:"known"`
	MaxAttempts int    `json:"max_attempts,omitempty"`
	RetryAfter  string `json:"retry_after,omitempty"`
	// Synchronising is true for policies that sleep a server's retry-after
	// exactly, so every client given the same value returns together.
	Synchronising bool `json:"synchronising"`
	// Policy is the whole policy as a sentence.
	Policy string `json:"policy"`
}

// InteractiveImpact is what the batch waves did to the interactive traffic
// class sharing the same rate limit. Rates are throttled attempts over
// attempts in each span; a span with no interactive attempt has rate 0 and
// Attempts 0.
type InteractiveImpact struct {
	// Margin extends each wave's window (first attempt to last attempt of
	// the wave) to cover responses still in flight.
	Margin  float64    `json:"margin_s"`
	InWaves ImpactSpan `json:"in_waves"`
	Between ImpactSpan `json:"between_waves"`
	Before  ImpactSpan `json:"before_waves"`
	After   ImpactSpan `json:"after_waves"`
	// EmptySeconds counts the 1 s bins with at least one interactive
	// attempt in which every interactive attempt was throttled: seconds
	// when interactive requests found the bucket empty.
	EmptySeconds int64 `json:"empty_seconds"`
	// EmptyAfterLoad counts those of the EmptySeconds that began after the
	// first wave and outside every wave's window: seconds the limit stayed empty after the wave's
	// batch load had fallen back, which is the starvation a limiter that
	// keeps a debt, or a window a wave emptied, leaves behind.
	EmptyAfterLoad int64 `json:"empty_seconds_after_load"`
	// ThrottledFor runs from the first wave's first attempt to the last
	// throttled interactive attempt: how long interactive requests were
	// being refused once the waves began (0 when none was).
	ThrottledFor float64 `json:"throttled_for_s"`
	// Degraded is true when the interactive throttle rate inside waves,
	// between them or after the last one rose above the rate before them
	// by more than the tolerance: a limiter that keeps a debt starves
	// interactive requests after a wave's batch load has fallen back.
	Degraded bool `json:"degraded"`
	// RecoveredAfter is the time from the end of the last wave, when the
	// batch load fell back, until the interactive throttle rate over a
	// sliding 10 s window fell back to the pre-wave rate + 5 points for
	// good (a clean window followed by more throttling is a lull); 0 when
	// it already had. Recovered is false when it was still above at the end
	// of the log (RecoveredAfter then runs to the end of the log).
	RecoveredAfter float64 `json:"recovered_after_s"`
	Recovered      bool    `json:"recovered"`
	// Correlation is Pearson's r between batch attempts per second and
	// interactive throttles per second.
	Correlation float64 `json:"correlation"`
	// Rate is interactive attempts per second over the whole window.
	Rate float64 `json:"rate_per_s"`
}

// ImpactSpan counts interactive attempts in one kind of span.
type ImpactSpan struct {
	Attempts     int64   `json:"attempts"`
	Throttled    int64   `json:"throttled"`
	ThrottleRate float64 `json:"throttle_rate"`
}

// SkippedSlot is a wave on a grid whose throttled attempts did not come
// back a period later: its next grid point held no burst, and the next
// wave on the grid came over half a period past it.
type SkippedSlot struct {
	// Wave is the wave's start.
	Wave time.Time `json:"wave"`
	// Throttled counts the wave's throttled attempts.
	Throttled int64 `json:"throttled"`
	// NextAfter is the seconds from the wave's centre to the next wave on
	// the grid.
	NextAfter float64 `json:"next_after_s"`
}
