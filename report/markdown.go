package report

import (
	"bufio"
	"html"
	"io"
	"strconv"
	"strings"
)

// renderMarkdown writes d as GitHub-flavoured Markdown for pasting into an
// incident document: findings as a bullet list first, then one heading per
// section. Every string is escaped with markdownText.
func renderMarkdown(w io.Writer, d *document) error {
	bw := bufio.NewWriter(w)
	p := func(parts ...string) {
		for _, s := range parts {
			bw.WriteString(s)
		}
		bw.WriteByte('\n')
	}
	p("# ", markdownText(d.title))
	p()
	for _, f := range d.facts {
		p("- **", markdownText(f.key), ":** ", markdownText(f.value))
	}
	p()
	p("## Findings")
	p()
	if len(d.findings) == 0 {
		p("No findings.")
	}
	for _, f := range d.findings {
		p("- ", markdownText(f))
	}
	if len(d.charts) > 0 {
		p()
		p("## Charts")
		for _, c := range d.charts {
			p()
			// An <img> rather than ![](): the PNG is drawn at 2x for
			// HiDPI screens, and width shows it at the size it was
			// laid out for instead of twice that. The link is a
			// relative file name we chose, never log text; the title
			// is escaped for an attribute.
			p(`<img src="`, c.file, `" width="`, strconv.Itoa(int(ChartWidth.Dots(96))), `" alt="`, html.EscapeString(plain(c.title)), `">`)
		}
	}
	for _, s := range d.sections {
		p()
		p("## ", markdownText(s.title))
		for _, b := range s.blocks {
			p()
			if b.label != "" {
				p("**", markdownText(b.label), "**")
				p()
			}
			for i, t := range b.text {
				if i > 0 {
					p()
				}
				p(markdownText(t))
			}
			for _, it := range b.items {
				p("- ", markdownText(it))
			}
			for _, f := range b.facts {
				p("- **", markdownText(f.key), ":** ", markdownText(f.value))
			}
			if b.table != nil {
				markdownTable(p, b.table)
			}
		}
	}
	return bw.Flush()
}

func markdownTable(p func(...string), g *grid) {
	cells := func(row []string) string {
		var b strings.Builder
		b.WriteString("|")
		for _, c := range row {
			b.WriteString(" ")
			b.WriteString(markdownText(c))
			b.WriteString(" |")
		}
		return b.String()
	}
	p(cells(g.header))
	var rule strings.Builder
	rule.WriteString("|")
	for _, num := range g.numeric {
		if num {
			rule.WriteString("---:|")
		} else {
			rule.WriteString("---|")
		}
	}
	p(rule.String())
	for _, r := range g.rows {
		p(cells(r))
	}
}
