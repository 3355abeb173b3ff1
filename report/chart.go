package report

import (
	"fmt"
	"image/color"
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

// ChartWidth and ChartHeight are the size of a chart: 800 x 400 at 96
// dpi, the width a report displays it at (PNGs are drawn at ChartDPI).
const (
	ChartWidth  vg.Length = 600 // points: 800 px at 96 dpi
	ChartHeight vg.Length = 300
)

// ImageFormat is a chart file format.
type ImageFormat string

const (
	ImagePNG ImageFormat = "png"
	ImageSVG ImageFormat = "svg"
)

// Chart is one named chart of one or more panels, ready to draw.
type Chart struct {
	// Name is a short file-name stem, e.g. "waves".
	Name string
	// Title is the chart's caption in a report.
	Title string
	// Series names what is drawn, in legend order, so tests and readers
	// can tell an empty chart from a full one.
	Series []string
	// title is drawn above the chart; height is 0 for ChartHeight.
	title  string
	height vg.Length
	panels []panel
	legend []legendEntry
}

// addLegend adds a legend entry, which also names a series.
func (c *Chart) addLegend(name string, thumbs ...plot.Thumbnailer) {
	c.legend = append(c.legend, legendEntry{name, thumbs})
	c.Series = append(c.Series, name)
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
// a zero analyze.Series omits the charts drawn from them.
func Charts(r *analyze.Result) ([]*Chart, error) {
	series := r.Series
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
	if load := ThrottleLoadSeries(series.RateByClass, analyze.LoadWindow); len(load) > 0 {
		c, err := ThrottleLoadChart(r, load)
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	if len(series.Interactive) > 0 {
		c, err := StarvationChart(r, series.Interactive)
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

func newPlot(x, y string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	return p
}

// newTimePlot is a plot over seconds after the incident start, its ticks
// labelled with the offset and the UTC clock.
func newTimePlot(r *analyze.Result, y string) *plot.Plot {
	p := newPlot(startLabel(r), y)
	p.X.Tick.Marker = timeTicks{r.Window.Start}
	return p
}

// startLabel is the x-axis label: what the two tick lines are, and the
// start in UTC with its date, which the ticks leave out.
func startLabel(r *analyze.Result) string {
	if r.Window.Start.IsZero() {
		return "time since incident start"
	}
	return "time since incident start, and UTC clock; start = " + r.Window.Start.UTC().Format("2006-01-02 15:04:05Z")
}

func sinceStart(r *analyze.Result, t time.Time) float64 { return t.Sub(r.Window.Start).Seconds() }

// WaveChart draws each wave's size at its start, with the fitted geometric
// decay: a stampede that is draining shrinks by the same ratio each wave.
func WaveChart(r *analyze.Result) (*Chart, error) {
	waves := r.Waves.Waves
	if len(waves) == 0 {
		return nil, fmt.Errorf("wave chart: no waves")
	}
	c := &Chart{Name: "waves", Title: "Wave sizes and their geometric decay", title: "Retry wave sizes"}
	p := newTimePlot(r, "calls in wave (first attempts)")
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
	c.addLegend("wave size", bars)
	if ratio := r.Waves.DecayRatio; ratio > 0 && len(waves) >= 2 {
		fit := geometricFit(r, ratio)
		line, err := plotter.NewLine(fit)
		if err != nil {
			return nil, fmt.Errorf("wave chart: %w", err)
		}
		line.Color, line.Width, line.Dashes = colourFit, vg.Points(2), []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(line)
		c.addLegend(fmt.Sprintf("fitted decay: ×%.2f per wave (R² %.2f)", ratio, r.Waves.DecayR2), line)
	}
	p.X.Min, p.Y.Min = 0, 0
	// The axis runs to the end of the incident, so the quiet after the
	// last wave shows too.
	p.X.Max = math.Max(p.X.Max, r.Window.Duration)
	headroom(p)
	c.panels = []panel{{p: p, weight: 1}}
	return c, nil
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
// traffic class the points cover; "" is all traffic. Successful attempts
// get a panel of their own above the failed ones, each on its own scale: a
// few calls a second getting through beside a thousand throttled vanish on
// a shared linear axis, and a log axis has no place for the seconds with
// none.
func RateChart(r *analyze.Result, points []analyze.RatePoint, class string) (*Chart, error) {
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
	c := &Chart{Name: name, Title: caption, title: title}
	okP, badP := newTimePlot(r, "ok / s"), newTimePlot(r, "throttled, error / s")
	add := func(p *plot.Plot, name string, col color.Color, pick func(analyze.RatePoint) float64) error {
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
		l.Color, l.Width = col, vg.Points(1.5)
		p.Add(l)
		c.addLegend(name, l)
		return nil
	}
	if err := add(okP, "ok", colourOK, func(pt analyze.RatePoint) float64 { return pt.OK }); err != nil {
		return nil, fmt.Errorf("rate chart: %w", err)
	}
	if err := add(badP, "throttled", colourThrottled, func(pt analyze.RatePoint) float64 { return pt.Throttled }); err != nil {
		return nil, fmt.Errorf("rate chart: %w", err)
	}
	if err := add(badP, "error", colourError, func(pt analyze.RatePoint) float64 { return pt.Errored }); err != nil {
		return nil, fmt.Errorf("rate chart: %w", err)
	}
	// A panel with nothing to draw (no attempt refused, or none got
	// through) is left out; a chart with neither still shows its axes.
	hasOK := len(c.Series) > 0 && c.Series[0] == "ok"
	hasBad := len(c.Series) > 1 || (len(c.Series) == 1 && !hasOK)
	switch {
	case hasOK && hasBad:
		c.panels = []panel{{p: okP, weight: 1}, {p: badP, weight: 2}}
		c.height = ChartHeight * 5 / 4
	case hasOK:
		c.panels = []panel{{p: okP, weight: 1}}
	default:
		c.panels = []panel{{p: badP, weight: 1}}
	}
	end := points[len(points)-1].Offset
	for i, pn := range c.panels {
		p := pn.p
		p.X.Min, p.X.Max, p.Y.Min = 0, end, 0
		p.Y.Max = math.Max(p.Y.Max, 1)
		headroom(p)
		if len(r.Waves.Waves) > 0 {
			if err := markVertical(p, c, "wave start", waveOffsets(r), i == 0); err != nil {
				return nil, fmt.Errorf("rate chart: %w", err)
			}
		}
	}
	return c, nil
}

// maxChartPoints bounds the points a time chart draws, about one per
// pixel column: a log of days has a second for every one, and the report
// would grow with them.
const maxChartPoints = 1500

// busiestSeconds merges runs of k seconds into one point, k the fewest that
// leave at most max points, each field the largest of its run, so that
// every wave keeps its height.
func busiestSeconds(points []analyze.RatePoint, max int) ([]analyze.RatePoint, int) {
	k := (len(points) + max - 1) / max
	if k <= 1 {
		return points, 1
	}
	out := make([]analyze.RatePoint, 0, (len(points)+k-1)/k)
	for lo := 0; lo < len(points); lo += k {
		pt := analyze.RatePoint{Offset: points[lo].Offset}
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

// headroom leaves a little room above the tallest data.
func headroom(p *plot.Plot) {
	p.Y.Max += 0.05 * (p.Y.Max - p.Y.Min)
}

// markVertical draws a dashed vertical line at each x across the plot's
// current y range, with a legend entry in c when legend is set.
func markVertical(p *plot.Plot, c *Chart, name string, xs []float64, legend bool) error {
	return markVerticalIn(p, c, name, xs, colourMark, []vg.Length{vg.Points(4), vg.Points(3)}, legend)
}

func markVerticalIn(p *plot.Plot, c *Chart, name string, xs []float64, col color.Color, dashes []vg.Length, legend bool) error {
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
		l.Color, l.Dashes = col, dashes
		p.Add(l)
		if i == 0 && legend {
			c.addLegend(name, l)
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
	c := &Chart{Name: "acf", Title: "Autocorrelation with the detected period marked", title: "Autocorrelation of " + strings.TrimSpace(r.Waves.Series)}
	p := newPlot("lag (s)", "autocorrelation")
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
	c.addLegend("ACF", l)
	maxLag := float64(len(acf)-1) * lagStep
	if t := r.Waves.Threshold; t > 0 {
		th, err := plotter.NewLine(plotter.XYs{{X: 0, Y: t}, {X: maxLag, Y: t}})
		if err != nil {
			return nil, fmt.Errorf("acf chart: %w", err)
		}
		th.Color, th.Width, th.Dashes = colourThrottled, vg.Points(1.5), []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(th)
		c.addLegend(fmt.Sprintf("99%% surrogate threshold %.2f", t), th)
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
		if err := markVertical(p, c, name, marks, true); err != nil {
			return nil, fmt.Errorf("acf chart: %w", err)
		}
	case w.BestLag > 0 && w.BestLag <= maxLag:
		name := fmt.Sprintf("best repeat %.2f s (not significant)", w.BestLag)
		if err := markVertical(p, c, name, []float64{w.BestLag}, true); err != nil {
			return nil, fmt.Errorf("acf chart: %w", err)
		}
	}
	if sp := w.IntraWaveSpacing; sp > 0 && w.Period > 0 {
		// The comb repeats inside one wave only: marks up to half the
		// period, where it would otherwise blur into the period's own
		// shoulders.
		var marks []float64
		for k := 1; float64(k)*sp <= w.Period/2+1e-9 && float64(k)*sp <= maxLag; k++ {
			marks = append(marks, float64(k)*sp)
		}
		if len(marks) > 0 {
			name := fmt.Sprintf("retry comb inside a wave, every %.2f s", sp)
			if err := markVerticalIn(p, c, name, marks, colourComb, []vg.Length{vg.Points(1), vg.Points(2)}, true); err != nil {
				return nil, fmt.Errorf("acf chart: %w", err)
			}
		}
	}
	c.panels = []panel{{p: p, weight: 1}}
	return c, nil
}

// ThrottleLoadChart draws the share of interactive attempts throttled
// beside the batch attempt rate, with the waves marked: a throttle share
// that stays up after the batch load has fallen back is a stampede still
// draining, not load. The left axis is the share in percent, topped at a
// round value just above its peak so a few percent still show; the batch
// rate has the right axis, scaled so its peak meets that top.
func ThrottleLoadChart(r *analyze.Result, points []LoadPoint) (*Chart, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("throttle chart: no per-second counts")
	}
	points, _ = meanWindows(points, maxChartPoints)
	window := float64(analyze.LoadWindow)
	if len(points) > 1 {
		// A long incident's points are several seconds each.
		window = max(window, points[1].Offset-points[0].Offset)
	}
	c := &Chart{
		Name:  "throttle-load",
		Title: fmt.Sprintf("Share of interactive attempts throttled beside the batch attempt rate (%s s windows), waves marked", trimFloat(window)),
		title: "Interactive throttling beside batch load",
	}
	p := newTimePlot(r, "interactive attempts throttled (%)")
	peak, peakShare := 0.0, 0.0
	for _, pt := range points {
		peak = math.Max(peak, pt.BatchRate)
		if pt.InteractiveAttempts > 0 {
			peakShare = math.Max(peakShare, 100*pt.InteractiveThrottled/pt.InteractiveAttempts)
		}
	}
	top := shareTop(peakShare)
	var share, load plotter.XYs
	for _, pt := range points {
		if pt.InteractiveAttempts > 0 {
			share = append(share, plotter.XY{X: pt.Offset, Y: 100 * pt.InteractiveThrottled / pt.InteractiveAttempts})
		}
		if peak > 0 {
			load = append(load, plotter.XY{X: pt.Offset, Y: top * pt.BatchRate / peak})
		}
	}
	if len(load) > 0 {
		l, err := plotter.NewLine(load)
		if err != nil {
			return nil, fmt.Errorf("throttle chart: %w", err)
		}
		l.Color, l.Width = colourLoad, vg.Points(1)
		l.FillColor = color.RGBA{0, 0, 0, 40}
		p.Add(l)
		c.addLegend("batch attempts/s (right axis)", l)
	}
	if len(share) > 0 {
		l, err := plotter.NewLine(share)
		if err != nil {
			return nil, fmt.Errorf("throttle chart: %w", err)
		}
		l.Color, l.Width = colourThrottled, vg.Points(2)
		p.Add(l)
		c.addLegend("interactive attempts throttled, % (left axis)", l)
	}
	if len(c.Series) == 0 {
		return nil, fmt.Errorf("throttle chart: no batch or interactive attempts")
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, points[len(points)-1].Offset, 0, top
	headroom(p)
	if len(r.Waves.Waves) > 0 {
		if err := markVertical(p, c, "wave start", waveOffsets(r), true); err != nil {
			return nil, fmt.Errorf("throttle chart: %w", err)
		}
	}
	pn := panel{p: p, weight: 1}
	if peak > 0 {
		pn.right = &rightAxis{label: "batch attempts per second", scale: top / peak}
	}
	c.panels = []panel{pn}
	return c, nil
}

// shareTop is the round percentage just above a peak share, so a share of
// a few percent fills the axis.
func shareTop(peak float64) float64 {
	for _, t := range []float64{10, 20, 50} {
		if peak*1.1 <= t {
			return t
		}
	}
	return 100
}

// trimFloat prints a rate with at most one decimal, none when whole.
func trimFloat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
