package report

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

func nan() float64 { return math.NaN() }

func TestCount(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12345, "12,345"},
		{1234567, "1,234,567"}, {-1234, "-1,234"}, {-999, "-999"},
		{math.MaxInt64, "9,223,372,036,854,775,807"}, {math.MinInt64, "-9,223,372,036,854,775,808"},
	}
	for _, tt := range tests {
		if got := count(tt.in); got != tt.want {
			t.Errorf("count(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Removing the separators must give back the number, and groups after the
// first are exactly three digits.
func TestCountProperties(t *testing.T) {
	for n := int64(-20000); n <= 20000; n += 7 {
		for _, v := range []int64{n, n * 1_000_003} {
			s := count(v)
			back, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
			if err != nil || back != v {
				t.Fatalf("count(%d) = %q does not read back", v, s)
			}
			groups := strings.Split(strings.TrimPrefix(s, "-"), ",")
			for _, g := range groups[1:] {
				if len(g) != 3 {
					t.Fatalf("count(%d) = %q has group %q", v, s, g)
				}
			}
		}
	}
}

func TestNumberFormats(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"percent", percent(0.6142), "61.4%"},
		{"percent zero", percent(0), "0.0%"},
		{"percent tiny negative", percent(-0.00001), "0.0%"},
		{"percent one", percent(1), "100.0%"},
		{"percent NaN", percent(nan()), notAvailable},
		{"rate no denominator", rate(0, 0), notAvailable},
		{"rate", rate(0.098, 16120), "9.8%"},
		{"seconds sub-second", seconds(0.0031), "0.003 s"},
		{"seconds", seconds(12), "12.0 s"},
		{"seconds period", seconds(84.2), "84.2 s"},
		{"seconds minutes", seconds(612.25), "612 s"},
		{"seconds exact zero", seconds(0), "0 s"},
		{"spread at the value's decimals", spread(2.01, 0.609), "0.61 s"},
		{"spread exactly zero", spread(60, 0), "0 s"},
		{"seconds hours", seconds(5400.4), "5400 s"},
		{"seconds inf", seconds(math.Inf(1)), notAvailable},
		{"offset", offset(95.1), "+95.1 s"},
		{"offset negative", offset(-1.5), "-1.50 s"},
		{"factor", factor(2.8715), "2.87"},
		{"quantile whole", quantile(3), "3"},
		{"quantile big", quantile(12000), "12,000"},
		{"quantile fraction", quantile(2.5), "2.50"},
		{"timestamp", timestamp(time.Date(2026, 3, 14, 9, 21, 35, 100e6, time.FixedZone("x", 3600))), "2026-03-14 08:21:35.100 UTC"},
		{"timestamp zero", timestamp(time.Time{}), notAvailable},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestPlain(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"ordinary text", "ordinary text"},
		{"\x1b[1;31mred\x1b[0m", "red"},
		{"title\x1b]0;pwned\x07 after", "title after"},
		{"title\x1b]0;pwned\x1b\\ after", "title after"},
		{"two\nlines\r\ttab", "two lines  tab"},
		{"bell\x07 nul\x00 del\x7f", "bell nul del"},
		{"rtl \u202eexe.txt", "rtl exe.txt"},
		{"c1 csi \u009b2Jdone", "c1 csi done"},
		{"bad utf8 \xff end", "bad utf8 \uFFFD end"},
		{"unicode σ × – 調", "unicode σ × – 調"},
		{"dangling \x1b", "dangling "},
		{"dangling csi \x1b[12", "dangling csi "},
	}
	for _, tt := range tests {
		if got := plain(tt.in); got != tt.want {
			t.Errorf("plain(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownText(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"84.2 s", "84.2 s"},
		{"a|b", `a\|b`},
		{"<script>", `\<script\>`},
		{"*x* _y_ `z`", "\\*x\\* \\_y\\_ \\`z\\`"},
		{"- not a list", `\- not a list`},
		{"1. not ordered", `1\. not ordered`},
		{"mid-dash 1.5", "mid-dash 1.5"},
		{"# heading", `\# heading`},
		{"[link](x)", `\[link\](x)`},
		{"&amp;", `\&amp;`},
		{"line\nbreak", "line break"},
	}
	for _, tt := range tests {
		if got := markdownText(tt.in); got != tt.want {
			t.Errorf("markdownText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzSanitize pins the invariants the renderers rely on: plain output has
// no control characters and is valid UTF-8; Markdown output additionally has
// no unescaped table separator or tag opener.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{hostile, "", "a|b", "\x1b[", "\x1b]", "\\|", "1.", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := plain(s)
		if !utf8.ValidString(p) {
			t.Fatalf("plain(%q) is not valid UTF-8", s)
		}
		for _, r := range p {
			if unicode.IsControl(r) || isBidiControl(r) {
				t.Fatalf("plain(%q) = %q keeps %U", s, p, r)
			}
		}
		m := markdownText(s)
		for i := 0; i < len(m); i++ {
			if m[i] == '|' || m[i] == '<' {
				backslashes := 0
				for j := i - 1; j >= 0 && m[j] == '\\'; j-- {
					backslashes++
				}
				if backslashes%2 == 0 {
					t.Fatalf("markdownText(%q) = %q has an unescaped %q", s, m, m[i])
				}
			}
		}
	})
}
