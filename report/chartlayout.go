package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Every chart goes through one layout, so that a report's charts line up
// when read one under the other: a title band, a legend band above the
// data (never on it), and a data area with the same left and right edges
// in every chart. The right margin holds a second y axis where a chart has
// one and stays blank in the others, so the areas are also the same width.

// ChartDPI is the resolution of a PNG chart: twice the 96 dpi that
// ChartWidth is laid out for, so a chart stays sharp on a HiDPI screen
// and in a document that scales it down.
const ChartDPI = 2 * 96

const (
	// axisMargin is the room beside the data area for a y axis, its tick
	// labels and its label: enough for "10000" at the default font.
	axisMargin = 62
	// panelGap separates the panels of one chart.
	panelGap = 6
)

// legendEntry is one legend item: drawn in the legend band, not by plot.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// panel is one plot of a chart; panels stack top to bottom and share the
// x axis, whose labels only the bottom one draws.
type panel struct {
	p *plot.Plot
	// weight is the panel's share of the chart's height.
	weight float64
	// right, when set, is a second y axis drawn on the right edge.
	right *rightAxis
}

// rightAxis is a second y axis for a panel whose plotted y is a right-axis
// value times scale.
type rightAxis struct {
	label string
	scale float64
}

// Write draws the chart in the given format: ChartWidth wide, PNG at
// ChartDPI.
func (c *Chart) Write(w io.Writer, f ImageFormat) error {
	h := c.height
	if h == 0 {
		h = ChartHeight
	}
	var cv interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch f {
	case ImagePNG:
		cv = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(ChartWidth, h), vgimg.UseDPI(ChartDPI))}
	case ImageSVG:
		cv = vgsvg.New(ChartWidth, h)
	default:
		return fmt.Errorf("chart %s: unsupported format %q", c.Name, f)
	}
	c.draw(draw.New(cv))
	if _, err := cv.WriteTo(w); err != nil {
		return fmt.Errorf("chart %s: %w", c.Name, err)
	}
	return nil
}

// draw lays the chart out on dc and returns its panels' data areas.
func (c *Chart) draw(dc draw.Canvas) []vg.Rectangle {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	style := plot.New()
	left, right := dc.Min.X+axisMargin, dc.Max.X-axisMargin
	// Title.
	ts := style.Title.TextStyle
	dc.FillText(ts, vg.Point{X: (left + right) / 2, Y: dc.Max.Y + ts.FontExtents().Descent}, c.title)
	dc.Max.Y -= ts.Rectangle(c.title).Size().Y + style.Title.Padding
	// Legend band: entries left to right from the data area's left edge,
	// wrapping at its right edge.
	ls := style.Legend.TextStyle
	rowH := ls.Height("Xg") + 2
	x, y := left, dc.Max.Y
	for i, e := range c.legend {
		w := style.Legend.ThumbnailWidth + ls.Width(" "+e.name) + ls.Width("   ")
		if i > 0 && x+w > right {
			x, y = left, y-rowH
		}
		leg := plot.NewLegend()
		leg.Top, leg.Left = true, true
		leg.Add(e.name, e.thumbs...)
		leg.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: y - rowH}, Max: vg.Point{X: x + w, Y: y}}})
		x += w
	}
	if len(c.legend) > 0 {
		dc.Max.Y = y - rowH - 4
	}
	var total float64
	for _, pn := range c.panels {
		total += pn.weight
	}
	height := dc.Max.Y - dc.Min.Y - panelGap*vg.Length(len(c.panels)-1)
	top := dc.Max.Y
	var areas []vg.Rectangle
	for i, pn := range c.panels {
		h := height * vg.Length(pn.weight/total)
		pc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: dc.Min.X, Y: top - h}, Max: vg.Point{X: dc.Max.X, Y: top}}}
		top -= h + panelGap
		if i < len(c.panels)-1 {
			// The x labels once, under the bottom panel; the ticks
			// stay for the grid.
			pn.p.X.Label.Text = ""
			pn.p.X.Tick.Marker = unlabelled{pn.p.X.Tick.Marker}
		}
		// Move the canvas so its data area spans [left, right],
		// whatever room this plot's own y axis takes. plot pads the
		// area in proportion to the canvas, so a few rounds settle it.
		for range 4 {
			d := pn.p.DataCanvas(pc)
			pc = draw.Crop(pc, left-d.Min.X, right-d.Max.X, 0, 0)
		}
		pn.p.Draw(pc)
		da := pn.p.DataCanvas(pc)
		areas = append(areas, da.Rectangle)
		if pn.right != nil {
			drawRightAxis(pn.p, da, pn.right)
		}
	}
	return areas
}

// unlabelled keeps a ticker's ticks and drops their labels.
type unlabelled struct{ plot.Ticker }

func (u unlabelled) Ticks(min, max float64) []plot.Tick {
	ts := u.Ticker.Ticks(min, max)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

// drawRightAxis draws ax along the right edge of the data area da of p, in
// the style of p's left axis.
func drawRightAxis(p *plot.Plot, da draw.Canvas, ax *rightAxis) {
	_, ty := p.Transforms(&da)
	da.StrokeLine2(p.Y.LineStyle, da.Max.X, da.Min.Y, da.Max.X, da.Max.Y)
	ls := p.Y.Tick.Label
	ls.XAlign, ls.YAlign = draw.XLeft, draw.YCenter
	var widest vg.Length
	for _, t := range (plot.DefaultTicks{}).Ticks(p.Y.Min/ax.scale, p.Y.Max/ax.scale) {
		y := ty(t.Value * ax.scale)
		if y < da.Min.Y-0.5 || y > da.Max.Y+0.5 {
			continue
		}
		l := p.Y.Tick.Length
		if t.IsMinor() {
			l /= 2
		}
		da.StrokeLine2(p.Y.Tick.LineStyle, da.Max.X, y, da.Max.X+l, y)
		if t.Label != "" {
			da.FillText(ls, vg.Point{X: da.Max.X + p.Y.Tick.Length + 2, Y: y}, t.Label)
			widest = max(widest, ls.Width(t.Label))
		}
	}
	lab := p.Y.Label.TextStyle
	// Read top to bottom, facing the data as the left label does.
	lab.Rotation = -math.Pi / 2
	lab.XAlign, lab.YAlign = draw.XCenter, draw.YBottom
	da.FillText(lab, vg.Point{X: da.Max.X + p.Y.Tick.Length + 6 + widest, Y: (da.Min.Y + da.Max.Y) / 2}, ax.label)
}

// timeTicks labels a time axis of seconds after start with the offset from
// the incident start and, under it, the UTC clock time, at round steps of
// either; a zero start gives offsets only.
type timeTicks struct{ start time.Time }

// tickSteps are the offsets between labelled ticks, each with the minor
// step between them: round minutes and hours, so offset and clock stay
// round together when the start is.
var tickSteps = []struct{ major, minor float64 }{
	{1, 0.5}, {2, 1}, {5, 1}, {10, 5}, {15, 5}, {30, 10}, {60, 15}, {120, 30}, {300, 60}, {600, 120},
	{900, 300}, {1800, 600}, {3600, 900}, {7200, 1800}, {4 * 3600, 3600}, {6 * 3600, 3600}, {12 * 3600, 3 * 3600}, {86400, 6 * 3600},
}

// maxTimeLabels is about as many two-line labels as fit along a chart.
const maxTimeLabels = 9

func (tt timeTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) {
		return nil
	}
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if (max-min)/s.major <= maxTimeLabels {
			step = s
			break
		}
	}
	for (max-min)/step.major > maxTimeLabels {
		step.major, step.minor = step.major*2, step.minor*2
	}
	var ticks []plot.Tick
	for v := math.Ceil(min/step.minor) * step.minor; v <= max+1e-9; v += step.minor {
		t := plot.Tick{Value: v}
		if k := v / step.major; math.Abs(k-math.Round(k)) < 1e-9 {
			t.Label = offsetLabel(v)
			if !tt.start.IsZero() {
				t.Label += "\n" + tt.start.Add(time.Duration(v*float64(time.Second))).UTC().Format("15:04:05")
			}
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// offsetLabel is seconds after the start as +m:ss, +h:mm:ss or +Nd hh:mm.
func offsetLabel(v float64) string {
	s := int64(math.Round(v))
	switch {
	case s < 3600:
		return fmt.Sprintf("+%d:%02d", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("+%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("+%dd %02d:%02d", s/86400, s/3600%24, s/60%60)
}
