package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/stampede/stampede/analyze"
)

// colourBatchSpan shades the windows of batch load over its baseline.
var colourBatchSpan = color.RGBA{0, 0, 0, 28}

// StarvationChart draws what the interactive class met through the
// incident: the share of its attempts throttled, and its latency when the
// log gives one, with the windows of batch load above its baseline shaded.
// Throttling and latency that stay up outside the shading are starvation:
// the batch retries have gone, and the limit they emptied still refuses
// interactive users.
func StarvationChart(r *analyze.Result, points []analyze.InteractivePoint) (*Chart, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("starvation chart: no interactive windows")
	}
	points, _ = mergeInteractive(points, maxChartPoints)
	step := 1.0
	if len(points) > 1 {
		step = points[1].Offset - points[0].Offset
	}
	c := &Chart{
		Name:  "starvation",
		Title: fmt.Sprintf("Interactive traffic through the incident (%s s windows): throttled share and latency, batch load above its baseline shaded", trimFloat(step)),
		title: "Interactive starvation",
	}
	end := points[len(points)-1].Offset + step
	share := newTimePlot(r, "throttled (%)")
	share.X.Min, share.X.Max, share.Y.Min, share.Y.Max = 0, end, 0, 105
	spans := batchSpans(points, step)
	if err := shade(share, c, spans, 0, 105, true); err != nil {
		return nil, fmt.Errorf("starvation chart: %w", err)
	}
	var xs plotter.XYs
	for _, pt := range points {
		if pt.Attempts > 0 {
			xs = append(xs, plotter.XY{X: pt.Offset + step/2, Y: 100 * pt.Throttled / pt.Attempts})
		}
	}
	l, err := plotter.NewLine(xs)
	if err != nil {
		return nil, fmt.Errorf("starvation chart: %w", err)
	}
	l.Color, l.Width = colourThrottled, vg.Points(2)
	share.Add(l)
	c.addLegend("interactive attempts throttled, %", l)
	c.panels = []panel{{p: share, weight: 1}}

	var p50, p95 plotter.XYs
	var top float64
	for _, pt := range points {
		if pt.Calls > 0 {
			p50 = append(p50, plotter.XY{X: pt.Offset + step/2, Y: pt.LatencyP50})
			p95 = append(p95, plotter.XY{X: pt.Offset + step/2, Y: pt.LatencyP95})
			top = max(top, pt.LatencyP95)
		}
	}
	if len(p50) == 0 {
		return c, nil
	}
	lat := newTimePlot(r, "latency (s)")
	lat.X.Min, lat.X.Max, lat.Y.Min, lat.Y.Max = 0, end, 0, top*1.05
	if err := shade(lat, c, spans, 0, top*1.05, false); err != nil {
		return nil, fmt.Errorf("starvation chart: %w", err)
	}
	for _, s := range []struct {
		name   string
		xys    plotter.XYs
		dashes []vg.Length
	}{
		{"interactive latency p50", p50, nil},
		{"interactive latency p95", p95, []vg.Length{vg.Points(4), vg.Points(2)}},
	} {
		l, err := plotter.NewLine(s.xys)
		if err != nil {
			return nil, fmt.Errorf("starvation chart: %w", err)
		}
		l.Color, l.Width, l.Dashes = colourOK, vg.Points(1.5), s.dashes
		lat.Add(l)
		c.addLegend(s.name, l)
	}
	c.panels = append(c.panels, panel{p: lat, weight: 1})
	c.height = ChartHeight * 5 / 4
	return c, nil
}

// mergeInteractive merges runs of k windows into one, k the fewest that
// leave at most max: counts added up, so the share is the run's, and the
// slowest latency of the run kept, so a slow spell keeps its height.
func mergeInteractive(points []analyze.InteractivePoint, max int) ([]analyze.InteractivePoint, int) {
	k := (len(points) + max - 1) / max
	if k <= 1 {
		return points, 1
	}
	out := make([]analyze.InteractivePoint, 0, (len(points)+k-1)/k)
	for lo := 0; lo < len(points); lo += k {
		pt := analyze.InteractivePoint{Offset: points[lo].Offset}
		for _, q := range points[lo:min(lo+k, len(points))] {
			pt.Attempts += q.Attempts
			pt.Throttled += q.Throttled
			pt.BatchAttempts += q.BatchAttempts
			pt.Calls += q.Calls
			pt.LatencyP50, pt.LatencyP95 = math.Max(pt.LatencyP50, q.LatencyP50), math.Max(pt.LatencyP95, q.LatencyP95)
		}
		out = append(out, pt)
	}
	return out, k
}

// batchSpans are the runs of windows whose batch attempts exceed their
// baseline: twice the median window, plus one, so a quiet log's stray
// batch call is no load.
func batchSpans(points []analyze.InteractivePoint, step float64) [][2]float64 {
	counts := make([]float64, len(points))
	for i, pt := range points {
		counts[i] = pt.BatchAttempts
	}
	slices.Sort(counts)
	limit := 2*counts[len(counts)/2] + 1
	var spans [][2]float64
	for _, pt := range points {
		if pt.BatchAttempts <= limit {
			continue
		}
		if n := len(spans); n > 0 && spans[n-1][1] >= pt.Offset {
			spans[n-1][1] = pt.Offset + step
			continue
		}
		spans = append(spans, [2]float64{pt.Offset, pt.Offset + step})
	}
	return spans
}

// shade fills each span between y0 and y1, with a legend entry when
// legend is set and there is a span.
func shade(p *plot.Plot, c *Chart, spans [][2]float64, y0, y1 float64, legend bool) error {
	for i, s := range spans {
		poly, err := plotter.NewPolygon(plotter.XYs{{X: s[0], Y: y0}, {X: s[1], Y: y0}, {X: s[1], Y: y1}, {X: s[0], Y: y1}})
		if err != nil {
			return err
		}
		poly.Color, poly.LineStyle.Width = colourBatchSpan, 0
		p.Add(poly)
		if i == 0 && legend {
			c.addLegend("batch load above its baseline", poly)
		}
	}
	return nil
}
