package report

import (
	"context"
	"errors"
	"image/png"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stampede/stampede/analyze"
)

func TestWriteFileMarkdownWritesChartsBeside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "incident report.md")
	r := incidentResult()
	if err := WriteFile(context.Background(), path, withSeries(r, incidentSeries(r)), FormatMarkdown, Options{}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	links := imageLinks(md)
	names := []string{"rate", "rate-batch", "rate-interactive", "throttle-load", "starvation", "acf", "waves"}
	if len(links) != len(names) {
		t.Fatalf("%d image links, want %d:\n%s", len(links), len(names), md)
	}
	for i, name := range names {
		want := regexp.MustCompile(`^incident%20report-` + name + `-[0-9a-f]{8}\.png$`)
		if !want.MatchString(links[i]) {
			t.Errorf("link %q, want the relative, escaped file name %s", links[i], want)
		}
	}
	if strings.Index(string(md), "## Findings") > strings.Index(string(md), "## Charts") {
		t.Error("charts come before the findings")
	}
	waves, _ := url.PathUnescape(links[len(links)-1])
	f, err := os.Open(filepath.Join(dir, waves))
	if err != nil {
		t.Fatalf("chart not beside the report: %v", err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	// Drawn at 2x, which the <img width="800"> that imageLinks requires
	// shows at its laid-out size.
	if cfg.Width != 1600 || cfg.Height != 800 {
		t.Errorf("chart is %dx%d, want 1600x800", cfg.Width, cfg.Height)
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

// imageLinks are the targets of a Markdown report's chart images.
func imageLinks(md []byte) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<img src="([^"]+)" width="800"`).FindAllSubmatch(md, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// otherIncident is a result whose charts differ from incidentResult's in
// every picture.
func otherIncident() (*analyze.Result, analyze.Series) {
	r := incidentResult()
	r.Waves.Waves = r.Waves.Waves[:2]
	s := incidentSeries(r)
	for i := range s.Rate {
		s.Rate[i].OK *= 3
	}
	for _, c := range s.RateByClass {
		for i := range c.Points {
			c.Points[i].OK += 7
		}
	}
	r.Waves.ACFCurve = append([]float64{}, r.Waves.ACFCurve...)
	for i := range r.Waves.ACFCurve {
		r.Waves.ACFCurve[i] /= 2
	}
	return r, s
}

// TestWriteFileMarkdownReplacesItsCharts: a report written over an older
// one takes the older one's charts away, old-style names included, and
// leaves every other file alone, even one named like a chart.
func TestWriteFileMarkdownReplacesItsCharts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "inc.md")
	keep := []string{"inc-diagram.png", "inc-rate-0123abcd.png", "other-rate.png", "notes.txt"}
	for _, name := range keep {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644))
	}
	// A report of an earlier version, with charts named without a hash,
	// and a picture linked by hand.
	old := []string{"inc-rate.png", "inc-waves.png"}
	for _, name := range old {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644))
	}
	must(t, os.WriteFile(path, []byte("![a](inc-rate.png)\n![b](inc-waves.png)\n![c](inc-diagram.png)\n![d](../outside-rate.png)\n"), 0o644))

	r := incidentResult()
	must(t, WriteFile(context.Background(), path, withSeries(r, incidentSeries(r)), FormatMarkdown, Options{}))
	first := chartFiles(t, dir, path)
	other, series := otherIncident()
	must(t, WriteFile(context.Background(), path, withSeries(other, series), FormatMarkdown, Options{}))
	second := chartFiles(t, dir, path)

	for _, name := range old {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("the old report's chart %s is still there", name)
		}
	}
	for name := range first {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil && !second[name] {
			t.Errorf("the replaced report's chart %s is still there", name)
		}
	}
	for _, name := range keep {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s, not a chart of the replaced report, was removed: %v", name, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if want := len(keep) + 1 + len(second); len(entries) != want {
		t.Errorf("%d files, want %d", len(entries), want)
	}
}

// chartFiles reads the report at path and returns the charts it links,
// failing the test for any that is not a file in dir.
func chartFiles(t *testing.T, dir, path string) map[string]bool {
	t.Helper()
	md, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range imageLinks(md) {
		name, _ := url.PathUnescape(l)
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || !st.Mode().IsRegular() {
			t.Errorf("the report links %s, which is not there: %v", name, err)
		}
		out[name] = true
	}
	return out
}

// TestWriteFileMarkdownConcurrent writes two different reports to one path
// at once, many times: the report left links only charts that are there
// and that are its own, whichever run put it in place.
func TestWriteFileMarkdownConcurrent(t *testing.T) {
	a := incidentResult()
	b, bSeries := otherIncident()
	runs := []struct {
		r    *analyze.Result
		opts Options
	}{{withSeries(a, incidentSeries(a)), Options{}}, {withSeries(b, bSeries), Options{}}}
	// Each run's charts, drawn once on their own.
	own := make([]map[string]bool, len(runs))
	for i, run := range runs {
		dir := t.TempDir()
		must(t, WriteFile(context.Background(), filepath.Join(dir, "r.md"), run.r, FormatMarkdown, run.opts))
		own[i] = chartFiles(t, dir, filepath.Join(dir, "r.md"))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.md")
	for trial := range 10 {
		var wg sync.WaitGroup
		for _, run := range runs {
			wg.Go(func() {
				if err := WriteFile(context.Background(), path, run.r, FormatMarkdown, run.opts); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got := chartFiles(t, dir, path)
		if !maps.Equal(got, own[0]) && !maps.Equal(got, own[1]) {
			t.Fatalf("trial %d: the report links %v, the charts of neither run alone", trial, got)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1+len(got) {
			t.Errorf("trial %d: %d files beside the report's %d charts", trial, len(entries)-1, len(got))
		}
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
			if err := WriteFile(ctx, path, withSeries(r, incidentSeries(r)), f, Options{}); !errors.Is(err, stop) {
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
	if err := WriteFile(context.Background(), path, withSeries(r, incidentSeries(r)), FormatMarkdown, Options{}); err == nil {
		t.Fatal("WriteFile over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "rep.md" {
			t.Errorf("%s left behind", e.Name())
		}
	}
}
