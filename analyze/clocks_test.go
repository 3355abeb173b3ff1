package analyze

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
)

// skewedLogs builds an access log (source 0) and an SDK log (source 1) of the
// same calls: bursts of `calls` calls every 30 s plus steady traffic, each
// call's first attempt starting 2 ms after the call. The SDK log's clock
// reads `offset` ahead; wholeSeconds truncates the access log's end times to
// the second, as nginx's $time_local does. independent replaces the SDK log
// with unrelated calls, which no offset can line up.
func skewedLogs(seed uint64, offset time.Duration, calls int, wholeSeconds, independent bool) *timeline.Timeline {
	rng := rand.New(rand.NewPCG(seed, 1))
	tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "access.log"}, {Path: "calls.jsonl"}}}
	var starts []int64
	for burst := range 5 {
		base := genEpoch + int64(burst)*int64(30*time.Second)
		for range calls {
			starts = append(starts, base+rng.Int64N(int64(800*time.Millisecond)))
		}
	}
	for t := genEpoch; t < genEpoch+int64(150*time.Second); t += int64(time.Second) + rng.Int64N(int64(200*time.Millisecond)) {
		starts = append(starts, t)
	}
	for i, s := range starts {
		attemptStart := s + int64(2*time.Millisecond)
		end := attemptStart + int64(150*time.Millisecond)
		if wholeSeconds {
			end -= end % int64(time.Second)
			attemptStart = end - int64(150*time.Millisecond)
		}
		tl.Events = append(tl.Events, timeline.Event{Start: attemptStart, End: end, Layer: timeline.LayerHTTP,
			Outcome: timeline.OutcomeOK, Status: 200, Attempt: 1, Source: 0, Line: int64(i + 1), RetryAfter: timeline.NoRetryAfter})
		callStart := s
		if independent {
			callStart = genEpoch + rng.Int64N(int64(150*time.Second))
		}
		callStart += int64(offset)
		tl.Events = append(tl.Events, timeline.Event{Start: callStart, End: callStart + int64(160*time.Millisecond),
			Layer: timeline.LayerCall, Outcome: timeline.OutcomeOK, Attempts: 1, Source: 1, Line: int64(i + 1), RetryAfter: timeline.NoRetryAfter})
	}
	tl.Sort()
	return tl
}

func TestEstimateClocks(t *testing.T) {
	tests := []struct {
		name         string
		offset       time.Duration
		calls        int
		wholeSeconds bool
		independent  bool
		// tolerance on the offset; reliable says whether it may be acted on.
		tolerance float64
		reliable  bool
		// far adds a few events of each log this long after the rest: a
		// span too long for one series of 50 ms bins.
		far time.Duration
	}{
		{name: "in step", offset: 0, calls: 200, tolerance: 0.06, reliable: true},
		{name: "sdk ahead 2.5 s", offset: 2500 * time.Millisecond, calls: 200, tolerance: 0.06, reliable: true},
		{name: "sdk behind 5 s", offset: -5 * time.Second, calls: 200, tolerance: 0.06, reliable: true},
		{name: "sdk behind 1.3 s, small bursts", offset: -1300 * time.Millisecond, calls: 20, tolerance: 0.06, reliable: true},
		{name: "sdk ahead 43 s", offset: 43 * time.Second, calls: 200, tolerance: 0.06, reliable: true},
		{name: "whole-second access log, sdk ahead 2.5 s", offset: 2500 * time.Millisecond, calls: 200, wholeSeconds: true, tolerance: 0.3, reliable: true},
		{name: "whole-second access log, sdk behind 3.7 s", offset: -3700 * time.Millisecond, calls: 200, wholeSeconds: true, tolerance: 0.3, reliable: true},
		{name: "unrelated logs", offset: 0, calls: 0, independent: true, reliable: false},
		{name: "sdk ahead 2.5 s, a stray event a month later", offset: 2500 * time.Millisecond, calls: 200, tolerance: 0.06, reliable: true, far: 30 * 24 * time.Hour},
		{name: "whole-second access log, sdk behind 3.7 s, a year later", offset: -3700 * time.Millisecond, calls: 200, wholeSeconds: true, tolerance: 0.3, reliable: true, far: 365 * 24 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 3; seed++ {
				tl := skewedLogs(seed, tc.offset, tc.calls, tc.wholeSeconds, tc.independent)
				if tc.far > 0 {
					for i := range 6 {
						e := tl.Events[i]
						e.Start += int64(tc.far)
						e.End += int64(tc.far)
						tl.Events = append(tl.Events, e)
					}
					tl.Sort()
				}
				got := EstimateClocks(tl)
				if len(got) != 1 {
					t.Fatalf("got %d estimates, want 1", len(got))
				}
				c := got[0]
				if c.Source != "calls.jsonl" || c.Reference != "access.log" {
					t.Errorf("compared %s with %s, want calls.jsonl with access.log", c.Source, c.Reference)
				}
				if c.Reliable != tc.reliable {
					t.Errorf("seed %d: reliable = %v (corr %.3f, margin %.3f), want %v", seed, c.Reliable, c.Correlation, c.Margin, tc.reliable)
				}
				if tc.reliable && math.Abs(c.Offset-tc.offset.Seconds()) > tc.tolerance {
					t.Errorf("seed %d: offset %+.3f s, want %+.3f ± %.2f", seed, c.Offset, tc.offset.Seconds(), tc.tolerance)
				}
			}
		})
	}
}

// TestClocksOfLogsApart compares logs of 25 events each a month apart, or
// one after the other as rotated files are: the series stays the size of
// their busy stretches (one bin per 50 ms of the month needed 800 MB and
// crashed the transform), logs further apart than any lag the search looks
// at are not transformed at all, and no offset is claimed where the logs
// share no time.
func TestClocksOfLogsApart(t *testing.T) {
	day := int64(24 * time.Hour)
	sec := int64(time.Second)
	tests := []struct {
		name  string
		other int64 // the second log's first start, after the first's
		// shared is whether the two logs come close enough to be lined up.
		shared bool
	}{
		{"a month apart", 29 * day, false},
		{"a day apart", day, false},
		{"the next file of a rotated log, 62 s after", (24 + 62) * sec, false},
		{"the next file of a rotated log, 30 s after", (24 + 30) * sec, true},
		{"overlapping at one end", 20 * sec, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "a.log"}, {Path: "b.log"}}}
			for i := range int64(25) {
				for src, base := range []int64{genEpoch, genEpoch + tc.other} {
					tl.Events = append(tl.Events, timeline.Event{Start: base + i*int64(time.Second), Layer: timeline.LayerHTTP,
						Outcome: timeline.OutcomeThrottled, Status: 429, Source: int32(src), Line: i + 1, RetryAfter: timeline.NoRetryAfter})
				}
			}
			tl.Sort()
			got := EstimateClocks(tl)
			if len(got) != 1 {
				t.Fatalf("EstimateClocks = %+v", got)
			}
			c := got[0]
			if tc.shared != (c.Method == ClockByBursts) || !tc.shared && (c.Reliable || !strings.Contains(c.Note, "share no time")) {
				t.Errorf("EstimateClocks = %+v; want lined up: %v", c, tc.shared)
			}
		})
	}
}

func TestEstimateClocksTooFewEvents(t *testing.T) {
	tl := skewedLogs(1, time.Second, 0, false, false)
	tl.Events = tl.Events[:10]
	got := EstimateClocks(tl)
	for _, c := range got {
		if c.Reliable || c.Note == "" {
			t.Errorf("%d events judged reliable: %+v", c.Events, c)
		}
	}
}

// TestAlignClocks checks that alignment shifts only the skewed log, leaves
// its input untouched, and that a second estimate on the result is zero.
func TestAlignClocks(t *testing.T) {
	tl := skewedLogs(7, 2500*time.Millisecond, 200, false, false)
	before := append([]timeline.Event(nil), tl.Events...)
	clocks := EstimateClocks(tl)
	aligned := alignClocks(tl, clocks)
	if !clocks[0].Applied {
		t.Fatalf("offset not applied: %+v", clocks[0])
	}
	for i := range before {
		if before[i] != tl.Events[i] {
			t.Fatalf("alignClocks modified its input at event %d", i)
		}
	}
	again := EstimateClocks(aligned)
	if math.Abs(again[0].Offset) > 0.06 {
		t.Errorf("after alignment the offset is still %+.3f s", again[0].Offset)
	}
	for i := 1; i < len(aligned.Events); i++ {
		if aligned.Events[i].Start < aligned.Events[i-1].Start {
			t.Fatalf("aligned timeline is not sorted at %d", i)
		}
	}
	res := Run(tl, Options{Seed: 1, Align: true})
	if !res.Clocks[0].Applied || len(clockWarnings(res.Clocks)) != 1 {
		t.Errorf("Run with Align: clocks %+v, warnings %q", res.Clocks, res.Warnings)
	}
}

// queuedSends builds an access log (source 0) and an SDK log (source 1) of
// one storm on clocks offset apart: bursts of 300 calls every 20 s whose
// sends wait for one of 50 connections (each send holds one for 0.5 s),
// plus steady calls sent at once. withIDs gives both logs the call id.
func queuedSends(seed uint64, offset time.Duration, wholeSeconds, withIDs bool) *timeline.Timeline {
	rng := rand.New(rand.NewPCG(seed, 2))
	tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "access.log"}, {Path: "calls.jsonl"}}}
	type call struct{ start, send int64 }
	var calls []call
	for burst := range 4 {
		base := genEpoch + int64(burst)*int64(20*time.Second)
		for i := range 300 {
			// The 50 connections free up every half second.
			send := base + int64(i/50)*int64(500*time.Millisecond) + rng.Int64N(int64(20*time.Millisecond))
			calls = append(calls, call{base, send})
		}
	}
	for t := genEpoch; t < genEpoch+int64(80*time.Second); t += int64(400 * time.Millisecond) {
		calls = append(calls, call{t, t + int64(5*time.Millisecond)})
	}
	for i, c := range calls {
		id := timeline.NoSym
		if withIDs {
			id = timeline.Intern(fmt.Sprintf("call-%d", i))
		}
		end := c.send + int64(150*time.Millisecond)
		start := c.send
		if wholeSeconds {
			end -= end % int64(time.Second)
			start = end - int64(150*time.Millisecond)
		}
		tl.Events = append(tl.Events,
			timeline.Event{Start: start, End: end, Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeOK, Status: 200,
				Attempt: 1, Source: 0, CallID: id, Line: int64(i + 1), RetryAfter: timeline.NoRetryAfter},
			timeline.Event{Start: c.start + int64(offset), End: c.send + int64(offset) + int64(160*time.Millisecond), Layer: timeline.LayerCall,
				Outcome: timeline.OutcomeOK, Attempts: 1, Source: 1, CallID: id, Line: int64(i + 1), RetryAfter: timeline.NoRetryAfter})
	}
	tl.Sort()
	return tl
}

// TestClocksByCallID: where both logs carry the call id, the offset is
// measured call by call, so a burst's queued sends are not read as a skew.
func TestClocksByCallID(t *testing.T) {
	tests := []struct {
		name         string
		offset       time.Duration
		wholeSeconds bool
		withIDs      bool
		method       string
		// The estimate must come within 0.5 s of the offset, or, by
		// bursts, at least not call a wrong one reliable: the storm's
		// queued sends smear its bursts.
		maybeUnreliable bool
	}{
		{"one clock, call ids", 0, false, true, ClockByCallIDs, false},
		{"one clock, call ids, whole seconds", 0, true, true, ClockByCallIDs, false},
		{"skewed 4 s, call ids", 4 * time.Second, false, true, ClockByCallIDs, false},
		{"skewed 4 s, call ids, whole seconds", 4 * time.Second, true, true, ClockByCallIDs, false},
		{"skewed -3 s, call ids", -3 * time.Second, false, true, ClockByCallIDs, false},
		{"skewed 4 s, no ids", 4 * time.Second, false, false, ClockByBursts, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := EstimateClocks(queuedSends(5, tc.offset, tc.wholeSeconds, tc.withIDs))
			if len(got) != 1 {
				t.Fatalf("got %d offsets, want 1", len(got))
			}
			c := got[0]
			want := tc.offset.Seconds()
			right := math.Abs(c.Offset-want) <= 0.5
			if c.Method != tc.method || (c.Reliable && !right) || (!tc.maybeUnreliable && !c.Reliable) {
				t.Errorf("offset %+.3f s by %q (reliable %v), want %+.1f ± 0.5 s by %q", c.Offset, c.Method, c.Reliable, want, tc.method)
			}
		})
	}
}
