package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
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
				// stops first closes the pipe: that is fine too.
				if _, err := stdin.Write(nginxInput()); err != nil && !errors.Is(err, syscall.EPIPE) {
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
	for _, m := range regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`).FindAllSubmatch(md, -1) {
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
	var afterInit, killed int
	for i := range trials {
		delay := time.Duration(i%11) * time.Millisecond
		cmd := exec.Command(bin, "analyze", "-")
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		stdin, err := cmd.StdinPipe()
		must(t, err)
		stderr, err := cmd.StderrPipe()
		must(t, err)
		must(t, cmd.Start())
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
