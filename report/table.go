package report

import (
	"bufio"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// maxCellWidth wraps long sentences (cap evidence, methods) so a table
// stays readable in a terminal.
const maxCellWidth = 40

// renderTable writes d for a terminal: findings as numbered sentences, then
// one titled block per section with box-drawn tables. Every string passes
// through plain.
func renderTable(w io.Writer, d *document, colour bool) error {
	bw := bufio.NewWriter(w)
	p := func(parts ...string) {
		for _, s := range parts {
			bw.WriteString(s)
		}
		bw.WriteByte('\n')
	}
	p(emphasis(strings.ToUpper(plain(d.title)), colour))
	width := 0
	for _, f := range d.facts {
		width = max(width, displayWidth(plain(f.key)))
	}
	for _, f := range d.facts {
		p(padRight(plain(f.key), width), "  ", plain(f.value))
	}
	p()
	p(emphasis("FINDINGS", colour))
	if len(d.findings) == 0 {
		p("  No findings.")
	}
	for i, f := range d.findings {
		p("  ", count(int64(i+1)), ". ", plain(f))
	}
	for _, s := range d.sections {
		p()
		p(emphasis(strings.ToUpper(plain(s.title)), colour))
		for _, b := range s.blocks {
			if b.label != "" {
				p("  ", plain(b.label), ":")
			}
			for _, t := range b.text {
				p("  ", plain(t))
			}
			for _, it := range b.items {
				p("  - ", plain(it))
			}
			width := 0
			for _, f := range b.facts {
				width = max(width, displayWidth(plain(f.key)))
			}
			for _, f := range b.facts {
				p("  ", padRight(plain(f.key), width), "  ", plain(f.value))
			}
			if b.table != nil {
				if err := bw.Flush(); err != nil {
					return err
				}
				if err := terminalTable(bw, b.table); err != nil {
					return err
				}
			}
		}
	}
	return bw.Flush()
}

func terminalTable(w io.Writer, g *grid) error {
	align := make([]tw.Align, len(g.numeric))
	for i, num := range g.numeric {
		align[i] = tw.AlignLeft
		if num {
			align[i] = tw.AlignRight
		}
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithRowMaxWidth(maxCellWidth),
	)
	header := make([]any, len(g.header))
	for i, h := range g.header {
		header[i] = plain(h)
	}
	t.Header(header...)
	for _, r := range g.rows {
		row := make([]string, len(r))
		for i, c := range r {
			row[i] = plain(c)
		}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}

func padRight(s string, width int) string {
	if n := displayWidth(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

func displayWidth(s string) int { return len([]rune(s)) }
