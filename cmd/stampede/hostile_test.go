package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stampede/stampede/analyze"
)

const hostileDir = "../../testdata/hostile"

// hostileInputs are the committed hostile logs, each as one input, plus
// the rotated pair as a directory and a file given twice.
func hostileInputs(t *testing.T) [][]string {
	t.Helper()
	entries, err := os.ReadDir(hostileDir)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, e := range entries {
		if e.Type().IsRegular() {
			out = append(out, []string{filepath.Join(hostileDir, e.Name())})
		}
	}
	crlf := filepath.Join(hostileDir, "crlf.log")
	return append(out, []string{filepath.Join(hostileDir, "rotated")}, []string{crlf, "./" + crlf})
}

// terminalControls must never reach standard output or standard error.
var terminalControls = []string{"\x1b", "\u009b", "\a", "\b", "\u202e"}

// TestHostileCommands runs every command that reads logs on every hostile
// input: each ends with a documented exit status (0 or 1 with a report, 2
// with an error), never a crash, and prints no terminal controls.
func TestHostileCommands(t *testing.T) {
	tmp := t.TempDir()
	commands := []struct {
		name string
		args []string
	}{
		{"analyze table", []string{"analyze"}},
		{"analyze json", []string{"analyze", "--format", "json"}},
		{"analyze markdown", []string{"analyze", "--format", "markdown", "-o", filepath.Join(tmp, "r.md")}},
		{"analyze html", []string{"analyze", "--format", "html"}},
		{"analyze forced nginx", []string{"analyze", "--input-format", "nginx"}},
		{"check", []string{"check", "--fail-on", "periodic", "--fail-on", "http_throttle_rate > 50%"}},
		{"ingest", []string{"ingest", "-o", filepath.Join(tmp, "t.arrow")}},
	}
	if testing.Short() {
		// One command that prints to the terminal, one that writes a file.
		commands = []struct {
			name string
			args []string
		}{commands[0], commands[len(commands)-1]}
	}
	for _, inputs := range hostileInputs(t) {
		for _, c := range commands {
			t.Run(filepath.Base(inputs[0])+"/"+c.name, func(t *testing.T) {
				args := append(append([]string{}, c.args...), inputs...)
				stdout, stderr, err := run(t, args...)
				var msg bytes.Buffer
				code := exitCode(err, &msg)
				switch {
				case code == exitUsage && msg.Len() == len("stampede: \n"):
					t.Errorf("exit 2 without a message")
				case code == exitUsage && strings.Contains(msg.String(), "internal error"):
					t.Errorf("crashed: %s", msg.String())
				case code != exitPass && code != exitUsage && !(code == exitGateFailed && c.name == "check"):
					t.Errorf("exit %d: %s", code, msg.String())
				}
				for _, out := range []string{stdout, stderr, msg.String()} {
					for _, ctl := range terminalControls {
						if strings.Contains(out, ctl) {
							t.Errorf("output holds the terminal control %q", ctl)
						}
					}
				}
			})
		}
	}
}

// TestUnusableInputExitsTwo wants exit status 2 and a message that
// accounts for the file when no line gives an event.
func TestUnusableInputExitsTwo(t *testing.T) {
	tmp := t.TempDir()
	for _, name := range []string{"empty.log", "blank-lines.log", "headers-only.csv"} {
		for _, cmd := range [][]string{{"analyze"}, {"check", "--fail-on", "periodic"}, {"ingest", "-o", filepath.Join(tmp, "t.arrow")}} {
			t.Run(name+"/"+cmd[0], func(t *testing.T) {
				in := filepath.Join(hostileDir, name)
				_, _, err := run(t, append(cmd, in)...)
				var msg bytes.Buffer
				if code := exitCode(err, &msg); code != exitUsage || !strings.Contains(msg.String(), "no events") || !strings.Contains(msg.String(), in+":") {
					t.Errorf("exit %d: %s", code, msg.String())
				}
				if _, err := os.Stat(filepath.Join(tmp, "t.arrow")); err == nil {
					t.Errorf("ingest wrote a timeline of no events")
				}
			})
		}
	}
}

// TestHostileScenarios runs simulate on every hostile scenario: each is
// refused with a message naming the file, and nothing is written.
func TestHostileScenarios(t *testing.T) {
	dir := filepath.Join(hostileDir, "scenarios")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "incident")
			_, _, err := run(t, "simulate", "--scenario", filepath.Join(dir, e.Name()), "-o", out)
			var msg bytes.Buffer
			if code := exitCode(err, &msg); code != exitUsage || !strings.Contains(msg.String(), e.Name()) {
				t.Errorf("exit %d: %s", code, msg.String())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("simulate wrote %s for a refused scenario", out)
			}
		})
	}
}

// TestOutputChecksComeFirst wants a bad output path refused before any
// input is read: the inputs here do not exist, and the error is about the
// output.
func TestOutputChecksComeFirst(t *testing.T) {
	tmp := t.TempDir()
	log := filepath.Join(tmp, "access.log")
	if err := os.WriteFile(log, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(tmp, "no-such-dir", "out")
	link := filepath.Join(t.TempDir(), "link.log")
	if err := os.Symlink(log, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"analyze into a missing directory", []string{"analyze", "does-not-exist.log", "-o", missing + ".json", "--format", "json"}, "cannot write output"},
		{"ingest into a missing directory", []string{"ingest", "does-not-exist.log", "-o", missing + ".arrow"}, "cannot write output"},
		{"analyze over its input", []string{"analyze", log, "-o", log}, "also an input"},
		{"ingest over its input", []string{"ingest", log, "-o", log}, "also an input"},
		{"analyze over its input, spelt differently", []string{"analyze", log, "-o", tmp + "/./x/../access.log"}, "also an input"},
		{"check with --junit into a missing directory", []string{"check", "does-not-exist.log", "--fail-on", "periodic", "--junit", missing + ".xml"}, "cannot write output"},
		{"check appending --summary to its input", []string{"check", log, "--fail-on", "periodic", "--summary", log}, "also an input"},
		{"ingest over a file of an input directory", []string{"ingest", tmp, "-o", log}, "also an input"},
		{"analyze over a link to its input", []string{"analyze", log, "-o", link}, "also an input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := run(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got %v, want an error with %q", err, tt.wantErr)
			}
			if b, _ := os.ReadFile(log); string(b) != "x\n" {
				t.Errorf("the input was overwritten")
			}
		})
	}
}

// TestParseSize covers the --max-memory syntax.
func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"", 0, false},
		{"1048576", 1 << 20, false},
		{"512MiB", 512 << 20, false},
		{"4GiB", 4 << 30, false},
		{"2G", 2 << 30, false},
		{"500MB", 500e6, false},
		{"1.5GiB", 3 << 29, false},
		{"0", 0, true},
		{"-1GiB", 0, true},
		{"12 parsecs", 0, true},
		{"99999999TiB", 0, true},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, bad %v", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

// buildStampede builds the command once per test binary, for the tests
// that need a real process: signals, limits and exit statuses.
func buildStampede(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "stampede")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// nginxInput is enough access-log lines for detection to decide, after
// which the process is reading and its signal handler is in place.
func nginxInput() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 2<<20; i++ {
		fmt.Fprintf(&b, `127.0.0.1 - - [30/Nov/2026:02:00:%02d +0000] "POST /batch/v1/chat/completions HTTP/1.1" 429 412 "-" "OpenAI/Python 1.52.0"`+"\n", i%60)
	}
	return b.Bytes()
}

// TestRunStopsCleanly starts the command on standard input that never
// ends, then stops it by signal, --timeout or --max-memory: it exits 2 with
// a message naming the cause, and leaves nothing in the output directory.
func TestRunStopsCleanly(t *testing.T) {
	bin := buildStampede(t)
	tests := []struct {
		name    string
		args    []string
		signal  bool
		wantErr string
	}{
		{"SIGTERM during ingest", []string{"ingest", "-", "-o", "timeline.arrow"}, true, "interrupted"},
		{"SIGTERM during analyze", []string{"analyze", "-", "--format", "html", "-o", "report.html"}, true, "interrupted"},
		{"timeout", []string{"ingest", "-", "-o", "timeline.parquet", "--timeout", "300ms"}, false, "--timeout 300ms"},
		{"memory limit", []string{"analyze", "-", "-o", "report.json", "--format", "json", "--max-memory", "1B"}, false, "over --max-memory 1B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, tt.args...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Writing more than a pipe holds returns once the process has
			// read most of it, so it is running by then. A run that stops
			// first closes the pipe: that is fine too.
			_, werr := stdin.Write(nginxInput())
			if werr != nil && !errors.Is(werr, syscall.EPIPE) {
				t.Fatal(werr)
			}
			if tt.signal {
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			err = cmd.Wait()
			stdin.Close()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitUsage {
				t.Errorf("exit %v, want status %d; stderr: %s", err, exitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.wantErr)
			}
			left, _ := os.ReadDir(dir)
			for _, e := range left {
				t.Errorf("left %s behind", e.Name())
			}
		})
	}
}

// TestMaxMemorySpills runs the bundled incident under --max-memory, which
// spills to a file: the report is the one an unbounded run gives, and a
// spill directory that cannot hold the file is an error before any work.
func TestMaxMemorySpills(t *testing.T) {
	incident := filepath.Join("..", "..", "testdata", "seed-incident")
	want, _, err := run(t, "analyze", incident, "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"a budget spills and gives the same report", []string{"--max-memory", "512MiB", "--spill-dir", t.TempDir()}, ""},
		{"a missing spill directory", []string{"--max-memory", "512MiB", "--spill-dir", filepath.Join(t.TempDir(), "missing")}, "--max-memory needs a spill file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := run(t, append([]string{"analyze", incident, "--format", "json"}, tt.args...)...)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case got != want:
				t.Fatalf("the report under --max-memory differs from the unbounded one")
			}
		})
	}
}

// TestEstimatedFootprint covers what decides an automatic spill: the
// inputs' sizes, compressed files counted at their usual ratio.
func TestEstimatedFootprint(t *testing.T) {
	dir := t.TempDir()
	sized := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := sized("access.log", 1000)
	gz := sized("access.log.1.gz", 100)
	tests := []struct {
		name   string
		inputs []string
		want   int64
	}{
		{"plain file", []string{plain}, 1200},
		{"gzip counts ten times its size", []string{gz}, 1200},
		{"directory adds up its logs", []string{dir}, 2400},
		{"missing input", []string{filepath.Join(dir, "missing.log")}, 0},
		{"standard input", []string{"-"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := estimatedFootprint(tt.inputs); got != tt.want {
				t.Fatalf("estimatedFootprint = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestHostileCardinality reads logs where every line brings a new value:
// every report format stays small, each table past its bound ends in an
// "other" row, and the rows add up to what was read.
func TestHostileCardinality(t *testing.T) {
	// access is a stampede-format line; route, ua and task vary by test.
	access := func(i int, route, ua, task string) string {
		return fmt.Sprintf(`127.0.0.1 - - [30/Nov/2026:02:%02d:%02d +0000] "POST %s HTTP/1.1" %d 65 "-" "%s" 0.002 0.002 "0" "-" "-" "%s" %d.%03d "2"`,
			i/60%60, i%60, route, []int{200, 429}[i%2], ua, task, 1796003999+i, i%1000)
	}
	word := func(i int) string {
		w := []byte{}
		for x := i + 1; x > 0; x /= 26 {
			w = append(w, byte('a'+x%26))
		}
		return string(w)
	}
	lines := func(n int, line func(i int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = line(i)
		}
		return out
	}
	// otlpSpan is one OTLP/JSON request of one attempt; without a start it
	// is skipped, naming its span id, which here holds no digit.
	otlpSpan := func(i int, spanID string, withStart bool) string {
		start := ""
		if withStart {
			start = fmt.Sprintf(`"startTimeUnixNano":"%d","endTimeUnixNano":"%d",`, 1796006854000000000+int64(i)*1e8, 1796006854050000000+int64(i)*1e8)
		}
		return `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"httpx"},"spans":[{"traceId":"1e223ff1f80f1c69f8f0b81c1a4e5b2d","spanId":"` + spanID +
			`","name":"POST","kind":3,` + start + `"attributes":[{"key":"http.request.method","value":{"stringValue":"POST"}},{"key":"url.full","value":{"stringValue":"https://api.openai.com/v1/embeddings"}},{"key":"http.response.status_code","value":{"intValue":"429"}}]}]}]}]}`
	}
	sum := func(xs ...int64) (n int64) {
		for _, x := range xs {
			n += x
		}
		return n
	}
	tests := []struct {
		name string
		// files are the inputs, each a list of lines.
		files [][]string
		check func(t *testing.T, r *analyze.Result)
		// long rows are left out under -short.
		long bool
	}{
		{name: "5,000 distinct routes",
			files: [][]string{lines(5000, func(i int) string {
				return access(i, fmt.Sprintf("/batch/v1/jobs/%d", i), "OpenAI/Python 1.52.0", fmt.Sprintf("task-%d", i/2))
			})},
			check: func(t *testing.T, r *analyze.Result) {
				// Under the label bound: every route kept as logged, and
				// every one still classed by its name.
				if in := r.Inputs[0]; in.Shortened.Routes != 0 || r.Reconcile.ByClass[0].Class != "batch" || r.Reconcile.ByClass[0].HTTP.Attempts != 5000 {
					t.Errorf("shortened %+v, classes %+v", in.Shortened, r.Reconcile.ByClass)
				}
			}},
		{name: "5,000 distinct User-Agents",
			files: [][]string{lines(5000, func(i int) string {
				return access(i, "/batch/v1/chat", fmt.Sprintf("probe-%s/1.0", word(i)), fmt.Sprintf("task-%d", i))
			})},
			check: func(t *testing.T, r *analyze.Result) {
				var attempts []int64
				for _, c := range r.Clients {
					attempts = append(attempts, c.Attempts)
				}
				want := analyze.TableBound{Rows: 20, Counted: 1024, Folded: 1005, Uncounted: 3976}
				if len(r.Clients) != 20 || r.Clients[19].SDK != "other clients" || sum(attempts...) != 5000 || r.ClientsBound != want {
					t.Errorf("%d clients adding up to %d attempts, bound %+v; want 20 ending in other clients, 5,000, %+v", len(r.Clients), sum(attempts...), r.ClientsBound, want)
				}
			}},
		{name: "5,000 distinct SDK versions",
			files: [][]string{lines(5000, func(i int) string {
				return access(i, "/batch/v1/chat", fmt.Sprintf("OpenAI/Python 1.%d.0", i), fmt.Sprintf("task-%d", i))
			})},
			check: func(t *testing.T, r *analyze.Result) {
				var attempts []int64
				for _, c := range r.Clients {
					attempts = append(attempts, c.Attempts)
				}
				if len(r.Clients) != 20 || sum(attempts...) != 5000 || !r.ClientsBound.Cut() {
					t.Errorf("%d clients adding up to %d attempts, bound %+v", len(r.Clients), sum(attempts...), r.ClientsBound)
				}
			}},
		{name: "70,000 distinct routes and User-Agents are shortened past 65,536",
			files: [][]string{lines(70000, func(i int) string {
				return access(i, fmt.Sprintf("/batch/v1/jobs/%d", i), fmt.Sprintf("probe-%d/1.0", i), fmt.Sprintf("task-%d", i))
			})},
			check: func(t *testing.T, r *analyze.Result) {
				want := analyze.ShortenedLabels{Routes: 70000 - 65536, UserAgents: 70000 - 65536}
				if in := r.Inputs[0]; in.Shortened != want {
					t.Errorf("shortened %+v, want %+v", in.Shortened, want)
				}
				// The shortened routes keep the word their class is read from.
				if c := r.Reconcile.ByClass; len(c) == 0 || c[0].Class != "batch" || c[0].HTTP.Attempts != 70000 {
					t.Errorf("classes %+v, want 70,000 batch attempts", c)
				}
				if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "the routes of 4,464 events are kept shortened") }) {
					t.Errorf("no warning of the shortened routes: %q", r.Warnings)
				}
			}, long: true},
		{name: "5,000 distinct skip reasons",
			files: [][]string{append(lines(50, func(i int) string { return otlpSpan(i, fmt.Sprintf("%016x", i+1), true) }),
				lines(5000, func(i int) string { return otlpSpan(i, word(i), false) })...)},
			check: func(t *testing.T, r *analyze.Result) {
				in := r.Inputs[0]
				var skipped []int64
				for _, s := range in.SkippedBy {
					skipped = append(skipped, s.Lines)
				}
				last := in.SkippedBy[len(in.SkippedBy)-1]
				// Past 4,096 reasons under "other", distinct ones are no
				// longer told apart: a floor.
				want := analyze.TableBound{Rows: 32, Counted: 31, Uncounted: 4096, UncountedAtLeast: true}
				if in.Skipped != 5000 || len(in.SkippedBy) != 32 || last.Reason != "other reasons" || sum(skipped...) != 5000 || in.SkippedByBound != want {
					t.Errorf("%d skipped in %d reasons adding up to %d, last %q, bound %+v; want 5,000, 32, %+v", in.Skipped, len(in.SkippedBy), sum(skipped...), last.Reason, in.SkippedByBound, want)
				}
			}},
		{name: "150 input files",
			files: slices.Collect(func(yield func([]string) bool) {
				for f := range 150 {
					if !yield(lines(20, func(i int) string {
						return access(f*20+i, "/batch/v1/chat", "OpenAI/Python 1.52.0", fmt.Sprintf("task-%d", f*20+i))
					})) {
						return
					}
				}
			}),
			check: func(t *testing.T, r *analyze.Result) {
				var lines []int64
				for _, in := range r.Inputs {
					lines = append(lines, in.Lines)
				}
				want := analyze.TableBound{Rows: 100, Folded: 51}
				if len(r.Inputs) != 100 || r.Inputs[99].Path != "other inputs" || sum(lines...) != 3000 || r.InputsBound != want {
					t.Errorf("%d inputs adding up to %d lines, bound %+v; want 100 ending in other inputs, 3,000, %+v", len(r.Inputs), sum(lines...), r.InputsBound, want)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.long && testing.Short() {
				t.Skip("70,000 lines in four formats")
			}
			dir := t.TempDir()
			var inputs []string
			for i, f := range tt.files {
				p := filepath.Join(dir, fmt.Sprintf("%03d.log", i))
				if err := os.WriteFile(p, []byte(strings.Join(f, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				inputs = append(inputs, p)
			}
			for _, format := range []string{"json", "table", "markdown", "html"} {
				stdout, _, err := run(t, append([]string{"analyze", "--format", format}, inputs...)...)
				if err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				// The seed incident's reports are 20 to 200 kB; these hold
				// thousands of distinct values, and may not be much larger.
				if len(stdout) > 256<<10 {
					t.Errorf("%s report of %d bytes", format, len(stdout))
				}
				if format != "json" {
					continue
				}
				var r analyze.Result
				if err := json.Unmarshal([]byte(stdout), &r); err != nil {
					t.Fatal(err)
				}
				tt.check(t, &r)
			}
		})
	}
}
