package timeline

import (
	"strings"
	"testing"
)

func TestReasonKey(t *testing.T) {
	tests := []struct{ reason, want string }{
		{`blank line`, `blank line`},
		{`bad $status "99999999999"`, `bad $status …`},
		{`bad $time_local "01/Jan/0000:00:00:00 +0000"`, `bad $time_local …`},
		{`expected ' - ' after $remote_addr at column 1`, `expected … after $remote_addr at column …`},
		{`bad ts_start 1e999: want a time`, `bad ts_start …: want a time`},
		{`line longer than 4 MiB`, `line longer than … MiB`},
		{`"unterminated quote and 1`, `…`},
	}
	for _, tt := range tests {
		if got := ReasonKey(tt.reason); got != tt.want {
			t.Errorf("ReasonKey(%q) = %q, want %q", tt.reason, got, tt.want)
		}
	}
}

// TestSkipReasonsAddUp checks that reasons count every skipped line, and
// that past MaxSkipReasons the rest go to OtherReasons.
func TestSkipReasonsAddUp(t *testing.T) {
	var s, merged Source
	for i := range 100 {
		s.AddSkip(int64(i+1), "reason "+strings.Repeat(string(rune('a'+i%26)), 1+i/26))
	}
	total := func(m map[string]int64) (n int64) {
		for _, v := range m {
			n += v
		}
		return n
	}
	// 31 reasons have keys of their own, 69 are folded.
	if total(s.Reasons) != s.Skipped || len(s.Reasons) != MaxSkipReasons || s.Reasons[OtherReasons] == 0 || s.FoldedReasons != 69 {
		t.Errorf("%d skipped, %d folded, reasons %v", s.Skipped, s.FoldedReasons, s.Reasons)
	}
	merged.AddReasons(&s)
	merged.AddReasons(&s)
	if total(merged.Reasons) != 2*s.Skipped || len(merged.Reasons) > MaxSkipReasons || merged.FoldedReasons != 69 {
		t.Errorf("merged: %d folded, reasons %v", merged.FoldedReasons, merged.Reasons)
	}
}

func FuzzReasonKey(f *testing.F) {
	f.Add(`bad $time_local "01/Jan/0000:00:00:00 +0000"`)
	f.Add(`expected ' - ' after $remote_addr at column 1`)
	f.Add(`'`)
	f.Fuzz(func(t *testing.T, reason string) {
		k := ReasonKey(reason)
		if strings.ContainsAny(k, "0123456789") {
			t.Fatalf("ReasonKey(%q) = %q keeps a digit", reason, k)
		}
		if ReasonKey(k) != k {
			t.Fatalf("ReasonKey is not idempotent on %q: %q then %q", reason, k, ReasonKey(k))
		}
	})
}
