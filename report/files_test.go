package report

import (
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/timeline"
)

func TestWriteFileMarkdownWritesChartsBeside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "incident report.md")
	r := incidentResult()
	if err := WriteFile(context.Background(), path, r, FormatMarkdown, Options{Series: incidentSeries(r)}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`).FindAllStringSubmatch(string(md), -1)
	names := []string{"rate", "rate-batch", "rate-interactive", "throttle-load", "acf", "waves"}
	if len(links) != len(names) {
		t.Fatalf("%d image links, want %d:\n%s", len(links), len(names), md)
	}
	for i, name := range names {
		if want := "incident%20report-" + name + ".png"; links[i][1] != want {
			t.Errorf("link %q, want the relative, escaped file name %q", links[i][1], want)
		}
	}
	if strings.Index(string(md), "## Findings") > strings.Index(string(md), "## Charts") {
		t.Error("charts come before the findings")
	}
	f, err := os.Open(filepath.Join(dir, "incident report-waves.png"))
	if err != nil {
		t.Fatalf("chart not beside the report: %v", err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != int(ChartWidth.Dots(96)) || cfg.Height != int(ChartHeight.Dots(96)) {
		t.Errorf("chart is %dx%d", cfg.Width, cfg.Height)
	}
	// Nothing but the report and its charts: temporaries were renamed.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1+len(names) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %q, want the report and one chart", names)
	}
}

// TestWriteFileStopped: a context done before or while the report is
// written leaves the old report as it was and no file beside it.
func TestWriteFileStopped(t *testing.T) {
	stop := errors.New("stopped for the test")
	for _, f := range Formats {
		t.Run(string(f), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "r."+formatExt[f])
			must(t, os.WriteFile(path, []byte("old"), 0o644))
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(stop)
			r := incidentResult()
			if err := WriteFile(ctx, path, r, f, Options{Series: incidentSeries(r)}); !errors.Is(err, stop) {
				t.Errorf("WriteFile = %v, want the context's cause", err)
			}
			if b, _ := os.ReadFile(path); string(b) != "old" {
				t.Errorf("the old report became %q", b)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("%d files, want the old report alone", len(entries))
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestWriteFileOtherFormatsWriteOneFile(t *testing.T) {
	for _, f := range []Format{FormatHTML, FormatJSON, FormatTable} {
		dir := t.TempDir()
		path := filepath.Join(dir, "r."+formatExt[f])
		if err := WriteFile(context.Background(), path, incidentResult(), f, Options{}); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Errorf("%s: %d files, want 1", f, len(entries))
		}
	}
}

func TestRateSeriesCountsAttemptsPerSecond(t *testing.T) {
	r := &analyze.Result{Window: analyze.Window{Start: incidentStart, End: at(2.5), Duration: 2.5}}
	ev := func(s float64, l timeline.Layer, o timeline.Outcome) timeline.Event {
		return timeline.Event{Start: at(s).UnixNano(), Layer: l, Outcome: o}
	}
	tl := &timeline.Timeline{Events: []timeline.Event{
		ev(0.1, timeline.LayerHTTP, timeline.OutcomeOK),
		ev(0.9, timeline.LayerHTTP, timeline.OutcomeThrottled),
		ev(1.0, timeline.LayerHTTP, timeline.OutcomeThrottled),
		ev(1.5, timeline.LayerCall, timeline.OutcomeThrottled), // a call, not an attempt
		ev(2.2, timeline.LayerHTTP, timeline.OutcomeRetryable),
		ev(2.3, timeline.LayerHTTP, timeline.OutcomeNonRetryable),
	}}
	got := RateSeries(tl, r)
	want := []RatePoint{{Offset: 0, OK: 1, Throttled: 1}, {Offset: 1, Throttled: 1}, {Offset: 2, Errored: 2}, {Offset: 3}}
	if len(got) != len(want) {
		t.Fatalf("%d points, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("second %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// Events without a class belong to no class's chart.
	if byClass := RateSeriesByClass(tl, r); len(byClass) != 0 {
		t.Errorf("unclassed events made class series: %+v", byClass)
	}
	tl.Events[0].Class = timeline.ClassInteractive
	tl.Events[1].Class = timeline.ClassBatch
	tl.Events[4].Class = timeline.ClassBatch
	byClass := RateSeriesByClass(tl, r)
	if len(byClass) != 2 || byClass[0].Class != "batch" || byClass[1].Class != "interactive" {
		t.Fatalf("by class: %+v", byClass)
	}
	if b := byClass[0].Points; b[0].Throttled != 1 || b[0].OK != 0 || b[2].Errored != 1 {
		t.Errorf("batch series %+v", b)
	}
	if i := byClass[1].Points; i[0].OK != 1 || i[0].Throttled != 0 {
		t.Errorf("interactive series %+v", i)
	}
	if RateSeries(nil, r) != nil || RateSeries(tl, &analyze.Result{}) != nil {
		t.Error("series without a timeline or a window")
	}
}

// TestWriteFileMarkdownFailureLeavesNothing: a report that cannot be put in
// place takes its charts with it, and a failure keeps an old report whole.
func TestWriteFileMarkdownFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rep.md")
	// A directory where the report should go: the charts stage, the report
	// cannot.
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	r := incidentResult()
	if err := WriteFile(context.Background(), path, r, FormatMarkdown, Options{Series: incidentSeries(r)}); err == nil {
		t.Fatal("WriteFile over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "rep.md" {
			t.Errorf("%s left behind", e.Name())
		}
	}
}
