package report

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dustin/go-humanize"

	"github.com/stampede/stampede/analyze"
)

// Every number in the table and Markdown reports goes through one of these
// functions, so a rate or a duration reads the same wherever it appears.
// JSON carries the raw values.

// notAvailable stands in for a value that cannot be computed (a zero
// denominator, NaN).
const notAvailable = "–"

// count renders an integer with thousands separators: 1234567 -> "1,234,567".
func count(n int64) string { return humanize.Comma(n) }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// fixed formats v with the given decimals, never as "-0.0".
func fixed(v float64, decimals int) string {
	if !finite(v) {
		return notAvailable
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// percent renders a fraction in [0,1] as a percentage with one decimal.
func percent(fraction float64) string {
	if !finite(fraction) {
		return notAvailable
	}
	return fixed(fraction*100, 1) + "%"
}

// rate renders a fraction whose denominator is known; with nothing to
// divide by there is no rate, which is not the same as 0%.
func rate(fraction float64, denominator int64) string {
	if denominator == 0 {
		return notAvailable
	}
	return percent(fraction)
}

// rateRange is rate, or the range the rate lies in when some outcomes
// are unknown (upper above 0).
func rateRange(fraction, upper float64, denominator int64) string {
	if denominator == 0 || upper <= 0 || percent(upper) == percent(fraction) {
		return rate(fraction, denominator)
	}
	return strings.TrimSuffix(percent(fraction), "%") + " to " + percent(upper)
}

// seconds renders a duration by analyze.Seconds, the rule the findings'
// sentences use too, so a table never shows "60.00 s" beside a finding's
// "60.0 s".
func seconds(s float64) string {
	if !finite(s) {
		return notAvailable
	}
	return analyze.Seconds(s)
}

// spread renders the σ or ± of a duration v with v's decimals; see
// analyze.SecondsSpread.
func spread(v, s float64) string {
	if !finite(s) {
		return notAvailable
	}
	return analyze.SecondsSpread(v, s)
}

// offset renders a signed distance from the start of the window.
func offset(s float64) string {
	if finite(s) && s >= 0 {
		return "+" + seconds(s)
	}
	return seconds(s)
}

// factor renders a multiplier such as attempts per call: 1.93.
func factor(v float64) string { return fixed(v, 2) }

// quantile renders a count statistic: whole numbers stay whole (3), others
// get two decimals (2.50).
func quantile(v float64) string {
	if finite(v) && v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return count(int64(v))
	}
	return fixed(v, 2)
}

// timestamp renders an instant in UTC with milliseconds.
func timestamp(t time.Time) string {
	if t.IsZero() {
		return notAvailable
	}
	return t.UTC().Format("2006-01-02 15:04:05.000") + " UTC"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// plain makes a string from a log safe to print on a terminal: ANSI escape
// sequences are removed, line breaks and tabs become spaces, and other
// control and bidirectional-override characters are dropped, so a hostile
// log line cannot recolour, move the cursor, reorder text or forge rows.
func plain(s string) string {
	if isPlain(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case r == 0x9b: // C1 CSI: same grammar as ESC [
			i += size + csiLen(s[i+size:])
			continue
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f':
			b.WriteByte(' ')
		case unicode.IsControl(r) || isBidiControl(r):
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// PlainText is plain for callers outside the package: error messages that
// quote a log line go to a terminal too.
func PlainText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = plain(l)
	}
	return strings.Join(lines, "\n")
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// escapeLen is the length of the escape sequence at the start of s (which
// begins with ESC): CSI (ESC [ ... final byte), OSC/DCS/APC/PM/SOS strings
// (terminated by BEL or ESC \), or a two-byte escape.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + csiLen(s[2:])
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	if s[1] >= 0x20 && s[1] <= 0x7e {
		return 2 // a two-byte escape such as ESC 7 or ESC c
	}
	return 1
}

// csiLen is the length of a CSI sequence's parameters and final byte.
func csiLen(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x40 && c <= 0x7e {
			return i + 1
		} else if c < 0x20 || c > 0x3f {
			// Not a CSI parameter or intermediate byte: the sequence is
			// malformed; drop only what was consumed.
			return i
		}
	}
	return len(s)
}

// markdownText makes a string inert in GitHub-flavoured Markdown, inside a
// table cell or a list item: terminal controls are removed as for plain,
// and every character that Markdown or HTML would interpret is
// backslash-escaped, including the table separator.
func markdownText(s string) string {
	s = plain(s)
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '~', '&', '#', '!', '{', '}', '$':
			b.WriteByte('\\')
		case '-', '+':
			// "- text" at the start of an item would begin a nested list.
			if i == 0 && (len(s) == 1 || s[1] == ' ') {
				b.WriteByte('\\')
			}
		case '.', ')':
			// "1. text" at the start would begin an ordered list.
			if i > 0 && allDigits(s[:i]) && (i+1 == len(s) || s[i+1] == ' ') {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
