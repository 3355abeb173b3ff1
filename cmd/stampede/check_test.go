package main

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/gate"
	"github.com/stampede/stampede/internal/racedetect"
)

// exitOf runs the CLI and returns the exit status main would give.
func exitOf(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	stdout, stderr, err := run(t, args...)
	return exitCode(err, io.Discard), stdout, stderr
}

func TestCheckExitCodes(t *testing.T) {
	racedetect.SkipResultsTest(t)
	incident := filepath.Join("..", "..", "testdata", "seed-incident")
	k6 := filepath.Join("..", "..", "testdata", "ingest", "k6", "results.json")
	jittered := t.TempDir()
	scenario := filepath.Join("..", "..", "testdata", "scenarios", "seed-incident-jittered.json")
	if _, _, err := run(t, "simulate", "--scenario", scenario, "-o", jittered); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want int
		// lines must appear in stdout (or, for analyze, stderr).
		lines []string
	}{
		{"seed incident is periodic", []string{"check", incident, "--fail-on", "periodic"}, exitGateFailed,
			[]string{"FAIL: periodic (value yes): period 84.04 s"}},
		{"jittered simulation is not", []string{"check", jittered, "--fail-on", "periodic"}, exitPass,
			[]string{"pass: periodic (value no)"}},
		{"several gates, one fails", []string{"check", incident, "--fail-on", "amplification > 4", "--fail-on", "waves > 1000"}, exitGateFailed,
			[]string{"FAIL: amplification > 4 (value 9.654)", "pass: waves > 1000"}},
		{"uncapped requeue", []string{"check", incident, "--fail-on", "uncapped"}, exitGateFailed,
			[]string{"FAIL: uncapped (value yes): uncapped: queue attempts per task"}},
		{"all pass", []string{"check", incident, "--fail-on", "http_throttle_rate > 90%", "--fail-on", "!periodic"}, exitPass,
			[]string{"pass: http_throttle_rate > 0.9 (value 0.8752 (87.5%))", "pass: !periodic"}},
		{"analyze --fail-on", []string{"analyze", incident, "--format", "json", "--fail-on", "periodic"}, exitGateFailed,
			[]string{"FAIL: periodic"}},
		{"unmeasurable fails by default", []string{"check", k6, "--fail-on", "amplification > 4"}, exitGateFailed,
			[]string{"FAIL: amplification > 4 (value n/a): not measurable: no tasks identified"}},
		{"unmeasurable warn passes, marked", []string{"check", k6, "--fail-on", "amplification > 4", "--unmeasurable", "warn"}, exitPass,
			[]string{"warn: amplification > 4 (value n/a): not measurable: no tasks identified (unmeasurable rules warn)"}},
		{"unmeasurable pass", []string{"check", k6, "--fail-on", "amplification > 4", "--unmeasurable", "pass"}, exitPass,
			[]string{"pass: amplification > 4 (value n/a): not measurable: no tasks identified (unmeasurable rules pass)"}},
		{"unmeasurable warn, a measured rule fails", []string{"check", k6, "--fail-on", "amplification > 4", "--fail-on", "http_throttle_rate > 5%", "--unmeasurable", "warn"}, exitGateFailed,
			[]string{"warn: amplification > 4", "FAIL: http_throttle_rate > 0.05 (value 0.5 (50.0%)): 3 of 6 attempts throttled"}},
		{"bad --unmeasurable", []string{"check", k6, "--fail-on", "periodic", "--unmeasurable", "skip"}, exitUsage, nil},
		{"bad rule", []string{"check", incident, "--fail-on", "amplification >> 4"}, exitUsage, nil},
		{"no rule", []string{"check", incident}, exitUsage, nil},
		{"junit without rule", []string{"analyze", incident, "--junit", "x.xml"}, exitUsage, nil},
		{"missing input", []string{"check", filepath.Join(jittered, "nope.log"), "--fail-on", "periodic"}, exitUsage, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := exitOf(t, tc.args...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, stdout, stderr)
			}
			out := stdout
			if tc.args[0] == "analyze" {
				out = stderr
			}
			for _, l := range tc.lines {
				if !strings.Contains(out, l) {
					t.Errorf("output lacks %q:\n%s", l, out)
				}
			}
		})
	}
}

func TestCheckWritesJUnitAndSummary(t *testing.T) {
	incident := filepath.Join("..", "..", "testdata", "seed-incident")
	dir := t.TempDir()
	junit := filepath.Join(dir, "stampede.xml")
	summary := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(summary, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, _ := exitOf(t, "check", incident, "--fail-on", "periodic", "--fail-on", "waves > 1000",
		"--junit", junit, "--summary", summary)
	if code != exitGateFailed {
		t.Fatalf("exit %d, want %d", code, exitGateFailed)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites gate.JUnitSuites
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("JUnit file does not parse: %v", err)
	}
	if suites.Tests != 2 || suites.Failures != 1 || len(suites.Suites) != 1 || len(suites.Suites[0].Cases) != 2 {
		t.Fatalf("JUnit: %+v", suites)
	}
	if c := suites.Suites[0].Cases[0]; c.Name != "periodic" || c.Failure == nil || !strings.Contains(c.Failure.Message, "84.04") {
		t.Errorf("first case %+v", c)
	}
	if c := suites.Suites[0].Cases[1]; c.Failure != nil {
		t.Errorf("second case failed: %+v", c)
	}
	sum, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	// The step summary is appended to, as CI expects.
	if !strings.HasPrefix(string(sum), "earlier step\n### stampede check: 1 of 2 gates failed") {
		t.Errorf("summary:\n%s", sum)
	}
}

// TestGateOutputsStopped writes the gate results with the run already
// stopped: neither --junit nor --summary gets a byte, and the error is the
// stop's.
func TestGateOutputsStopped(t *testing.T) {
	res, err := stampede.Analyze(context.Background(), stampede.Config{Inputs: []string{filepath.Join("..", "..", "testdata", "seed-incident")}})
	must(t, err)
	rules, err := gate.ParseAll([]string{"periodic"})
	must(t, err)
	outcomes := gate.Evaluate(res, rules)
	stop := errors.New("stopped for the test")
	tests := []struct {
		name  string
		write func(ctx context.Context, dir string) error
	}{
		{"--junit", func(ctx context.Context, dir string) error {
			return writeOutput(ctx, filepath.Join(dir, "stampede.xml"), nil, func(w io.Writer) error {
				return gate.WriteJUnit(w, "seed-incident", outcomes)
			})
		}},
		{"--summary", func(ctx context.Context, dir string) error {
			return appendSummary(ctx, filepath.Join(dir, "summary.md"), "seed-incident", outcomes)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			summary := filepath.Join(dir, "summary.md")
			must(t, os.WriteFile(summary, []byte("earlier step\n"), 0o644))
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(stop)
			if err := tt.write(ctx, dir); !errors.Is(err, stop) {
				t.Errorf("got %v, want the stop's cause", err)
			}
			if b, _ := os.ReadFile(summary); string(b) != "earlier step\n" {
				t.Errorf("the summary became %q", b)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("%d files, want the summary alone", len(entries))
			}
		})
	}
}
