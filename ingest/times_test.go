package ingest

import (
	"math/rand"
	"testing"
	"time"
)

func TestParseTimes(t *testing.T) {
	tests := []struct {
		parse func([]byte) (int64, bool)
		in    string
		want  string // RFC 3339, or "" for a parse failure
	}{
		{parseTimeLocal, "30/Nov/2026:02:47:30 +0000", "2026-11-30T02:47:30Z"},
		{parseTimeLocal, "01/Mar/2024:00:30:00 +0100", "2024-02-29T23:30:00Z"},
		{parseTimeLocal, "31/Dec/1999:23:59:59 -0800", "2000-01-01T07:59:59Z"},
		{parseTimeLocal, "30/Nov/2026:02:47:30 +000", ""},
		{parseTimeLocal, "30/nov/2026:02:47:30 +0000", ""},
		{parseTimeLocal, "30/Nov/2026:24:47:30 +0000", ""},
		{parseISOTime, "2026-11-30T02:47:30+00:00", "2026-11-30T02:47:30Z"},
		{parseISOTime, "2026-11-30T02:47:30.5Z", "2026-11-30T02:47:30.5Z"},
		{parseISOTime, "2026-11-30 02:47:30,123456789-0530", "2026-11-30T08:17:30.123456789Z"},
		{parseISOTime, "2026-11-30T02:47:30", "2026-11-30T02:47:30Z"},
		{parseISOTime, "2026-11-30T02:47:30.Z", ""},
		{parseISOTime, "2026-11-30T02:47:30 junk", ""},
		{parseISOTime, "2026-13-30T02:47:30Z", ""},
		{parseEpoch, "1796006850", "2026-11-30T02:47:30Z"},
		{parseEpoch, "1796006850.000001", "2026-11-30T02:47:30.000001Z"},
		{parseEpoch, "1796006850123.5", "2026-11-30T02:47:30.1235Z"},
		{parseEpoch, "1796006850123456", "2026-11-30T02:47:30.123456Z"},
		{parseEpoch, "1796006850123456789", "2026-11-30T02:47:30.123456789Z"},
		{parseEpoch, "99999999999", ""}, // seconds past 2262 do not fit
		{parseEpoch, "1e9", ""},
		{parseEpoch, "", ""},
		{parseEpoch, ".", ""},
		{parseEpoch, "99999999999999999999", ""},
	}
	for _, tt := range tests {
		got, ok := tt.parse([]byte(tt.in))
		switch {
		case tt.want == "" && ok:
			t.Errorf("%q: parsed as %v, want failure", tt.in, time.Unix(0, got).UTC())
		case tt.want != "" && !ok:
			t.Errorf("%q: failed", tt.in)
		case tt.want != "" && got != ns(tt.want):
			t.Errorf("%q: %v, want %s", tt.in, time.Unix(0, got).UTC(), tt.want)
		}
	}
}

// TestParseTimesAgreeWithTimePackage: the hand-written parsers must agree
// with time.Format for any instant and zone from 1970 to 2200.
func TestParseTimesAgreeWithTimePackage(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		when := time.Unix(rng.Int63n(7258118400), rng.Int63n(1e9))
		zone := time.FixedZone("", (rng.Intn(28*4)-14*4)*15*60)
		tm := when.In(zone)
		if got, ok := parseTimeLocal([]byte(tm.Format("02/Jan/2006:15:04:05 -0700"))); !ok || got != when.Truncate(time.Second).UnixNano() {
			t.Fatalf("time_local %s: %d %v", tm.Format("02/Jan/2006:15:04:05 -0700"), got, ok)
		}
		if got, ok := parseISOTime([]byte(tm.Format(time.RFC3339Nano))); !ok || got != when.UnixNano() {
			t.Fatalf("iso %s: %d %v", tm.Format(time.RFC3339Nano), got, ok)
		}
	}
}
