package stampede_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/report"
)

// TestHTMLReportBundledIncident checks the HTML report of the bundled
// incident, with every chart the CLI draws, structurally: a golden of
// inline SVG would pin the plotting library's every coordinate, while what
// matters is that the page is whole, each chart is a well-formed SVG with
// its legend, and nothing in it can run.
func TestHTMLReportBundledIncident(t *testing.T) {
	res, err := stampede.Analyze(context.Background(), stampede.Config{Inputs: []string{"testdata/seed-incident"}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.RenderWith(&buf, res, report.FormatHTML, report.Options{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(page), "</html>") {
		t.Fatal("not a whole HTML document")
	}
	for _, bad := range []string{"<script", "javascript:", "http://", "https://"} {
		if i := strings.Index(strings.ToLower(stripSVGNamespaces(page)), bad); i >= 0 {
			t.Errorf("page holds %q: %s", bad, page[max(0, i-40):min(len(page), i+40)])
		}
	}
	// html/template escapes more than html.EscapeString ("+" too), so the
	// findings are looked for in the unescaped page.
	text := html.UnescapeString(page)
	for _, f := range res.Findings {
		if !strings.Contains(text, f) {
			t.Errorf("finding missing: %s", f)
		}
	}

	charts, err := report.Charts(res)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range charts {
		names[c.Name] = true
	}
	for _, want := range []string{"rate", "rate-batch", "rate-interactive", "throttle-load", "acf", "waves"} {
		if !names[want] {
			t.Errorf("no %s chart for the bundled incident", want)
		}
	}
	svgs := regexp.MustCompile(`(?s)<svg[\s>].*?</svg>`).FindAllString(page, -1)
	if len(svgs) != len(charts) {
		t.Fatalf("%d inline SVGs, want one per chart (%d)", len(svgs), len(charts))
	}
	for i, c := range charts {
		t.Run(c.Name, func(t *testing.T) {
			if !strings.Contains(text, "<figcaption>"+c.Title+"</figcaption>") {
				t.Errorf("no caption %q", c.Title)
			}
			var root struct {
				XMLName xml.Name
				Width   string `xml:"width,attr"`
				Height  string `xml:"height,attr"`
			}
			if err := xml.Unmarshal([]byte(svgs[i]), &root); err != nil || root.XMLName.Local != "svg" {
				t.Fatalf("SVG does not parse: %v", err)
			}
			if root.Width == "" || root.Height == "" {
				t.Errorf("SVG has no size: %+v", root)
			}
			text := svgText(t, svgs[i])
			for _, s := range c.Series {
				if !strings.Contains(text, s) {
					t.Errorf("SVG lacks legend entry %q", s)
				}
			}
		})
	}
	// The ACF chart is drawn from the result and marks the period found.
	if !res.Waves.Periodic || len(res.Waves.ACFCurve) == 0 {
		t.Fatalf("bundled incident: periodic %v, %d ACF points", res.Waves.Periodic, len(res.Waves.ACFCurve))
	}
	if !strings.Contains(page, "period 84.") {
		t.Error("ACF chart does not mark the 84 s period")
	}
}

// stripSVGNamespaces drops the SVG namespace URLs, the only addresses a
// self-contained page may hold: they name a vocabulary and are never fetched.
func stripSVGNamespaces(s string) string {
	return regexp.MustCompile(`xmlns(:\w+)?="[^"]*"`).ReplaceAllString(s, "")
}

func svgText(t *testing.T, svg string) string {
	t.Helper()
	var text strings.Builder
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
	return text.String()
}
