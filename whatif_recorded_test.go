package stampede_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/internal/golden"
	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/whatif"
)

// whatIfPairs are recorded incidents, each with a real re-run of the same
// client, load and limiter under one of the alternatives whatif offers
// (testdata/recorded/whatif-scenarios.json defines the re-runs). The
// harness has no AIMD job runner, so the adaptive row has no pair.
var whatIfPairs = []struct {
	incident, rerun, row string
}{
	{"openai-ra2-fixed10", "openai-ra2-full10", whatif.RowJitter},
	{"openai-ra2-fixed10", "whatif/openai-ra2-full10-cap3", whatif.RowCap},
	{"openai-ra2-fixed10", "whatif/openai-ra2-full10-cap3-conc4", whatif.RowLimit},
	{"anthropic-ra2-fixed12", "whatif/anthropic-ra2-full12", whatif.RowJitter},
	{"anthropic-ra2-fixed12", "whatif/anthropic-ra2-full12-cap3-conc4", whatif.RowLimit},
	{"bedrock-ra2-fixed10", "whatif/bedrock-ra2-full10-cap3", whatif.RowCap},
	{"boto-standard-fixed10", "whatif/boto-standard-full10-cap3-conc4", whatif.RowLimit},
	{"openai-ra5-fixed20", "whatif/openai-ra5-full20-cap3-conc7", whatif.RowLimit},
	{"openai-ra1-fixed5", "whatif/openai-ra1-full5-cap3", whatif.RowCap},
	{"openai-ra3-pct10-15", "whatif/openai-ra3-full15", whatif.RowJitter},
	{"bedrock-ra3-pct10-15", "whatif/bedrock-ra3-full15-cap3-conc6", whatif.RowLimit},
	// The same re-runs recorded again with the job runner's seeds 43 and
	// 44 (its give-up and jitter draws), every one that was recorded: how
	// far one real run of a policy strays from another is what no
	// prediction can be held closer to.
	{"openai-ra2-fixed10", "whatif/openai-ra2-full10-s43", whatif.RowJitter},
	{"openai-ra2-fixed10", "whatif/openai-ra2-full10-s44", whatif.RowJitter},
	{"anthropic-ra2-fixed12", "whatif/anthropic-ra2-full12-s43", whatif.RowJitter},
	{"anthropic-ra2-fixed12", "whatif/anthropic-ra2-full12-s44", whatif.RowJitter},
	{"openai-ra3-pct10-15", "whatif/openai-ra3-full15-s43", whatif.RowJitter},
	{"openai-ra3-pct10-15", "whatif/openai-ra3-full15-s44", whatif.RowJitter},
	{"bedrock-ra2-fixed10", "whatif/bedrock-ra2-full10-cap3-s43", whatif.RowCap},
	{"bedrock-ra2-fixed10", "whatif/bedrock-ra2-full10-cap3-s44", whatif.RowCap},
}

// whatIfRepeats are incidents recorded again with other job-runner seeds:
// the as-measured row must find their waves and period too.
var whatIfRepeats = []string{
	"whatif/openai-ra1-fixed5-s43", "whatif/openai-ra1-fixed5-s44", "whatif/openai-ra2-fixed10-s43",
	"openai-ra2-fixed10-caddy", "openai-ra2-fixed10-poller", "anthropic-ra1-fixed8-max4", "boto-standard-fixed12-caddy",
	"boto-standard-fixed14", "openai-ra2-fixed10-nginx", "openai-ra2-fixed10-nocharge", "openai-ra2-fixed10-max0",
	"openai-radate3-fixed10", "anthropic-rams2500-fixed10", "anthropic-radate2-fixed12", "openai-ra12-fixed60-unscaled",
}

// rerunTruth is the part of a re-run's truth.json the comparison uses.
type rerunTruth struct {
	Config struct {
		Server struct {
			Refill float64 `json:"refill"`
		} `json:"server"`
		BatchCost        float64 `json:"batch_cost_tokens"`
		InteractiveCost  float64 `json:"interactive_cost_tokens"`
		RequeueJitter    string  `json:"requeue_jitter"`
		MaxQueueAttempts *int    `json:"max_queue_attempts"`
		Concurrency      *int    `json:"concurrency_limit"`
		SDK              struct {
			Package string `json:"package"`
		} `json:"sdk"`
	} `json:"config"`
	Window struct {
		First          string  `json:"first_request_utc"`
		Duration       float64 `json:"duration_s"`
		Submit         string  `json:"batch_submit_utc"`
		BatchResolvedS float64 `json:"batch_resolved_rel_s"`
	} `json:"window"`
	HTTP struct {
		Requests int64            `json:"requests"`
		ByStatus map[string]int64 `json:"by_status"`
		ByClass  map[string]struct {
			Requests  int64 `json:"requests"`
			Throttled int64 `json:"status_429"`
		} `json:"by_class"`
	} `json:"http"`
	Headline struct {
		TasksSucceeded int64 `json:"tasks_succeeded"`
	} `json:"headline"`
	AccessLog struct {
		PerSecond []int64 `json:"per_second_all"`
	} `json:"access_log_check"`
	AccessMsec struct {
		PerSecondByStart []int64 `json:"per_second_all_by_start"`
	} `json:"access_msec_check"`
}

// tailS is the interactive-only time the run kept going after the batch
// resolved.
func (t *rerunTruth) tailS() (float64, error) {
	first, err := time.Parse(time.RFC3339Nano, t.Window.First)
	if err != nil {
		return 0, err
	}
	submit, err := time.Parse(time.RFC3339Nano, t.Window.Submit)
	if err != nil {
		return 0, err
	}
	return t.Window.Duration - submit.Sub(first).Seconds() - t.Window.BatchResolvedS, nil
}

// runFigures are the figures compared, counted alike on the real run and
// on a replay: over the run, from the first request to the end of the tail
// after the batch resolved, both classes.
type runFigures struct {
	Requests, Peak, TasksDone, Billed float64
	DrainS                            float64
	InteractiveShare, InteractiveP99S float64
}

func realFigures(dir string) (runFigures, *rerunTruth, error) {
	var t rerunTruth
	if err := readJSON(filepath.Join(dir, "truth.json"), &t); err != nil {
		return runFigures{}, nil, err
	}
	// Per second of request start where the proxy logged sub-second
	// times, else of completion; the replay bins by arrival.
	perSec := t.AccessMsec.PerSecondByStart
	if len(perSec) == 0 {
		perSec = t.AccessLog.PerSecond
	}
	in := t.HTTP.ByClass["interactive"]
	f := runFigures{
		Requests: float64(t.HTTP.Requests), Peak: float64(slices.Max(perSec)), TasksDone: float64(t.Headline.TasksSucceeded),
		Billed: float64(t.HTTP.ByStatus["200"]), DrainS: t.Window.BatchResolvedS,
		InteractiveShare: float64(in.Throttled) / float64(max(1, in.Requests)),
	}
	lat, err := interactiveLatencies(filepath.Join(dir, "calls.jsonl.gz"))
	if err != nil {
		return runFigures{}, nil, err
	}
	f.InteractiveP99S = quantile(lat, 0.99)
	return f, &t, nil
}

// rowOf checks that a re-run ran the policy a row describes: full-jitter
// requeue, the row's cap and concurrency limit, nothing else changed.
func rowOf(t *rerunTruth, sc simulate.Scenario) error {
	deref := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	limit := 0
	if c := sc.Batch.Concurrency; c != nil {
		limit = int(c.Limit)
	}
	if t.Config.RequeueJitter != sc.Runner.RequeueJitter || deref(t.Config.MaxQueueAttempts) != sc.Runner.MaxQueueAttempts || deref(t.Config.Concurrency) != limit {
		return fmt.Errorf("re-run with requeue jitter %s, cap %d, concurrency %d; the row has %s, %d, %d",
			t.Config.RequeueJitter, deref(t.Config.MaxQueueAttempts), deref(t.Config.Concurrency), sc.Runner.RequeueJitter, sc.Runner.MaxQueueAttempts, limit)
	}
	return nil
}

// interactiveLatencies are the interactive calls' times, first attempt to
// outcome, from the application's call log.
func interactiveLatencies(path string) ([]float64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []float64
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var c struct {
			Kind  string  `json:"kind"`
			Start float64 `json:"t_start"`
			End   float64 `json:"t_end"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if c.Kind == "interactive" {
			out = append(out, c.End-c.Start)
		}
	}
	return out, sc.Err()
}

// replayFigures counts one replay as realFigures counts a run: up to the
// batch's resolution plus the run's tail (the replay itself goes on to a
// horizon every row shares).
func replayFigures(m whatif.Metrics, tailS float64) runFigures {
	out := m.Output
	end := time.Duration(math.Inf(1))
	if r := out.Truth.Window.BatchResolvedS; r >= 0 {
		end = time.Duration((r + tailS) * float64(time.Second))
	}
	f := runFigures{Peak: float64(m.PeakPerSecond)}
	var iAttempts, iThrottled int64
	for i := range out.Attempts {
		a := &out.Attempts[i]
		if a.Arrived > end {
			continue
		}
		f.Requests++
		if a.Status == 200 {
			f.Billed++
		}
		if a.Kind == simulate.Interactive {
			iAttempts++
			if a.Status == 429 {
				iThrottled++
			}
		}
	}
	var lat []float64
	for i := range out.Calls {
		if c := &out.Calls[i]; c.Kind == simulate.Interactive && c.Start <= end {
			lat = append(lat, (c.End - c.Start).Seconds())
		}
	}
	f.InteractiveShare = float64(iThrottled) / float64(max(1, iAttempts))
	f.InteractiveP99S = quantile(lat, 0.99)
	f.TasksDone = float64(m.TasksDone)
	f.DrainS = m.DrainS
	return f
}

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

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// whatIfFigure is one compared figure and its acceptance target: a
// relative error, or for a share a difference in points; 0 is compared
// and reported but has no target.
type whatIfFigure struct {
	name   string
	get    func(runFigures) float64
	target float64
	points bool
}

var whatIfFigures = []whatIfFigure{
	{"requests", func(f runFigures) float64 { return f.Requests }, 0.10, false},
	{"peak", func(f runFigures) float64 { return f.Peak }, 0.20, false},
	{"tasks done", func(f runFigures) float64 { return f.TasksDone }, 0.10, false},
	{"drain", func(f runFigures) float64 { return f.DrainS }, 0.10, false},
	{"interactive throttled", func(f runFigures) float64 { return f.InteractiveShare }, 0.02, true},
	{"interactive p99", func(f runFigures) float64 { return f.InteractiveP99S }, 0, false},
	{"billed", func(f runFigures) float64 { return f.Billed }, 0, false},
}

func (w whatIfFigure) err(pred, real float64) float64 {
	if w.points {
		return math.Abs(pred - real)
	}
	if real == 0 {
		if pred == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Abs(pred-real) / math.Abs(real)
}

// whatIfKnownMisses are acceptance targets missed today, each with the
// reason. The test fails when one starts to pass, so the list cannot go
// stale.
var whatIfKnownMisses = map[string]string{
	// Whether a storm's last few tasks make one more wave is the job
	// runner's give-up draw and the size of the last wave, which the
	// analysis counts only above a handful of calls. This repeat's
	// answers fit a debt of 6,000 tokens best (5,000 to 7,000 alike;
	// the endpoint's is 7,000), under which 10 of 21 seeds make its 10
	// waves and 11 make fewer, a coin toss the median settles at 9.
	"whatif/openai-ra1-fixed5-s43/as measured/waves": "seeds make 10 waves in 10 of 21, 9 in 10, 8 in 1; the recording made 10",
	// Incidents recorded later, that whatif was not built on: each
	// period is reproduced (14.26 s replayed at 14.02 s, 14.15 at 14.07,
	// 12.08 at 12.06), and the count misses by the last wave, of 12, 1
	// and 3 calls, which the replays' seeds make or not.
	"openai-ra2-fixed10-caddy/as measured/waves":  "seeds make 7 waves in 11 of 21 and 6 in 10; the recording made 6",
	"openai-ra2-fixed10-poller/as measured/waves": "seeds make 9 waves in 7 of 21 and 8 in 14; the recording made 9",
	"anthropic-ra1-fixed8-max4/as measured/waves": "seeds make 9 waves in 7 of 21 and 8 in 14; the recording made 9",
	// Recorded later still, after the wait-until-a-clock-time rule: its
	// last wave was one call.
	"anthropic-radate2-fixed12/as measured/waves": "seeds make 9 waves in 8 of 21 and 8 in 13; the recording made 9",
	// The seed-42 re-run finished 28 tasks; the same re-run recorded
	// with the job runner's seeds 43 and 44 finished 31 and 33, so two
	// real runs of one policy differ by more than the target allows.
	"whatif/anthropic-ra2-full12/tasks done": "33 predicted (seeds 30 to 38), 28 real (31 and 33 with other runner seeds, which meet the target)",
	// With the 10% charge the fit finds (and a debt of 6,600 and 6,400
	// tokens, the endpoint's being 7,000), full jitter throttles 82.1 to
	// 85.6% of the interactive attempts where these re-runs throttled
	// 86.7 and 86.0%; recorded again at other runner seeds they throttled
	// 84.6 and 82.9% (openai) and 84.2 and 83.8% (anthropic), all within
	// the target.
	"openai-ra2-full10/interactive throttled":           "84.2% predicted (seeds 82.1 to 85.6%), 86.7% real (84.6 and 82.9% with other runner seeds)",
	"whatif/anthropic-ra2-full12/interactive throttled": "82.8% predicted (seeds 82.1 to 84.8%), 86.0% real (84.2 and 83.8% with other runner seeds)",
	// The jitter + cap re-run of bedrock-ra2-fixed10 finished 9, 8 and 11
	// tasks of 300 at the job runner's seeds 42, 43 and 44, two real runs
	// of one policy further apart than the target allows; the replays
	// finish 7 to 9 (median 7) with the fitted limiter (10%, a debt of
	// 7,600 tokens where the endpoint keeps 7,000), and 7 to 9 (median
	// 8) with the endpoint's given. All three above the replays' median
	// is a bias of one or two tasks in nine.
	"whatif/bedrock-ra2-full10-cap3/tasks done":     "7 predicted (seeds 7 to 9), 9 real",
	"whatif/bedrock-ra2-full10-cap3-s43/tasks done": "7 predicted (seeds 7 to 9), 8 real",
	"whatif/bedrock-ra2-full10-cap3-s44/tasks done": "7 predicted (seeds 7 to 9), 11 real",
	// Tasks done under full jitter is the job runner's draws: 40, 42 and
	// 39 in the three re-runs, 38 to 47 over the replays' seeds, whose
	// median of 43 is 10.3% above the third.
	"whatif/openai-ra3-full15-s44/tasks done": "43 predicted (seeds 38 to 47), 39 real (40 and 42 with other runner seeds)",
}

// whatIfIncident is a recorded incident as whatif measured it.
type whatIfIncident struct {
	p whatif.Params
	// tailS is how long the recording ran on after its batch resolved;
	// the re-runs have the same tail.
	tailS float64
}

// measureIncident runs whatif on an incident's access log and call log,
// given only what a user knows (the quota and the token sizes), and checks
// that its "as measured" replay finds the trace's waves and period.
func measureIncident(t *testing.T, name string, seeds int, table *strings.Builder, missed map[string]bool) whatIfIncident {
	t.Helper()
	dir := filepath.Join("testdata", "recorded", name)
	var truth rerunTruth
	if err := readJSON(filepath.Join(dir, "truth.json"), &truth); err != nil {
		t.Fatal(err)
	}
	tail, err := truth.tailS()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	cfg := stampede.Config{Inputs: []string{filepath.Join(dir, "access.log.gz"), filepath.Join(dir, "calls.jsonl.gz")}}
	tl, res, err := stampede.AnalyzeTimeline(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	given := whatif.Given{TokensPerMinute: truth.Config.Server.Refill * 60, TaskTokens: truth.Config.BatchCost, InteractiveTokens: truth.Config.InteractiveCost}
	p, err := whatif.Measure(tl, res, given)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	wi, err := whatif.Run(p, whatif.Options{Seeds: seeds})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// The waves of each seed's replay, to show the spread the median
	// comes from.
	var perSeed []string
	for i := range max(seeds, whatif.WaveSeeds) {
		m, err := whatif.Replay(whatif.Prepare(p.Scenario, whatif.Horizon(p), p.Scenario.Seed+uint64(i)), p.TraceDurationS)
		if err != nil {
			t.Fatal(err)
		}
		r, err := whatif.AnalyzeReplay(m.Output)
		if err != nil {
			t.Fatal(err)
		}
		perSeed = append(perSeed, fmt.Sprint(len(r.Waves.Waves)))
	}
	for _, c := range wi.Validation {
		if c.Name == "HTTP requests in the trace's window" {
			continue
		}
		fmt.Fprintf(table, "%-40s %-34s %s: trace %.4g, replay %.4g", name, whatif.RowMeasured, c.Name, c.Trace, c.Simulated)
		if c.Name == "waves" {
			fmt.Fprintf(table, " (seeds: %s)", strings.Join(perSeed, " "))
		}
		table.WriteString("\n")
		checkWhatIfTarget(t, name+"/as measured/"+c.Name, c.OK, fmt.Sprintf("trace %.4g, replay %.4g (seeds: %s)", c.Trace, c.Simulated, strings.Join(perSeed, " ")), missed)
	}
	fmt.Fprintf(table, "%-40s %-34s reject charge %.0f%%, debt %.0f tokens, bucket %.0f tokens (%s)", name, "limiter fitted",
		100*p.Scenario.Bucket.RejectFraction, p.Scenario.Bucket.DebtFloor, p.Scenario.Bucket.Capacity, p.Sources["reject charge"])
	if f := p.Limiter; f != nil && f.Judged && f.Charge > 0 {
		fmt.Fprintf(table, ": charges %.0f to %.0f%% and debts %.0f to %.0f tokens within %.1f s of the best %.2f s, plain bucket %.1f s",
			100*f.ChargeLow, 100*f.ChargeHigh, f.DebtLow, f.DebtHigh, f.ToleranceS, f.LossS, f.PlainLossS)
	}
	if f := p.BucketFit; f != nil {
		fmt.Fprintf(table, "; bucket sizes %.0f to %.0f tokens within %.1f s of the best %.2f s (the roundest of %.0f to %.0f taken), bursts %.0f", f.Low, f.High, f.ToleranceS, f.LossS, f.BestLow, f.BestHigh, f.BurstTokens)
	}
	table.WriteString("\n")
	return whatIfIncident{p, tail}
}

// predictRerun replays the row a re-run ran and counts each seed as the
// re-run was counted.
func predictRerun(t *testing.T, inc whatIfIncident, row string, rerun *rerunTruth, seeds int) []runFigures {
	t.Helper()
	var pol *whatif.Policy
	for _, q := range whatif.Policies(inc.p.Scenario) {
		if q.Name == row {
			pol = &q
		}
	}
	if pol == nil {
		t.Fatalf("whatif has no row %q", row)
	}
	if err := rowOf(rerun, pol.Scenario); err != nil {
		t.Fatalf("no re-run of the row %q: %v", row, err)
	}
	var runs []runFigures
	for i := range seeds {
		m, err := whatif.Replay(whatif.Prepare(pol.Scenario, whatif.Horizon(inc.p), inc.p.Scenario.Seed+uint64(i)), inc.p.TraceDurationS)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, replayFigures(m, inc.tailS))
	}
	return runs
}

// TestWhatIfAgainstRealRuns holds whatif's predictions to real re-runs:
// for each pair, the row's replays of the incident against the re-run's
// truth, figure by figure, and writes the track record every comparison
// quotes (whatif/track_record.json; -update rewrites it).
func TestWhatIfAgainstRealRuns(t *testing.T) {
	if testing.Short() {
		// Hundreds of sequential replays: the full test run checks them,
		// and under the race detector (CI's -short step) they would take
		// two minutes to find no race, since the replay starts no
		// goroutines.
		t.Skip("replays every recorded pair; runs without -short")
	}
	const seeds = 5
	incidents := map[string]whatIfIncident{}
	missed := map[string]bool{}
	worst, met := map[string]float64{}, map[string]int{}
	var record whatif.TrackRecord
	clients, rows := map[string]bool{}, map[string]bool{}
	var table strings.Builder
	fmt.Fprintf(&table, "%-40s %-34s", "re-run", "row: predicted/real")
	for _, f := range whatIfFigures {
		fmt.Fprintf(&table, " %22s", f.name)
	}
	table.WriteString("\n")
	for _, pair := range whatIfPairs {
		inc, ok := incidents[pair.incident]
		if !ok {
			inc = measureIncident(t, pair.incident, seeds, &table, missed)
			incidents[pair.incident] = inc
		}
		real, rerun, err := realFigures(filepath.Join("testdata", "recorded", pair.rerun))
		if err != nil {
			t.Fatal(err)
		}
		runs := predictRerun(t, inc, pair.row, rerun, seeds)
		record.ReRuns++
		clients[strings.Fields(rerun.Config.SDK.Package)[0]] = true
		rows[pair.row] = true
		fmt.Fprintf(&table, "%-40s %-34s", pair.rerun, pair.row)
		for _, f := range whatIfFigures {
			v := make([]float64, len(runs))
			for i, r := range runs {
				v[i] = f.get(r)
			}
			pred, want := quantile(v, 0.5), f.get(real)
			e := f.err(pred, want)
			worst[f.name] = math.Max(worst[f.name], e)
			fmt.Fprintf(&table, " %10.4g/%-10.4g", pred, want)
			if f.target > 0 {
				if e <= f.target {
					met[f.name]++
				}
				checkWhatIfTarget(t, pair.rerun+"/"+f.name, e <= f.target, fmt.Sprintf("predicted %.4g (seeds %.4g to %.4g), real %.4g", pred, slices.Min(v), slices.Max(v), want), missed)
			}
		}
		table.WriteString("\n")
	}
	for _, name := range whatIfRepeats {
		incidents[name] = measureIncident(t, name, seeds, &table, missed)
	}
	t.Logf("predicted/real per re-run:\n%s", table.String())
	for key, reason := range whatIfKnownMisses {
		if !missed[key] {
			t.Errorf("%s now meets its target (listed as a known miss: %s): take it off whatIfKnownMisses", key, reason)
		}
	}
	record.Measured = len(incidents)
	paired := map[string]bool{}
	for _, pair := range whatIfPairs {
		paired[pair.incident] = true
	}
	record.Incidents = len(paired)
	for _, f := range whatIfFigures {
		record.Figures = append(record.Figures, whatif.Figure{Name: f.name, Worst: math.Round(worst[f.name]*1000) / 1000, Points: f.points, Target: f.target, Met: met[f.name]})
	}
	for _, r := range []string{whatif.RowJitter, whatif.RowCap, whatif.RowLimit, whatif.RowAdaptive} {
		if rows[r] {
			record.Rows = append(record.Rows, r)
		} else {
			record.Unchecked = append(record.Unchecked, r)
		}
	}
	for c := range clients {
		record.Clients = append(record.Clients, c)
	}
	slices.Sort(record.Clients)
	b, err := json.MarshalIndent(record, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// The comparison's note quotes this file: it must say what this test
	// measured.
	golden.Check(t, filepath.Join("whatif", "track_record.json"), append(b, '\n'))
}

// checkWhatIfTarget fails the test on a missed target unless it is a known
// miss, and notes the miss.
func checkWhatIfTarget(t *testing.T, key string, ok bool, detail string, missed map[string]bool) {
	t.Helper()
	if ok {
		return
	}
	missed[key] = true
	if _, known := whatIfKnownMisses[key]; !known {
		t.Errorf("%s: target missed: %s", key, detail)
	}
}
