package report

import (
	"bytes"
	"html/template"
	"io"
	"regexp"

	"github.com/stampede/stampede/analyze"
)

// The HTML report is one self-contained file: styles inline, charts as
// inline SVG, no scripts and no network fetches, so it opens the same
// offline, attached to a ticket, years later. html/template escapes every
// string from the document, and the log-derived strings all arrive through
// it; the only markup not escaped is the SVG that package plot drew from
// numbers and from our own labels.

type htmlFact struct{ Key, Value string }

type htmlTable struct {
	Header  []string
	Numeric []bool
	Rows    [][]string
}

type htmlBlock struct {
	Label string
	Text  []string
	Items []string
	Facts []htmlFact
	Table *htmlTable
}

type htmlSection struct {
	Title  string
	Blocks []htmlBlock
}

type htmlChart struct {
	Title string
	SVG   template.HTML
}

type htmlPage struct {
	Title    string
	Facts    []htmlFact
	Findings []string
	Charts   []htmlChart
	Sections []htmlSection
}

var htmlTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1rem 0; }
figure svg { max-width: 100%; height: auto; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<ul class="facts">{{range .Facts}}<li><strong>{{.Key}}:</strong> {{.Value}}</li>{{end}}</ul>
<h2>Findings</h2>
{{if .Findings}}<ul class="findings">{{range .Findings}}<li>{{.}}</li>{{end}}</ul>{{else}}<p>No findings.</p>{{end}}
{{if .Charts}}<h2>Charts</h2>
{{range .Charts}}<figure class="chart">{{.SVG}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}{{end}}
{{- range .Sections}}<h2>{{.Title}}</h2>
{{range .Blocks}}{{if .Label}}<p><strong>{{.Label}}</strong></p>{{end}}
{{range .Text}}<p>{{.}}</p>{{end}}
{{if .Items}}<ul>{{range .Items}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Facts}}<ul>{{range .Facts}}<li><strong>{{.Key}}:</strong> {{.Value}}</li>{{end}}</ul>{{end}}
{{with .Table}}{{$t := .}}<table><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if index $t.Numeric $i}} class="num"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}
{{end}}{{end}}</body>
</html>
`))

// svgProlog is the XML declaration and anything before the <svg> element,
// which are not allowed inside HTML.
var svgProlog = regexp.MustCompile(`(?s)^.*?(<svg[\s>])`)

func renderHTML(w io.Writer, r *analyze.Result, d *document, series Series) error {
	// html/template makes markup inert; plain also removes the control
	// and bidirectional characters that could disguise text in a browser.
	all := func(ss []string) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = plain(s)
		}
		return out
	}
	facts := func(fs []fact) []htmlFact {
		var out []htmlFact
		for _, f := range fs {
			out = append(out, htmlFact{plain(f.key), plain(f.value)})
		}
		return out
	}
	page := htmlPage{Title: plain(d.title), Facts: facts(d.facts), Findings: all(d.findings)}
	charts, err := Charts(r, series)
	if err != nil {
		return err
	}
	for _, c := range charts {
		var svg bytes.Buffer
		if err := c.Write(&svg, ImageSVG); err != nil {
			return err
		}
		// Trusted: plot draws only numbers and the labels and legend
		// names set in chart.go, and escapes text itself.
		page.Charts = append(page.Charts, htmlChart{Title: c.Title, SVG: template.HTML(svgProlog.ReplaceAllString(svg.String(), "$1"))})
	}
	for _, s := range d.sections {
		hs := htmlSection{Title: plain(s.title)}
		for _, b := range s.blocks {
			hb := htmlBlock{Label: plain(b.label), Text: all(b.text), Items: all(b.items), Facts: facts(b.facts)}
			if b.table != nil {
				hb.Table = &htmlTable{Header: all(b.table.header), Numeric: b.table.numeric}
				for _, row := range b.table.rows {
					hb.Table.Rows = append(hb.Table.Rows, all(row))
				}
			}
			hs.Blocks = append(hs.Blocks, hb)
		}
		page.Sections = append(page.Sections, hs)
	}
	return htmlTemplate.Execute(w, page)
}
