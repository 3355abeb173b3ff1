package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

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
	Rows    [][]htmlCell
}

// htmlCell is a table cell; a long one (an amplification layer's
// evidence runs to hundreds of characters) folds into <details> under
// its opening words, which keeps the table readable without a script.
type htmlCell struct {
	Text    string
	Summary string
}

// foldAt is the length, in characters, past which a cell folds, and
// summaryLen about how much of it the folded cell shows.
const (
	foldAt     = 160
	summaryLen = 80
)

func newHTMLCell(s string) htmlCell {
	c := htmlCell{Text: s}
	if utf8.RuneCountInString(s) <= foldAt {
		return c
	}
	// Cut at the last space before summaryLen runes, so the summary
	// ends on a whole word.
	cut := len(s)
	for i := range s {
		if utf8.RuneCountInString(s[:i]) >= summaryLen {
			cut = i
			break
		}
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > 0 {
		cut = sp
	}
	c.Summary = strings.TrimSpace(s[:cut]) + " …"
	return c
}

type htmlBlock struct {
	Label string
	Text  []string
	Items []string
	Facts []htmlFact
	Table *htmlTable
}

type htmlSection struct {
	// ID is the section's anchor, which the table of contents links.
	ID     string
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
	// Contents is every heading below the title, in order, Findings and
	// Charts included.
	Contents []htmlSection
}

// anchor turns a heading into an id of lower-case letters, digits and
// hyphens, unique among used: only those characters, so a heading from
// log text can never break out of the attribute or the fragment.
func anchor(title string, used map[string]bool) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	id := strings.TrimSuffix(b.String(), "-")
	if id == "" {
		id = "section"
	}
	for k, base := 2, id; used[id]; k++ {
		id = fmt.Sprintf("%s-%d", base, k)
	}
	used[id] = true
	return id
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
details summary { cursor: pointer; }
nav.toc ul { columns: 2; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<ul class="facts">{{range .Facts}}<li><strong>{{.Key}}:</strong> {{.Value}}</li>{{end}}</ul>
<nav class="toc"><h2>Contents</h2>
<ul>{{range .Contents}}<li><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}</ul></nav>
<h2 id="findings">Findings</h2>
{{if .Findings}}<ul class="findings">{{range .Findings}}<li>{{.}}</li>{{end}}</ul>{{else}}<p>No findings.</p>{{end}}
{{if .Charts}}<h2 id="charts">Charts</h2>
{{range .Charts}}<figure class="chart">{{.SVG}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}{{end}}
{{- range .Sections}}<h2 id="{{.ID}}">{{.Title}}</h2>
{{range .Blocks}}{{if .Label}}<p><strong>{{.Label}}</strong></p>{{end}}
{{range .Text}}<p>{{.}}</p>{{end}}
{{if .Items}}<ul>{{range .Items}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Facts}}<ul>{{range .Facts}}<li><strong>{{.Key}}:</strong> {{.Value}}</li>{{end}}</ul>{{end}}
{{with .Table}}{{$t := .}}<table><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if index $t.Numeric $i}} class="num"{{end}}>{{if $c.Summary}}<details><summary>{{$c.Summary}}</summary>{{$c.Text}}</details>{{else}}{{$c.Text}}{{end}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}
{{end}}{{end}}</body>
</html>
`))

// svgProlog is the XML declaration and anything before the <svg> element,
// which are not allowed inside HTML.
var svgProlog = regexp.MustCompile(`(?s)^.*?(<svg[\s>])`)

func renderHTML(w io.Writer, r *analyze.Result, d *document) error {
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
	charts, err := Charts(r)
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
	// Findings and Charts take their ids first: the template's headings
	// for them are fixed.
	used := map[string]bool{"findings": true, "charts": true, "contents": true}
	page.Contents = append(page.Contents, htmlSection{ID: "findings", Title: "Findings"})
	if len(page.Charts) > 0 {
		page.Contents = append(page.Contents, htmlSection{ID: "charts", Title: "Charts"})
	}
	for _, s := range d.sections {
		hs := htmlSection{Title: plain(s.title)}
		hs.ID = anchor(hs.Title, used)
		for _, b := range s.blocks {
			hb := htmlBlock{Label: plain(b.label), Text: all(b.text), Items: all(b.items), Facts: facts(b.facts)}
			if b.table != nil {
				hb.Table = &htmlTable{Header: all(b.table.header), Numeric: b.table.numeric}
				for _, row := range b.table.rows {
					cells := make([]htmlCell, len(row))
					for i, c := range row {
						cells[i] = newHTMLCell(plain(c))
					}
					hb.Table.Rows = append(hb.Table.Rows, cells)
				}
			}
			hs.Blocks = append(hs.Blocks, hb)
		}
		page.Sections = append(page.Sections, hs)
		page.Contents = append(page.Contents, htmlSection{ID: hs.ID, Title: hs.Title})
	}
	return htmlTemplate.Execute(w, page)
}
