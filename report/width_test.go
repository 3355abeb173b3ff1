package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stampede/stampede/analyze"
)

// TestTableFitsWidth: at any width from the narrowest up, no line of the
// terminal report is wider than the terminal, and wrapping never cuts a
// word that would fit on a line of its own: every word of the narrow
// report is a word of the report rendered without a width limit.
func TestTableFitsWidth(t *testing.T) {
	results := []struct {
		name   string
		result *analyze.Result
	}{
		{"seed", incidentResult()},
		{"partial", partialResult()},
		{"empty", &analyze.Result{}},
	}
	for _, res := range results {
		var wide bytes.Buffer
		if err := RenderWith(&wide, res.result, FormatTable, Options{Width: 100000}); err != nil {
			t.Fatal(err)
		}
		words := map[string]bool{}
		for _, w := range strings.Fields(wide.String()) {
			words[w] = true
		}
		for _, width := range []int{MinWidth, 60, 80, 100, 120, 200} {
			t.Run(res.name+"/"+count(int64(width)), func(t *testing.T) {
				var b bytes.Buffer
				if err := RenderWith(&b, res.result, FormatTable, Options{Width: width}); err != nil {
					t.Fatal(err)
				}
				for n, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
					if got := displayWidth(line); got > width {
						t.Errorf("line %d is %d columns wide, over %d: %q", n+1, got, width, line)
					}
					for _, w := range strings.Fields(line) {
						// Box drawing is the table writer's own; a word as
						// long as the cell it sits in may be cut.
						if !words[w] && displayWidth(w) < width/4 && !strings.ContainsAny(w, "│┌┐└┘├┤┬┴┼─") {
							t.Errorf("line %d: %q is no word of the unwrapped report: a word was cut", n+1, w)
						}
					}
				}
			})
		}
	}
}

func TestWrapWords(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		width int
		want  []string
	}{
		{name: "fits", text: "three short words", width: 20, want: []string{"three short words"}},
		{name: "breaks at spaces", text: "three short words", width: 11, want: []string{"three short", "words"}},
		{name: "keeps its own line breaks", text: "one\ntwo three", width: 20, want: []string{"one", "two three"}},
		{name: "cuts only a word longer than a line", text: "a /very/long/path/to/a/file ok", width: 10, want: []string{"a", "/very/long", "/path/to/a", "/file ok"}},
		{name: "wide characters take two columns", text: "日本語 テキスト", width: 8, want: []string{"日本語", "テキスト"}},
		{name: "empty", text: "", width: 10, want: []string{""}},
		{name: "a number keeps its unit of seconds", text: "stayed empty 47.2 s after", width: 17, want: []string{"stayed empty", "47.2 s after"}},
		{name: "and its unit's punctuation", text: "every 12.0 s; then", width: 10, want: []string{"every", "12.0 s;", "then"}},
		{name: "an s that is no unit wraps alone", text: "class s here", width: 7, want: []string{"class s", "here"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := wrapWords(tc.text, tc.width)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("wrapWords(%q, %d) = %q, want %q", tc.text, tc.width, got, tc.want)
			}
			for _, l := range got {
				if displayWidth(l) > tc.width {
					t.Errorf("line %q over %d columns", l, tc.width)
				}
			}
		})
	}
}

func TestNarrowTables(t *testing.T) {
	g := newGrid("class", "#attempts", "#throttled", "#429 rate", "#calls", "#failed", "#failed on throttle", "#error rate", "#attempts/call")
	g.add("all", "17,858", "15,630", "87.5%", "7,086", "4,858", "4,858", "68.6%", "2.52")
	g.add("interactive", "6,466", "4,426", "68.5%", "3,173", "1,133", "1,133", "35.7%", "2.04")
	waves := newGrid("#wave", "?start (UTC)", "#offset", "#size")
	for i := 0; i < 6; i++ {
		waves.add(count(int64(i+1)), "2026-11-30 02:01:00.050 UTC", "+60.0 s", "1,180")
	}
	tests := []struct {
		name  string
		g     *grid
		width int
		has   []string
		lacks []string
	}{
		{name: "wide enough as it is", g: g, width: 120, has: []string{"│ class       │ attempts │"}},
		{name: "few rows turned on their side", g: g, width: 60, has: []string{"│ class              │    all │ interactive │", "│ failed on throttle │  4,858 │       1,133 │"}},
		{name: "an optional column dropped", g: waves, width: 40, has: []string{"│ wave │  offset │  size │"}, lacks: []string{"UTC"}},
		{name: "kept when it fits", g: waves, width: 80, has: []string{"2026-11-30 02:01:00.050 UTC"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := terminalTable(&b, tc.g, tc.width); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			checkSays(t, "table", out, tc.has, tc.lacks)
			for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
				if displayWidth(l) > tc.width {
					t.Errorf("line over %d columns: %q", tc.width, l)
				}
			}
		})
	}
}

// checkSays fails t for each of has that out lacks and each of lacks that
// it holds; what names out in the messages.
func checkSays(t *testing.T, what, out string, has, lacks []string) {
	t.Helper()
	for _, s := range has {
		if !strings.Contains(out, s) {
			t.Errorf("%s lacks %q:\n%s", what, s, out)
		}
	}
	for _, s := range lacks {
		if strings.Contains(out, s) {
			t.Errorf("%s has %q:\n%s", what, s, out)
		}
	}
}
