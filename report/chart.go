package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/stampede/stampede/analyze"
)

// Charts are drawn from the result alone, so every format shows the same
// picture of the same numbers. Times on the x axes are seconds after the
// incident start, which the axis label states in UTC: relative times line
// up across logs, and the absolute start lets a reader find the moment in
// their dashboards.

// ChartWidth and ChartHeight are the size of every chart.
const (
	ChartWidth  = 8 * vg.Inch
	ChartHeight = 4 * vg.Inch
)

// ImageFormat is a chart file format.
type ImageFormat string

const (
	ImagePNG ImageFormat = "png"
	ImageSVG ImageFormat = "svg"
)

// Chart is one named plot, ready to draw.
type Chart struct {
	// Name is a short file-name stem, e.g. "waves".
	Name string
	// Title is the chart's caption in a report.
	Title string
	// Series names what is drawn, in legend order, so tests and readers
	// can tell an empty chart from a full one.
	Series []string
	plot   *plot.Plot
}

// Write draws the chart in the given format at ChartWidth x ChartHeight.
func (c *Chart) Write(w io.Writer, f ImageFormat) error {
	wt, err := c.plot.WriterTo(ChartWidth, ChartHeight, string(f))
	if err != nil {
		return fmt.Errorf("chart %s: %w", c.Name, err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("chart %s: %w", c.Name, err)
	}
	return nil
}

// Colours chosen to stay distinct for the common colour-vision
// deficiencies (Okabe–Ito palette).
var (
	colourOK        = color.RGBA{0, 114, 178, 255}
	colourThrottled = color.RGBA{213, 94, 0, 255}
	colourError     = color.RGBA{204, 121, 167, 255}
	colourFit       = color.RGBA{0, 158, 115, 255}
	colourMark      = color.RGBA{120, 120, 120, 255}
	colourComb      = color.RGBA{86, 180, 233, 255}
	colourLoad      = color.RGBA{0, 0, 0, 255}
)

// Charts returns every chart the result has data for, in reading order.
// series supplies the per-second counts, which the result does not carry;
// a zero Series omits the charts drawn from them.
func Charts(r *analyze.Result, series Series) ([]*Chart, error) {
	var charts []*Chart
	if len(series.Rate) > 0 {
		c, err := RateChart(r, series.Rate, "")
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	// One chart per class, each on its own scale: interactive traffic is
	// often a few requests a second beside batch waves of thousands, and
	// its throttling would vanish on a shared axis.
	for _, cr := range series.RateByClass {
		c, err := RateChart(r, cr.Points, cr.Class)
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	if load := ThrottleLoadSeries(series.RateByClass, loadWindow); len(load) > 0 {
		c, err := ThrottleLoadChart(r, load)
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	if len(r.Waves.ACFCurve) > 0 {
		c, err := ACFChart(r, r.Waves.ACFCurve, r.Waves.ACFLagStep)
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	if len(r.Waves.Waves) > 0 {
		c, err := WaveChart(r)
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	return charts, nil
}

// Series is what the charts need beyond the result.
type Series struct {
	// Rate is requests per second by outcome, one point per second from
	// the incident start.
	Rate []RatePoint
	// RateByClass is the same per traffic class, in a stable order.
	RateByClass []ClassRate
}

// ClassRate is the per-second series of one traffic class.
type ClassRate struct {
	Class  string
	Points []RatePoint
}

// RatePoint is one second of attempts, split by outcome, or, in a window
// longer than maxRatePoints seconds, the mean second of several.
type RatePoint struct {
	// Offset is seconds after the incident start.
	Offset                 float64
	OK, Throttled, Errored float64
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// startLabel is the x-axis label: seconds after the start, in UTC.
func startLabel(r *analyze.Result) string {
	if r.Window.Start.IsZero() {
		return "time since incident start (s)"
	}
	return "time since incident start (s), start = " + r.Window.Start.UTC().Format("2006-01-02 15:04:05Z")
}

func sinceStart(r *analyze.Result, t time.Time) float64 { return t.Sub(r.Window.Start).Seconds() }

// WaveChart draws each wave's size at its start, with the fitted geometric
// decay: a stampede that is draining shrinks by the same ratio each wave.
func WaveChart(r *analyze.Result) (*Chart, error) {
	waves := r.Waves.Waves
	if len(waves) == 0 {
		return nil, fmt.Errorf("wave chart: no waves")
	}
	p := newPlot("Retry wave sizes", startLabel(r), "calls in wave (first attempts)")
	sizes := make(plotter.XYs, len(waves))
	for i, w := range waves {
		sizes[i] = plotter.XY{X: sinceStart(r, w.Start), Y: float64(w.Size)}
	}
	bars, err := plotter.NewScatter(sizes)
	if err != nil {
		return nil, fmt.Errorf("wave chart: %w", err)
	}
	bars.GlyphStyle = draw.GlyphStyle{Color: colourOK, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	// Stems from zero make the sizes read as bars at irregular times.
	for _, xy := range sizes {
		stem, err := plotter.NewLine(plotter.XYs{{X: xy.X, Y: 0}, xy})
		if err != nil {
			return nil, fmt.Errorf("wave chart: %w", err)
		}
		stem.Color, stem.Width = colourOK, vg.Points(3)
		p.Add(stem)
	}
	p.Add(bars)
	series := []string{"wave size"}
	p.Legend.Add("wave size", bars)
	if ratio := r.Waves.DecayRatio; ratio > 0 && len(waves) >= 2 {
		fit := geometricFit(r, ratio)
		line, err := plotter.NewLine(fit)
		if err != nil {
			return nil, fmt.Errorf("wave chart: %w", err)
		}
		line.Color, line.Width, line.Dashes = colourFit, vg.Points(2), []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(line)
		name := fmt.Sprintf("fitted decay: ×%.2f per wave (R² %.2f)", ratio, r.Waves.DecayR2)
		p.Legend.Add(name, line)
		series = append(series, name)
	}
	p.X.Min, p.Y.Min = 0, 0
	// The axis runs to the end of the incident, so the quiet after the
	// last wave shows too.
	p.X.Max = math.Max(p.X.Max, r.Window.Duration)
	headroom(p)
	return &Chart{Name: "waves", Title: "Wave sizes and their geometric decay", Series: series, plot: p}, nil
}

// geometricFit places size_k = a·ratio^k through the waves, with a the
// least-squares intercept in log space, so the fitted line passes through
// the waves' geometric middle rather than through the first wave alone.
func geometricFit(r *analyze.Result, ratio float64) plotter.XYs {
	waves := r.Waves.Waves
	var sum float64
	var n int
	for k, w := range waves {
		if w.Size > 0 {
			sum += math.Log(float64(w.Size)) - float64(k)*math.Log(ratio)
			n++
		}
	}
	a := 1.0
	if n > 0 {
		a = math.Exp(sum / float64(n))
	}
	fit := make(plotter.XYs, 0, len(waves))
	for k, w := range waves {
		fit = append(fit, plotter.XY{X: sinceStart(r, w.Start), Y: a * math.Pow(ratio, float64(k))})
	}
	return fit
}

// RateChart draws attempts per second by outcome, with each detected wave's
// start marked, so the waves show as the spikes they are. class names the
// traffic class the points cover; "" is all traffic.
func RateChart(r *analyze.Result, points []RatePoint, class string) (*Chart, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("rate chart: no per-second counts")
	}
	title, name, caption := "Requests per second by outcome", "rate", "Requests per second by outcome, waves marked"
	if class != "" {
		title += ": " + class + " traffic"
		name += "-" + class
		caption = fmt.Sprintf("Requests per second by outcome, %s traffic only, waves marked", class)
	}
	points, k := busiestSeconds(points, maxChartPoints)
	if k > 1 {
		caption += fmt.Sprintf("; each point is the busiest second of %d s", k)
	}
	p := newPlot(title, startLabel(r), "attempts per second")
	var series []string
	add := func(name string, c color.Color, pick func(RatePoint) float64) error {
		xys := make(plotter.XYs, len(points))
		any := false
		for i, pt := range points {
			xys[i] = plotter.XY{X: pt.Offset, Y: pick(pt)}
			any = any || xys[i].Y != 0
		}
		if !any {
			return nil
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		l.Color, l.Width = c, vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(name, l)
		series = append(series, name)
		return nil
	}
	if err := add("ok", colourOK, func(pt RatePoint) float64 { return pt.OK }); err != nil {
		return nil, fmt.Errorf("rate chart: %w", err)
	}
	if err := add("throttled", colourThrottled, func(pt RatePoint) float64 { return pt.Throttled }); err != nil {
		return nil, fmt.Errorf("rate chart: %w", err)
	}
	if err := add("error", colourError, func(pt RatePoint) float64 { return pt.Errored }); err != nil {
		return nil, fmt.Errorf("rate chart: %w", err)
	}
	p.X.Min, p.Y.Min = 0, 0
	headroom(p)
	if len(r.Waves.Waves) > 0 {
		if err := markVertical(p, "wave start", waveOffsets(r)); err != nil {
			return nil, fmt.Errorf("rate chart: %w", err)
		}
		series = append(series, "wave start")
	}
	return &Chart{Name: name, Title: caption, Series: series, plot: p}, nil
}

// maxChartPoints bounds the points a time chart draws, about one per
// pixel column: a log of days has a second for every one, and the report
// would grow with them.
const maxChartPoints = 1500

// busiestSeconds merges runs of k seconds into one point, k the fewest that
// leave at most max points, each field the largest of its run, so that
// every wave keeps its height.
func busiestSeconds(points []RatePoint, max int) ([]RatePoint, int) {
	k := (len(points) + max - 1) / max
	if k <= 1 {
		return points, 1
	}
	out := make([]RatePoint, 0, (len(points)+k-1)/k)
	for lo := 0; lo < len(points); lo += k {
		pt := RatePoint{Offset: points[lo].Offset}
		for _, q := range points[lo:min(lo+k, len(points))] {
			pt.OK, pt.Throttled, pt.Errored = math.Max(pt.OK, q.OK), math.Max(pt.Throttled, q.Throttled), math.Max(pt.Errored, q.Errored)
		}
		out = append(out, pt)
	}
	return out, k
}

// meanWindows merges runs of k load points into one, k the fewest that
// leave at most max points: the batch rate averaged and the interactive
// counts added up, so that the share is the run's.
func meanWindows(points []LoadPoint, max int) ([]LoadPoint, int) {
	k := (len(points) + max - 1) / max
	if k <= 1 {
		return points, 1
	}
	out := make([]LoadPoint, 0, (len(points)+k-1)/k)
	for lo := 0; lo < len(points); lo += k {
		run := points[lo:min(lo+k, len(points))]
		pt := LoadPoint{Offset: run[len(run)/2].Offset}
		for _, q := range run {
			pt.BatchRate += q.BatchRate / float64(len(run))
			pt.InteractiveAttempts += q.InteractiveAttempts
			pt.InteractiveThrottled += q.InteractiveThrottled
		}
		out = append(out, pt)
	}
	return out, k
}

func waveOffsets(r *analyze.Result) []float64 {
	xs := make([]float64, len(r.Waves.Waves))
	for i, w := range r.Waves.Waves {
		xs[i] = sinceStart(r, w.Start)
	}
	return xs
}

// headroom raises the y axis so the legend, top right, does not cover the
// tallest data.
func headroom(p *plot.Plot) {
	p.Y.Max += 0.2 * (p.Y.Max - p.Y.Min)
}

// markVertical draws a dashed vertical line at each x across the plot's
// current y range, with one legend entry.
func markVertical(p *plot.Plot, name string, xs []float64) error {
	return markVerticalIn(p, name, xs, colourMark, []vg.Length{vg.Points(4), vg.Points(3)})
}

func markVerticalIn(p *plot.Plot, name string, xs []float64, c color.Color, dashes []vg.Length) error {
	// Add has already widened the axis to the data drawn so far.
	ymin, ymax := p.Y.Min, p.Y.Max
	if ymax <= ymin {
		ymax = ymin + 1
	}
	for i, x := range xs {
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: ymin}, {X: x, Y: ymax}})
		if err != nil {
			return err
		}
		l.Color, l.Dashes = c, dashes
		p.Add(l)
		if i == 0 {
			p.Legend.Add(name, l)
		}
	}
	return nil
}

// ACFChart draws the autocorrelation the period detector judged (the
// result's ACFCurve) against lag, with the detected period and its
// harmonics marked, the retry comb inside each wave marked, and the
// surrogate threshold drawn, so a reader sees why the period was (or was
// not) accepted.
func ACFChart(r *analyze.Result, acf []float64, lagStep float64) (*Chart, error) {
	if len(acf) == 0 || !(lagStep > 0) {
		return nil, fmt.Errorf("acf chart: no autocorrelation values")
	}
	p := newPlot("Autocorrelation of "+strings.TrimSpace(r.Waves.Series), "lag (s)", "autocorrelation")
	xys := make(plotter.XYs, len(acf))
	for i, v := range acf {
		xys[i] = plotter.XY{X: float64(i) * lagStep, Y: v}
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, fmt.Errorf("acf chart: %w", err)
	}
	l.Color, l.Width = colourOK, vg.Points(1.5)
	p.Add(l)
	p.Legend.Add("ACF", l)
	series := []string{"ACF"}
	maxLag := float64(len(acf)-1) * lagStep
	if t := r.Waves.Threshold; t > 0 {
		th, err := plotter.NewLine(plotter.XYs{{X: 0, Y: t}, {X: maxLag, Y: t}})
		if err != nil {
			return nil, fmt.Errorf("acf chart: %w", err)
		}
		th.Color, th.Width, th.Dashes = colourThrottled, vg.Points(1.5), []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(th)
		name := fmt.Sprintf("99%% surrogate threshold %.2f", t)
		p.Legend.Add(name, th)
		series = append(series, name)
	}
	p.X.Min, p.X.Max = 0, maxLag
	p.Y.Min, p.Y.Max = math.Min(p.Y.Min, -0.2), 1
	headroom(p)
	w := r.Waves
	switch {
	case w.Periodic && w.Period > 0:
		var marks []float64
		for k := 1; float64(k)*w.Period <= maxLag; k++ {
			marks = append(marks, float64(k)*w.Period)
		}
		name := fmt.Sprintf("period %.2f s and harmonics", w.Period)
		if err := markVertical(p, name, marks); err != nil {
			return nil, fmt.Errorf("acf chart: %w", err)
		}
		series = append(series, name)
	case w.BestLag > 0 && w.BestLag <= maxLag:
		name := fmt.Sprintf("best repeat %.2f s (not significant)", w.BestLag)
		if err := markVertical(p, name, []float64{w.BestLag}); err != nil {
			return nil, fmt.Errorf("acf chart: %w", err)
		}
		series = append(series, name)
	}
	if c := w.IntraWaveSpacing; c > 0 && w.Period > 0 {
		// The comb repeats inside one wave only: marks up to half the
		// period, where it would otherwise blur into the period's own
		// shoulders.
		var marks []float64
		for k := 1; float64(k)*c <= w.Period/2+1e-9 && float64(k)*c <= maxLag; k++ {
			marks = append(marks, float64(k)*c)
		}
		if len(marks) > 0 {
			name := fmt.Sprintf("retry comb inside a wave, every %.2f s", c)
			if err := markVerticalIn(p, name, marks, colourComb, []vg.Length{vg.Points(1), vg.Points(2)}); err != nil {
				return nil, fmt.Errorf("acf chart: %w", err)
			}
			series = append(series, name)
		}
	}
	return &Chart{Name: "acf", Title: "Autocorrelation with the detected period marked", Series: series, plot: p}, nil
}

// ThrottleLoadChart draws the share of interactive attempts throttled
// beside the batch attempt rate, with the waves marked: a throttle share
// that stays up after the batch load has fallen back is a stampede still
// draining, not load. The y axis is the share in percent, topped at a round
// value just above its peak so a few percent still show; the batch rate is
// scaled so its peak meets that top, which its legend entry states in
// attempts per second (plot has no second axis).
func ThrottleLoadChart(r *analyze.Result, points []LoadPoint) (*Chart, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("throttle chart: no per-second counts")
	}
	points, _ = meanWindows(points, maxChartPoints)
	p := newPlot("Interactive throttling beside batch load", startLabel(r), "interactive attempts throttled (%)")
	peak, peakShare := 0.0, 0.0
	for _, pt := range points {
		peak = math.Max(peak, pt.BatchRate)
		if pt.InteractiveAttempts > 0 {
			peakShare = math.Max(peakShare, 100*pt.InteractiveThrottled/pt.InteractiveAttempts)
		}
	}
	top := 100.0
	for _, t := range []float64{10, 20, 50} {
		if peakShare*1.1 <= t {
			top = t
			break
		}
	}
	var share, load plotter.XYs
	for _, pt := range points {
		if pt.InteractiveAttempts > 0 {
			share = append(share, plotter.XY{X: pt.Offset, Y: 100 * pt.InteractiveThrottled / pt.InteractiveAttempts})
		}
		if peak > 0 {
			load = append(load, plotter.XY{X: pt.Offset, Y: top * pt.BatchRate / peak})
		}
	}
	var series []string
	if len(load) > 0 {
		l, err := plotter.NewLine(load)
		if err != nil {
			return nil, fmt.Errorf("throttle chart: %w", err)
		}
		l.Color, l.Width = colourLoad, vg.Points(1)
		l.FillColor = color.RGBA{0, 0, 0, 40}
		p.Add(l)
		name := fmt.Sprintf("batch attempts/s, scaled: peak %s/s = %s%%", trimFloat(peak), trimFloat(top))
		p.Legend.Add(name, l)
		series = append(series, name)
	}
	if len(share) > 0 {
		l, err := plotter.NewLine(share)
		if err != nil {
			return nil, fmt.Errorf("throttle chart: %w", err)
		}
		l.Color, l.Width = colourThrottled, vg.Points(2)
		p.Add(l)
		p.Legend.Add("interactive attempts throttled, %", l)
		series = append(series, "interactive attempts throttled, %")
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("throttle chart: no batch or interactive attempts")
	}
	p.X.Min, p.Y.Min, p.Y.Max = 0, 0, top
	headroom(p)
	if len(r.Waves.Waves) > 0 {
		if err := markVertical(p, "wave start", waveOffsets(r)); err != nil {
			return nil, fmt.Errorf("throttle chart: %w", err)
		}
		series = append(series, "wave start")
	}
	window := float64(loadWindow)
	if len(points) > 1 {
		// A long incident's points are several seconds each.
		window = max(window, points[1].Offset-points[0].Offset)
	}
	caption := fmt.Sprintf("Share of interactive attempts throttled beside the batch attempt rate (%s s windows), waves marked", trimFloat(window))
	return &Chart{Name: "throttle-load", Title: caption, Series: series, plot: p}, nil
}

// trimFloat prints a rate with at most one decimal, none when whole.
func trimFloat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
