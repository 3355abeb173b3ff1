package analyze

import (
	"math"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
)

// count renders an integer with thousands separators: 33952 -> "33,952".
func count(n int64) string { return humanize.Comma(n) }

// pct renders a fraction as a percentage with one decimal: 0.3121 -> "31.2%".
func pct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
}

// Seconds renders a duration by the one rule of every report, findings and
// tables alike: three significant digits, never finer than the millisecond
// a log stamps, and none past the point from 100 s up (0.022 s, 2.85 s,
// 12.0 s, 84.0 s, 616 s). An exact 0 is "0 s": "0.000 s" would claim a
// precision that is not the point. One rule means a value reads the same in
// a finding and in the table beside it.
func Seconds(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return "n/a"
	}
	if s == 0 {
		return "0 s"
	}
	d := secondsDecimals(s)
	return strconv.FormatFloat(s, 'f', d, 64) + " s"
}

// secondsDecimals is how many decimals Seconds gives s. It is judged on s
// rounded, so 99.96 becomes "100 s", not "100.0 s".
func secondsDecimals(s float64) int {
	decimals := func(a float64) int {
		switch {
		case a >= 100:
			return 0
		case a >= 10:
			return 1
		case a >= 1:
			return 2
		}
		return 3
	}
	a := math.Abs(s)
	d := decimals(a)
	p := math.Pow(10, float64(d))
	return decimals(math.Round(a*p) / p)
}

// SecondsSpread renders the spread of a duration v (a σ, a ± bound) with v's
// decimals: a spread finer than its value's is noise, and one coarser
// would make the value look less precise than it is. An exact 0 is "0 s";
// a spread that rounds to 0 without being 0 is "<" the last digit shown.
func SecondsSpread(v, spread float64) string {
	if math.IsNaN(spread) || math.IsInf(spread, 0) {
		return "n/a"
	}
	if spread == 0 {
		return "0 s"
	}
	d := 3
	if v != 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
		d = secondsDecimals(v)
	}
	s := strconv.FormatFloat(spread, 'f', d, 64)
	if strings.Trim(s, "-0.") == "" {
		return "<" + strconv.FormatFloat(math.Pow(10, -float64(d)), 'f', d, 64) + " s"
	}
	return s + " s"
}

// secs is Seconds, the name the sentences here use.
func secs(s float64) string { return Seconds(s) }

// secsSpread renders "v ± spread" by the rule of Seconds and SecondsSpread.
func secsSpread(v, spread float64) string { return Seconds(v) + " ± " + SecondsSpread(v, spread) }

// minutes renders a span of a minute or more as minutes, with its seconds,
// the unit an incident timeline is told in.
func minutes(s float64) string {
	// The seconds by Seconds, so "(94.0 s)" matches the table's 94.0 s.
	return strconv.FormatFloat(s/60, 'f', 1, 64) + " minutes (" + Seconds(s) + ")"
}

// num renders a ratio with two decimals.
func num(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

// numPair formats two numbers a sentence compares with as few decimals,
// from two, as tell them apart, so that "above" never stands between two
// equal-looking numbers.
func numPair(a, b float64) (string, string) {
	for d := 2; d < 6; d++ {
		x, y := strconv.FormatFloat(a, 'f', d, 64), strconv.FormatFloat(b, 'f', d, 64)
		if x != y || a == b {
			return x, y
		}
	}
	return strconv.FormatFloat(a, 'g', -1, 64), strconv.FormatFloat(b, 'g', -1, 64)
}

// plural picks the noun form for n: plural(1, "call", "calls") = "call".
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
