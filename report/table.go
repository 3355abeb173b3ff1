package report

import (
	"bufio"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// renderTable writes d for a terminal of width columns: findings as
// numbered sentences, then one titled block per section with box-drawn
// tables. Prose wraps at word boundaries with a hanging indent; a table
// too wide for the screen wraps its widest cells, and one that still does
// not fit is stacked, a block of "header  value" lines per row. Evidence
// blocks are left out unless opts.Verbose. Every string passes through
// plain.
func renderTable(w io.Writer, d *document, opts Options) error {
	colour, width := opts.Colour, opts.Width
	if width <= 0 {
		width = DefaultWidth
	}
	width = max(width, MinWidth)
	bw := bufio.NewWriter(w)
	line := func(parts ...string) {
		for _, s := range parts {
			bw.WriteString(s)
		}
		bw.WriteByte('\n')
	}
	// para writes text wrapped to the width, the first line after first
	// and the rest under an indent as wide as first.
	para := func(first, text string) {
		for _, l := range wrapWords(text, width-displayWidth(first)) {
			line(first, l)
			first = strings.Repeat(" ", displayWidth(first))
		}
	}
	factList := func(indent string, facts []fact) {
		keyWidth := 0
		for _, f := range facts {
			keyWidth = max(keyWidth, displayWidth(plain(f.key)))
		}
		// A key column wider than half the screen leaves too little for
		// the value: the value goes under its key instead.
		stacked := keyWidth > (width-len(indent))/2
		for _, f := range facts {
			if stacked {
				para(indent, plain(f.key))
				para(indent+"    ", plain(f.value))
				continue
			}
			para(indent+padRight(plain(f.key), keyWidth)+"  ", plain(f.value))
		}
	}
	line(emphasis(strings.ToUpper(plain(d.title)), colour))
	factList("", d.facts)
	line()
	line(emphasis("FINDINGS", colour))
	if len(d.findings) == 0 {
		line("  No findings.")
	}
	for i, f := range d.findings {
		para("  "+count(int64(i+1))+". ", plain(f))
	}
	for _, s := range d.sections {
		line()
		line(emphasis(strings.ToUpper(plain(s.title)), colour))
		for _, b := range s.blocks {
			if b.evidence && !opts.Verbose {
				continue
			}
			if b.label != "" {
				para("  ", plain(b.label)+":")
			}
			for _, t := range b.text {
				para("  ", plain(t))
			}
			for _, it := range b.items {
				para("  - ", plain(it))
			}
			factList("  ", b.facts)
			if b.table != nil {
				if err := bw.Flush(); err != nil {
					return err
				}
				if err := terminalTable(bw, b.table, width); err != nil {
					return err
				}
			}
		}
	}
	return bw.Flush()
}

// tableBorders is what a box-drawn table adds to its cells: a bar and a
// space either side of each, the bars shared between neighbours.
func tableBorders(columns int) int { return 3*columns + 1 }

// columnWidths fits the columns of g within width: each starts at its
// widest line, and the widest column gives up a column at a time, never
// below its longest word. ok is false when even that is too wide.
func columnWidths(g *grid, width int) (widths []int, ok bool) {
	n := len(g.header)
	widths = make([]int, n)
	floor := make([]int, n)
	cells := func(c int, fn func(string)) {
		fn(plain(g.header[c]))
		for _, r := range g.rows {
			if c < len(r) {
				fn(plain(r[c]))
			}
		}
	}
	for c := range n {
		numeric := c < len(g.numeric) && g.numeric[c]
		cells(c, func(s string) {
			widths[c] = max(widths[c], displayWidth(s))
			for _, word := range unitsKept(strings.Fields(s)) {
				floor[c] = max(floor[c], displayWidth(word))
			}
		})
		if numeric {
			// A number and its unit stay on one line: "12.00" over "s"
			// reads as two values. A range ("80.7 to 84.0%") may break
			// between its ends.
			for _, r := range g.rows {
				if c < len(r) {
					for _, end := range strings.Split(plain(r[c]), " to ") {
						floor[c] = max(floor[c], displayWidth(end))
					}
				}
			}
		}
	}
	room := width - tableBorders(n)
	total := 0
	for _, v := range widths {
		total += v
	}
	for total > room {
		widest := -1
		for c := range n {
			if widths[c] > floor[c] && (widest < 0 || widths[c] > widths[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			return widths, false
		}
		widths[widest]--
		total--
	}
	return widths, true
}

// maxTransposedRows is the most rows a table too wide for the screen may
// have to be turned on its side, its columns becoming rows.
const maxTransposedRows = 4

func terminalTable(w io.Writer, g *grid, width int) error {
	widths, ok := columnWidths(g, width)
	if !ok && slices.Contains(g.optional, true) {
		narrow := g.without()
		if nw, fits := columnWidths(narrow, width); fits {
			g, widths, ok = narrow, nw, true
		}
	}
	if !ok && len(g.rows) <= maxTransposedRows {
		// A few rows of many columns (classes side by side) read best
		// turned on their side: one row per column.
		t := transpose(g)
		if tw, fits := columnWidths(t, width); fits {
			g, widths, ok = t, tw, true
		}
	}
	if !ok {
		return stackedTable(w, g, width)
	}
	align := make([]tw.Align, len(g.numeric))
	for i, num := range g.numeric {
		align[i] = tw.AlignLeft
		if num {
			align[i] = tw.AlignRight
		}
	}
	// The cells arrive wrapped to their column's width, so the table
	// writer must not wrap them again by its own measure.
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	cell := func(s string, c int) string { return strings.Join(wrapWords(plain(s), widths[c]), "\n") }
	header := make([]any, len(g.header))
	for c, h := range g.header {
		header[c] = cell(h, c)
	}
	t.Header(header...)
	for _, r := range g.rows {
		row := make([]string, len(r))
		for c, v := range r {
			if c < len(widths) {
				row[c] = cell(v, c)
			} else {
				row[c] = plain(v)
			}
		}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}

// transpose turns g on its side: its first column becomes the header, and
// each other column a row headed by its old header.
func transpose(g *grid) *grid {
	// A row of values is numbers only when every old column but the
	// first was.
	numbers := true
	for c := 1; c < len(g.numeric); c++ {
		numbers = numbers && g.numeric[c]
	}
	t := &grid{header: []string{g.header[0]}, numeric: []bool{false}}
	for _, r := range g.rows {
		if len(r) > 0 {
			t.header = append(t.header, r[0])
		} else {
			t.header = append(t.header, "")
		}
		t.numeric = append(t.numeric, numbers)
	}
	for c := 1; c < len(g.header); c++ {
		row := []string{g.header[c]}
		for _, r := range g.rows {
			if c < len(r) {
				row = append(row, r[c])
			} else {
				row = append(row, "")
			}
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// stackedTable writes a table too wide for the screen as one block per
// row: each column's header, then its value, wrapped under it.
func stackedTable(w io.Writer, g *grid, width int) error {
	bw := bufio.NewWriter(w)
	// Headers wrap within a third of the line, but no header word is cut
	// that fits within half of it.
	keyWidth, longestWord := 0, 0
	for _, h := range g.header {
		keyWidth = max(keyWidth, displayWidth(plain(h)))
		for _, word := range strings.Fields(plain(h)) {
			longestWord = max(longestWord, displayWidth(word))
		}
	}
	keyWidth = min(keyWidth, max((width-2)/3, min(longestWord, (width-2)/2)))
	for i, r := range g.rows {
		if i > 0 {
			bw.WriteString("\n")
		}
		for c, v := range r {
			key := ""
			if c < len(g.header) {
				key = plain(g.header[c])
			}
			keyLines := wrapWords(key, keyWidth)
			valueLines := wrapWords(plain(v), width-2-keyWidth-2)
			for k := 0; k < max(len(keyLines), len(valueLines)); k++ {
				kl, vl := "", ""
				if k < len(keyLines) {
					kl = keyLines[k]
				}
				if k < len(valueLines) {
					vl = valueLines[k]
				}
				bw.WriteString(strings.TrimRight("  "+padRight(kl, keyWidth)+"  "+vl, " ") + "\n")
			}
		}
	}
	return bw.Flush()
}

// wrapWords breaks text into lines of at most width columns at spaces,
// keeping its own line breaks. Only a word longer than a whole line is
// cut, since it cannot fit otherwise.
func wrapWords(text string, width int) []string {
	width = max(width, 1)
	var out []string
	for _, para := range strings.Split(text, "\n") {
		words := unitsKept(strings.Fields(para))
		if len(words) == 0 {
			out = append(out, "")
			continue
		}
		cur, curWidth := "", 0
		for _, word := range words {
			ww := displayWidth(word)
			for ww > width {
				// A word wider than a line: fill what the line has left,
				// or a line of its own.
				if curWidth > 0 {
					out = append(out, cur)
					cur, curWidth = "", 0
				}
				head := runewidth.Truncate(word, width, "")
				if head == "" {
					// A character wider than the line itself.
					_, size := utf8.DecodeRuneInString(word)
					head = word[:size]
				}
				out = append(out, head)
				word = word[len(head):]
				ww = displayWidth(word)
			}
			if ww == 0 {
				continue
			}
			switch {
			case curWidth == 0:
				cur, curWidth = word, ww
			case curWidth+1+ww <= width:
				cur += " " + word
				curWidth += 1 + ww
			default:
				out = append(out, cur)
				cur, curWidth = word, ww
			}
		}
		if curWidth > 0 {
			out = append(out, cur)
		}
	}
	return out
}

// unitsKept joins a unit of seconds to the number before it, so a line
// never ends "47.2" over a next one starting "s": the value and its unit
// are one word to wrap. They are joined by a plain space, which is what
// the line shows.
func unitsKept(words []string) []string {
	out := words[:0]
	for _, w := range words {
		if n := len(out); n > 0 && isSecondsUnit(w) && endsInDigit(out[n-1]) {
			out[n-1] += " " + w
			continue
		}
		out = append(out, w)
	}
	return out
}

// isSecondsUnit is "s", maybe followed by punctuation: "s", "s)", "s;".
func isSecondsUnit(w string) bool {
	return strings.HasPrefix(w, "s") && strings.Trim(w[1:], ").,;:") == ""
}

func endsInDigit(w string) bool { return w != "" && w[len(w)-1] >= '0' && w[len(w)-1] <= '9' }

func padRight(s string, width int) string {
	if n := displayWidth(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// displayWidth is how many terminal columns s takes: wide characters take
// two, combining marks none.
func displayWidth(s string) int { return runewidth.StringWidth(s) }
