package simulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"time"
)

// Scenario is one simulated incident, read from a JSON file. Every field is
// optional: a field left out keeps its DefaultScenario value. Times ending in
// _s are seconds relative to Start; _ms are milliseconds.
//
// Example (the seed incident's shape):
//
//	{
//	  "name": "seed-incident",
//	  "description": "1,180 tasks stampede a bucket shared with interactive traffic",
//	  "seed": 20261130,
//	  "start": "2026-11-30T02:00:00Z",
//	  "bucket": {"capacity": 1022000, "refill_per_s": 33333.333, "reject_cost": 0,
//	             "reject_fraction": 0.1, "debt_floor": 1500000},
//	  "latency": {"ok_ms": 150, "ok_jitter_ms": 50, "reject_ms": 2},
//	  "interactive": {"rate_per_s": 4, "cost": 1200, "route": "/interactive/v1/chat/completions",
//	                  "arrivals": "even", "jitter_ms": 50, "start_s": 0, "end_s": 0},
//	  "batch": {"tasks": 1180, "cost": 28000, "submit_s": 60, "submit_window_s": 1,
//	            "route": "/batch/v1/chat/completions"},
//	  "sdk": {"max_attempts": 3, "retry_after_s": 12, "retry_after_mode": "exact",
//	          "backoff_base_s": 0.5, "backoff_cap_s": 8, "user_agent": "OpenAI/Python 1.52.0",
//	          "error_code": "RateLimitError"},
//	  "runner": {"requeue_delay_s": 60, "requeue_jitter": "none", "max_queue_attempts": 0,
//	             "survival": 0.74},
//	  "tail_s": 60,
//	  "end_s": 0
//	}
//
// Fields:
//   - bucket: one token bucket shared by both classes, full at Start, refilled
//     continuously. An attempt is admitted when the bucket holds at least its
//     cost; a rejected attempt is charged reject_cost (never below zero).
//   - latency: an admitted attempt is answered after ok_ms ± ok_jitter_ms
//     (uniform), a rejected one after reject_ms.
//   - interactive: calls arriving at rate_per_s from start_s to end_s (0: until
//     the simulation ends); arrivals "even" (spaced 1/rate, each moved by up to
//     ± jitter_ms) or "poisson".
//   - batch: tasks all submitted at submit_s, spread uniformly over
//     submit_window_s. first_wave_ms > 0 makes a call of that burst act on
//     its first answer no sooner than first_wave_ms after it started.
//     handle_ms > 0 makes the batch client handle its responses one at a
//     time, handle_ms each, before a call sleeps, retries or ends.
//   - sdk: the client library, used by batch calls and, unless interactive_sdk
//     is given, by interactive calls too. retry_after_s is the integer
//     retry-after the endpoint sends with every 429 to that client. retry_after_mode is "exact"
//     (wait retry-after), "jitter" (retry-after + U(0, retry-after)) or "ignore"
//     (min(backoff_cap_s, backoff_base_s·2^n)·U(0,1) for retry n = 0, 1, ...).
//     Waits start when the 429 arrives. A call that fails its last attempt ends
//     with error_code.
//   - runner: the job runner. A failed call's task comes back with probability
//     survival, requeue_delay_s after the failure, jittered by requeue_jitter
//     "none", "full" (U(0, delay)) or "equal" (delay/2 + U(0, delay/2));
//     max_queue_attempts > 0 abandons a task after that many queue attempts.
//   - tail_s: interactive traffic goes on this long after the last task is
//     resolved. end_s > 0 stops new calls at that time whatever the backlog;
//     calls in flight finish.
//   - optional, off unless given: bucket.reject_fraction and bucket.debt_floor
//     (rejections charged a share of their cost, down to a debt);
//     request_bucket (a requests-per-second limit beside the tokens);
//     batch.concurrency (a fixed or AIMD limit on batch queue attempts in
//     flight); sdk.backoff (none, exponential, full, equal, decorrelated)
//     and sdk.retry_budget (gRPC-style retry tokens); layers (application
//     retry loops around the batch's SDK calls, outermost first).
//   - sdk_clock_offset_s: calls.jsonl is stamped by a clock this many seconds
//     ahead of the access log's (negative: behind); the simulation itself and
//     truth.json use the true times.
type Scenario struct {
	Name string `json:"name"`
	// Description says what the scenario stands for and how it was tuned.
	Description    string             `json:"description,omitempty"`
	Seed           uint64             `json:"seed"`
	Start          time.Time          `json:"start"`
	Bucket         BucketConfig       `json:"bucket"`
	Latency        LatencyConfig      `json:"latency"`
	Interactive    InteractiveTraffic `json:"interactive"`
	Batch          BatchTraffic       `json:"batch"`
	SDK            SDKPolicy          `json:"sdk"`
	InteractiveSDK *SDKPolicy         `json:"interactive_sdk,omitempty"`
	Runner         RunnerPolicy       `json:"runner"`
	TailS          float64            `json:"tail_s"`
	EndS           float64            `json:"end_s"`
	// SDKClockOffsetS makes the application's clock read this many seconds
	// ahead of the proxy's in calls.jsonl, as on two machines whose clocks
	// drifted apart.
	SDKClockOffsetS float64 `json:"sdk_clock_offset_s,omitempty"`
	// Requests is an optional request-rate limit beside the token bucket.
	Requests *RequestBucket `json:"request_bucket,omitempty"`
	// Layers are the application's retry loops around batch SDK calls,
	// outermost first; empty means the SDK call is the whole queue attempt.
	Layers []RetryLayer `json:"layers,omitempty"`
}

// Scale multiplies the incident's size by k: k times the tasks, the bucket
// and the interactive rate, so the shape of the waves is kept while the
// logs grow about k times (for benchmarks and load generation).
func (sc *Scenario) Scale(k int) {
	sc.Batch.Tasks *= k
	sc.Bucket.Capacity *= float64(k)
	sc.Bucket.RefillPerS *= float64(k)
	sc.Interactive.RatePerS *= float64(k)
	if sc.Requests != nil {
		sc.Requests.Capacity *= float64(k)
		sc.Requests.RefillPerS *= float64(k)
	}
}

// BucketConfig is the endpoint's token bucket.
type BucketConfig struct {
	Capacity   float64 `json:"capacity"`
	RefillPerS float64 `json:"refill_per_s"`
	RejectCost float64 `json:"reject_cost"`
	// RejectFraction charges a rejected attempt this share of its own cost
	// on top of RejectCost, as limiters that meter rejected requests do.
	RejectFraction float64 `json:"reject_fraction,omitempty"`
	// DebtFloor lets rejection charges take the bucket this far below zero:
	// a limiter that keeps a debt stays empty while rejected callers keep
	// arriving, instead of refilling under them.
	DebtFloor float64 `json:"debt_floor,omitempty"`
}

// RequestBucket is a second limit on requests rather than tokens (requests
// per minute); an attempt is admitted only when both buckets allow it.
type RequestBucket struct {
	Capacity   float64 `json:"capacity"`
	RefillPerS float64 `json:"refill_per_s"`
	// ChargeRejected counts rejected attempts against the limit too.
	ChargeRejected bool `json:"charge_rejected,omitempty"`
}

// Concurrency bounds the batch's queue attempts in flight: a queue attempt
// holds a slot from its first attempt until its call ends, through the SDK's
// waits; the others queue in order. "fixed" keeps Limit; "adaptive" is AIMD:
// each batch success adds 1/limit, a throttle multiplies by Decrease (at most
// once a second), within [Min, Max].
type Concurrency struct {
	Mode     string  `json:"mode"`
	Limit    float64 `json:"limit"`
	Min      float64 `json:"min,omitempty"`
	Max      float64 `json:"max,omitempty"`
	Decrease float64 `json:"decrease,omitempty"`
}

// RetryLayer is a retry loop the application wraps around its SDK calls
// (a tenacity decorator, a retrying HTTP client above the SDK). Layers
// stack: the first wraps the second, the last wraps the SDK call.
type RetryLayer struct {
	Name         string  `json:"name,omitempty"`
	MaxAttempts  int     `json:"max_attempts"`
	Backoff      string  `json:"backoff,omitempty"`
	BackoffBaseS float64 `json:"backoff_base_s,omitempty"`
	BackoffCapS  float64 `json:"backoff_cap_s,omitempty"`
}

// RetryBudget is a client-wide retry token bucket as in gRPC, Finagle and
// Envoy: every throttled attempt spends one token, every success earns
// TokenRatio, and a retry is allowed only while more than half of MaxTokens
// remain. It stops retries from multiplying load once most attempts fail.
//
// RetryCost > 0 makes it the AWS SDKs' retry quota instead (botocore
// standard and adaptive, AWS SDK for JavaScript v3: 500 tokens, 5 per
// retry): a retry takes RetryCost tokens and is refused when fewer remain,
// and a call that succeeds gives back what its retries took, or TokenRatio
// when it needed none.
type RetryBudget struct {
	MaxTokens  float64 `json:"max_tokens"`
	TokenRatio float64 `json:"token_ratio"`
	RetryCost  float64 `json:"retry_cost,omitempty"`
}

// LatencyConfig is how long the endpoint takes to answer.
type LatencyConfig struct {
	OKMs       float64 `json:"ok_ms"`
	OKJitterMs float64 `json:"ok_jitter_ms"`
	RejectMs   float64 `json:"reject_ms"`
}

// InteractiveTraffic is the steady user-facing load sharing the bucket.
type InteractiveTraffic struct {
	RatePerS float64 `json:"rate_per_s"`
	Cost     float64 `json:"cost"`
	Route    string  `json:"route"`
	Arrivals string  `json:"arrivals"`
	JitterMs float64 `json:"jitter_ms"`
	StartS   float64 `json:"start_s"`
	EndS     float64 `json:"end_s"`
}

// BatchTraffic is the backlog the job runner submits at once.
type BatchTraffic struct {
	Tasks         int     `json:"tasks"`
	Cost          float64 `json:"cost"`
	SubmitS       float64 `json:"submit_s"`
	SubmitWindowS float64 `json:"submit_window_s"`
	Route         string  `json:"route"`
	// Concurrency, when set, bounds the batch's queue attempts in flight.
	Concurrency *Concurrency `json:"concurrency,omitempty"`
	// HandleMs is the time the batch client takes to handle one response
	// before its call sleeps, retries or ends. The client handles them one
	// at a time, as a single-threaded process does, so a burst of 429s is
	// retried over a spread rather than all at once; 0 handles each at once.
	HandleMs float64 `json:"handle_ms,omitempty"`
	// FirstWaveMs is, from a first-wave call's start, the earliest the
	// batch client acts on its first attempt's answer. A client that opens
	// a connection for each call of a burst is slower on the first wave
	// than on later ones, which find the connections open; 0 acts on each
	// answer when it comes.
	FirstWaveMs float64 `json:"first_wave_ms,omitempty"`
}

// SDKPolicy is the client library's retry policy.
type SDKPolicy struct {
	MaxAttempts int `json:"max_attempts"`
	RetryAfterS int `json:"retry_after_s"`
	// RetryAfterMs is the retry-after-ms header the server sends beside
	// retry-after, in milliseconds; SDKs that read it (openai, anthropic)
	// sleep it instead of the whole seconds. 0: the server sends none.
	RetryAfterMs   float64 `json:"retry_after_ms,omitempty"`
	RetryAfterMode string  `json:"retry_after_mode"`
	BackoffBaseS   float64 `json:"backoff_base_s"`
	BackoffCapS    float64 `json:"backoff_cap_s"`
	UserAgent      string  `json:"user_agent"`
	ErrorCode      string  `json:"error_code"`
	// Backoff is the curve used when retry-after is ignored: "full" (the
	// default), "none" (a constant backoff_base_s), "exponential" (no
	// jitter), "equal" or "decorrelated".
	Backoff string       `json:"backoff,omitempty"`
	Budget  *RetryBudget `json:"retry_budget,omitempty"`
}

// RunnerPolicy is the job runner's requeue policy for failed calls.
type RunnerPolicy struct {
	RequeueDelayS float64 `json:"requeue_delay_s"`
	RequeueJitter string  `json:"requeue_jitter"`
	// RequeueJitterPct is the spread of "pct" jitter: the delay times
	// U(1 − pct/100, 1 + pct/100).
	RequeueJitterPct float64 `json:"requeue_jitter_pct,omitempty"`
	MaxQueueAttempts int     `json:"max_queue_attempts"`
	Survival         float64 `json:"survival"`
}

// Retry-after modes of SDKPolicy.RetryAfterMode.
const (
	RetryAfterExact  = "exact"
	RetryAfterJitter = "jitter"
	RetryAfterIgnore = "ignore"
)

// Requeue jitters of RunnerPolicy.RequeueJitter.
const (
	JitterNone  = "none"
	JitterFull  = "full"
	JitterEqual = "equal"
	// JitterPct spreads the delay by RequeueJitterPct either way, as job
	// runners that jitter a fixed delay by a share of it do.
	JitterPct = "pct"
)

// Backoff curves of SDKPolicy.Backoff and RetryLayer.Backoff.
const (
	BackoffNone         = "none"
	BackoffExponential  = "exponential"
	BackoffFull         = "full"
	BackoffEqual        = "equal"
	BackoffDecorrelated = "decorrelated"
	// BackoffQuarter is top × U(0.75, 1]: the Stainless-generated SDKs
	// (openai, anthropic) take a quarter of jitter off min(base·2^n, cap).
	BackoffQuarter = "quarter"
)

// Concurrency modes.
const (
	ConcurrencyFixed    = "fixed"
	ConcurrencyAdaptive = "adaptive"
)

// Interactive arrival processes of InteractiveTraffic.Arrivals.
const (
	ArrivalsEven    = "even"
	ArrivalsPoisson = "poisson"
)

// DefaultScenario is what a scenario file's absent fields are: a small
// 100-task stampede against a bucket shared with 4 interactive calls a second.
func DefaultScenario() Scenario {
	return Scenario{
		Name:    "default",
		Seed:    1,
		Start:   time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC),
		Bucket:  BucketConfig{Capacity: 1_000_000, RefillPerS: 2_000_000.0 / 60},
		Latency: LatencyConfig{OKMs: 150, OKJitterMs: 50, RejectMs: 2},
		Interactive: InteractiveTraffic{
			RatePerS: 4, Cost: 1200, Route: "/interactive/v1/chat/completions",
			Arrivals: ArrivalsEven, JitterMs: 50,
		},
		Batch: BatchTraffic{
			Tasks: 100, Cost: 28_000, SubmitS: 60, SubmitWindowS: 1,
			Route: "/batch/v1/chat/completions",
		},
		SDK: SDKPolicy{
			MaxAttempts: 3, RetryAfterS: 12, RetryAfterMode: RetryAfterExact,
			BackoffBaseS: 0.5, BackoffCapS: 8, UserAgent: "OpenAI/Python 1.52.0",
			ErrorCode: "RateLimitError",
		},
		Runner: RunnerPolicy{RequeueDelayS: 60, RequeueJitter: JitterNone, Survival: 0.7},
		TailS:  60,
	}
}

// LoadScenario reads and validates a scenario file. Errors name the file and,
// where the fault is in one place, its line.
func LoadScenario(path string) (Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, fmt.Errorf("load scenario: %w", err)
	}
	return ParseScenario(path, data)
}

// ParseScenario decodes and validates a scenario; name is used in errors only.
// Unknown fields are an error: a misspelt field would otherwise silently run
// the default.
func ParseScenario(name string, data []byte) (Scenario, error) {
	keys, err := scanKeys(data)
	if err != nil {
		return Scenario{}, positionError(name, data, err)
	}
	known := knownFields(reflect.TypeFor[Scenario](), "")
	for _, k := range keys {
		if !known[k.path] {
			return Scenario{}, fmt.Errorf("%s:%d: unknown field %q", name, k.line, k.path)
		}
	}
	sc := DefaultScenario()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		var perr *time.ParseError
		if errors.As(err, &perr) {
			for _, k := range keys {
				if k.path == "start" {
					return Scenario{}, fmt.Errorf("%s:%d: start: want an RFC 3339 time such as 2026-11-30T02:00:00Z: %w", name, k.line, err)
				}
			}
		}
		return Scenario{}, positionError(name, data, err)
	}
	if sc.InteractiveSDK != nil {
		// An interactive_sdk block overrides the shared policy field by field.
		merged := sc.SDK
		sub := json.NewDecoder(bytes.NewReader(subObject(data, "interactive_sdk")))
		if err := sub.Decode(&merged); err != nil {
			return Scenario{}, positionError(name, data, err)
		}
		sc.InteractiveSDK = &merged
	}
	if err := sc.Validate(); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			for _, k := range keys {
				if k.path == fe.path {
					return Scenario{}, fmt.Errorf("%s:%d: %w", name, k.line, err)
				}
			}
		}
		return Scenario{}, fmt.Errorf("%s: %w", name, err)
	}
	return sc, nil
}

// fieldError is a validation failure of one field, named by its JSON path.
type fieldError struct {
	path string
	msg  string
}

func (e *fieldError) Error() string { return e.path + ": " + e.msg }

func badField(path, format string, args ...any) error {
	return &fieldError{path: path, msg: fmt.Sprintf(format, args...)}
}

// Validate reports the first field whose value the simulator cannot run.
func (sc *Scenario) Validate() error {
	finite := func(path string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return badField(path, "%v: want a finite number >= 0", v)
		}
		return nil
	}
	for _, f := range []struct {
		path string
		v    float64
	}{
		{"bucket.capacity", sc.Bucket.Capacity}, {"bucket.refill_per_s", sc.Bucket.RefillPerS},
		{"bucket.reject_cost", sc.Bucket.RejectCost},
		{"latency.ok_ms", sc.Latency.OKMs}, {"latency.ok_jitter_ms", sc.Latency.OKJitterMs},
		{"latency.reject_ms", sc.Latency.RejectMs},
		{"interactive.rate_per_s", sc.Interactive.RatePerS}, {"interactive.cost", sc.Interactive.Cost},
		{"interactive.jitter_ms", sc.Interactive.JitterMs},
		{"interactive.start_s", sc.Interactive.StartS}, {"interactive.end_s", sc.Interactive.EndS},
		{"batch.cost", sc.Batch.Cost}, {"batch.submit_s", sc.Batch.SubmitS},
		{"batch.submit_window_s", sc.Batch.SubmitWindowS}, {"batch.handle_ms", sc.Batch.HandleMs},
		{"batch.first_wave_ms", sc.Batch.FirstWaveMs},
		{"runner.requeue_delay_s", sc.Runner.RequeueDelayS}, {"runner.survival", sc.Runner.Survival},
		{"tail_s", sc.TailS}, {"end_s", sc.EndS},
	} {
		if err := finite(f.path, f.v); err != nil {
			return err
		}
	}
	// A clock may run behind as well as ahead, so only its size is bounded.
	if math.IsNaN(sc.SDKClockOffsetS) || math.Abs(sc.SDKClockOffsetS) > 3600 {
		return badField("sdk_clock_offset_s", "%v: want a number of seconds within ±3600", sc.SDKClockOffsetS)
	}
	switch {
	case sc.Bucket.Capacity <= 0:
		return badField("bucket.capacity", "must be > 0")
	case sc.Bucket.RefillPerS <= 0:
		return badField("bucket.refill_per_s", "must be > 0")
	case sc.Bucket.Capacity > 1e12:
		return badField("bucket.capacity", "%v: want at most 1e12 tokens", sc.Bucket.Capacity)
	case sc.Latency.OKJitterMs > sc.Latency.OKMs:
		return badField("latency.ok_jitter_ms", "%v exceeds ok_ms %v", sc.Latency.OKJitterMs, sc.Latency.OKMs)
	case sc.Interactive.RatePerS > 10_000:
		return badField("interactive.rate_per_s", "%v: want at most 10000", sc.Interactive.RatePerS)
	case sc.Interactive.RatePerS > 0 && sc.Interactive.Cost > sc.Bucket.Capacity:
		return badField("interactive.cost", "%v exceeds bucket.capacity %v: no call could ever succeed", sc.Interactive.Cost, sc.Bucket.Capacity)
	case sc.Batch.Tasks < 0 || sc.Batch.Tasks > 10_000_000:
		return badField("batch.tasks", "%d: want 0 to 10000000", sc.Batch.Tasks)
	case sc.Batch.Tasks > 0 && sc.Batch.Cost > sc.Bucket.Capacity:
		return badField("batch.cost", "%v exceeds bucket.capacity %v: no task could ever succeed", sc.Batch.Cost, sc.Bucket.Capacity)
	case sc.Batch.HandleMs > 60_000:
		return badField("batch.handle_ms", "%v: want at most 60000 ms a response", sc.Batch.HandleMs)
	case sc.Batch.FirstWaveMs < 0 || sc.Batch.FirstWaveMs > 60_000:
		return badField("batch.first_wave_ms", "%v: want 0 to 60000 ms", sc.Batch.FirstWaveMs)
	case sc.Runner.Survival > 1:
		return badField("runner.survival", "%v: want a probability in [0, 1]", sc.Runner.Survival)
	case sc.Runner.MaxQueueAttempts < 0:
		return badField("runner.max_queue_attempts", "%d: want >= 0 (0: no cap)", sc.Runner.MaxQueueAttempts)
	}
	if err := oneOf("interactive.arrivals", sc.Interactive.Arrivals, ArrivalsEven, ArrivalsPoisson); err != nil {
		return err
	}
	if err := oneOf("runner.requeue_jitter", sc.Runner.RequeueJitter, JitterNone, JitterFull, JitterEqual, JitterPct); err != nil {
		return err
	}
	if p := sc.Runner.RequeueJitterPct; !(p >= 0 && p <= 100) {
		return badField("runner.requeue_jitter_pct", "%v: want 0 to 100", p)
	}
	if err := sc.SDK.validate("sdk"); err != nil {
		return err
	}
	if err := sc.validateExtensions(); err != nil {
		return err
	}
	if sc.InteractiveSDK != nil {
		if err := sc.InteractiveSDK.validate("interactive_sdk"); err != nil {
			return err
		}
	}
	return nil
}

// RetryAfterWait is the retry-after the SDK sleeps, in seconds: the
// milliseconds when the server sends them, else the whole seconds.
func (p *SDKPolicy) RetryAfterWait() float64 {
	if p.RetryAfterMs > 0 {
		return p.RetryAfterMs / 1e3
	}
	return float64(p.RetryAfterS)
}

func (p *SDKPolicy) validate(prefix string) error {
	switch {
	case p.MaxAttempts < 1 || p.MaxAttempts > 100:
		return badField(prefix+".max_attempts", "%d: want 1 to 100", p.MaxAttempts)
	case p.RetryAfterS < 0 || p.RetryAfterS > 86400:
		return badField(prefix+".retry_after_s", "%d: want 0 to 86400 seconds", p.RetryAfterS)
	case math.IsNaN(p.RetryAfterMs) || p.RetryAfterMs < 0 || p.RetryAfterMs > 86400e3:
		return badField(prefix+".retry_after_ms", "%v: want 0 to 86,400,000 milliseconds", p.RetryAfterMs)
	case math.IsNaN(p.BackoffBaseS) || p.BackoffBaseS < 0 || p.BackoffBaseS > 86400:
		return badField(prefix+".backoff_base_s", "%v: want 0 to 86400 seconds", p.BackoffBaseS)
	case math.IsNaN(p.BackoffCapS) || p.BackoffCapS < 0 || p.BackoffCapS > 86400:
		return badField(prefix+".backoff_cap_s", "%v: want 0 to 86400 seconds", p.BackoffCapS)
	case strings.ContainsAny(p.UserAgent, "\"\\\n\r"):
		return badField(prefix+".user_agent", "%q: quotes, backslashes and newlines would break the log line", p.UserAgent)
	case p.ErrorCode == "":
		return badField(prefix+".error_code", "must not be empty")
	}
	if p.Backoff != "" {
		if err := oneOf(prefix+".backoff", p.Backoff, BackoffNone, BackoffExponential, BackoffFull, BackoffEqual, BackoffDecorrelated, BackoffQuarter); err != nil {
			return err
		}
	}
	if b := p.Budget; b != nil {
		switch {
		case !(b.MaxTokens >= 1 && b.MaxTokens <= 1e6):
			return badField(prefix+".retry_budget.max_tokens", "%v: want 1 to 1000000", b.MaxTokens)
		case !(b.TokenRatio >= 0 && b.TokenRatio <= 1000):
			return badField(prefix+".retry_budget.token_ratio", "%v: want 0 to 1000", b.TokenRatio)
		case !(b.RetryCost >= 0 && b.RetryCost <= b.MaxTokens):
			return badField(prefix+".retry_budget.retry_cost", "%v: want 0 to max_tokens", b.RetryCost)
		}
	}
	return oneOf(prefix+".retry_after_mode", p.RetryAfterMode, RetryAfterExact, RetryAfterJitter, RetryAfterIgnore)
}

// validateExtensions checks the optional limiter, debt and layer settings.
func (sc *Scenario) validateExtensions() error {
	in := func(path string, v, lo, hi float64) error {
		if !(v >= lo && v <= hi) {
			return badField(path, "%v: want %v to %v", v, lo, hi)
		}
		return nil
	}
	checks := []error{
		in("bucket.reject_fraction", sc.Bucket.RejectFraction, 0, 1),
		in("bucket.debt_floor", sc.Bucket.DebtFloor, 0, 1e12),
	}
	if r := sc.Requests; r != nil {
		checks = append(checks, in("request_bucket.capacity", r.Capacity, 1, 1e9), in("request_bucket.refill_per_s", r.RefillPerS, 1e-6, 1e9))
	}
	if c := sc.Batch.Concurrency; c != nil {
		if err := oneOf("batch.concurrency.mode", c.Mode, ConcurrencyFixed, ConcurrencyAdaptive); err != nil {
			return err
		}
		checks = append(checks, in("batch.concurrency.limit", c.Limit, 1, 1e6))
		if c.Mode == ConcurrencyAdaptive {
			checks = append(checks, in("batch.concurrency.min", c.Min, 1, c.Limit),
				in("batch.concurrency.max", c.Max, c.Limit, 1e6), in("batch.concurrency.decrease", c.Decrease, 0.01, 0.99))
		}
	}
	if len(sc.Layers) > 8 {
		return badField("layers", "%d layers: want at most 8", len(sc.Layers))
	}
	for i, l := range sc.Layers {
		p := fmt.Sprintf("layers[%d]", i)
		checks = append(checks, in(p+".max_attempts", float64(l.MaxAttempts), 1, 100),
			in(p+".backoff_base_s", l.BackoffBaseS, 0, 86400), in(p+".backoff_cap_s", l.BackoffCapS, 0, 86400))
		if l.Backoff != "" {
			checks = append(checks, oneOf(p+".backoff", l.Backoff, BackoffNone, BackoffExponential, BackoffFull, BackoffEqual, BackoffDecorrelated, BackoffQuarter))
		}
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}

func oneOf(path, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return badField(path, "%q: want one of %s", v, strings.Join(allowed, ", "))
}

// jsonKey is one object key of a scenario file, by dotted path.
type jsonKey struct {
	path string
	line int
}

// scanKeys lists every object key in data with the line it is on, so that
// errors can point at the line of the faulty field.
// maxScenarioDepth bounds how deeply a scenario file may nest.
const maxScenarioDepth = 32

func scanKeys(data []byte) ([]jsonKey, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var keys []jsonKey
	var walk func(prefix string, depth int) error
	walk = func(prefix string, depth int) error {
		// A scenario is a few levels deep; a hostile file nested a
		// million deep would otherwise build a path per level.
		if depth > maxScenarioDepth {
			return fmt.Errorf("nested deeper than %d levels", maxScenarioDepth)
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				off := dec.InputOffset()
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				path := k
				if prefix != "" {
					path = prefix + "." + k
				}
				keys = append(keys, jsonKey{path: path, line: lineAt(data, skipSpace(data, off))})
				if err := walk(path, depth+1); err != nil {
					return err
				}
			}
			_, err := dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(prefix+"[]", depth+1); err != nil {
					return err
				}
			}
			_, err := dec.Token()
			return err
		}
		return nil
	}
	if err := walk("", 0); err != nil {
		if err == io.EOF {
			return nil, errors.New("empty scenario")
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the scenario object")
	}
	return keys, nil
}

// skipSpace moves off past whitespace and the comma before a key, since
// InputOffset points just after the previous token.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
		off++
	}
	return off
}

func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// positionError turns a JSON decoding error into "name:line: message".
func positionError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%s:%d: %w", name, lineAt(data, syn.Offset), err)
	case errors.As(err, &typ):
		return fmt.Errorf("%s:%d: field %s: %w", name, lineAt(data, typ.Offset), typ.Field, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s:%d: truncated JSON: %w", name, lineAt(data, int64(len(data))), err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// knownFields lists the dotted JSON paths a scenario file may contain.
func knownFields(t reflect.Type, prefix string) map[string]bool {
	out := map[string]bool{}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		out[path] = true
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
			// scanKeys names the members of array elements "path[].key".
			for k := range knownFields(ft.Elem(), path+"[]") {
				out[k] = true
			}
		}
		if ft.Kind() == reflect.Struct && ft != reflect.TypeFor[time.Time]() {
			for k := range knownFields(ft, path) {
				out[k] = true
			}
		}
	}
	return out
}

// subObject returns the raw JSON of a top-level object member, or "{}".
func subObject(data []byte, key string) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || top[key] == nil {
		return []byte("{}")
	}
	return top[key]
}
