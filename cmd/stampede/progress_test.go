package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede"
)

func TestFormatProgress(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pr      stampede.Progress
		elapsed time.Duration
		want    string
	}{
		{
			name:    "start",
			pr:      stampede.Progress{TotalBytes: 3_400_000_000, Files: 1},
			elapsed: 0,
			want:    "[....................]   0%  0 B / 3.4 GB",
		},
		{
			name:    "a third in ten seconds",
			pr:      stampede.Progress{Bytes: 1_200_000_000, TotalBytes: 3_600_000_000, Lines: 8_500_000, Files: 1},
			elapsed: 10 * time.Second,
			want:    "[######..............]  33%  1.2 GB / 3.6 GB  120 MB/s  850k lines/s  ETA 20s",
		},
		{
			name:    "minutes left, several files",
			pr:      stampede.Progress{Bytes: 50_000_000, TotalBytes: 5_000_000_000, Lines: 12_000, FilesDone: 1, Files: 4},
			elapsed: 10 * time.Second,
			want:    "[....................]   1%  50 MB / 5.0 GB  5.0 MB/s  1.2k lines/s  ETA 16:30  files 1/4",
		},
		{
			name:    "hours left",
			pr:      stampede.Progress{Bytes: 1_000_000, TotalBytes: 10_000_000_000, Lines: 500, Files: 1},
			elapsed: time.Second,
			want:    "[....................]   0%  1.0 MB / 10 GB  1.0 MB/s  500 lines/s  ETA 2:46:39",
		},
		{
			name:    "done: no ETA",
			pr:      stampede.Progress{Bytes: 2_000_000, TotalBytes: 2_000_000, Lines: 2_000_000, FilesDone: 1, Files: 1},
			elapsed: time.Second,
			want:    "[####################] 100%  2.0 MB / 2.0 MB  2.0 MB/s  2.00M lines/s",
		},
		{
			name:    "standard input: no total",
			pr:      stampede.Progress{Bytes: 999, Lines: 40, Files: 1},
			elapsed: 2 * time.Second,
			want:    "read 999 B  499 B/s  20 lines/s",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := formatProgress(tc.pr, tc.elapsed); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 999: "999 B", 1000: "1.0 kB", 15_300: "15 kB",
		2_500_000: "2.5 MB", 123_000_000_000: "123 GB", 4_000_000_000_000: "4.0 TB",
	} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestProgressNotOnPipe: a pipe (and so a file, or CI's log) never gets a
// bar, and the library is not even asked for progress.
func TestProgressNotOnPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var cfg stampede.Config
	finish := attachProgress(&cfg, w)
	if cfg.Progress != nil {
		t.Error("progress attached to a pipe")
	}
	finish()
	w.Close()
	var out bytes.Buffer
	if _, err := out.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("pipe got %q", out.String())
	}
	var buf bytes.Buffer
	if isTerminal(&buf) {
		t.Error("a buffer counted as a terminal")
	}
}

// TestProgressBarDrawsAndClears drives a bar by hand, without its ticker:
// each draw overwrites the line, and reading the last file blanks it so
// the report that follows starts on a clean line.
func TestProgressBarDrawsAndClears(t *testing.T) {
	var out bytes.Buffer
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	bar := &progressBar{w: &out, start: start}
	bar.update(stampede.Progress{Bytes: 5_000_000, TotalBytes: 10_000_000, Lines: 1000, Files: 2})
	bar.draw(start.Add(time.Second))
	first := out.String()
	if !strings.HasPrefix(first, "\r[##########..........]  50%") {
		t.Fatalf("first draw %q", first)
	}
	// A late snapshot from the other file must not move the bar back.
	bar.update(stampede.Progress{Bytes: 4_000_000, TotalBytes: 10_000_000, Lines: 900, Files: 2})
	out.Reset()
	bar.draw(start.Add(time.Second))
	if out.String() != first {
		t.Errorf("bar went back: %q after %q", out.String(), first)
	}
	out.Reset()
	bar.update(stampede.Progress{Bytes: 10_000_000, TotalBytes: 10_000_000, Lines: 2000, FilesDone: 2, Files: 2})
	if want := "\r" + strings.Repeat(" ", len(first)-1) + "\r"; out.String() != want {
		t.Errorf("clear wrote %q, want %q", out.String(), want)
	}
	out.Reset()
	bar.draw(start.Add(2 * time.Second))
	bar.finish()
	if out.Len() != 0 {
		t.Errorf("bar drew %q after it was cleared", out.String())
	}
}

// TestProgressThroughAnalysis: once the files are read the bar leaves the
// line, comes back for the analysis with its own clock, and leaves for
// good when the library says it is done, before the report is written.
func TestProgressThroughAnalysis(t *testing.T) {
	var out bytes.Buffer
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	bar := &progressBar{w: &out, start: start, now: func() time.Time { return now }}
	steps := []struct {
		name   string
		update *stampede.Progress
		at     time.Duration
		want   string // what the draw after the update writes; "" nothing
	}{
		{name: "reading", update: &stampede.Progress{Bytes: 5, TotalBytes: 10, Lines: 1, Files: 1}, at: time.Second, want: "\r[##########..........]  50%"},
		{name: "read: the line goes", update: &stampede.Progress{Bytes: 10, TotalBytes: 10, Lines: 2, FilesDone: 1, Files: 1}, at: 2 * time.Second, want: ""},
		{name: "analysing", update: &stampede.Progress{Phase: stampede.PhaseAnalysing, Events: 24944}, at: 5 * time.Second, want: "\ranalysing 24,944 events…  3.0s"},
		{name: "replaying", update: &stampede.Progress{Phase: stampede.PhaseReplaying, Events: 24944}, at: 6 * time.Second, want: "\rreplaying the what-if on 24,944 events…  1.0s"},
		{name: "done: the line goes for good", update: &stampede.Progress{Phase: stampede.PhaseDone, Events: 24944}, at: 7 * time.Second, want: ""},
	}
	for _, st := range steps {
		if st.name == "analysing" {
			now = start.Add(2 * time.Second)
		}
		if st.name == "replaying" {
			now = start.Add(5 * time.Second)
		}
		bar.update(*st.update)
		before := out.Len()
		bar.draw(start.Add(st.at))
		drawn := out.String()[before:]
		switch {
		case st.want == "" && drawn != "":
			t.Errorf("%s: drew %q, want nothing", st.name, drawn)
		case st.want != "" && !strings.HasPrefix(drawn, st.want):
			t.Errorf("%s: drew %q, want it to start %q", st.name, drawn, st.want)
		}
	}
	if !strings.HasSuffix(out.String(), "\r") {
		t.Errorf("the last line was not blanked: %q", out.String())
	}
}
