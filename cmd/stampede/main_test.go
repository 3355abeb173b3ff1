package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/internal/interrupt"
)

// TestMain gives SIGINT and SIGTERM their default action back: package
// interrupt catches them from init on, for the command, and in a test
// binary that would keep Ctrl-C from stopping the tests.
func TestMain(m *testing.M) {
	interrupt.Reset()
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

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
				for _, want := range []string{"FINDINGS", "period 84.0 s = requeue delay 60.0 s", "WAVES"} {
					if !strings.Contains(stdout, want) {
						t.Errorf("table report lacks %q", want)
					}
				}
				if strings.Contains(stdout, "Method and cap evidence per layer") {
					t.Error("the default table report shows the evidence")
				}
			},
		},
		{
			// --verbose only sets report.Options.Verbose: the evidence
			// blocks come back.
			name: "analyze table verbose",
			args: []string{"analyze", incident, "--verbose"},
			check: func(t *testing.T, stdout string) {
				for _, want := range []string{"FINDINGS", "Method and cap evidence per layer", "Distribution (value × units)", "join method"} {
					if !strings.Contains(stdout, want) {
						t.Errorf("verbose table report lacks %q", want)
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
				for _, want := range []string{"nginx\n", "apache\n", "envoy-json\n", "otlp-json (otlp)\n", "har\n", "botocore\n", "k6\n", "haproxy\n", "cloudfront (aws-cloudfront)\n", "cloudflare (cloudflare-logpush)\n", "gcp-lb (gclb)\n", "kong\n", "detected when:", "fills:"} {
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

// TestOutputNotRegular: -o given a device, a FIFO or a symlink writes
// through it and leaves it what it was; -o - is standard output.
func TestOutputNotRegular(t *testing.T) {
	incident := filepath.Join("..", "..", "testdata", "seed-incident")
	tests := []struct {
		name string
		// setup makes the output and returns its path and a check of what
		// is left afterwards.
		setup func(t *testing.T, dir string) (string, func(t *testing.T))
	}{
		{name: "character device", setup: func(t *testing.T, dir string) (string, func(t *testing.T)) {
			p := filepath.Join(dir, "null")
			if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
				t.Skipf("mknod: %v (needs root)", err)
			}
			return p, func(t *testing.T) {
				if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
					t.Errorf("the device is now %v (%v)", fi.Mode(), err)
				}
			}
		}},
		{name: "FIFO", setup: func(t *testing.T, dir string) (string, func(t *testing.T)) {
			p := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			// Both ends opened here without blocking: the read end so the
			// report can be written, a spare write end so the reader sees
			// no end of file before the run opens its own. Closing the
			// spare afterwards ends the read even if the run wrote elsewhere.
			r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			spare, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(r)
				r.Close()
				got <- b
			}()
			return p, func(t *testing.T) {
				spare.Close()
				if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
					t.Errorf("the FIFO is now %v (%v)", fi.Mode(), err)
					return
				}
				if b := <-got; !json.Valid(b) {
					t.Errorf("the FIFO's reader got %d bytes of invalid JSON", len(b))
				}
			}
		}},
		{name: "symlink", setup: func(t *testing.T, dir string) (string, func(t *testing.T)) {
			target := filepath.Join(dir, "report.json")
			p := filepath.Join(dir, "link.json")
			if err := os.Symlink("report.json", p); err != nil {
				t.Fatal(err)
			}
			return p, func(t *testing.T) {
				if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("the link is now %v (%v)", fi.Mode(), err)
				}
				if b, err := os.ReadFile(target); err != nil || !json.Valid(b) {
					t.Errorf("the link's target: %v", err)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, check := tt.setup(t, t.TempDir())
			if _, _, err := run(t, "analyze", incident, "--format", "json", "-o", out); err != nil {
				t.Fatal(err)
			}
			check(t)
		})
	}
	t.Run("-o -", func(t *testing.T) {
		abs := mustAbs(t, incident)
		dir := t.TempDir()
		t.Chdir(dir)
		stdout, _, err := run(t, "analyze", abs, "--format", "json", "-o", "-")
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid([]byte(stdout)) {
			t.Errorf("standard output holds no JSON report")
		}
		if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
			t.Errorf("-o - wrote a file named -")
		}
	})
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestBinFlag(t *testing.T) {
	incident := filepath.Join("..", "..", "testdata", "seed-incident")
	for _, tt := range []struct {
		bin, wantErr string
	}{
		{"-1s", "must be positive"},
		{"1ns", "finer than the millisecond"},
		{"1s", ""},
	} {
		_, _, err := run(t, "analyze", incident, "--format", "json", "--bin", tt.bin)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("--bin %s: %v", tt.bin, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("--bin %s: error %v, want one saying %q", tt.bin, err, tt.wantErr)
		}
	}
}

func TestWidthFlag(t *testing.T) {
	incident := filepath.Join("..", "..", "testdata", "seed-incident")
	for _, tt := range []struct {
		width, wantErr string
		widest         int // the widest line of the report, when it runs
	}{
		{"-1", "want at least 40 columns", 0},
		{"39", "want at least 40 columns", 0},
		{"40", "", 40},
		{"80", "", 80},
		{"0", "", 100}, // not a terminal: the default
	} {
		out, _, err := run(t, "analyze", incident, "--width", tt.width)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("--width %s: %v", tt.width, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("--width %s: error %v, want one saying %q", tt.width, err, tt.wantErr)
		case tt.wantErr == "":
			widest := 0
			for _, line := range strings.Split(out, "\n") {
				widest = max(widest, utf8.RuneCountInString(line))
			}
			if widest > tt.widest || widest < tt.widest-10 {
				t.Errorf("--width %s: widest line %d columns, want at most %d and near it", tt.width, widest, tt.widest)
			}
		}
	}
}

func TestColorFlag(t *testing.T) {
	incident := filepath.Join("..", "..", "testdata", "seed-incident")
	for _, tt := range []struct {
		mode, wantErr string
		coloured      bool
	}{
		{"always", "", true},
		{"never", "", false},
		// Standard output is a buffer here, not a terminal.
		{"auto", "", false},
		{"sometimes", "want auto, always or never", false},
	} {
		out, _, err := run(t, "analyze", incident, "--color", tt.mode)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("--color %s: error %v, want one saying %q", tt.mode, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("--color %s: %v", tt.mode, err)
		case strings.Contains(out, "\x1b[") != tt.coloured:
			t.Errorf("--color %s: escapes in the report %v, want %v", tt.mode, !tt.coloured, tt.coloured)
		}
	}
}

func TestCompletion(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string // completions that must be offered, without descriptions
	}{
		{[]string{"analyze", "--format", ""}, []string{"table", "markdown", "json", "html"}},
		{[]string{"whatif", "--format", ""}, []string{"table", "json"}},
		{[]string{"check", "--fail-on", ""}, []string{"amplification", "periodic", "http_throttle_rate"}},
		{[]string{"analyze", "--fail-on", ""}, []string{"amplification"}},
		{[]string{"ingest", "--input-format", ""}, []string{"nginx", "jsonl", "envoy"}},
		{[]string{"analyze", "--input-format", "a.log="}, []string{"a.log=nginx", "a.log=jsonl"}},
	} {
		out, _, err := run(t, append([]string{"__complete"}, tt.args...)...)
		if err != nil {
			t.Errorf("%v: %v", tt.args, err)
			continue
		}
		offered := map[string]bool{}
		for _, line := range strings.Split(out, "\n") {
			name, _, _ := strings.Cut(line, "\t")
			offered[name] = true
		}
		for _, w := range tt.want {
			if !offered[w] {
				t.Errorf("%v: %q not offered in\n%s", tt.args, w, out)
			}
		}
	}
}
