package analyze

// WhatIf is the counterfactual comparison: the incident replayed by the
// simulator under the retry policy measured in the trace and under
// alternatives, each over several seeds. Package whatif fills it in; it is
// part of the Result so that every report format renders it.
type WhatIf struct {
	// Source says where the parameters came from: "trace" or a scenario file.
	Source string `json:"source"`
	// Parameters are the simulator's inputs, each with where it came from.
	Parameters []WhatIfParameter `json:"parameters"`
	Seeds      []uint64          `json:"seeds"`
	// Capacity is the drain arithmetic that no retry policy changes.
	Capacity WhatIfCapacity `json:"capacity"`
	Rows     []WhatIfRow    `json:"rows"`
	// Validation compares the "as measured" row with the trace itself;
	// absent when the parameters came from a scenario file.
	Validation []WhatIfCheck `json:"validation,omitempty"`
	// Recommendations are changes with numbers, each checked by the rows.
	Recommendations []string `json:"recommendations"`
	// NonRetryable lists error codes that cannot succeed on a retry but
	// were retried in the trace.
	NonRetryable []RetriedError `json:"non_retryable"`
	// NonRetryableBound says how NonRetryable was cut: its last row,
	// "other error codes", adds up the codes past the busiest.
	NonRetryableBound TableBound `json:"non_retryable_bound"`
	// Notes are caveats: assumed parameters, the model's simplifications.
	Notes []string `json:"notes"`
}

// WhatIfParameter is one simulator input.
type WhatIfParameter struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Text is the value as a person would write it ("exact", "60 s fixed").
	Text string `json:"text"`
	// Source is "measured", "given" or "assumed".
	Source string `json:"source"`
}

// WhatIfCapacity is the bucket's arithmetic: tokens per minute left after
// interactive traffic, divided by a task's tokens.
type WhatIfCapacity struct {
	TokensPerMinute            float64 `json:"tokens_per_minute"`
	InteractiveTokensPerMinute float64 `json:"interactive_tokens_per_minute"`
	TaskTokens                 float64 `json:"task_tokens"`
	TasksPerMinute             float64 `json:"tasks_per_minute"`
	Tasks                      int64   `json:"tasks"`
	// DrainS is Tasks / TasksPerMinute: the shortest drain any policy gets.
	DrainS float64 `json:"drain_s"`
}

// WhatIfRow is one policy, summarised over the seeds.
type WhatIfRow struct {
	Policy      string `json:"policy"`
	Description string `json:"description"`
	// Requests is every HTTP attempt, both classes.
	Requests Spread `json:"requests"`
	// PeakPerSecond is the most attempts arriving in one second.
	PeakPerSecond Spread `json:"peak_requests_per_s"`
	// BucketEmptyS is the time the bucket could not serve one interactive
	// request.
	BucketEmptyS         Spread `json:"bucket_empty_s"`
	InteractiveThrottled Spread `json:"interactive_throttled"`
	InteractiveShare     Spread `json:"interactive_throttled_share"`
	// InteractiveP99S is the 99th percentile of interactive call latency,
	// first attempt to outcome, SDK waits included.
	InteractiveP99S Spread `json:"interactive_p99_s"`
	DrainS          Spread `json:"drain_s"`
	// Billed is the successful inferences, both classes, over a window
	// every row shares.
	Billed       Spread `json:"billed"`
	TasksDone    Spread `json:"tasks_done"`
	TasksGivenUp Spread `json:"tasks_given_up"`
	// MaxAttemptsPerTask is the most HTTP attempts one task made.
	MaxAttemptsPerTask Spread `json:"max_attempts_per_task"`
	// PeakBatchPerSecond is the most batch attempts arriving in one second:
	// the size of a wave as the bucket sees it.
	PeakBatchPerSecond Spread `json:"peak_batch_requests_per_s"`
	// RetryWindowS is the width holding the central 90% of the arrivals of
	// the first retries of the first wave's calls.
	RetryWindowS Spread `json:"retry_window_s"`
	// RequestsInTraceWindow counts attempts up to the trace's duration, to
	// compare with the trace; zero without a trace.
	RequestsInTraceWindow Spread `json:"requests_in_trace_window"`
}

// Spread is one figure over the seeds.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// WhatIfCheck compares one simulated figure with the trace's.
type WhatIfCheck struct {
	Name      string  `json:"name"`
	Trace     float64 `json:"trace"`
	Simulated float64 `json:"simulated"`
	// Error is |simulated - trace| / trace.
	Error     float64 `json:"relative_error"`
	Tolerance float64 `json:"tolerance"`
	OK        bool    `json:"ok"`
}

// RetriedError is a non-retryable error code that was retried anyway.
type RetriedError struct {
	Code   string `json:"code"`
	Status int32  `json:"status"`
	// Errors is how many attempts ended in the code.
	Errors int64 `json:"errors"`
	// Retried is how many of those were followed by another attempt of the
	// same call or task.
	Retried int64 `json:"retried"`
	// Wasted is the attempts made after the first such error of a call or
	// task: each was bound to fail the same way.
	Wasted int64  `json:"wasted_attempts"`
	Text   string `json:"text"`
}
