package simulate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// debtScenario is shaped like the recorded botocore-standard trace (time
// scaled 1:6): 300 tasks of 1,000 tokens on a 7,000-token bucket refilled at
// 2,000/s, interactive calls of 50 tokens at 2/s, an SDK that ignores
// retry-after over 3 attempts with a client-wide retry budget, and a runner
// requeueing after a fixed 10 s. The endpoint charged rejected requests a
// tenth of their cost and kept a debt of up to a bucket.
func debtScenario() Scenario {
	sc := DefaultScenario()
	sc.Name, sc.Seed = "debt", 7
	sc.Bucket = BucketConfig{Capacity: 7000, RefillPerS: 2000, RejectFraction: 0.1, DebtFloor: 7000}
	sc.Interactive.RatePerS, sc.Interactive.Cost, sc.Interactive.Arrivals = 2, 50, ArrivalsPoisson
	sc.Batch.Tasks, sc.Batch.Cost, sc.Batch.SubmitS, sc.Batch.SubmitWindowS = 300, 1000, 5, 0.5
	sc.SDK.RetryAfterS, sc.SDK.RetryAfterMode, sc.SDK.BackoffBaseS, sc.SDK.BackoffCapS = 2, RetryAfterIgnore, 1, 20
	sc.SDK.ErrorCode = "ThrottlingException"
	sc.SDK.Budget = &RetryBudget{MaxTokens: 100, TokenRatio: 1}
	sc.Runner = RunnerPolicy{RequeueDelayS: 10, RequeueJitter: JitterNone, Survival: 0.7}
	sc.TailS = 5
	return sc
}

// A bucket that refills under rejected callers lets interactive traffic
// through between bursts; one that charges rejections and keeps a debt
// stays empty while the batch keeps knocking, as the recorded trace did
// (43% of its interactive attempts throttled).
func TestDebtThrottlesInteractive(t *testing.T) {
	share := func(sc Scenario) float64 {
		out, err := Run(sc)
		if err != nil {
			t.Fatal(err)
		}
		c := out.Truth.HTTP.ByClass["interactive"]
		return float64(c.Status429) / float64(c.Attempts)
	}
	for _, seed := range []uint64{7, 8, 9} {
		sc := debtScenario()
		sc.Seed = seed
		withDebt := share(sc)
		sc.Bucket.RejectFraction, sc.Bucket.DebtFloor = 0, 0
		without := share(sc)
		if withDebt < 0.15 || without > 0.05 {
			t.Errorf("seed %d: interactive throttled %.1f%% with a debt, %.1f%% without; want >= 15%% and <= 5%%", seed, 100*withDebt, 100*without)
		}
	}
}

func TestConcurrencyLimit(t *testing.T) {
	for _, c := range []Concurrency{
		{Mode: ConcurrencyFixed, Limit: 5},
		{Mode: ConcurrencyAdaptive, Limit: 5, Min: 1, Max: 20, Decrease: 0.5},
	} {
		t.Run(c.Mode, func(t *testing.T) {
			sc := DefaultScenario()
			sc.Runner.Survival = 1
			sc.Batch.Concurrency = &c
			out, err := Run(sc)
			if err != nil {
				t.Fatal(err)
			}
			top := int(c.Limit)
			if c.Mode == ConcurrencyAdaptive {
				top = int(c.Max)
			}
			if got := out.Stats.MaxInFlight; got < 1 || got > top {
				t.Errorf("%d queue attempts in flight, want 1 to %d", got, top)
			}
			if out.Truth.Tasks.Succeeded != int64(sc.Batch.Tasks) {
				t.Errorf("%d of %d tasks succeeded with every failure requeued", out.Truth.Tasks.Succeeded, sc.Batch.Tasks)
			}
			// In-flight batch calls never exceed the bound, counted from the
			// calls themselves.
			type edge struct {
				at    time.Duration
				delta int
			}
			var edges []edge
			for _, call := range out.Calls {
				if call.Kind == Batch {
					edges = append(edges, edge{call.Start, 1}, edge{call.End, -1})
				}
			}
			slicesSort(edges, func(a, b edge) bool { return a.at < b.at || (a.at == b.at && a.delta < b.delta) })
			n := 0
			for _, e := range edges {
				n += e.delta
				if n > top {
					t.Fatalf("%d batch calls in flight at %v, limit %d", n, e.at, top)
				}
			}
		})
	}
}

func slicesSort[T any](s []T, less func(a, b T) bool) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// A retry budget, gRPC's token ratio or the AWS SDKs' retry quota, stops
// retries once most attempts fail: fewer attempts per call than the same
// scenario without one.
func TestRetryBudget(t *testing.T) {
	for _, b := range []*RetryBudget{
		{MaxTokens: 100, TokenRatio: 1},
		{MaxTokens: 500, TokenRatio: 1, RetryCost: 5},
	} {
		sc := debtScenario()
		sc.SDK.Budget = b
		with, err := Run(sc)
		if err != nil {
			t.Fatal(err)
		}
		sc.SDK.Budget = nil
		without, err := Run(sc)
		if err != nil {
			t.Fatal(err)
		}
		if with.Stats.BudgetDenied == 0 {
			t.Errorf("%+v: the budget denied no retry", *b)
		}
		a, n := with.Truth.Amplify.BatchAttemptsPerCall, without.Truth.Amplify.BatchAttemptsPerCall
		if a >= n {
			t.Errorf("%+v: attempts per call %.2f with a budget, %.2f without", *b, a, n)
		}
	}
}

// The request bucket admits no more than its size plus its refill in any
// one second.
func TestRequestBucket(t *testing.T) {
	sc := DefaultScenario()
	sc.Requests = &RequestBucket{Capacity: 5, RefillPerS: 2}
	out, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	ok := map[int64]int{}
	for _, a := range out.Attempts {
		if a.Status == 200 {
			ok[int64(a.Arrived/time.Second)]++
		}
	}
	for sec, n := range ok {
		if n > 5+2+1 {
			t.Errorf("second %d admitted %d requests through a 5-request bucket refilled at 2/s", sec, n)
		}
	}
}

// Application retry layers multiply SDK calls per queue attempt by at most
// the product of their attempts, and every call keeps its own id.
func TestRetryLayers(t *testing.T) {
	sc := DefaultScenario()
	sc.Layers = []RetryLayer{
		{Name: "worker", MaxAttempts: 2, Backoff: BackoffFull, BackoffBaseS: 1, BackoffCapS: 4},
		{Name: "client", MaxAttempts: 3, Backoff: BackoffDecorrelated, BackoffBaseS: 0.5, BackoffCapS: 8},
	}
	out, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for i := range out.Calls {
		c := &out.Calls[i]
		if c.Kind == Batch {
			per[fmt.Sprintf("%d/%d", c.Task, c.QueueAttempt)]++
		}
	}
	most := 0
	for _, n := range per {
		most = max(most, n)
	}
	if most < 2 || most > 6 {
		t.Errorf("at most %d SDK calls per queue attempt, want 2 to 6 with layers of 2 and 3", most)
	}
	var buf bytes.Buffer
	if err := out.WriteCalls(&buf); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	scan := bufio.NewScanner(&buf)
	for scan.Scan() {
		var line struct {
			CallID string `json:"call_id"`
		}
		if err := json.Unmarshal(scan.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if seen[line.CallID] {
			t.Fatalf("call id %s written twice", line.CallID)
		}
		seen[line.CallID] = true
	}
}

// Property: every backoff curve stays within its bounds.
func TestBackoffBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const base, ceiling = 0.5, 8.0
	for retry := range 12 {
		top := math.Min(ceiling, base*math.Pow(2, float64(retry)))
		prev := time.Duration(0)
		for range 200 {
			for _, tt := range []struct {
				curve  string
				lo, hi float64
			}{
				{BackoffNone, base, base},
				{BackoffExponential, top, top},
				{BackoffFull, 0, top},
				{BackoffEqual, top / 2, top},
				{BackoffQuarter, 0.75 * top, top},
				{BackoffDecorrelated, base, ceiling},
			} {
				d := backoff(tt.curve, base, ceiling, retry, prev, rng).Seconds()
				if d < tt.lo-1e-9 || d > tt.hi+1e-9 {
					t.Fatalf("%s retry %d: %v s outside [%v, %v]", tt.curve, retry, d, tt.lo, tt.hi)
				}
				if tt.curve == BackoffDecorrelated {
					prev = seconds(d)
				}
			}
		}
	}
}

func TestParseScenarioOptions(t *testing.T) {
	good := `{
  "bucket": {"capacity": 7000, "refill_per_s": 2000, "reject_fraction": 0.1, "debt_floor": 7000},
  "request_bucket": {"capacity": 10, "refill_per_s": 5, "charge_rejected": true},
  "batch": {"cost": 1000, "concurrency": {"mode": "adaptive", "limit": 4, "min": 1, "max": 10, "decrease": 0.5}},
  "sdk": {"backoff": "decorrelated", "retry_budget": {"max_tokens": 10, "token_ratio": 0.1}},
  "layers": [{"name": "app", "max_attempts": 2, "backoff": "equal", "backoff_base_s": 1, "backoff_cap_s": 4}]
}`
	sc, err := ParseScenario("good.json", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Batch.Concurrency.Max != 10 || sc.Layers[0].MaxAttempts != 2 || sc.SDK.Budget.MaxTokens != 10 || !sc.Requests.ChargeRejected {
		t.Errorf("options not read: %+v", sc)
	}
	if _, err := Run(sc); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, json, want string }{
		{"bad mode", `{"batch": {"concurrency": {"mode": "sometimes", "limit": 3}}}`, `batch.concurrency.mode: "sometimes": want one of fixed, adaptive`},
		{"bad backoff", `{"sdk": {"backoff": "wild"}}`, `bad.json:1: sdk.backoff: "wild"`},
		{"debt", `{"bucket": {"debt_floor": -1}}`, "bucket.debt_floor: -1: want 0 to 1e+12"},
		{"reject fraction", `{"bucket": {"reject_fraction": 2}}`, "bucket.reject_fraction: 2: want 0 to 1"},
		{"layer attempts", `{"layers": [{"max_attempts": 0}]}`, "layers[0].max_attempts: 0: want 1 to 100"},
		{"unknown layer key", "{\"layers\": [\n{\"tries\": 2}]}", `bad.json:2: unknown field "layers[].tries"`},
		{"budget", `{"sdk": {"retry_budget": {"max_tokens": 0, "token_ratio": 0.1}}}`, "sdk.retry_budget.max_tokens: 0: want 1 to 1000000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenario("bad.json", []byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// allOptions is the seed incident with every optional part switched on.
func allOptions(t testing.TB) Scenario {
	sc := loadTestScenario(t, "seed-incident")
	sc.Bucket.RejectFraction, sc.Bucket.DebtFloor = 0.05, sc.Bucket.Capacity
	sc.Requests = &RequestBucket{Capacity: 200, RefillPerS: 50, ChargeRejected: true}
	sc.Batch.Concurrency = &Concurrency{Mode: ConcurrencyAdaptive, Limit: 12, Min: 1, Max: 36, Decrease: 0.5}
	sc.SDK.RetryAfterMode, sc.SDK.Backoff = RetryAfterIgnore, BackoffDecorrelated
	sc.SDK.Budget = &RetryBudget{MaxTokens: 50, TokenRatio: 0.5}
	sc.Layers = []RetryLayer{{Name: "app", MaxAttempts: 2, Backoff: BackoffEqual, BackoffBaseS: 1, BackoffCapS: 10}}
	sc.Runner.RequeueJitter, sc.Runner.MaxQueueAttempts = JitterFull, 4
	return sc
}

func TestOptionsDeterministic(t *testing.T) {
	sc := allOptions(t)
	_, a := render(t, sc)
	_, b := render(t, sc)
	for f := range a {
		if !bytes.Equal(a[f], b[f]) {
			t.Errorf("%s differs between two runs with every option on", f)
		}
	}
	sc.Seed++
	if _, c := render(t, sc); bytes.Equal(a[AccessLogFile], c[AccessLogFile]) {
		t.Error("another seed gave the same access.log")
	}
}

func BenchmarkRunEveryOption(b *testing.B) {
	sc := allOptions(b)
	sc.EndS = 20 * 60 // the 1,180-task backlog over 20 simulated minutes
	var events, attempts int
	for b.Loop() {
		out, err := Run(sc)
		if err != nil {
			b.Fatal(err)
		}
		events += out.events
		attempts += len(out.Attempts)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(events)/sec, "events/s")
	b.ReportMetric(float64(attempts)/sec, "attempts/s")
}
