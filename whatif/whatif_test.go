package whatif_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/timeline"
	"github.com/stampede/stampede/whatif"
)

// The capacity arithmetic, checked against cases worked by hand.
func TestCapacity(t *testing.T) {
	tests := []struct {
		name                      string
		c                         whatif.Capacity
		tasks                     int64
		perMinute, drainS         float64
		text                      string
		wantInfiniteDrain, isText bool
	}{
		{
			// 2,000,000 - 288,000 (4/s x 1,200 x 60) = 1,712,000 tokens/min;
			// / 28,000 = 61.142857 tasks/min; 1,180 / 61.142857 = 19.2991 min.
			name: "seed incident", c: whatif.Capacity{TokensPerMinute: 2_000_000, InteractiveTokensPerMinute: 288_000, TaskTokens: 28_000},
			tasks: 1180, perMinute: 61.142857, drainS: 1157.9439,
			text: "(2,000,000 − 288,000 interactive) tokens/min ÷ 28,000 tokens per task = 61.1 tasks/min", isText: true,
		},
		{
			// (120,000 - 6,000) / 1,000 = 114 tasks/min; 300 / 114 min = 157.8947 s.
			name: "small bucket", c: whatif.Capacity{TokensPerMinute: 120_000, InteractiveTokensPerMinute: 6_000, TaskTokens: 1_000},
			tasks: 300, perMinute: 114, drainS: 157.8947,
		},
		{
			// No interactive traffic: 60,000 / 500 = 120 tasks/min; 60 tasks = 30 s.
			name: "batch alone", c: whatif.Capacity{TokensPerMinute: 60_000, TaskTokens: 500},
			tasks: 60, perMinute: 120, drainS: 30,
		},
		{
			name: "interactive takes everything", c: whatif.Capacity{TokensPerMinute: 1_000, InteractiveTokensPerMinute: 2_000, TaskTokens: 10},
			tasks: 5, wantInfiniteDrain: true,
		},
		{name: "no task size", c: whatif.Capacity{TokensPerMinute: 1_000}, tasks: 5, wantInfiniteDrain: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.TasksPerMinute(); math.Abs(got-tt.perMinute) > 1e-5 {
				t.Errorf("tasks per minute %v, want %v", got, tt.perMinute)
			}
			got := tt.c.Drain(tt.tasks)
			switch {
			case tt.wantInfiniteDrain && !math.IsInf(got, 1):
				t.Errorf("drain %v, want +Inf", got)
			case !tt.wantInfiniteDrain && math.Abs(got-tt.drainS) > 1e-3:
				t.Errorf("drain %v s, want %v s", got, tt.drainS)
			}
			if tt.isText && tt.c.String() != tt.text {
				t.Errorf("text %q, want %q", tt.c.String(), tt.text)
			}
		})
	}
}

// seedGiven is what the bundled incident's logs cannot show, given as
// testdata/scenarios/seed-incident.json has it: the token sizes, and the
// limiter's reject charge and debt. The debt also hides the quota and the
// bucket's size from the admissions they are measured from (the bucket
// pays its debt back before it admits anyone), so those are given too.
var seedGiven = whatif.Given{TaskTokens: 28_000, InteractiveTokens: 1_200,
	TokensPerMinute: 2_000_000, BucketTokens: 1_022_000, RejectCharge: 0.1, DebtTokens: 1_500_000}

// seedParams measures the bundled incident once for the tests that need it:
// seedGiven, and the rest from the logs.
var seedParams = sync.OnceValues(func() (whatif.Params, error) {
	tl, res, err := stampede.AnalyzeTimeline(context.Background(), stampede.Config{
		Inputs: []string{filepath.Join("..", "testdata", "seed-incident")}, Seed: 1,
	})
	if err != nil {
		return whatif.Params{}, err
	}
	return whatif.Measure(tl, res, seedGiven)
})

func mustSeedParams(t testing.TB) whatif.Params {
	t.Helper()
	p, err := seedParams()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMeasureSeedIncident(t *testing.T) {
	p := mustSeedParams(t)
	sc := p.Scenario
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol*math.Abs(want) {
			t.Errorf("%s measured %v, scenario has %v (tolerance %.0f%%)", name, got, want, 100*tol)
		}
	}
	// The figures of testdata/scenarios/seed-incident.json.
	near("tasks", float64(sc.Batch.Tasks), 1180, 0)
	near("retry-after", float64(sc.SDK.RetryAfterS), 12, 0)
	near("sdk attempts", float64(sc.SDK.MaxAttempts), 3, 0)
	near("requeue delay", sc.Runner.RequeueDelayS, 60, 0.01)
	near("survival", sc.Runner.Survival, 0.74, 0.02)
	near("interactive rate", sc.Interactive.RatePerS, 4, 0.02)
	// Given (seedGiven): they must reach the replay as given.
	near("tokens per minute", sc.Bucket.RefillPerS*60, 2_000_000, 0.05)
	near("bucket tokens", sc.Bucket.Capacity, 1_022_000, 0.05)
	near("reject charge", sc.Bucket.RejectFraction, 0.1, 0)
	near("debt", sc.Bucket.DebtFloor, 1_500_000, 0)
	if sc.SDK.RetryAfterMode != simulate.RetryAfterExact || sc.Runner.RequeueJitter != simulate.JitterNone || sc.Runner.MaxQueueAttempts != 0 {
		t.Errorf("policy measured as %s retry-after, %s requeue jitter, cap %d; want exact, none, 0",
			sc.SDK.RetryAfterMode, sc.Runner.RequeueJitter, sc.Runner.MaxQueueAttempts)
	}
}

// The "as measured" replay reproduces the trace's requests, waves and
// period within 5%, the waves and period found by analysing its own logs.
func TestReplayReproducesTrace(t *testing.T) {
	p := mustSeedParams(t)
	wi, err := whatif.Run(p, whatif.Options{Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(wi.Validation) != 3 {
		t.Fatalf("%d validation checks, want requests, waves and period", len(wi.Validation))
	}
	for _, c := range wi.Validation {
		if !c.OK || c.Error > 0.05 {
			t.Errorf("%s: trace %v, replay %v (%.1f%% off)", c.Name, c.Trace, c.Simulated, 100*c.Error)
		}
	}
	if len(wi.Rows) != 5 {
		t.Fatalf("%d rows, want 5", len(wi.Rows))
	}
	if len(wi.Recommendations) < 4 {
		t.Errorf("recommendations %q, want concurrency, jitter, cap and drain", wi.Recommendations)
	}
}

func prepared(t testing.TB, p whatif.Params, row string, seed uint64) simulate.Scenario {
	t.Helper()
	for _, pol := range whatif.Policies(p.Scenario) {
		if pol.Name == row {
			return whatif.Prepare(pol.Scenario, whatif.Horizon(p), seed)
		}
	}
	t.Fatalf("no row %q", row)
	return simulate.Scenario{}
}

// The jitter + cap + concurrency row's simulated logs, written out and
// analysed like a user's, lose the trace's period; the "as measured" row's
// keep it. The SDK still sleeps retry-after exactly in every row (its own
// code), so the limited row may show that comb, never the requeue's waves.
func TestLimitedReplayHasNoWaves(t *testing.T) {
	p := mustSeedParams(t)
	for _, tt := range []struct {
		row      string
		periodic bool
	}{{whatif.RowMeasured, true}, {whatif.RowLimit, false}} {
		t.Run(tt.row, func(t *testing.T) {
			out, err := simulate.Run(prepared(t, p, tt.row, 1))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := out.WriteDir(dir); err != nil {
				t.Fatal(err)
			}
			res, err := stampede.Analyze(context.Background(), stampede.Config{Inputs: []string{dir}, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			atTrace := res.Waves.Periodic && math.Abs(res.Waves.Period-p.TracePeriodS) <= 0.05*p.TracePeriodS
			if atTrace != tt.periodic {
				t.Errorf("periodic %v (period %.1f s, best lag %.1f s; trace %.1f s), want the trace's period: %v", res.Waves.Periodic, res.Waves.Period, res.Waves.BestLag, p.TracePeriodS, tt.periodic)
			}
			if tt.periodic && math.Abs(res.Waves.Period-p.TracePeriodS) > 0.05*p.TracePeriodS {
				t.Errorf("period %.2f s, trace %.2f s", res.Waves.Period, p.TracePeriodS)
			}
		})
	}
}

// Billed inferences are the work done, never the retries: in every replay
// they are the tasks done plus the interactive calls that succeeded, every
// row serves the same interactive calls, and rows that finish every task
// with no interactive failure bill exactly the same.
func TestBilledInferencesAreTheWork(t *testing.T) {
	sc := mustSeedParams(t).Scenario
	// A job runner that brings every failed task back: no policy can win
	// by dropping work, so all uncapped rows finish the backlog. A bucket
	// that refills under its rejected callers lets them serve every
	// interactive call too; the incident's debt would starve some in every
	// row without a concurrency limit, leaving too few rows to compare.
	sc.Runner.Survival = 1
	sc.Bucket.RejectFraction, sc.Bucket.DebtFloor = 0, 0
	p := whatif.FromScenario(sc)
	horizon := whatif.Horizon(p)
	for _, seed := range []uint64{1, 2} {
		var calls []int64
		billedWhenComplete := map[int64][]string{}
		for _, pol := range whatif.Policies(sc) {
			m, err := whatif.Replay(whatif.Prepare(pol.Scenario, horizon, seed), 0)
			if err != nil {
				t.Fatal(err)
			}
			if m.Billed != m.TasksDone+m.InteractiveOK {
				t.Errorf("seed %d %s: billed %d != tasks done %d + interactive ok %d", seed, pol.Name, m.Billed, m.TasksDone, m.InteractiveOK)
			}
			if m.TasksDone+m.TasksGivenUp != int64(sc.Batch.Tasks) {
				t.Errorf("seed %d %s: %d done + %d given up != %d tasks", seed, pol.Name, m.TasksDone, m.TasksGivenUp, sc.Batch.Tasks)
			}
			calls = append(calls, m.InteractiveCalls)
			if m.TasksGivenUp == 0 && m.InteractiveOK == m.InteractiveCalls {
				billedWhenComplete[m.Billed] = append(billedWhenComplete[m.Billed], pol.Name)
			}
		}
		for _, c := range calls[1:] {
			if c != calls[0] {
				t.Errorf("seed %d: interactive calls differ between rows: %v", seed, calls)
				break
			}
		}
		if len(billedWhenComplete) != 1 {
			t.Errorf("seed %d: rows that finished all the work bill differently: %v", seed, billedWhenComplete)
		}
		for _, rows := range billedWhenComplete {
			if len(rows) < 3 {
				t.Errorf("seed %d: only %v finished all the work; the check compares too little", seed, rows)
			}
		}
	}
}

// Property: widening the job runner's requeue jitter (none, equal, full)
// never makes the second wave arrive in a narrower window.
func TestMoreJitterNeverNarrowsWaves(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		for _, delay := range []float64{20, 60} {
			prev := -1.0
			for _, jitter := range []string{simulate.JitterNone, simulate.JitterEqual, simulate.JitterFull} {
				sc := smallIncident(seed)
				sc.Runner.RequeueDelayS = delay
				sc.Runner.RequeueJitter = jitter
				w := waveWidth(t, sc, 2)
				if w < prev {
					t.Errorf("seed %d delay %g: %s jitter narrows the second wave to %.2f s from %.2f s", seed, delay, jitter, w, prev)
				}
				prev = w
			}
		}
		// The SDK's own jitter: exact retry-after against U(ra, 2ra).
		exact := smallIncident(seed)
		jittered := exact
		jittered.SDK.RetryAfterMode = simulate.RetryAfterJitter
		if a, b := retryWidth(t, exact), retryWidth(t, jittered); b < a {
			t.Errorf("seed %d: SDK jitter narrows the first retries to %.2f s from %.2f s", seed, b, a)
		}
	}
}

// Property: a tighter cap on queue attempts never sends more requests.
func TestTighterCapNeverSendsMore(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		for _, jitter := range []string{simulate.JitterNone, simulate.JitterFull} {
			sc := smallIncident(seed)
			sc.Runner.RequeueJitter = jitter
			prev := int64(math.MaxInt64)
			// No cap first, then ever tighter.
			for _, c := range []int{0, 8, 6, 5, 4, 3, 2, 1} {
				sc.Runner.MaxQueueAttempts = c
				out, err := simulate.Run(sc)
				if err != nil {
					t.Fatal(err)
				}
				n := int64(len(out.Attempts))
				if n > prev {
					t.Errorf("seed %d %s jitter: cap %d sends %d requests, more than the looser cap's %d", seed, jitter, c, n, prev)
				}
				prev = n
			}
		}
	}
}

// Property: the same parameters and seeds give the same comparison, and a
// different seed a different replay.
func TestSameSeedSameOutput(t *testing.T) {
	sc := smallIncident(7)
	a, err := whatif.Run(whatif.FromScenario(sc), whatif.Options{Seeds: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := whatif.Run(whatif.FromScenario(sc), whatif.Options{Seeds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs of the same parameters differ")
	}
	sc.Seed = 1000
	c, err := whatif.Run(whatif.FromScenario(sc), whatif.Options{Seeds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Rows, c.Rows) {
		t.Error("other seeds gave the same rows")
	}
}

// smallIncident is the seed incident's shape at a sixth of the backlog:
// fast enough for property tests, still several waves.
func smallIncident(seed uint64) simulate.Scenario {
	sc := simulate.DefaultScenario()
	sc.Seed = seed
	sc.Batch.Tasks = 200
	sc.Bucket.Capacity = 300_000
	sc.Runner.Survival = 0.84
	sc.Runner.RequeueDelayS = 30
	return sc
}

// waveWidth is the central 90% width of the starts of queue attempt qa.
func waveWidth(t *testing.T, sc simulate.Scenario, qa int) float64 {
	t.Helper()
	out, err := simulate.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	var starts []float64
	for _, c := range out.Calls {
		if c.Kind == simulate.Batch && c.QueueAttempt == qa {
			starts = append(starts, c.Start.Seconds())
		}
	}
	return width(starts)
}

func retryWidth(t *testing.T, sc simulate.Scenario) float64 {
	t.Helper()
	m, err := whatif.Replay(sc, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m.RetryWindowS
}

func width(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	s := append([]float64(nil), v...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	q := func(f float64) float64 {
		pos := f * float64(len(s)-1)
		lo := int(pos)
		hi := min(lo+1, len(s)-1)
		return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
	}
	return q(0.95) - q(0.05)
}

func TestRetriedNonRetryable(t *testing.T) {
	ev := func(start int64, task string, status int32, code string) timeline.Event {
		return timeline.Event{Start: start * 1e9, Layer: timeline.LayerHTTP, Class: timeline.ClassBatch,
			Status: timeline.Small(status), ErrorCode: timeline.Intern(code), Outcome: timeline.Classify(timeline.Small(status), code), TaskID: timeline.Intern(task)}
	}
	tl := &timeline.Timeline{Events: []timeline.Event{
		// t1: a validation error retried twice: 2 wasted attempts.
		ev(1, "t1", 400, "ValidationException"), ev(2, "t1", 400, "ValidationException"), ev(3, "t1", 400, "ValidationException"),
		// t2: a quota error, then a requeue that throttles and an ok: 2 wasted.
		ev(1, "t2", 402, "ServiceQuotaExceededException"), ev(60, "t2", 429, "ThrottlingException"), ev(61, "t2", 200, ""),
		// t3: a quota error not retried: not a finding.
		ev(5, "t3", 402, "ServiceQuotaExceededException"),
		// t4: throttles only.
		ev(1, "t4", 429, ""), ev(2, "t4", 200, ""),
	}}
	got, _ := whatif.RetriedNonRetryable(tl)
	want := []analyze.RetriedError{
		{Code: "ServiceQuotaExceededException", Status: 402, Errors: 2, Retried: 1, Wasted: 2},
		{Code: "ValidationException", Status: 400, Errors: 3, Retried: 2, Wasted: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		g := got[i]
		g.Text = ""
		if g != want[i] {
			t.Errorf("%d: got %+v, want %+v", i, g, want[i])
		}
		if got[i].Text == "" {
			t.Errorf("%d: no sentence", i)
		}
	}
}

// TestRetriedNonRetryableBounded: a code per task, each retried once,
// keeps 19 rows and one for the rest, whose counts add up.
func TestRetriedNonRetryableBounded(t *testing.T) {
	tests := []struct {
		codes      int
		wantRows   int
		wantFolded int64
	}{
		{codes: 5, wantRows: 5},
		{codes: 20, wantRows: 20},
		{codes: 5000, wantRows: 20, wantFolded: 4981},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.codes), func(t *testing.T) {
			var events []timeline.Event
			for i := range tt.codes {
				for k := range 2 {
					events = append(events, timeline.Event{Start: int64(i*2+k) * 1e9, Layer: timeline.LayerHTTP, Status: 400,
						ErrorCode: timeline.Intern(fmt.Sprintf("InvalidThing%dException", i)), Outcome: timeline.OutcomeNonRetryable,
						TaskID: timeline.Intern(fmt.Sprintf("bounded-task-%d", i))})
				}
			}
			got, bound := whatif.RetriedNonRetryable(&timeline.Timeline{Events: events})
			if len(got) != tt.wantRows || bound.Folded != tt.wantFolded || bound.Rows != 20 {
				t.Fatalf("%d rows, bound %+v; want %d rows, %d folded", len(got), bound, tt.wantRows, tt.wantFolded)
			}
			var errs, wasted int64
			for _, r := range got {
				errs += r.Errors
				wasted += r.Wasted
			}
			if errs != int64(2*tt.codes) || wasted != int64(tt.codes) {
				t.Errorf("rows add up to %d errors and %d wasted, want %d and %d", errs, wasted, 2*tt.codes, tt.codes)
			}
		})
	}
}

func TestMeasureNeedsBatchTraffic(t *testing.T) {
	tl := &timeline.Timeline{Events: []timeline.Event{{Start: 1e9, Layer: timeline.LayerHTTP, Class: timeline.ClassInteractive, Status: 200, Outcome: timeline.OutcomeOK}}}
	if _, err := whatif.Measure(tl, &analyze.Result{}, whatif.Given{}); err == nil {
		t.Error("no error for a trace without batch attempts")
	}
}

func BenchmarkWhatIfSeedScenario(b *testing.B) {
	sc, err := simulate.LoadScenario(filepath.Join("..", "testdata", "scenarios", "seed-incident.json"))
	if err != nil {
		b.Fatal(err)
	}
	p := whatif.FromScenario(sc)
	var replays int
	for b.Loop() {
		if _, err := whatif.Run(p, whatif.Options{Seeds: 1}); err != nil {
			b.Fatal(err)
		}
		replays += 5
	}
	b.ReportMetric(float64(replays)/b.Elapsed().Seconds(), "replays/s")
}

// A recorded incident from a real client (botocore standard, time scaled
// 1:6): given the endpoint's limiter as its truth.json records it (bucket,
// refill, token sizes, a tenth of a rejected request charged, a debt of up
// to one bucket), the replay reproduces the trace's requests, waves and
// period within 5%. Everything else is measured from the logs, including
// the client-wide retry quota that leaves most throttled calls at one
// attempt.
func TestReplayRecordedTrace(t *testing.T) {
	dir := filepath.Join("..", "testdata", "traces", "botocore-standard")
	var truth struct {
		Config struct {
			Server struct {
				Capacity     float64 `json:"capacity"`
				Refill       float64 `json:"refill"`
				RejectCharge float64 `json:"reject_charge"`
				DebtFloor    float64 `json:"debt_floor"`
			} `json:"server"`
			BatchCost       float64 `json:"batch_cost_tokens"`
			InteractiveCost float64 `json:"interactive_cost_tokens"`
		} `json:"config"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &truth); err != nil {
		t.Fatal(err)
	}
	srv := truth.Config.Server
	tl, res, err := stampede.AnalyzeTimeline(context.Background(), stampede.Config{
		Inputs: []string{filepath.Join(dir, "access.log"), filepath.Join(dir, "calls.jsonl")}, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := whatif.Measure(tl, res, whatif.Given{
		TokensPerMinute: srv.Refill * 60, BucketTokens: srv.Capacity,
		TaskTokens: truth.Config.BatchCost, InteractiveTokens: truth.Config.InteractiveCost,
		RejectCharge: srv.RejectCharge, DebtTokens: srv.DebtFloor,
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.Scenario.SDK.Budget == nil {
		t.Error("no retry quota measured for botocore standard")
	}
	wi, err := whatif.Run(p, whatif.Options{Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range wi.Validation {
		if !c.OK {
			t.Errorf("%s: trace %v, replay %v (%.1f%% off)", c.Name, c.Trace, c.Simulated, 100*c.Error)
		}
	}
}

// The same recorded incident given as its whole directory and nothing
// else: two access logs of the same requests, the SDK's debug log, and no
// limiter settings. The refill must be measured from the logs (interactive
// traffic took all of it between waves, so the batch alone shows none), and
// the replay must still find the trace's waves and period.
func TestReplayRecordedTraceMeasuredOnly(t *testing.T) {
	dir := filepath.Join("..", "testdata", "traces", "botocore-standard")
	tl, res, err := stampede.AnalyzeTimeline(context.Background(), stampede.Config{Inputs: []string{dir}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := whatif.Measure(tl, res, whatif.Given{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Sources["tokens per minute"] != "measured" || p.Scenario.Bucket.RefillPerS <= 0 {
		t.Fatalf("refill %v (%s), want a measured positive rate", p.Scenario.Bucket.RefillPerS, p.Sources["tokens per minute"])
	}
	wi, err := whatif.Run(p, whatif.Options{Seeds: 2})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range wi.Validation {
		if c.Name == "waves" || strings.HasPrefix(c.Name, "period") {
			checked++
			if !c.OK {
				t.Errorf("%s: trace %v, replay %v (%.1f%% off)", c.Name, c.Trace, c.Simulated, 100*c.Error)
			}
		}
	}
	if checked != 2 {
		t.Errorf("%d wave and period checks in the replay's validation, want 2", checked)
	}
}

// A trace whose batch was never throttled says so, rather than that the
// throttled stretch admitted nothing; given a refill, it replays.
func TestMeasureUnthrottledTrace(t *testing.T) {
	dir := filepath.Join("..", "testdata", "traces", "no-throttle")
	tl, res, err := stampede.AnalyzeTimeline(context.Background(), stampede.Config{Inputs: []string{dir}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = whatif.Measure(tl, res, whatif.Given{})
	if err == nil || !strings.Contains(err.Error(), "never throttled") {
		t.Fatalf("error %v, want one saying the batch was never throttled", err)
	}
	if _, err := whatif.Measure(tl, res, whatif.Given{TokensPerMinute: 60_000}); err != nil {
		t.Fatalf("with a refill given: %v", err)
	}
}

// The job runner's requeue jitter, measured on real recordings: fixed, a
// fixed delay run late now and then, a fixed delay spread by 10% either
// way, and full jitter; and, where whole-second stamps are too coarse to
// tell, kept fixed and named assumed.
func TestMeasureRequeueJitter(t *testing.T) {
	for _, tt := range []struct {
		incident string
		jitter   string
		delayS   float64
		pct      float64
		// accessOnly reads the access log without the calls log.
		accessOnly bool
		source     string
	}{
		{"openai-ra2-fixed10", simulate.JitterNone, 10, 0, false, "measured"},
		{"openai-nora-fixed10", simulate.JitterNone, 10, 0, false, "measured"},
		{"openai-ra3-pct10-15", simulate.JitterPct, 15, 10, false, "measured"},
		{"openai-ra2-full10", simulate.JitterFull, 10, 0, false, "measured"},
		{"openai-ra5-fixed3-max3-short", simulate.JitterNone, 3, 0, true, "assumed"},
	} {
		t.Run(tt.incident, func(t *testing.T) {
			dir := filepath.Join("..", "testdata", "recorded", tt.incident)
			inputs := []string{filepath.Join(dir, "access.log.gz"), filepath.Join(dir, "calls.jsonl.gz")}
			if tt.accessOnly {
				inputs = inputs[:1]
			}
			tl, res, err := stampede.AnalyzeTimeline(context.Background(), stampede.Config{Inputs: inputs, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			p, err := whatif.Measure(tl, res, whatif.Given{TokensPerMinute: 120_000, TaskTokens: 1000, InteractiveTokens: 50})
			if err != nil {
				t.Fatal(err)
			}
			r := p.Scenario.Runner
			if r.RequeueJitter != tt.jitter || math.Abs(r.RequeueDelayS-tt.delayS) > 0.05*tt.delayS || math.Abs(r.RequeueJitterPct-tt.pct) > 1 {
				t.Errorf("requeue %g s, %s jitter (%g%%); want %g s, %s (%g%%)", r.RequeueDelayS, r.RequeueJitter, r.RequeueJitterPct, tt.delayS, tt.jitter, tt.pct)
			}
			if got := p.Sources["requeue jitter"]; got != tt.source {
				t.Errorf("requeue jitter %s, want %s", got, tt.source)
			}
		})
	}
}
