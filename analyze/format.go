package analyze

import (
	"math"
	"strconv"
	"strings"
)

// count renders an integer with thousands separators: 33952 -> "33,952".
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// pct renders a fraction as a percentage with one decimal: 0.3121 -> "31.2%".
func pct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
}

// secs renders seconds with a precision that suits their size.
func secs(s float64) string {
	switch a := math.Abs(s); {
	case a >= 100:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	case a >= 1:
		return strconv.FormatFloat(s, 'f', 2, 64) + " s"
	default:
		return strconv.FormatFloat(s, 'f', 3, 64) + " s"
	}
}

// minutes renders a span of a minute or more as minutes, with its seconds,
// the unit an incident timeline is told in.
func minutes(s float64) string {
	return strconv.FormatFloat(s/60, 'f', 1, 64) + " minutes (" + strconv.FormatFloat(s, 'f', 0, 64) + " s)"
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
