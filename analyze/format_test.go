package analyze

import (
	"math"
	"testing"
)

// The rounding rule every report shares: three significant digits, never
// finer than a millisecond, whole seconds from 100 s; a spread takes its
// value's decimals. A row that fails here is a finding and a table that
// may disagree.
func TestSecondsRule(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    float64
		want string
	}{
		{"exact zero", 0, "0 s"},
		{"below the millisecond", 0.0004, "0.000 s"},
		{"milliseconds", 0.022, "0.022 s"},
		{"sub-second", 0.889, "0.889 s"},
		{"seconds", 2.851, "2.85 s"},
		{"rounds up into the next band", 9.999, "10.0 s"},
		{"tens", 12, "12.0 s"},
		{"a minute", 60, "60.0 s"},
		{"period", 84.04, "84.0 s"},
		{"rounds up to whole seconds", 99.96, "100 s"},
		{"hundreds", 616, "616 s"},
		{"hours", 5400.4, "5400 s"},
		{"negative", -0.181, "-0.181 s"},
		{"not a number", math.NaN(), "n/a"},
	} {
		if got := Seconds(tc.v); got != tc.want {
			t.Errorf("%s: Seconds(%v) = %q, want %q", tc.name, tc.v, got, tc.want)
		}
	}
}

func TestSecondsSpread(t *testing.T) {
	for _, tc := range []struct {
		name      string
		v, spread float64
		want      string
	}{
		{"exact spread", 60, 0, "60.0 s ± 0 s"},
		{"spread at the value's decimals", 2.01, 0.609, "2.01 s ± 0.61 s"},
		{"tens take one decimal", 10.01, 0.087, "10.0 s ± 0.1 s"},
		{"a spread that rounds to nothing is not exact", 60, 0.004, "60.0 s ± <0.1 s"},
		{"whole seconds", 616, 0.3, "616 s ± <1 s"},
		{"sub-second", 0.5, 0.0123, "0.500 s ± 0.012 s"},
	} {
		if got := secsSpread(tc.v, tc.spread); got != tc.want {
			t.Errorf("%s: secsSpread(%v, %v) = %q, want %q", tc.name, tc.v, tc.spread, got, tc.want)
		}
	}
}

// TestMinutesAgreeWithSeconds: a span told in minutes gives its seconds by
// the same rule as the table beside it.
func TestMinutesAgreeWithSeconds(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{94, "1.6 minutes (94.0 s)"},
		{616, "10.3 minutes (616 s)"},
	} {
		if got := minutes(tc.v); got != tc.want {
			t.Errorf("minutes(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
