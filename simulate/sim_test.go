package simulate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var scenarioFiles = []string{
	"seed-incident",
	"requeue45-ra7-4attempts",
	"requeue90-500tasks",
	"seed-incident-jittered",
}

func loadTestScenario(t testing.TB, name string) Scenario {
	t.Helper()
	sc, err := LoadScenario(filepath.Join("..", "testdata", "scenarios", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// render runs a scenario and returns its three files.
func render(t testing.TB, sc Scenario) (*Output, map[string][]byte) {
	t.Helper()
	out, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for name, write := range map[string]func(w *bytes.Buffer) error{
		AccessLogFile: func(w *bytes.Buffer) error { return out.WriteAccessLog(w) },
		CallsFile:     func(w *bytes.Buffer) error { return out.WriteCalls(w) },
		TruthFile:     func(w *bytes.Buffer) error { return out.WriteTruth(w) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		files[name] = b.Bytes()
	}
	return out, files
}

func TestDeterminism(t *testing.T) {
	for _, name := range scenarioFiles {
		t.Run(name, func(t *testing.T) {
			sc := loadTestScenario(t, name)
			_, a := render(t, sc)
			_, b := render(t, sc)
			for f := range a {
				if !bytes.Equal(a[f], b[f]) {
					t.Errorf("%s differs between two runs of the same scenario", f)
				}
			}
			sc.Seed++
			_, c := render(t, sc)
			if bytes.Equal(a[AccessLogFile], c[AccessLogFile]) {
				t.Errorf("seed %d and %d gave the same access.log", sc.Seed-1, sc.Seed)
			}
		})
	}
}

// accessLine is the part of a stampede-format line the checks need.
type accessLine struct {
	status, retry int
	task, ra      string
	msec          float64
	requestTime   float64
}

// parseAccessLine splits a line on its quotes: the format alternates quoted
// and bare fields, so the pieces sit at fixed positions.
func parseAccessLine(t *testing.T, n int, line string) accessLine {
	t.Helper()
	parts := strings.Split(line, `"`)
	if len(parts) != 17 {
		t.Fatalf("access.log:%d: %d quote-separated parts, want 17: %s", n, len(parts), line)
	}
	statusBytes := strings.Fields(parts[2])
	times := strings.Fields(parts[6])
	msec := strings.TrimSpace(parts[14])
	var l accessLine
	var err error
	if l.status, err = strconv.Atoi(statusBytes[0]); err != nil {
		t.Fatalf("access.log:%d: status: %v", n, err)
	}
	if l.retry, err = strconv.Atoi(parts[7]); err != nil {
		t.Fatalf("access.log:%d: retry count: %v", n, err)
	}
	if l.msec, err = strconv.ParseFloat(msec, 64); err != nil {
		t.Fatalf("access.log:%d: msec: %v", n, err)
	}
	if l.requestTime, err = strconv.ParseFloat(times[0], 64); err != nil || times[0] != times[1] {
		t.Fatalf("access.log:%d: request times %q", n, parts[6])
	}
	l.task, l.ra = parts[13], parts[15]
	return l
}

type callLine struct {
	Kind         string  `json:"kind"`
	TaskID       *string `json:"task_id"`
	QueueAttempt *int    `json:"queue_attempt"`
	CallID       string  `json:"call_id"`
	Outcome      string  `json:"outcome"`
	ErrorCode    *string `json:"error_code"`
	HTTPStatus   int     `json:"http_status"`
	HTTPAttempts int     `json:"http_attempts"`
	RetryAfter   *int    `json:"retry_after"`
	DurationMs   int64   `json:"duration_ms"`
	TsStart      string  `json:"ts_start"`
	TsEnd        string  `json:"ts_end"`
}

func TestTruthMatchesFiles(t *testing.T) {
	for _, name := range scenarioFiles {
		t.Run(name, func(t *testing.T) {
			sc := loadTestScenario(t, name)
			out, files := render(t, sc)
			checkConsistency(t, sc, out, files)
		})
	}
}

// TestRandomScenarios checks the same invariants over small scenarios drawn
// across every option, so that no combination breaks the accounting.
func TestRandomScenarios(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	pick := func(v ...string) string { return v[rng.IntN(len(v))] }
	for i := range 40 {
		sc := DefaultScenario()
		sc.Name = fmt.Sprintf("random-%d", i)
		sc.Seed = rng.Uint64()
		sc.Bucket.Capacity = 50_000 + float64(rng.IntN(500_000))
		sc.Bucket.RefillPerS = 5_000 + float64(rng.IntN(50_000))
		sc.Bucket.RejectCost = float64(rng.IntN(3)) * 500
		sc.Batch.Tasks = rng.IntN(150)
		sc.Batch.Cost = 1 + float64(rng.IntN(40_000))
		sc.Batch.SubmitWindowS = 3 * rng.Float64()
		sc.Interactive.RatePerS = 8 * rng.Float64()
		sc.Interactive.Arrivals = pick(ArrivalsEven, ArrivalsPoisson)
		sc.SDK.MaxAttempts = 1 + rng.IntN(5)
		sc.SDK.RetryAfterS = rng.IntN(15)
		sc.SDK.RetryAfterMode = pick(RetryAfterExact, RetryAfterJitter, RetryAfterIgnore)
		if rng.IntN(2) == 0 {
			p := sc.SDK
			p.MaxAttempts = 1 + rng.IntN(4)
			p.RetryAfterS = rng.IntN(5)
			p.ErrorCode = "rate_limit_exceeded"
			sc.InteractiveSDK = &p
		}
		sc.Runner.RequeueDelayS = 60 * rng.Float64()
		sc.Runner.RequeueJitter = pick(JitterNone, JitterFull, JitterEqual, JitterPct)
		sc.Runner.RequeueJitterPct = 50 * rng.Float64()
		sc.Runner.MaxQueueAttempts = rng.IntN(4)
		sc.Runner.Survival = rng.Float64()
		sc.TailS = 10 * rng.Float64()
		if rng.IntN(4) == 0 {
			sc.EndS = 30 + 200*rng.Float64()
		}
		t.Run(sc.Name, func(t *testing.T) {
			out, files := render(t, sc)
			checkConsistency(t, sc, out, files)
		})
	}
}

// checkConsistency checks that truth.json, counted while simulating, agrees
// with the access.log and calls.jsonl written from the records.
func checkConsistency(t *testing.T, sc Scenario, out *Output, files map[string][]byte) {
	t.Helper()
	policy := [2]SDKPolicy{Batch: sc.SDK, Interactive: sc.SDK}
	if sc.InteractiveSDK != nil {
		policy[Interactive] = *sc.InteractiveSDK
	}
	tr, err := decodeTruth(files[TruthFile])
	if err != nil {
		t.Fatal(err)
	}

	var lines, throttled int64
	prev := 0.0
	scan := bufio.NewScanner(bytes.NewReader(files[AccessLogFile]))
	for scan.Scan() {
		lines++
		l := parseAccessLine(t, int(lines), scan.Text())
		if l.msec < prev {
			t.Fatalf("access.log:%d: $msec %.3f before the previous line's %.3f", lines, l.msec, prev)
		}
		prev = l.msec
		p := policy[Batch]
		if l.task == "-" {
			p = policy[Interactive]
		}
		switch {
		case l.status == 429:
			throttled++
			if l.ra != strconv.Itoa(p.RetryAfterS) {
				t.Fatalf("access.log:%d: 429 with retry-after %q", lines, l.ra)
			}
		case l.ra != "-":
			t.Fatalf("access.log:%d: status %d with retry-after %q", lines, l.status, l.ra)
		}
		if l.retry >= p.MaxAttempts {
			t.Fatalf("access.log:%d: retry count %d with max_attempts %d", lines, l.retry, p.MaxAttempts)
		}
	}
	if lines != tr.HTTP.Attempts {
		t.Errorf("access.log has %d lines, truth counts %d attempts", lines, tr.HTTP.Attempts)
	}
	if throttled != tr.HTTP.Status429 {
		t.Errorf("access.log has %d 429s, truth counts %d", throttled, tr.HTTP.Status429)
	}

	var calls, failed, attemptsInCalls int64
	prevEnd := ""
	for i, raw := range bytes.Split(bytes.TrimSuffix(files[CallsFile], []byte("\n")), []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		var c callLine
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("calls.jsonl:%d: %v", i+1, err)
		}
		calls++
		attemptsInCalls += int64(c.HTTPAttempts)
		if c.TsEnd < prevEnd {
			t.Fatalf("calls.jsonl:%d: ends %s before the previous call %s", i+1, c.TsEnd, prevEnd)
		}
		prevEnd = c.TsEnd
		p := policy[Batch]
		if c.Kind == "interactive" {
			p = policy[Interactive]
		}
		if c.HTTPAttempts < 1 || c.HTTPAttempts > p.MaxAttempts {
			t.Fatalf("calls.jsonl:%d: %d attempts, max_attempts %d", i+1, c.HTTPAttempts, p.MaxAttempts)
		}
		if c.Outcome == "error" {
			failed++
			if c.ErrorCode == nil || *c.ErrorCode != p.ErrorCode || c.HTTPStatus != 429 || c.HTTPAttempts != p.MaxAttempts {
				t.Fatalf("calls.jsonl:%d: failed call %s", i+1, raw)
			}
		}
		if (c.Kind == "batch") != (c.TaskID != nil && c.QueueAttempt != nil) {
			t.Fatalf("calls.jsonl:%d: kind %s with task %v", i+1, c.Kind, c.TaskID)
		}
	}
	if calls != tr.Calls.Calls || failed != tr.Calls.Failed {
		t.Errorf("calls.jsonl has %d calls, %d failed; truth %d, %d", calls, failed, tr.Calls.Calls, tr.Calls.Failed)
	}
	if attemptsInCalls != tr.HTTP.Attempts {
		t.Errorf("calls.jsonl sums to %d attempts, truth %d", attemptsInCalls, tr.HTTP.Attempts)
	}

	var histCalls, histAttempts int64
	for n, v := range tr.Calls.AttemptsPerCall {
		histCalls += v
		histAttempts += int64(n) * v
		if n > max(policy[Batch].MaxAttempts, policy[Interactive].MaxAttempts) {
			t.Errorf("%d calls made %d attempts", v, n)
		}
	}
	if histCalls != tr.Calls.Calls || histAttempts != tr.HTTP.Attempts {
		t.Errorf("attempts-per-call histogram sums to %d calls, %d attempts; truth %d, %d",
			histCalls, histAttempts, tr.Calls.Calls, tr.HTTP.Attempts)
	}
	var byClass int64
	for _, c := range tr.HTTP.ByClass {
		byClass += c.Attempts
	}
	if byClass != tr.HTTP.Attempts {
		t.Errorf("per-class attempts sum to %d, total %d", byClass, tr.HTTP.Attempts)
	}

	tk := tr.Tasks
	if tk.Succeeded+tk.Abandoned+tk.PendingAtEnd != tk.Submitted {
		t.Errorf("tasks: %d succeeded + %d abandoned + %d pending != %d submitted",
			tk.Succeeded, tk.Abandoned, tk.PendingAtEnd, tk.Submitted)
	}
	var waveCalls, waveOK int64
	for i, w := range tr.Waves {
		waveCalls += w.Calls
		waveOK += w.Succeeded
		if w.Succeeded+w.Failed != w.Calls || w.Requeued+w.Abandoned > w.Failed {
			t.Errorf("wave %d: %+v does not add up", w.QueueAttempt, w)
		}
		if i == 0 {
			continue
		}
		// Every call of wave k+1 is a requeue of a failed call of wave k.
		if w.Calls != tr.Waves[i-1].Requeued || w.Calls > tr.Waves[i-1].Calls {
			t.Errorf("wave %d has %d calls; wave %d had %d and requeued %d",
				i+1, w.Calls, i, tr.Waves[i-1].Calls, tr.Waves[i-1].Requeued)
		}
	}
	if bc := tr.Calls.ByClass["batch"].Calls; waveCalls != bc || waveOK != tk.Succeeded {
		t.Errorf("waves hold %d calls, %d successes; batch has %d calls, %d tasks succeeded", waveCalls, waveOK, bc, tk.Succeeded)
	}
	if m := sc.Runner.MaxQueueAttempts; m > 0 && len(tr.Waves) > m {
		t.Errorf("%d waves with max_queue_attempts %d", len(tr.Waves), m)
	}
	var qaTasks, qaCalls int64
	for n, v := range tk.QueueAttemptsPerTask {
		qaTasks += v
		qaCalls += int64(n) * v
	}
	if qaTasks != tk.Submitted || qaCalls != waveCalls {
		t.Errorf("queue-attempts histogram: %d tasks, %d calls; want %d, %d", qaTasks, qaCalls, tk.Submitted, waveCalls)
	}
	// Rejection charges may take the bucket into its debt, never past it.
	if floor := -sc.Bucket.DebtFloor; tr.Bucket.MinTokens < floor || out.Truth.Bucket.MinTokens < floor {
		t.Errorf("bucket fell to %v tokens, below %v", tr.Bucket.MinTokens, floor)
	}
}

func decodeTruth(b []byte) (Truth, error) {
	var tr Truth
	err := json.Unmarshal(b, &tr)
	return tr, err
}

// TestSeedIncidentShape pins the bundled incident to the figures it stands for.
func TestSeedIncidentShape(t *testing.T) {
	sc := loadTestScenario(t, "seed-incident")
	out, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	tr := out.Truth
	// A failing task's queue attempt lasts 2 retry-after waits plus 3 reject
	// latencies before the 60 s requeue timer starts.
	if want := 60 + 2*12 + 3*0.002; tr.Cycle.ExpectedS != want {
		t.Errorf("expected cycle %v, want %v", tr.Cycle.ExpectedS, want)
	}
	if !tr.Cycle.Periodic {
		t.Error("exact retry-after with a fixed requeue should be periodic")
	}
	if got := tr.Cycle.MedianS; math.Abs(got-84)/84 > 0.02 || got < tr.Cycle.ExpectedS {
		t.Errorf("median cycle %.3f s, want within 2%% of 84 s and not below %.3f", got, tr.Cycle.ExpectedS)
	}
	// The first wave takes the full bucket, 36 tasks of 28,000 tokens.
	// Every later wave's first burst is rejected far past the 1,500,000
	// token debt, and its retries 12 s and 24 s later find the bucket
	// still in debt, so a wave admits only what the 60 s requeue delay
	// refills beyond the debt and the interactive traffic: 8 tasks, for as
	// long as the waves are large enough to put the bucket in debt.
	if w := tr.Waves[0]; w.Succeeded != 36 {
		t.Errorf("wave 1 admitted %d tasks, want 36", w.Succeeded)
	}
	for _, w := range tr.Waves[1:6] {
		if w.Succeeded != 8 {
			t.Errorf("wave %d admitted %d tasks, want 8", w.QueueAttempt, w.Succeeded)
		}
	}
	if last := tr.Waves[len(tr.Waves)-1]; last.Succeeded != last.Calls || last.Calls > 61 {
		t.Errorf("last wave: %d of %d admitted, want all of at most 61", last.Succeeded, last.Calls)
	}
	// The debt is paid while interactive requests arrive: most of them
	// are throttled, though the batch waves last seconds.
	if in := tr.HTTP.ByClass["interactive"]; float64(in.Status429) < 0.5*float64(in.Attempts) {
		t.Errorf("interactive attempts: %d of %d throttled, want at least half", in.Status429, in.Attempts)
	}
	if r := tr.Decay.Ratio; math.Abs(r-0.70) > 0.05 {
		t.Errorf("decay ratio %.3f, want 0.70 ± 0.05", r)
	}
	if tr.WaveCount < 8 || tr.WaveCount > 10 {
		t.Errorf("%d waves, want about 9", tr.WaveCount)
	}
	if ac := tr.Calls.ByClass["batch"].AttemptsPerCall; len(ac) != 3 {
		t.Errorf("batch attempts-per-call %v, want 1, 2 and 3", ac)
	}
	for _, c := range out.Calls {
		if c.Kind == Batch && !c.OK && c.Attempts != 3 {
			t.Fatalf("failed call %s made %d attempts, want 3", out.CallID(&c), c.Attempts)
		}
	}
}

// TestWaveCycles checks that waves of the periodic scenarios recur at the
// spacing their configuration implies: requeue delay + SDK waits + reject
// latencies, plus a little drift as the earliest tasks of each wave succeed.
func TestWaveCycles(t *testing.T) {
	tests := []struct {
		scenario string
		want     float64
	}{
		{"seed-incident", 84.006},
		{"requeue45-ra7-4attempts", 66.008},
		{"requeue90-500tasks", 114.006},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			out, err := Run(loadTestScenario(t, tt.scenario))
			if err != nil {
				t.Fatal(err)
			}
			c := out.Truth.Cycle
			if c.ExpectedS != tt.want {
				t.Errorf("expected cycle %v, want %v", c.ExpectedS, tt.want)
			}
			for i, s := range c.Spacing {
				if s < tt.want || s > tt.want*1.02 {
					t.Errorf("waves %d to %d are %.3f s apart, want %.3f to 2%% more", i+1, i+2, s, tt.want)
				}
			}
			if len(c.Spacing) < 3 {
				t.Errorf("only %d waves", len(c.Spacing)+1)
			}
		})
	}
}

// TestJitteredRequeueSpreadsWaves checks that full jitter on the requeue
// delay smears queue attempts beyond the first over most of the delay.
func TestJitteredRequeueSpreadsWaves(t *testing.T) {
	out, err := Run(loadTestScenario(t, "seed-incident-jittered"))
	if err != nil {
		t.Fatal(err)
	}
	tr := out.Truth
	if tr.Cycle.Periodic {
		t.Error("full requeue jitter reported as periodic")
	}
	w := tr.Waves[1]
	if spread := w.LastStartS - w.FirstStartS; spread < 30 {
		t.Errorf("wave 2 starts spread over %.1f s, want most of the 60 s requeue delay", spread)
	}
}

// TestHandleMsSpreadsRetries pins batch.handle_ms: a client that handles
// its responses one at a time retries a burst of n 429s over n × handle_ms
// and keeps the spread into the next wave; at 0 the burst stays together.
func TestHandleMsSpreadsRetries(t *testing.T) {
	for _, tt := range []struct {
		name     string
		handleMs float64
		// want bounds the span of the second wave's first attempts.
		minS, maxS float64
	}{
		{"handled at once", 0, 0, 0.05},
		{"2 ms each", 2, 0.8 * 0.002 * 200, 1.2 * 0.002 * 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc := burstScenario(200, 0.001, 3)
			sc.Batch.HandleMs = tt.handleMs
			out, err := Run(sc)
			if err != nil {
				t.Fatal(err)
			}
			w := out.Truth.Waves[1]
			if span := w.LastStartS - w.FirstStartS; span < tt.minS || span > tt.maxS {
				t.Errorf("wave 2 starts over %.3f s, want %.3f to %.3f s", span, tt.minS, tt.maxS)
			}
		})
	}
}

// TestFirstWaveMsDelaysFirstFailures pins batch.first_wave_ms: a burst's
// calls act on their first answer no sooner than first_wave_ms after they
// start, so one that fails on its first attempt ends then and one that is
// retried sleeps from then; later waves and a concurrency limit's small
// bursts are not slowed.
func TestFirstWaveMsDelaysFirstFailures(t *testing.T) {
	for _, tt := range []struct {
		name    string
		firstMs float64
		limit   float64
		// want bounds the duration of the first wave's calls that failed
		// after one attempt.
		minS, maxS float64
	}{
		{"at once", 0, 0, 0, 0.01},
		{"slow first wave", 800, 0, 0.8, 0.801},
		{"a limit of 10 opens a thirtieth of the connections", 800, 10, 0.8 / 30, 0.8/30 + 0.001},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc := burstScenario(300, 0.2, 1)
			sc.Batch.FirstWaveMs = tt.firstMs
			if tt.limit > 0 {
				sc.Batch.Concurrency = &Concurrency{Mode: ConcurrencyFixed, Limit: tt.limit}
			}
			out, err := Run(sc)
			if err != nil {
				t.Fatal(err)
			}
			var first, later int
			for _, c := range out.Calls {
				if c.OK {
					continue
				}
				d := (c.End - c.Start).Seconds()
				inBurst := c.QueueAttempt == 1 && c.Start <= seconds(sc.Batch.SubmitS+sc.Batch.SubmitWindowS)
				switch {
				case inBurst:
					first++
					if d < tt.minS || d > tt.maxS {
						t.Fatalf("a first-wave call failed after %.4f s, want %.4f to %.4f s", d, tt.minS, tt.maxS)
					}
				case d > 0.01:
					t.Fatalf("a later call (queue attempt %d) failed after %.4f s, want at once", c.QueueAttempt, d)
				default:
					later++
				}
			}
			if first == 0 || later == 0 {
				t.Errorf("%d first-wave and %d later failures: the scenario does not test both", first, later)
			}
		})
	}
}

// TestPolicies exercises each SDK and runner option on a small scenario and
// checks the bounds each one promises.
func TestPolicies(t *testing.T) {
	base := DefaultScenario()
	base.Batch.Tasks = 200
	tests := []struct {
		name  string
		edit  func(*Scenario)
		check func(*testing.T, *Output)
	}{
		{"queue attempt cap", func(s *Scenario) { s.Runner.MaxQueueAttempts = 2; s.Runner.Survival = 1 },
			func(t *testing.T, o *Output) {
				if len(o.Truth.Waves) > 2 || o.Truth.Tasks.AbandonedByCap == 0 {
					t.Errorf("%d waves, %d abandoned by cap", len(o.Truth.Waves), o.Truth.Tasks.AbandonedByCap)
				}
			}},
		{"retry-after jitter waits between R and 2R", func(s *Scenario) { s.SDK.RetryAfterMode = RetryAfterJitter },
			func(t *testing.T, o *Output) { checkWaits(t, o, 12, 24) }},
		{"ignored retry-after uses capped backoff", func(s *Scenario) {
			s.SDK.RetryAfterMode = RetryAfterIgnore
			s.SDK.BackoffBaseS, s.SDK.BackoffCapS = 0.5, 0.75
		}, func(t *testing.T, o *Output) { checkWaits(t, o, 0, 0.75) }},
		{"equal requeue jitter", func(s *Scenario) { s.Runner.RequeueJitter = JitterEqual },
			func(t *testing.T, o *Output) {
				for _, c := range o.Calls {
					if c.Next == "requeue" && (c.RequeueDelay < 30*time.Second || c.RequeueDelay > 60*time.Second) {
						t.Fatalf("requeue delay %v outside [30 s, 60 s]", c.RequeueDelay)
					}
				}
			}},
		{"pct requeue jitter", func(s *Scenario) { s.Runner.RequeueJitter, s.Runner.RequeueJitterPct = JitterPct, 10 },
			func(t *testing.T, o *Output) {
				for _, c := range o.Calls {
					if c.Next == "requeue" && (c.RequeueDelay < 54*time.Second || c.RequeueDelay > 66*time.Second) {
						t.Fatalf("requeue delay %v outside [54 s, 66 s]", c.RequeueDelay)
					}
				}
			}},
		{"poisson arrivals and a separate interactive SDK", func(s *Scenario) {
			s.Interactive.Arrivals = ArrivalsPoisson
			p := s.SDK
			p.MaxAttempts, p.UserAgent = 1, "OpenAI/JS 6.49.0"
			s.InteractiveSDK = &p
		}, func(t *testing.T, o *Output) {
			if h := o.Truth.Calls.ByClass["interactive"].AttemptsPerCall; len(h) != 1 || h[1] == 0 {
				t.Errorf("interactive attempts per call %v, want all 1", h)
			}
		}},
		{"end_s stops the run with tasks pending", func(s *Scenario) { s.EndS = 120; s.Runner.Survival = 1 },
			func(t *testing.T, o *Output) {
				if o.Truth.Tasks.PendingAtEnd == 0 || o.Truth.Window.BatchResolvedS != -1 {
					t.Errorf("pending %d, resolved at %v", o.Truth.Tasks.PendingAtEnd, o.Truth.Window.BatchResolvedS)
				}
			}},
		{"no batch: interactive only, for tail_s after submit", func(s *Scenario) { s.Batch.Tasks = 0 },
			func(t *testing.T, o *Output) {
				if n := o.Truth.Calls.ByClass["interactive"].Calls; n < 470 || n > 490 {
					t.Errorf("%d interactive calls over 120 s at 4/s", n)
				}
			}},
		{"reject cost keeps the bucket non-negative", func(s *Scenario) { s.Bucket.RejectCost = 5000 },
			func(t *testing.T, o *Output) {
				if o.Truth.Bucket.MinTokens < 0 {
					t.Errorf("bucket fell to %v", o.Truth.Bucket.MinTokens)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := base
			tt.edit(&sc)
			out, err := Run(sc)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, out)
		})
	}
}

// checkWaits checks every SDK wait (next attempt's arrival minus the 429's
// response) of batch calls lies in [lo, hi] seconds.
func checkWaits(t *testing.T, o *Output, lo, hi float64) {
	t.Helper()
	last := map[[2]int]time.Duration{}
	n := 0
	for _, a := range o.Attempts {
		if a.Kind != Batch {
			continue
		}
		key := [2]int{a.Task, a.QueueAttempt}
		if a.Retry > 0 {
			wait := (a.Arrived - last[key]).Seconds()
			if wait < lo-1e-9 || wait > hi+1e-9 {
				t.Fatalf("wait %.3f s outside [%v, %v]", wait, lo, hi)
			}
			n++
		}
		last[key] = a.Logged
	}
	if n == 0 {
		t.Fatal("no retries to check")
	}
}

func TestGeometricRatio(t *testing.T) {
	tests := []struct {
		sizes []float64
		want  float64
	}{
		{[]float64{1000, 700, 490, 343, 240.1}, 0.7},
		{[]float64{8, 4, 2, 1}, 0.5},
		{[]float64{5, 5, 5}, 1},
		{[]float64{100, 0, 25}, 0.5}, // the empty wave is left out
		{[]float64{100}, 0},
		{nil, 0},
	}
	for _, tt := range tests {
		if got := GeometricRatio(tt.sizes); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("GeometricRatio(%v) = %v, want %v", tt.sizes, got, tt.want)
		}
	}
}

func TestAppendMillis(t *testing.T) {
	for ms, want := range map[int64]string{0: "0.000", 7: "0.007", 1234: "1.234", 1796004060030: "1796004060.030"} {
		if got := string(appendMillis(nil, ms)); got != want {
			t.Errorf("appendMillis(%d) = %s, want %s", ms, got, want)
		}
	}
	if got := string(appendMicros(nil, 1796004000000042)); got != "1796004000.000042" {
		t.Errorf("appendMicros = %s", got)
	}
}

func TestLoadTruthRoundTrip(t *testing.T) {
	sc := DefaultScenario()
	out, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := out.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	tr, err := LoadTruth(filepath.Join(dir, TruthFile))
	if err != nil {
		t.Fatal(err)
	}
	if tr.HTTP.Attempts != out.Truth.HTTP.Attempts || tr.Calls.ByClass["batch"].Calls != out.Truth.Calls.ByClass["batch"].Calls {
		t.Errorf("truth attempts %d after a round trip, want %d", tr.HTTP.Attempts, out.Truth.HTTP.Attempts)
	}
	if !tr.Scenario.Start.Equal(sc.Start) || tr.Scenario.Runner != sc.Runner || tr.WaveCount != out.Truth.WaveCount {
		t.Errorf("scenario or waves changed in the round trip")
	}
	if _, err := LoadTruth(filepath.Join(dir, "nope.json")); !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing truth: %v", err)
	}
}

func BenchmarkRunSeedIncident(b *testing.B) {
	sc := loadTestScenario(b, "seed-incident")
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

func BenchmarkWriteAccessLog(b *testing.B) {
	out, err := Run(loadTestScenario(b, "seed-incident"))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	var n int64
	for b.Loop() {
		buf.Reset()
		if err := out.WriteAccessLog(&buf); err != nil {
			b.Fatal(err)
		}
		n += int64(buf.Len())
	}
	b.ReportMetric(float64(n)/1e6/b.Elapsed().Seconds(), "MB/s")
}

// burstScenario is a batch of tasks submitted within window seconds into a
// bucket they overrun at once, with no interactive traffic, an SDK making
// up to maxAttempts per call and honouring a 2 s retry-after, and a runner
// requeuing every failure once after 10 s.
func burstScenario(tasks int, window float64, maxAttempts int) Scenario {
	sc := DefaultScenario()
	sc.Interactive.RatePerS = 0
	sc.Batch.Tasks, sc.Batch.Cost, sc.Batch.SubmitWindowS = tasks, 1000, window
	sc.Bucket.Capacity, sc.Bucket.RefillPerS = 5000, 100
	sc.SDK.MaxAttempts, sc.SDK.RetryAfterS, sc.SDK.RetryAfterMode = maxAttempts, 2, RetryAfterExact
	sc.Runner = RunnerPolicy{RequeueDelayS: 10, RequeueJitter: JitterNone, Survival: 1, MaxQueueAttempts: 2}
	return sc
}

// TestRetryAfterMsSetsTheWait pins sdk.retry_after_ms: an SDK that reads
// it sleeps the milliseconds, not the whole seconds of retry-after, which
// the 429 still carries; the expected cycle follows the sleep.
func TestRetryAfterMsSetsTheWait(t *testing.T) {
	tests := []struct {
		name     string
		ms       float64
		wantWait float64
	}{
		{"whole seconds only", 0, 3},
		{"milliseconds beside them", 2500, 2.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := burstScenario(40, 0.5, 3)
			sc.SDK.RetryAfterS, sc.SDK.RetryAfterMs = 3, tt.ms
			if err := sc.Validate(); err != nil {
				t.Fatal(err)
			}
			out, err := Run(sc)
			if err != nil {
				t.Fatal(err)
			}
			type try struct{ task, queueAttempt, retry int }
			logged := map[try]Attempt{}
			for _, a := range out.Attempts {
				logged[try{a.Task, a.QueueAttempt, a.Retry}] = a
			}
			gaps := 0
			for _, a := range out.Attempts {
				prev, ok := logged[try{a.Task, a.QueueAttempt, a.Retry - 1}]
				if a.Retry == 0 || !ok {
					continue
				}
				if prev.RetryAfter != 3 {
					t.Fatalf("a 429 carries retry-after %d, want the whole seconds, 3", prev.RetryAfter)
				}
				// The SDK's sleep starts when the 429 reaches it, one
				// network latency after the proxy logged it.
				if gap := (a.Arrived - prev.Logged).Seconds(); gap < tt.wantWait || gap > tt.wantWait+0.5 {
					t.Errorf("task %d retry %d came %.3f s after the 429, want %.1f s and a latency", a.Task, a.Retry, gap, tt.wantWait)
				}
				gaps++
			}
			if gaps == 0 {
				t.Fatal("no retries to time")
			}
			want := sc.Runner.RequeueDelayS + 2*tt.wantWait
			if c := out.Truth.Cycle.ExpectedS; c < want || c > want+1 {
				t.Errorf("expected cycle %.3f s, want %.1f s and the attempts' latencies", c, want)
			}
		})
	}
}
