package report

import (
	"bytes"
	"encoding/xml"
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/stampede/stampede/analyze"
)

var chartDir = flag.String("chartdir", "", "also write the test charts into `DIR`, to look at them")

// incidentSeries is per-second traffic for incidentResult: a background of
// successful calls, and at each wave a burst of throttled attempts that
// decays over a few seconds. It also gives r an ACF curve that peaks at the
// 84 s period, with a 12 s comb near lag 0.
// withSeries gives r the series s, as an analysis would have.
func withSeries(r *analyze.Result, s analyze.Series) *analyze.Result {
	r.Series = s
	return r
}

func incidentSeries(r *analyze.Result) analyze.Series {
	n := int(r.Window.Duration) + 1
	s := analyze.Series{Rate: make([]analyze.RatePoint, n)}
	for i := range s.Rate {
		s.Rate[i] = analyze.RatePoint{Offset: float64(i), OK: 20}
	}
	for _, w := range r.Waves.Waves {
		at := int(sinceStart(r, w.Start))
		for k := 0; k < 6 && at+k < n; k++ {
			s.Rate[at+k].Throttled += float64(w.Throttled) / 6 / (1 + float64(k))
			s.Rate[at+k].Errored += 60 / (1 + float64(k))
		}
	}
	interactive := make([]analyze.RatePoint, n)
	for i := range interactive {
		interactive[i] = analyze.RatePoint{Offset: float64(i), OK: 3}
		if i%84 < 5 {
			interactive[i].Throttled = 2
		}
	}
	s.RateByClass = []analyze.ClassRate{{Class: "batch", Points: s.Rate}, {Class: "interactive", Points: interactive}}
	// Five-second windows, throttled and slow for 20 s after each wave:
	// the starvation the chart is for.
	for off := 0; off < n; off += analyze.LoadWindow {
		pt := analyze.InteractivePoint{Offset: float64(off), Attempts: 15, LatencyP50: 0.2, LatencyP95: 0.4, Calls: 10}
		if off%84 < 25 {
			pt.Throttled, pt.LatencyP50, pt.LatencyP95 = 12, 12, 24
		}
		if off%84 < 5 {
			pt.BatchAttempts = 500
		}
		s.Interactive = append(s.Interactive, pt)
	}
	r.Waves.ACFLagStep = 0.5
	r.Waves.ACFCurve = nil
	for lag := 0.0; lag <= 4.25*84.2; lag += r.Waves.ACFLagStep {
		period := math.Exp(-lag/400) * math.Pow(math.Cos(math.Pi*lag/84.2), 20)
		comb := 0.4 * math.Exp(-lag/20) * math.Pow(math.Cos(math.Pi*lag/12), 40)
		r.Waves.ACFCurve = append(r.Waves.ACFCurve, math.Max(period, comb))
	}
	return s
}

func TestCharts(t *testing.T) {
	r := incidentResult()
	charts, err := Charts(withSeries(r, incidentSeries(r)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"rate":             {"ok", "throttled", "error", "wave start"},
		"rate-batch":       {"ok", "throttled", "error", "wave start"},
		"rate-interactive": {"ok", "throttled", "wave start"},
		"throttle-load":    {"batch attempts/s (right axis)", "interactive attempts throttled, % (left axis)", "wave start"},
		"starvation":       {"batch load above its baseline", "interactive attempts throttled, %", "interactive latency p50", "interactive latency p95"},
		"acf":              {"ACF", "99% surrogate threshold", "period 84.", "retry comb inside a wave, every 12.00 s"},
		"waves":            {"wave size", "fitted decay: ×"},
	}
	if len(charts) != len(want) {
		t.Fatalf("%d charts, want %d", len(charts), len(want))
	}
	for _, c := range charts {
		t.Run(c.Name, func(t *testing.T) {
			series := want[c.Name]
			if len(c.Series) != len(series) {
				t.Fatalf("series %q, want %d entries like %q", c.Series, len(series), series)
			}
			for i, s := range series {
				if !strings.HasPrefix(c.Series[i], s) {
					t.Errorf("series %d is %q, want it to start %q", i, c.Series[i], s)
				}
			}
			var pngData, svgData bytes.Buffer
			if err := c.Write(&pngData, ImagePNG); err != nil {
				t.Fatal(err)
			}
			if err := c.Write(&svgData, ImageSVG); err != nil {
				t.Fatal(err)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(pngData.Bytes()))
			if err != nil || format != "png" {
				t.Fatalf("PNG does not decode: %v (%s)", err, format)
			}
			// 2x: 1600 px wide for HiDPI documents, shown at 800.
			h := ChartHeight
			if c.height != 0 {
				h = c.height
			}
			if wantW, wantH := 1600, int(h.Dots(ChartDPI)); cfg.Width != wantW || cfg.Height != wantH {
				t.Errorf("PNG is %dx%d, want %dx%d", cfg.Width, cfg.Height, wantW, wantH)
			}
			img, err := png.Decode(bytes.NewReader(pngData.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			// Each series' colour appears in the plot: it was drawn.
			for _, col := range seriesColours(c.Name) {
				if !hasColour(img, col) {
					t.Errorf("PNG lacks a pixel of colour %v", col)
				}
			}
			checkSVG(t, svgData.Bytes(), c)
			if *chartDir != "" {
				for ext, data := range map[string][]byte{".png": pngData.Bytes(), ".svg": svgData.Bytes()} {
					if err := os.WriteFile(filepath.Join(*chartDir, c.Name+ext), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

func seriesColours(name string) [][3]uint8 {
	rgb := func(c interface{ RGBA() (r, g, b, a uint32) }) [3]uint8 {
		r, g, b, _ := c.RGBA()
		return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
	}
	switch name {
	case "rate-interactive":
		return [][3]uint8{rgb(colourOK), rgb(colourThrottled)}
	case "rate", "rate-batch":
		return [][3]uint8{rgb(colourOK), rgb(colourThrottled), rgb(colourError)}
	case "acf":
		return [][3]uint8{rgb(colourOK), rgb(colourThrottled), rgb(colourMark), rgb(colourComb)}
	case "throttle-load":
		return [][3]uint8{rgb(colourThrottled), rgb(colourMark)}
	case "starvation":
		return [][3]uint8{rgb(colourThrottled), rgb(colourOK)}
	}
	return [][3]uint8{rgb(colourOK), rgb(colourFit)}
}

func hasColour(img image.Image, want [3]uint8) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == want[0] && uint8(g>>8) == want[1] && uint8(bl>>8) == want[2] {
				return true
			}
		}
	}
	return false
}

// checkSVG parses the SVG, checks its size, and that the title, axis labels
// and every legend entry are in its text.
func checkSVG(t *testing.T, data []byte, c *Chart) {
	t.Helper()
	var root struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
		Height  string `xml:"height,attr"`
	}
	if err := xml.Unmarshal(data, &root); err != nil {
		t.Fatalf("SVG does not parse: %v", err)
	}
	if root.XMLName.Local != "svg" || root.Width == "" || root.Height == "" {
		t.Fatalf("SVG root %+v", root)
	}
	var text strings.Builder
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
	all := text.String()
	want := append([]string{c.title}, c.Series...)
	for _, pn := range c.panels {
		want = append(want, pn.p.Y.Label.Text)
		if pn.right != nil {
			want = append(want, pn.right.label)
		}
	}
	want = append(want, c.panels[len(c.panels)-1].p.X.Label.Text)
	if c.Name != "acf" {
		// Time axes: the start in UTC, offsets and clock times on
		// the ticks.
		want = append(want, "start = 2026")
		if !regexp.MustCompile(`\+\d+:\d\d(:\d\d)?\s*\d\d:\d\d:\d\d`).MatchString(all) {
			t.Errorf("no time tick with an offset over a UTC clock time")
		}
	}
	if c.Name == "throttle-load" {
		want = append(want, "batch attempts per second")
	}
	for _, s := range want {
		if !strings.Contains(all, s) {
			t.Errorf("SVG text lacks %q", s)
		}
	}
}

func TestChartsNeedData(t *testing.T) {
	charts, err := Charts(&analyze.Result{})
	if err != nil || len(charts) != 0 {
		t.Fatalf("empty result: %d charts, %v", len(charts), err)
	}
	if _, err := WaveChart(&analyze.Result{}); err == nil {
		t.Error("wave chart without waves: no error")
	}
	if _, err := ACFChart(&analyze.Result{}, []float64{1}, 0); err == nil {
		t.Error("ACF chart without a lag step: no error")
	}
}

// TestChartPointsBounded: a long log's per-second series is merged into at
// most maxChartPoints points, keeping each run's busiest second (rates)
// or adding up its counts (the load chart), so waves keep their height.
func TestChartPointsBounded(t *testing.T) {
	tests := []struct {
		seconds, wantPoints, wantRun int
	}{
		{seconds: 10, wantPoints: 10, wantRun: 1},
		{seconds: maxChartPoints, wantPoints: maxChartPoints, wantRun: 1},
		{seconds: maxChartPoints + 1, wantPoints: (maxChartPoints + 2) / 2, wantRun: 2},
		{seconds: 86400, wantPoints: 1490, wantRun: 58},
	}
	for _, tt := range tests {
		rates := make([]analyze.RatePoint, tt.seconds)
		loads := make([]LoadPoint, tt.seconds)
		for i := range rates {
			rates[i] = analyze.RatePoint{Offset: float64(i), OK: 1}
			loads[i] = LoadPoint{Offset: float64(i), BatchRate: 2, InteractiveAttempts: 1}
		}
		// One spike second, which the merged rate keeps.
		rates[tt.seconds-1].Throttled = 500
		gotRates, k := busiestSeconds(rates, maxChartPoints)
		gotLoads, kl := meanWindows(loads, maxChartPoints)
		if len(gotRates) != tt.wantPoints || k != tt.wantRun || len(gotLoads) != tt.wantPoints || kl != tt.wantRun {
			t.Errorf("%d s: %d rate points of %d s, %d load points of %d; want %d of %d", tt.seconds, len(gotRates), k, len(gotLoads), kl, tt.wantPoints, tt.wantRun)
			continue
		}
		if gotRates[len(gotRates)-1].Throttled != 500 || gotRates[0].OK != 1 {
			t.Errorf("%d s: the spike or the rate is lost: %+v", tt.seconds, gotRates[len(gotRates)-1])
		}
		var attempts float64
		for _, p := range gotLoads {
			attempts += p.InteractiveAttempts
			if p.BatchRate < 1.999 || p.BatchRate > 2.001 {
				t.Errorf("%d s: batch rate %v, want 2", tt.seconds, p.BatchRate)
				break
			}
		}
		if attempts != float64(tt.seconds) {
			t.Errorf("%d s: %v interactive attempts, want %d", tt.seconds, attempts, tt.seconds)
		}
	}
}

// TestTimeTicks: round offsets, each labelled with the offset over the UTC
// clock, no more labels than fit, and minor ticks between.
func TestTimeTicks(t *testing.T) {
	start := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		start      time.Time
		max        float64
		wantLabels []string
	}{
		{"13 minutes", start, 793, []string{"+0:00\n02:00:00", "+2:00\n02:02:00", "+4:00\n02:04:00", "+6:00\n02:06:00", "+8:00\n02:08:00", "+10:00\n02:10:00", "+12:00\n02:12:00"}},
		{"no start: offsets only", time.Time{}, 40, []string{"+0:00", "+0:05", "+0:10", "+0:15", "+0:20", "+0:25", "+0:30", "+0:35", "+0:40"}},
		{"two hours", start, 7200, []string{"+0:00\n02:00:00", "+15:00\n02:15:00"}},
		{"three days", start, 3 * 86400, []string{"+0:00\n02:00:00", "+12:00:00\n14:00:00", "+1d 00:00\n02:00:00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var labels []string
			minor := 0
			for _, tk := range (timeTicks{tt.start}).Ticks(0, tt.max) {
				if tk.Label == "" {
					minor++
					continue
				}
				labels = append(labels, tk.Label)
			}
			if len(labels) > maxTimeLabels+1 || minor == 0 {
				t.Errorf("%d labels, %d minor ticks", len(labels), minor)
			}
			for i, want := range tt.wantLabels {
				if i >= len(labels) || labels[i] != want {
					t.Errorf("labels %q, want them to start %q", labels, tt.wantLabels)
					break
				}
			}
		})
	}
}

// TestChartsAlign: every panel of every chart has its data area between
// the same left and right edges, whatever its y tick labels, so charts
// read one under another line up.
func TestChartsAlign(t *testing.T) {
	r := incidentResult()
	charts, err := Charts(withSeries(r, incidentSeries(r)))
	if err != nil {
		t.Fatal(err)
	}
	var first vg.Rectangle
	for i, c := range charts {
		for j, a := range c.draw(draw.New(vgimg.New(ChartWidth, ChartHeight))) {
			if i == 0 && j == 0 {
				first = a
				continue
			}
			if math.Abs(float64(a.Min.X-first.Min.X)) > 0.01 || math.Abs(float64(a.Max.X-first.Max.X)) > 0.01 {
				t.Errorf("%s panel %d spans x %.2f to %.2f, the first chart %.2f to %.2f", c.Name, j, a.Min.X, a.Max.X, first.Min.X, first.Max.X)
			}
		}
	}
	if first.Min.X != axisMargin || first.Max.X != ChartWidth-axisMargin {
		t.Errorf("data area %.2f to %.2f, want the axis margins", first.Min.X, first.Max.X)
	}
}

// TestRatePanels: ok and refused attempts each get a panel on their own
// scale, and a panel with nothing to draw is left out.
func TestRatePanels(t *testing.T) {
	r := incidentResult()
	tests := []struct {
		name       string
		ok, thr    float64
		wantPanels []string
	}{
		{"both", 4, 1150, []string{"ok / s", "throttled, error / s"}},
		{"nothing refused", 4, 0, []string{"ok / s"}},
		{"nothing through", 0, 1150, []string{"throttled, error / s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pts := make([]analyze.RatePoint, 60)
			for i := range pts {
				pts[i] = analyze.RatePoint{Offset: float64(i), OK: tt.ok, Throttled: tt.thr}
			}
			c, err := RateChart(r, pts, "")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, pn := range c.panels {
				got = append(got, pn.p.Y.Label.Text)
			}
			if strings.Join(got, "|") != strings.Join(tt.wantPanels, "|") {
				t.Errorf("panels %q, want %q", got, tt.wantPanels)
			}
			// Each panel's scale is its own: the ok panel tops near 4,
			// not near 1,150.
			if top := c.panels[0].p.Y.Max; tt.ok > 0 && top > 2*tt.ok {
				t.Errorf("ok panel runs to %g", top)
			}
		})
	}
}

// TestMergeInteractive: a long incident's windows merge into at most
// maxChartPoints, the counts added up and the slowest latency kept.
func TestMergeInteractive(t *testing.T) {
	pts := make([]analyze.InteractivePoint, 3*maxChartPoints+1)
	for i := range pts {
		pts[i] = analyze.InteractivePoint{Offset: float64(5 * i), Attempts: 2, Throttled: 1, LatencyP95: 0.1}
	}
	pts[7].LatencyP95 = 30
	got, k := mergeInteractive(pts, maxChartPoints)
	if len(got) > maxChartPoints || k != 4 {
		t.Fatalf("%d windows of %d", len(got), k)
	}
	var attempts float64
	for _, p := range got {
		attempts += p.Attempts
	}
	if attempts != float64(2*len(pts)) || got[1].LatencyP95 != 30 || got[0].LatencyP95 != 0.1 {
		t.Errorf("attempts %g (want %d), latencies %g, %g", attempts, 2*len(pts), got[0].LatencyP95, got[1].LatencyP95)
	}
}
