package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede/stampede/analyze"
)

// run executes the CLI as a user would, returning stdout, stderr and the
// error main would print.
func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestCommands(t *testing.T) {
	tmp := t.TempDir()
	incident := filepath.Join("..", "..", "testdata", "seed-incident")
	jsonAccess := filepath.Join("..", "..", "testdata", "ingest", "realworld-like", "nginx-json-access.jsonl")
	tests := []struct {
		name string
		args []string
		// wantErr is a substring of the error, "" for success.
		wantErr string
		// check inspects stdout when the command succeeds.
		check func(t *testing.T, stdout string)
	}{
		{
			name: "analyze table",
			args: []string{"analyze", incident},
			check: func(t *testing.T, stdout string) {
				for _, want := range []string{"FINDINGS", "period 84.04 s = requeue delay 60.00 s", "WAVES"} {
					if !strings.Contains(stdout, want) {
						t.Errorf("table report lacks %q", want)
					}
				}
			},
		},
		{
			name: "analyze json",
			args: []string{"analyze", incident, "--format", "json"},
			check: func(t *testing.T, stdout string) {
				var res struct {
					SchemaVersion string `json:"schema_version"`
					Waves         struct {
						Periodic bool `json:"periodic"`
					} `json:"waves"`
				}
				if err := json.Unmarshal([]byte(stdout), &res); err != nil {
					t.Fatalf("json report does not parse: %v", err)
				}
				if res.SchemaVersion == "" || !res.Waves.Periodic {
					t.Errorf("json report: %+v", res)
				}
			},
		},
		{name: "unknown report format", args: []string{"analyze", incident, "--format", "pdf"}, wantErr: "pdf"},
		{name: "missing input", args: []string{"analyze", filepath.Join(tmp, "nope.log")}, wantErr: "nope.log"},
		{name: "bad class rule", args: []string{"analyze", incident, "--class", "batch"}, wantErr: "CLASS=FIELD:SUBSTR"},
		{name: "output over input", args: []string{"analyze", filepath.Join(incident, "access.log"), "-o", filepath.Join(incident, "access.log")}, wantErr: "refusing to overwrite"},
		{name: "unwritable output", args: []string{"analyze", incident, "-o", filepath.Join(tmp, "no", "such", "dir", "r.md")}, wantErr: "cannot write output"},
		{name: "ingest needs -o", args: []string{"ingest", incident}, wantErr: "-o FILE"},
		{name: "simulate needs a scenario", args: []string{"simulate", "-o", tmp}, wantErr: "--scenario"},
		{
			name: "formats lists every format",
			args: []string{"formats"},
			check: func(t *testing.T, stdout string) {
				for _, want := range []string{"nginx\n", "apache\n", "envoy-json\n", "otlp-json (otlp)\n", "har\n", "botocore\n", "k6\n", "detected when:", "fills:"} {
					if !strings.Contains(stdout, want) {
						t.Errorf("formats output lacks %q", want)
					}
				}
			},
		},
		{
			name: "one file's format forced",
			args: []string{"analyze", filepath.Join(incident, "access.log"), "--input-format", filepath.Join(incident, "access.log") + "=nginx", "--format", "json"},
			check: func(t *testing.T, stdout string) {
				if !strings.Contains(stdout, `"format": "nginx:stampede"`) {
					t.Errorf("forced nginx format not used")
				}
			},
		},
		{name: "unknown forced format", args: []string{"analyze", incident, "--input-format", "csv"}, wantErr: `unknown format "csv"`},
		{
			// An access log in JSON is read as attempts; --layer FILE=call
			// reads that one file's records as calls instead.
			name: "one file's layer set",
			args: []string{"analyze", jsonAccess, "--layer", jsonAccess + "=call", "--format", "json"},
			check: func(t *testing.T, stdout string) {
				var res analyze.Result
				if err := json.Unmarshal([]byte(stdout), &res); err != nil {
					t.Fatal(err)
				}
				if res.Reconcile.HTTP.Attempts != 0 || res.Reconcile.App.Calls != 2 {
					t.Errorf("attempts %d, calls %d: want the records read as 2 calls", res.Reconcile.HTTP.Attempts, res.Reconcile.App.Calls)
				}
			},
		},
		{name: "layer of a file not given", args: []string{"analyze", incident, "--layer", jsonAccess + "=call"}, wantErr: "layer given for"},
		{name: "unknown layer", args: []string{"analyze", jsonAccess, "--layer", "task"}, wantErr: `layer "task": want attempt or call`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, _, err := run(t, tc.args...)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one mentioning %q", err, tc.wantErr)
			case tc.check != nil:
				tc.check(t, stdout)
			}
		})
	}
}

// TestIngestThenAnalyze checks the stored-timeline path users take for large
// logs: ingest once, analyse the Arrow or Parquet file as often as needed.
func TestIngestThenAnalyze(t *testing.T) {
	incident := filepath.Join("..", "..", "testdata", "seed-incident")
	direct, _, err := run(t, "analyze", incident, "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".arrow", ".parquet"} {
		t.Run(ext, func(t *testing.T) {
			tl := filepath.Join(t.TempDir(), "timeline"+ext)
			if _, _, err := run(t, "ingest", incident, "-o", tl); err != nil {
				t.Fatal(err)
			}
			report := filepath.Join(t.TempDir(), "report.json")
			if _, _, err := run(t, "analyze", tl, "--format", "json", "-o", report); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			// Inputs name the timeline's original files either way, so the
			// whole report must match.
			if string(got) != direct {
				t.Errorf("report from %s differs from the report on the logs", ext)
			}
		})
	}
}

func TestSimulateWritesAnIncident(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join("..", "..", "testdata", "scenarios", "requeue90-500tasks.json")
	if _, _, err := run(t, "simulate", "--scenario", scenario, "-o", dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"access.log", "calls.jsonl", "truth.json"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", name, err)
		}
	}
}
