package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/stampede/stampede/internal/memlimit"
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
