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
	"strings"
	"testing"

	"github.com/stampede/stampede/analyze"
)

var chartDir = flag.String("chartdir", "", "also write the test charts into `DIR`, to look at them")

// incidentSeries is per-second traffic for incidentResult: a background of
// successful calls, and at each wave a burst of throttled attempts that
// decays over a few seconds. It also gives r an ACF curve that peaks at the
// 84 s period, with a 12 s comb near lag 0.
func incidentSeries(r *analyze.Result) Series {
	n := int(r.Window.Duration) + 1
	s := Series{Rate: make([]RatePoint, n)}
	for i := range s.Rate {
		s.Rate[i] = RatePoint{Offset: float64(i), OK: 20}
	}
	for _, w := range r.Waves.Waves {
		at := int(sinceStart(r, w.Start))
		for k := 0; k < 6 && at+k < n; k++ {
			s.Rate[at+k].Throttled += float64(w.Throttled) / 6 / (1 + float64(k))
			s.Rate[at+k].Errored += 60 / (1 + float64(k))
		}
	}
	interactive := make([]RatePoint, n)
	for i := range interactive {
		interactive[i] = RatePoint{Offset: float64(i), OK: 3}
		if i%84 < 5 {
			interactive[i].Throttled = 2
		}
	}
	s.RateByClass = []ClassRate{{Class: "batch", Points: s.Rate}, {Class: "interactive", Points: interactive}}
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
	charts, err := Charts(r, incidentSeries(r))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"rate":             {"ok", "throttled", "error", "wave start"},
		"rate-batch":       {"ok", "throttled", "error", "wave start"},
		"rate-interactive": {"ok", "throttled", "wave start"},
		"throttle-load":    {"batch attempts/s, scaled: peak ", "interactive attempts throttled, %", "wave start"},
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
			if wantW, wantH := int(ChartWidth.Dots(96)), int(ChartHeight.Dots(96)); cfg.Width != wantW || cfg.Height != wantH {
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
	for _, s := range append([]string{c.plot.Title.Text, c.plot.X.Label.Text, c.plot.Y.Label.Text}, c.Series...) {
		if !strings.Contains(all, s) {
			t.Errorf("SVG text lacks %q", s)
		}
	}
	if c.Name != "acf" && !strings.Contains(all, "start = 2026") {
		t.Errorf("x axis does not give the incident start in UTC")
	}
}

func TestChartsNeedData(t *testing.T) {
	charts, err := Charts(&analyze.Result{}, Series{})
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
		rates := make([]RatePoint, tt.seconds)
		loads := make([]LoadPoint, tt.seconds)
		for i := range rates {
			rates[i] = RatePoint{Offset: float64(i), OK: 1}
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
