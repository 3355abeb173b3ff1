package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/internal/memlimit"
	"github.com/stampede/stampede/internal/racedetect"
	"github.com/stampede/stampede/spill"
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

// built is the command, built once per test binary by buildStampede and
// removed by TestMain.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// buildStampede builds the command once per test binary, for the tests
// that need a real process: signals, limits and exit statuses.
func buildStampede(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "stampede-test-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "stampede")
		if out, err := exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
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

// TestRunStopsCleanly stops the command by signal, --timeout or
// --max-memory while it reads (standard input that never ends) or while it
// writes (to a FIFO or standard output that nobody reads, so the write
// cannot finish): it exits 2 within 2 s with a message naming the cause,
// and leaves nothing new in the output directory.
func TestRunStopsCleanly(t *testing.T) {
	bin := buildStampede(t)
	seed, err := filepath.Abs(filepath.Join("..", "..", "testdata", "seed-incident"))
	must(t, err)
	scenario, err := filepath.Abs(filepath.Join("..", "..", "testdata", "scenarios", "seed-incident.json"))
	must(t, err)
	const (
		reading = "reading"
		writing = "writing"
	)
	tests := []struct {
		name  string
		args  []string
		phase string
		// fifo is the output that blocks a write: a FIFO of that name, or
		// "-" for standard output.
		fifo    string
		signal  syscall.Signal
		wantErr string
	}{
		{"SIGTERM during ingest", []string{"ingest", "-", "-o", "timeline.arrow"}, reading, "", syscall.SIGTERM, "interrupted"},
		{"SIGTERM during analyze", []string{"analyze", "-", "--format", "html", "-o", "report.html"}, reading, "", syscall.SIGTERM, "interrupted"},
		{"timeout", []string{"ingest", "-", "-o", "timeline.parquet", "--timeout", "300ms"}, reading, "", 0, "--timeout 300ms"},
		{"memory limit", []string{"analyze", "-", "-o", "report.json", "--format", "json", "--max-memory", "1B"}, reading, "", 0, "over --max-memory 1B"},

		{"SIGINT while analyze writes its report", []string{"analyze", seed, "--format", "html", "-o", "report.html"}, writing, "report.html", syscall.SIGINT, "interrupted; no output written"},
		{"SIGTERM while analyze writes Markdown", []string{"analyze", seed, "--format", "markdown", "-o", "report.md"}, writing, "report.md", syscall.SIGTERM, "interrupted; no output written"},
		{"SIGINT while analyze writes to standard output", []string{"analyze", seed, "--format", "html"}, writing, "-", syscall.SIGINT, "interrupted; no output written"},
		{"SIGTERM while ingest writes Arrow", []string{"ingest", seed, "-o", "timeline.arrow"}, writing, "timeline.arrow", syscall.SIGTERM, "interrupted; no output written"},
		{"--timeout while ingest writes Parquet", []string{"ingest", seed, "-o", "timeline.parquet", "--timeout", "3s"}, writing, "timeline.parquet", 0, "stopped after --timeout 3s"},
		{"SIGINT while whatif writes", []string{"whatif", "--scenario", scenario, "--whatif-seeds", "1", "--format", "html", "-o", "whatif.html"}, writing, "whatif.html", syscall.SIGINT, "interrupted; no output written"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, tt.args...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdin, err := cmd.StdinPipe()
			must(t, err)
			// blocked holds the read end of what the command writes to in
			// the writing phase; nobody reads it.
			var blocked *os.File
			switch tt.fifo {
			case "":
			case "-":
				r, w, err := os.Pipe()
				must(t, err)
				defer r.Close()
				defer w.Close()
				cmd.Stdout, blocked = w, r
			default:
				fifo := filepath.Join(dir, tt.fifo)
				must(t, syscall.Mkfifo(fifo, 0o600))
				// Opened first, without blocking, so that the command's
				// open returns and its writes fill the FIFO.
				blocked, err = os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
				must(t, err)
				defer blocked.Close()
			}
			if blocked != nil {
				shrinkPipe(t, blocked)
			}
			must(t, cmd.Start())
			start := time.Now()
			exited := make(chan struct{})
			go func() {
				cmd.Wait()
				close(exited)
			}()
			hung := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
			defer hung.Stop()
			if tt.phase == reading {
				// Writing more than a pipe holds returns once the process
				// has read most of it, so it is running by then. A run that
				// stops first (a budget refused before reading) closes the
				// pipe, or has been waited for, which closes our end: that
				// is fine too.
				if _, err := stdin.Write(nginxInput()); err != nil && !errors.Is(err, syscall.EPIPE) && !errors.Is(err, os.ErrClosed) {
					t.Fatal(err)
				}
			} else {
				stdin.Close()
				// Writing once the first bytes are in the pipe.
				for pending(t, blocked) == 0 {
					select {
					case <-exited:
						t.Fatalf("exited before it was stuck writing: %v; stderr: %s", cmd.ProcessState, stderr.String())
					case <-time.After(time.Millisecond):
					}
				}
			}
			stopped := time.Now()
			if tt.signal != 0 {
				must(t, cmd.Process.Signal(tt.signal))
			}
			<-exited
			stdin.Close()
			if tt.phase == writing {
				// A limit fires by itself, at its time after the start.
				if tt.signal == 0 {
					stopped = start.Add(flagDuration(t, tt.args, "--timeout"))
				}
				if took := time.Since(stopped); took > 2*time.Second {
					t.Errorf("exited %v after it was stopped, want within 2s", took.Round(time.Millisecond))
				}
			}
			if code := cmd.ProcessState.ExitCode(); code != exitUsage {
				t.Errorf("%v, want exit status %d; stderr: %s", cmd.ProcessState, exitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.wantErr)
			}
			left, _ := os.ReadDir(dir)
			for _, e := range left {
				if e.Name() != tt.fifo {
					t.Errorf("left %s behind", e.Name())
				}
			}
		})
	}
}

// TestConcurrentMarkdownRuns runs two analyses of different incidents to
// the same Markdown -o at once, many times. Whichever run puts its report
// in place last, the report left links only charts that are there and that
// its own run drew, and nothing else of either run is left beside it.
func TestConcurrentMarkdownRuns(t *testing.T) {
	bin := buildStampede(t)
	inputs := []string{filepath.Join("..", "..", "testdata", "seed-incident"), filepath.Join("..", "..", "testdata", "ingest", "botocore-access.log")}
	// What each run writes on its own: the report and its charts' bytes.
	type alone struct {
		md     string
		charts map[string][]byte
	}
	want := make([]alone, len(inputs))
	for i, in := range inputs {
		dir := t.TempDir()
		if out, err := exec.Command(bin, "analyze", in, "--format", "markdown", "-o", filepath.Join(dir, "r.md")).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		md, err := os.ReadFile(filepath.Join(dir, "r.md"))
		must(t, err)
		want[i] = alone{string(md), map[string][]byte{}}
		for _, name := range linkedCharts(md) {
			b, err := os.ReadFile(filepath.Join(dir, name))
			must(t, err)
			want[i].charts[name] = b
		}
	}
	if want[0].md == want[1].md {
		t.Fatal("the two incidents give the same report")
	}
	trials := 12
	if testing.Short() {
		trials = 4
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "r.md")
	for trial := range trials {
		var wg sync.WaitGroup
		for _, in := range inputs {
			wg.Go(func() {
				if b, err := exec.Command(bin, "analyze", in, "--format", "markdown", "-o", out).CombinedOutput(); err != nil {
					t.Errorf("%v: %s", err, b)
				}
			})
		}
		wg.Wait()
		md, err := os.ReadFile(out)
		must(t, err)
		run := slices.IndexFunc(want, func(a alone) bool { return a.md == string(md) })
		if run < 0 {
			t.Fatalf("trial %d: the report is neither run's", trial)
		}
		for _, name := range linkedCharts(md) {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(b, want[run].charts[name]) {
				t.Errorf("trial %d: the report links %s, which is not its run's chart (%v)", trial, name, err)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1+len(want[run].charts) {
			t.Errorf("trial %d: %d files beside the report, want its %d charts", trial, len(entries)-1, len(want[run].charts))
		}
	}
}

// linkedCharts are the file names a Markdown report links as images.
func linkedCharts(md []byte) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<img src="([^"]+)"`).FindAllSubmatch(md, -1) {
		name, err := url.PathUnescape(string(m[1]))
		if err == nil {
			out = append(out, name)
		}
	}
	return out
}

// flagDuration is the value of a duration flag in args.
func flagDuration(t *testing.T, args []string, flag string) time.Duration {
	t.Helper()
	i := slices.Index(args, flag)
	if i < 0 || i+1 == len(args) {
		t.Fatalf("%v has no %s", args, flag)
	}
	d, err := time.ParseDuration(args[i+1])
	must(t, err)
	return d
}

// interruptInit is the line GODEBUG=inittrace=1 prints once package
// interrupt has initialised, and with it the signal handler.
const interruptInit = "init github.com/stampede/stampede/internal/interrupt "

// TestSignalAtStart sends SIGTERM 0 to 10 ms after the process starts, as
// a CI runner cancelling a job may, many times. Go kills a process for
// SIGTERM until a package asks for the signal; package interrupt asks while
// the standard library is still initialising, long before main, and from
// then on every signal ends the run with the command's message and status
// 2. The initialisation trace says when that was: a signal sent before its
// line was read may still meet the runtime's default, which no Go program
// can move earlier, and is only counted.
func TestSignalAtStart(t *testing.T) {
	bin := buildStampede(t)
	// The handler comes before nearly all of the start-up work.
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	trace, _ := cmd.CombinedOutput()
	inits := strings.Count(string(trace), "\ninit ") + 1
	at := strings.Count(string(trace[:max(0, bytes.Index(trace, []byte(interruptInit)))]), "\ninit ") + 1
	if !bytes.Contains(trace, []byte(interruptInit)) || at > inits/4 {
		t.Fatalf("package interrupt initialises %dth of %d packages, want within the first quarter", at, inits)
	}

	trials := 66
	if testing.Short() {
		trials = 22
	}
	// The signals are spread over twice the time the handler takes to be
	// in place here, at least 10 ms: on a loaded machine start-up takes
	// longer, and signals all sent before it would test nothing.
	span := max(10*time.Millisecond, 2*timeToHandler(t, bin))
	var afterInit, killed int
	for i := range trials {
		delay := time.Duration(i%11) * span / 10
		cmd, stdin, stderr := startTraced(t, bin)
		start := time.Now()
		var initAt atomic.Int64 // since start, once the line was read
		var text strings.Builder
		read := make(chan struct{})
		go func() {
			defer close(read)
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), interruptInit) {
					initAt.Store(int64(time.Since(start)))
				}
				text.WriteString(sc.Text() + "\n")
			}
		}()
		time.Sleep(delay)
		sent := time.Since(start)
		must(t, cmd.Process.Signal(syscall.SIGTERM))
		hung := time.AfterFunc(5*time.Second, func() { cmd.Process.Kill() })
		<-read
		cmd.Wait()
		hung.Stop()
		stdin.Close()
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		handled := initAt.Load() != 0 && time.Duration(initAt.Load()) < sent
		switch {
		case ws.Exited() && ws.ExitStatus() == exitUsage && strings.Contains(text.String(), "stampede: interrupted"):
		case ws.Signaled() && ws.Signal() == syscall.SIGTERM && !handled:
			killed++
		default:
			t.Errorf("SIGTERM %v after the start (handler in place: %v): %v; stderr ends %q", sent, handled, cmd.ProcessState, tail(text.String()))
		}
		if handled {
			afterInit++
		}
	}
	t.Logf("%d of %d signals came after the handler, every one exit 2; %d of the %d before it met the runtime's default", afterInit, trials, killed, trials-afterInit)
	if afterInit < trials/4 {
		t.Errorf("only %d of %d signals came after the handler: too few to tell", afterInit, trials)
	}
}

// startTraced starts `bin analyze -` with the initialisation trace on,
// its standard input and error piped.
func startTraced(t *testing.T, bin string) (*exec.Cmd, io.WriteCloser, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(bin, "analyze", "-")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stderr, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	return cmd, stdin, stderr
}

// timeToHandler is how long after its start a run of bin had its signal
// handler in place, as the initialisation trace says: the slowest of
// three runs.
func timeToHandler(t *testing.T, bin string) time.Duration {
	t.Helper()
	var slowest time.Duration
	for range 3 {
		start := time.Now()
		cmd, stdin, stderr := startTraced(t, bin)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), interruptInit) {
				slowest = max(slowest, time.Since(start))
				break
			}
		}
		stdin.Close()
		io.Copy(io.Discard, stderr)
		cmd.Wait()
	}
	return slowest
}

func tail(s string) string {
	if len(s) > 200 {
		return s[len(s)-200:]
	}
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
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
// inputs' sizes once decompressed, and whether they can be known.
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
	// Zeros: no newline, so one line of 1000 bytes.
	plain := sized("access.log", 1000)
	plainBytes := int64(footprintPerLine + 1000*footprintPerByte)
	// A log that compresses a hundred times, which a fixed ratio of ten
	// would take for a tenth of its size.
	text := bytes.Repeat([]byte(`10.0.0.1 - - [01/Nov/2026:00:00:00 +0000] "GET /a HTTP/1.1" 429 0 "-" "curl/8.0"`+"\n"), 2000)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text)
	zw.Close()
	gzPath := filepath.Join(dir, "access.log.1.gz")
	if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fifoDir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(fifoDir, "live.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	textBytes := int64(2000*footprintPerLine + float64(len(text))*footprintPerByte)
	tests := []struct {
		name   string
		inputs []string
		want   int64
		known  bool
	}{
		{"plain file", []string{plain}, plainBytes, true},
		{"gzip counts its uncompressed size", []string{gzPath}, textBytes, true},
		{"directory adds up its logs", []string{dir}, plainBytes + textBytes, true},
		{"missing input", []string{filepath.Join(dir, "missing.log")}, 0, true},
		{"standard input", []string{"-"}, 0, false},
		{"standard input beside a file", []string{"-", plain}, plainBytes, false},
		{"a FIFO in a directory", []string{fifoDir}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, known := estimatedFootprint(tt.inputs); got != tt.want || known != tt.known {
				t.Fatalf("estimatedFootprint = %d, %v; want %d, %v", got, known, tt.want, tt.known)
			}
		})
	}
}

// TestHostileCardinality reads logs where every line brings a new value:
// every report format stays small, each table past its bound ends in an
// "other" row, and the rows add up to what was read.
func TestHostileCardinality(t *testing.T) {
	racedetect.SkipResultsTest(t)
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

// TestAutoSpillHonoursLimits runs the spill decision of a run without
// --max-memory against fake hosts: the room is the smallest of a cgroup's
// limit less its usage, MemAvailable and GOMEMLIMIT, and an input larger
// than half of it spills, with a message naming the limit.
func TestAutoSpillHonoursLimits(t *testing.T) {
	input := filepath.Join(t.TempDir(), "access.log")
	f, err := os.Create(input)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(100 << 20) // one line of 100 MiB: over 50 MB to hold
	f.Close()
	big := filepath.Join(t.TempDir(), "big.log")
	f, err = os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(3 << 30) // 1.5 GiB to hold: over the default working set
	f.Close()
	const meminfo = "MemAvailable:    8388608 kB\n"
	tests := []struct {
		name    string
		files   map[string]string
		goLimit int64
		inputs  []string
		spills  bool
		wantMsg string
	}{
		{"room enough", map[string]string{"proc/meminfo": meminfo}, 0, []string{input}, false, ""},
		{"cgroup v2 limit", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n", "sys/fs/cgroup/memory.max": "67108864", "sys/fs/cgroup/memory.current": "0"},
			0, []string{input}, true, "/sys/fs/cgroup/memory.max less its usage"},
		{"cgroup v2 limit, mostly used", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n", "sys/fs/cgroup/memory.max": "1073741824", "sys/fs/cgroup/memory.current": "1006632960"},
			0, []string{input}, true, "of the 67 MB of memory available"},
		{"cgroup v1 limit", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "4:memory:/job\n", "sys/fs/cgroup/memory/job/memory.limit_in_bytes": "67108864", "sys/fs/cgroup/memory/job/memory.usage_in_bytes": "0"},
			0, []string{input}, true, "/sys/fs/cgroup/memory/job/memory.limit_in_bytes less its usage"},
		{"a cgroup limit above the input", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n", "sys/fs/cgroup/memory.max": "4294967296", "sys/fs/cgroup/memory.current": "0"},
			0, []string{input}, false, ""},
		{"MemAvailable", map[string]string{"proc/meminfo": "MemAvailable:  65536 kB\n"}, 0, []string{input}, true, "MemAvailable in /proc/meminfo"},
		{"GOMEMLIMIT", map[string]string{"proc/meminfo": meminfo}, 64 << 20, []string{input}, true, "GOMEMLIMIT"},
		{"standard input waits for the heap to grow", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n", "sys/fs/cgroup/memory.max": "201326592"},
			0, []string{"-"}, false, ""},
		{"a large input on a large machine keeps to the default working set", map[string]string{"proc/meminfo": "MemAvailable:  67108864 kB\n"},
			0, []string{big}, true, "1.3 GB, the most a run holds in memory unless --max-memory says otherwise"},
		{"a room that cannot be read keeps to the default working set", map[string]string{}, 0, []string{big}, true, "the most a run holds in memory"},
		{"a small input with the room unknown", map[string]string{}, 0, []string{input}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tt.files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			l := limitFlags{spillDir: t.TempDir(), host: func() memlimit.Host { return memlimit.Host{Root: root, GoLimit: tt.goLimit} }}
			var stderr bytes.Buffer
			stop, err := l.startSpill(0, tt.inputs, &stderr)
			if err != nil {
				t.Fatal(err)
			}
			_, spilling := spill.Current()
			stop()
			if spilling != tt.spills || !strings.Contains(stderr.String(), tt.wantMsg) || !tt.spills && stderr.Len() > 0 {
				t.Fatalf("spilling %v, stderr %q; want spilling %v and a message with %q", spilling, stderr.String(), tt.spills, tt.wantMsg)
			}
		})
	}
}

// TestRefuseBudget refuses, before any reading, a --max-memory under the
// heap the inputs' accounting needs whatever spills: the same inputs and
// budget are then refused every time instead of passing or failing with
// the collector's timing.
func TestRefuseBudget(t *testing.T) {
	dir := t.TempDir()
	for i := range 3000 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("access-%04d.log", i)), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		limit   string
		inputs  []string
		wantErr string // "" for no refusal
	}{
		{"3,000 files under their heap", "8MiB", []string{dir}, "stopped before reading: 3000 input files keep about 8.8 MB on the heap, over --max-memory 8MiB: that part cannot spill; give at least 9MiB"},
		{"3,000 files within it", "9MiB", []string{dir}, ""},
		{"standard input", "1B", []string{"-"}, "over --max-memory 1B"},
		{"inputs that do not exist are left to the reading", "1B", []string{filepath.Join(dir, "missing.log")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit, err := parseSize(tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			err = refuseBudget(limit, tt.limit, tt.inputs)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("refuseBudget = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestLiveHeapOver judges the live heap only: garbage over the limit is
// collected and passes, a live slice over it does not.
func TestLiveHeapOver(t *testing.T) {
	const limit = 256 << 20
	var keep []byte
	for _, tt := range []struct {
		name string
		live bool
	}{
		{"garbage over the limit", false},
		{"a live slice over it", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := make([]byte, limit+(64<<20))
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			if tt.live {
				keep = b
			}
			b = nil
			if _, over, ok := liveHeapOver(limit); !ok || over != tt.live {
				t.Fatalf("over = %v, ok %v; want %v", over, ok, tt.live)
			}
		})
	}
	runtime.KeepAlive(keep)
}
