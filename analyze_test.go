package stampede_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/internal/golden"
	"github.com/stampede/stampede/internal/racedetect"
	"github.com/stampede/stampede/report"
	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/timeline"
)

func analyzeDir(t *testing.T, cfg stampede.Config) *analyze.Result {
	t.Helper()
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	res, err := stampede.Analyze(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Analyze(%v): %v", cfg.Inputs, err)
	}
	return res
}

// fileCounts are taken straight from the generated files with plain string
// handling, independently of the ingest package, so that the analysis is
// checked against the files rather than against itself.
type fileCounts struct {
	attempts, throttled int64
	calls, failedCalls  int64
}

func countFiles(t *testing.T, dir string) fileCounts {
	t.Helper()
	var c fileCounts
	eachLine(t, filepath.Join(dir, "access.log"), func(line string) {
		c.attempts++
		// The status follows the quoted request line: `... HTTP/1.1" 429 65 ...`.
		_, after, ok := strings.Cut(line, `HTTP/1.1" `)
		if !ok {
			t.Fatalf("access line without request: %q", line)
		}
		if strings.HasPrefix(after, "429 ") {
			c.throttled++
		}
	})
	eachLine(t, filepath.Join(dir, "calls.jsonl"), func(line string) {
		var rec struct {
			Outcome string `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("calls.jsonl: %v", err)
		}
		c.calls++
		if rec.Outcome != "ok" {
			c.failedCalls++
		}
	})
	return c
}

func eachLine(t *testing.T, path string, fn func(string)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if sc.Text() != "" {
			fn(sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// poissonRatio is the geometric ratio the analysis fits (a Poisson fit with
// a log link) applied to the truth's own wave sizes. truth.json's decay
// ratio is least squares on log size, which a last wave of a few calls
// drags far down.
func poissonRatio(sizes []float64) float64 {
	a, b := math.Log(max(sizes[0], 1)), 0.0
	for iter := 0; iter < 100; iter++ {
		var sw, sx, sz, sxx, sxz float64
		for i, y := range sizes {
			x := float64(i)
			mu := math.Exp(a + b*x)
			z := a + b*x + (y-mu)/mu
			sw, sx, sz = sw+mu, sx+mu*x, sz+mu*z
			sxx, sxz = sxx+mu*x*x, sxz+mu*x*z
		}
		nb := (sxz - sx*sz/sw) / (sxx - sx*sx/sw)
		a, b = (sz-nb*sx)/sw, nb
	}
	return math.Exp(b)
}

func layer(res *analyze.Result, name string) analyze.LayerStats {
	for _, l := range res.Amplification.Layers {
		if l.Name == name {
			return l
		}
	}
	return analyze.LayerStats{}
}

// TestSimulatedIncidents runs the whole pipeline on the bundled incident and
// on fresh simulator runs with other parameters, and holds each result to the
// truth the simulator counted while it ran.
func TestSimulatedIncidents(t *testing.T) {
	racedetect.SkipResultsTest(t)
	tests := []struct {
		name     string
		scenario string
		// dir, when set, is an incident already on disk (the bundled one).
		dir      string
		periodic bool
	}{
		{name: "bundled seed incident", dir: "testdata/seed-incident", periodic: true},
		{name: "seed incident", scenario: "testdata/scenarios/seed-incident.json", periodic: true},
		{name: "requeue 45 s, retry-after 7, 4 attempts", scenario: "testdata/scenarios/requeue45-ra7-4attempts.json", periodic: true},
		{name: "requeue 90 s, 500 tasks", scenario: "testdata/scenarios/requeue90-500tasks.json", periodic: true},
		{name: "seed incident, full jitter on requeue", scenario: "testdata/scenarios/seed-incident-jittered.json", periodic: false},
	}
	// Fresh runs use other seeds than the scenario files, so the checks hold
	// for the configuration, not for one lucky draw.
	seeds := []uint64{0, 7919, 104729}
	for _, tc := range tests {
		for _, seed := range seeds {
			if tc.dir != "" && seed != 0 {
				continue
			}
			name := tc.name
			if tc.dir == "" {
				name += "/seed+" + strconv.FormatUint(seed, 10)
			}
			t.Run(name, func(t *testing.T) {
				checkSimulated(t, tc.dir, tc.scenario, seed, tc.periodic)
			})
		}
	}
}

// checkSimulated analyses one simulated incident, from dir or freshly run
// from scenario with its seed moved by seedShift, against its truth.
func checkSimulated(t *testing.T, dir, scenario string, seedShift uint64, periodic bool) {
	if dir == "" {
		sc, err := simulate.LoadScenario(scenario)
		if err != nil {
			t.Fatal(err)
		}
		sc.Seed += seedShift
		out, err := simulate.Run(sc)
		if err != nil {
			t.Fatal(err)
		}
		dir = t.TempDir()
		if err := out.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
	}
	truth, err := simulate.LoadTruth(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	res := analyzeDir(t, stampede.Config{Inputs: []string{dir}})
	files := countFiles(t, dir)

	// The two rates are exactly the counts in the files.
	rc := res.Reconcile
	if rc.HTTP.Attempts != files.attempts || rc.HTTP.Throttled != files.throttled {
		t.Errorf("HTTP attempts/throttled = %d/%d, files say %d/%d", rc.HTTP.Attempts, rc.HTTP.Throttled, files.attempts, files.throttled)
	}
	if rc.App.Calls != files.calls || rc.App.Failed != files.failedCalls {
		t.Errorf("calls/failed = %d/%d, files say %d/%d", rc.App.Calls, rc.App.Failed, files.calls, files.failedCalls)
	}
	wantRate := float64(files.throttled) / float64(files.attempts)
	if !within(rc.HTTP.ThrottleRate, wantRate, 1e-12) {
		t.Errorf("HTTP throttle rate %v, want %v", rc.HTTP.ThrottleRate, wantRate)
	}
	if got := rc.ThrottledRecovered + rc.ThrottledInFailedCalls + rc.ThrottledInUnknownCalls + rc.ThrottledUnjoined; got != rc.HTTP.Throttled {
		t.Errorf("throttled parts sum to %d, want %d", got, rc.HTTP.Throttled)
	}

	// Attempts per call: the SDK's configured maximum, seen as a cap.
	apc := layer(res, "attempts per call")
	if int(apc.Max) != truth.Scenario.SDK.MaxAttempts || !apc.Capped {
		t.Errorf("attempts per call: max %v capped %v, want max %d capped (%s)", apc.Max, apc.Capped, truth.Scenario.SDK.MaxAttempts, apc.CapEvidence)
	}
	qa := layer(res, "queue attempts per task")
	if qa.Capped {
		t.Errorf("queue layer reported capped (%s); the runner has no cap", qa.CapEvidence)
	}

	w := res.Waves
	if w.Periodic != periodic {
		t.Fatalf("periodic = %v (period %.2f s, acf %.3f vs threshold %.3f), want %v", w.Periodic, w.Period, w.ACF, w.Threshold, periodic)
	}
	if !periodic {
		if len(w.Suspects) != 0 {
			t.Errorf("jittered requeue produced fixed-delay suspects: %+v", w.Suspects)
		}
		return
	}
	if !within(w.Period, truth.Cycle.MedianS, 0.02*truth.Cycle.MedianS) {
		t.Errorf("period %.2f s, truth cycle %.2f s (±2%%)", w.Period, truth.Cycle.MedianS)
	}
	if d := len(w.Waves) - truth.WaveCount; d < -1 || d > 1 {
		t.Errorf("%d waves, truth %d (±1)", len(w.Waves), truth.WaveCount)
	}
	sizes := make([]float64, len(truth.Waves))
	for i, tw := range truth.Waves {
		sizes[i] = float64(tw.Calls)
	}
	if want := poissonRatio(sizes); !within(w.DecayRatio, want, 0.05) {
		t.Errorf("decay ratio %.3f, truth %.3f (±0.05; least squares on log size %.3f)", w.DecayRatio, want, truth.Decay.Ratio)
	}
	// The fixed-delay finding breaks the period into its parts: the
	// requeue delay and the retry-after the SDK honoured.
	requeue := truth.Scenario.Runner.RequeueDelayS
	retryAfter := float64(truth.Scenario.SDK.RetryAfterS)
	var sawRequeue, sawRetryAfter bool
	for _, s := range w.Suspects {
		if within(s.Delay, requeue, 0.02*requeue) {
			sawRequeue = true
		}
		if within(s.Delay, retryAfter, 0.02*retryAfter) && s.Times == truth.Scenario.SDK.MaxAttempts-1 {
			sawRetryAfter = true
		}
	}
	if !sawRequeue || !sawRetryAfter {
		t.Errorf("suspects %+v: want requeue %.0f s and %d × retry-after %.0f s", w.Suspects, requeue, truth.Scenario.SDK.MaxAttempts-1, retryAfter)
	}
}

// TestRealTraces holds the analysis of incidents recorded from real,
// unmodified SDK clients to the endpoint's own record (truth.json).
func TestRealTraces(t *testing.T) {
	type traceTruth struct {
		HTTP struct {
			Requests  int64 `json:"requests"`
			Status429 int64 `json:"status_429"`
		} `json:"http"`
		Headline struct {
			Waves     int     `json:"waves"`
			Period    float64 `json:"mean_wave_period_s"`
			DecayFit  float64 `json:"wave_geometric_fit_ratio"`
			WaveSizes []int64 `json:"wave_sizes"`
		} `json:"headline"`
		Waves struct {
			Waves []struct {
				Calls     int64 `json:"sdk_calls"`
				Attempts  int64 `json:"http_attempts"`
				Throttled int64 `json:"http_429"`
			} `json:"waves"`
		} `json:"waves"`
		Calls map[string]struct {
			Calls  int64 `json:"sdk_calls"`
			Failed int64 `json:"failed"`
			// OKAfterRetries maps retries before success to calls.
			OKAfterRetries map[string]int64 `json:"ok_after_retries_hist"`
		} `json:"calls"`
	}
	tests := []struct {
		dir      string
		inputs   []string
		periodic bool
		// joinable: the access log carries call ids or attempt numbers.
		joinable bool
	}{
		{dir: "testdata/traces/botocore-standard", inputs: []string{"access.log", "calls.jsonl"}, periodic: true, joinable: true},
		{dir: "testdata/traces/botocore-standard", inputs: []string{"access_combined.log", "calls.jsonl"}, periodic: true},
		{dir: "testdata/traces/no-throttle", inputs: []string{"access.log", "calls.jsonl"}, periodic: false, joinable: true},
		// The whole directory: both access logs record the same requests,
		// which must be counted once, and the SDK debug log's attempts
		// must not add to the proxy's.
		{dir: "testdata/traces/botocore-standard", inputs: []string{"."}, periodic: true, joinable: true},
		{dir: "testdata/traces/no-throttle", inputs: []string{"."}, periodic: false, joinable: true},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.dir)+"/"+tc.inputs[0], func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(tc.dir, "truth.json"))
			if err != nil {
				t.Fatal(err)
			}
			var truth traceTruth
			if err := json.Unmarshal(raw, &truth); err != nil {
				t.Fatal(err)
			}
			var inputs []string
			for _, in := range tc.inputs {
				inputs = append(inputs, filepath.Join(tc.dir, in))
			}
			res := analyzeDir(t, stampede.Config{Inputs: inputs})
			rc := res.Reconcile
			if rc.HTTP.Attempts != truth.HTTP.Requests || rc.HTTP.Throttled != truth.HTTP.Status429 {
				t.Errorf("HTTP %d attempts, %d throttled; truth %d, %d", rc.HTTP.Attempts, rc.HTTP.Throttled, truth.HTTP.Requests, truth.HTTP.Status429)
			}
			var calls, failed int64
			for _, c := range truth.Calls {
				calls += c.Calls
				failed += c.Failed
			}
			if rc.App.Calls != calls || rc.App.Failed != failed {
				t.Errorf("calls %d failed %d; truth %d, %d", rc.App.Calls, rc.App.Failed, calls, failed)
			}
			// Every retry before a success recovered one throttled attempt:
			// the endpoint answered only 200 or 429.
			var recoveredCalls, recoveredAttempts int64
			for _, c := range truth.Calls {
				for retries, n := range c.OKAfterRetries {
					k, _ := strconv.ParseInt(retries, 10, 64)
					if k > 0 {
						recoveredCalls += n
						recoveredAttempts += k * n
					}
				}
			}
			if !tc.joinable {
				// No join key on the wire: no throttled attempt can be
				// credited to a call, and the report must not pretend.
				recoveredAttempts = 0
			}
			if rc.CallsRecoveredByRetry != recoveredCalls || rc.ThrottledRecovered != recoveredAttempts {
				t.Errorf("recovered %d calls, %d throttled attempts; truth %d, %d",
					rc.CallsRecoveredByRetry, rc.ThrottledRecovered, recoveredCalls, recoveredAttempts)
			}
			for _, in := range res.Inputs {
				if in.Parsed+in.Skipped != in.Lines {
					t.Errorf("%s: %d parsed + %d skipped != %d read", in.Path, in.Parsed, in.Skipped, in.Lines)
				}
				// An SDK debug log interleaves request dumps and call starts
				// with the retry decisions that are its events; those lines
				// are skipped with reasons. Every other file is all events.
				if filepath.Base(in.Path) == "sdk_debug.log" {
					continue
				}
				if in.Skipped != 0 {
					t.Errorf("%s: %d of %d lines skipped: %+v", in.Path, in.Skipped, in.Lines, in.Samples)
				}
			}
			w := res.Waves
			if w.Periodic != tc.periodic {
				t.Fatalf("periodic = %v (period %.2f), want %v", w.Periodic, w.Period, tc.periodic)
			}
			if !tc.periodic {
				return
			}
			if !within(w.Period, truth.Headline.Period, 0.02*truth.Headline.Period) {
				t.Errorf("period %.2f s, truth %.3f s (±2%%)", w.Period, truth.Headline.Period)
			}
			if d := len(w.Waves) - truth.Headline.Waves; d < -1 || d > 1 {
				t.Errorf("%d waves, truth %d", len(w.Waves), truth.Headline.Waves)
			}
			if !within(w.DecayRatio, truth.Headline.DecayFit, 0.05) {
				t.Errorf("decay %.3f, truth %.3f", w.DecayRatio, truth.Headline.DecayFit)
			}
			if tc.joinable && len(w.Waves) == len(truth.Waves.Waves) {
				// With task ids on the wire, each wave's batch attempts and
				// throttles are the endpoint's own counts.
				for i, tw := range truth.Waves.Waves {
					got := w.Waves[i]
					if got.Size != tw.Calls || got.Attempts != tw.Attempts || got.Throttled != tw.Throttled {
						t.Errorf("wave %d: %d calls, %d attempts, %d throttled; truth %d, %d, %d",
							i+1, got.Size, got.Attempts, got.Throttled, tw.Calls, tw.Attempts, tw.Throttled)
					}
				}
			}
			if layer(res, "queue attempts per task").Capped {
				t.Errorf("queue layer reported capped; the runner has no cap")
			}
		})
	}
}

// TestDamagedInputs feeds a copy of the bundled incident with 1% garbage
// lines, a truncated last line and an empty file: every bad line is counted
// with its file:line, and the analysis still completes.
func TestDamagedInputs(t *testing.T) {
	dir := t.TempDir()
	var garbageLines []int64
	for _, name := range []string{"access.log", "calls.jsonl"} {
		src, err := os.ReadFile(filepath.Join("testdata/seed-incident", name))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		lines := bytes.SplitAfter(src, []byte("\n"))
		var n int64
		for i, l := range lines {
			if len(l) == 0 {
				continue
			}
			n++
			if i%100 == 50 {
				out.WriteString("\x00\xff garbage <script>alert(1)</script> |\n")
				if name == "access.log" {
					garbageLines = append(garbageLines, n)
				}
				n++
			}
			out.Write(l)
		}
		// Truncate the last line mid-record, as a log rotated mid-write is.
		b := out.Bytes()
		b = b[:len(b)-20]
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "empty.log"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	res := analyzeDir(t, stampede.Config{Inputs: []string{dir}, LogFormat: "stampede"})
	byName := map[string]analyze.Input{}
	for _, in := range res.Inputs {
		byName[filepath.Base(in.Path)] = in
		if in.Parsed+in.Skipped != in.Lines {
			t.Errorf("%s: parsed %d + skipped %d != lines %d", in.Path, in.Parsed, in.Skipped, in.Lines)
		}
	}
	acc := byName["access.log"]
	wantSkipped := int64(len(garbageLines)) + 1 // the garbage, and the truncated last line
	if acc.Skipped != wantSkipped {
		t.Errorf("access.log: %d skipped, want %d", acc.Skipped, wantSkipped)
	}
	if len(acc.Samples) == 0 || acc.Samples[0].Position != filepath.Join(dir, "access.log")+":"+strconv.FormatInt(garbageLines[0], 10) {
		t.Errorf("first skip sample %+v, want position access.log:%d", acc.Samples, garbageLines[0])
	}
	if calls := byName["calls.jsonl"]; calls.Skipped == 0 {
		t.Errorf("calls.jsonl: garbage not counted: %+v", calls)
	}
	if empty, ok := byName["empty.log"]; !ok || empty.Lines != 0 {
		t.Errorf("empty.log not accounted for: %+v", byName)
	}
	if !res.Waves.Periodic {
		t.Errorf("analysis lost the period on damaged input")
	}
	var warned bool
	for _, w := range res.Warnings {
		if strings.Contains(w, "skipped") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning about skipped lines: %q", res.Warnings)
	}
}

// TestTimelineRoundTrip checks that `stampede ingest -o` files analyse to
// the same result as the logs they came from.
func TestTimelineRoundTrip(t *testing.T) {
	cfg := stampede.Config{Inputs: []string{"testdata/seed-incident"}, Seed: 1}
	want := analyzeDir(t, cfg)
	tl, err := stampede.Ingest(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".arrow", ".parquet"} {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "timeline"+ext)
			if err := timeline.WriteFile(context.Background(), path, tl); err != nil {
				t.Fatal(err)
			}
			got := analyzeDir(t, stampede.Config{Inputs: []string{path}, Seed: 1})
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			if !bytes.Equal(gj, wj) {
				t.Errorf("analysis of %s differs from analysis of the logs", ext)
			}
		})
	}
}

// TestGoldenReports pins every report format on the bundled incident; run
// with -update after an intended change and review the diff.
func TestGoldenReports(t *testing.T) {
	res := analyzeDir(t, stampede.Config{Inputs: []string{"testdata/seed-incident"}, Seed: 1})
	for _, f := range []string{"table", "markdown", "json"} {
		t.Run(f, func(t *testing.T) {
			format, err := report.ParseFormat(f)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := report.Render(&buf, res, format); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", "seed-incident."+f+".golden"), buf.Bytes())
		})
	}
}

// TestClockSkew injects a clock offset between the access log and the SDK
// log, as two machines whose clocks drifted apart write them, and expects
// it back within ±0.2 s; --align then lines the logs up again.
func TestClockSkew(t *testing.T) {
	racedetect.SkipResultsTest(t)
	sc, err := simulate.LoadScenario("testdata/scenarios/seed-incident.json")
	if err != nil {
		t.Fatal(err)
	}
	clean := t.TempDir()
	out, err := simulate.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.WriteDir(clean); err != nil {
		t.Fatal(err)
	}
	base := analyzeDir(t, stampede.Config{Inputs: []string{clean}})

	for _, offset := range []float64{2.5, -2.5, 7.25} {
		t.Run(strconv.FormatFloat(offset, 'f', -1, 64), func(t *testing.T) {
			skewed := sc
			skewed.SDKClockOffsetS = offset
			dir := t.TempDir()
			out, err := simulate.Run(skewed)
			if err != nil {
				t.Fatal(err)
			}
			if err := out.WriteDir(dir); err != nil {
				t.Fatal(err)
			}
			res := analyzeDir(t, stampede.Config{Inputs: []string{dir}})
			if len(res.Clocks) != 1 {
				t.Fatalf("clocks: %+v", res.Clocks)
			}
			c := res.Clocks[0]
			if !c.Reliable || !within(c.Offset, offset, 0.2) {
				t.Errorf("estimated offset %+.3f s (reliable %v), injected %+.2f s", c.Offset, c.Reliable, offset)
			}
			if c.Applied {
				t.Errorf("offset applied without --align")
			}

			aligned := analyzeDir(t, stampede.Config{Inputs: []string{dir}, Align: true})
			if !aligned.Clocks[0].Applied {
				t.Fatalf("--align did not apply the offset: %+v", aligned.Clocks[0])
			}
			if d := aligned.Window.Start.Sub(base.Window.Start).Seconds(); !within(d, 0, 0.2) {
				t.Errorf("aligned window starts %+.3f s from the unskewed one", d)
			}
			if len(aligned.Waves.Waves) != len(base.Waves.Waves) {
				t.Fatalf("aligned run found %d waves, unskewed %d", len(aligned.Waves.Waves), len(base.Waves.Waves))
			}
			for i, w := range aligned.Waves.Waves {
				if d := w.Start.Sub(base.Waves.Waves[i].Start).Seconds(); !within(d, 0, 0.2) {
					t.Errorf("wave %d starts %+.3f s from the unskewed run's", i+1, d)
				}
			}
		})
	}
}

// TestAttemptsCountOnce reads the recorded botocore incident with the SDK's
// own debug log beside the access log: both describe the same attempts, and
// the HTTP side must count each once, from the proxy that saw them all.
func TestAttemptsCountOnce(t *testing.T) {
	dir := "testdata/traces/botocore-standard"
	for _, inputs := range [][]string{
		{"access.log", "calls.jsonl", "sdk_debug.log"},
		{"sdk_debug.log", "calls.jsonl"},
	} {
		t.Run(strings.Join(inputs, "+"), func(t *testing.T) {
			var paths []string
			for _, in := range inputs {
				paths = append(paths, filepath.Join(dir, in))
			}
			res := analyzeDir(t, stampede.Config{Inputs: paths})
			// The debug log alone sees every attempt too: botocore logs a
			// retry decision for each one.
			if got := res.Reconcile.HTTP.Attempts; got != 1153 {
				t.Errorf("%d HTTP attempts, want the 1,153 the endpoint saw", got)
			}
			for _, in := range res.Inputs {
				if in.Parsed+in.Skipped != in.Lines {
					t.Errorf("%s: parsed %d + skipped %d != %d lines", in.Path, in.Parsed, in.Skipped, in.Lines)
				}
			}
		})
	}
}

// TestFileFormats forces one file's format and leaves the other detected.
func TestFileFormats(t *testing.T) {
	dir := "testdata/traces/botocore-standard"
	access, calls := filepath.Join(dir, "access_combined.log"), filepath.Join(dir, "calls.jsonl")
	tl, err := stampede.Ingest(context.Background(), stampede.Config{
		Inputs:      []string{access, calls},
		FileFormats: map[string]string{access: "apache"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range tl.Sources {
		got[s.Path] = s.Format
	}
	if !strings.HasPrefix(got[access], "apache") || got[calls] != "jsonl" {
		t.Errorf("formats %v: want apache for the access log, jsonl detected for the calls", got)
	}
	_, err = stampede.Ingest(context.Background(), stampede.Config{
		Inputs: []string{calls}, FileFormats: map[string]string{access: "apache"},
	})
	if err == nil || !strings.Contains(err.Error(), "not among the inputs") {
		t.Errorf("format for a file that is not an input: err = %v", err)
	}
}
