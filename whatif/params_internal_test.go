package whatif

import (
	"math"
	"testing"
	"time"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/timeline"
)

// bucketSize takes out of each burst the refill that arrived over its
// span, to the nearest whole task, and keeps the most a burst found.
func TestBucketSize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bursts []burst
		refill float64 // tasks per second
		want   float64
	}{
		{"none", nil, 1.9, 0},
		// Seven admitted within 90 ms: under half a task refilled.
		{"compact", []burst{{7, 0.09}}, 1.9, 7},
		// Nine admitted over a second at 1.9 tasks/s: two came from the
		// refill.
		{"spread over a second", []burst{{9, 0.991}}, 1.9, 7},
		// A wave that found the bucket paying a debt back admits less
		// than one that found it full.
		{"the most a burst found", []burst{{3, 0.05}, {9, 0.991}, {8, 0.979}, {5, 0.07}}, 1.9, 7},
		{"no refill", []burst{{9, 0.991}}, 0, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := bucketSize(tc.bursts, tc.refill); got != tc.want {
				t.Errorf("bucketSize(%v, %g) = %g, want %g", tc.bursts, tc.refill, got, tc.want)
			}
		})
	}
}

// handleMs reads the client's time per response from the first requeued
// wave's width, net of the first wave's, over the first wave's failures.
func TestHandleMs(t *testing.T) {
	const s = int64(time.Second)
	// calls makes n batch calls of one queue attempt starting spread
	// seconds apart in all, the first ok of them succeeding.
	calls := func(qa int32, n, ok int, start, spread float64) []timeline.Event {
		var out []timeline.Event
		for i := range n {
			at := start + spread*float64(i)/float64(max(1, n-1))
			e := timeline.Event{Layer: timeline.LayerCall, Class: timeline.ClassBatch, QueueAttempt: timeline.Small(qa),
				Start: int64(at * float64(s)), Outcome: timeline.OutcomeThrottled}
			if i < ok {
				e.Outcome = timeline.OutcomeOK
			}
			out = append(out, e)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		events []timeline.Event
		want   float64
	}{
		{"no call log", nil, 0},
		// 293 failures spread the next wave over 0.36 s more than the
		// first: 0.36 / (0.9 × 293) s each.
		{"spread by the handling", append(calls(1, 300, 7, 100.001, 0.003), calls(2, 208, 0, 114.2, 0.363/0.9)...), 1.365},
		// Whole-second stamps cannot show a third of a second.
		{"whole seconds", append(calls(1, 300, 7, 100, 0), calls(2, 208, 0, 114, 0)...), 0},
		{"no requeued wave", calls(1, 300, 7, 100.001, 0.003), 0},
		{"narrower than the first", append(calls(1, 300, 7, 100.001, 0.5), calls(2, 208, 0, 114.2, 0.1)...), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := handleMs(&timeline.Timeline{Events: tc.events}); math.Abs(got-tc.want) > 0.01 {
				t.Errorf("handleMs = %g ms, want %g", got, tc.want)
			}
		})
	}
}

// firstWaveMs is the median time the first wave's calls that failed after
// one attempt took, from the call log; nothing without such calls or
// sub-second times.
func TestFirstWaveMs(t *testing.T) {
	const ms = int64(time.Millisecond)
	call := func(qa, attempts int32, ok bool, start, durMs int64) timeline.Event {
		e := timeline.Event{Layer: timeline.LayerCall, Class: timeline.ClassBatch, QueueAttempt: timeline.Small(qa), Attempts: timeline.Small(attempts),
			Start: start, End: start + durMs*ms, Outcome: timeline.OutcomeThrottled}
		if ok {
			e.Outcome = timeline.OutcomeOK
		}
		return e
	}
	t0 := int64(100*time.Second) + 3*ms
	for _, tc := range []struct {
		name   string
		events []timeline.Event
		want   float64
	}{
		{"no call log", nil, 0},
		// The retried and the admitted calls, and the second wave's, do
		// not count.
		{"one-attempt failures", []timeline.Event{
			call(1, 1, false, t0, 300), call(1, 1, false, t0+ms, 350), call(1, 1, false, t0+2*ms, 420),
			call(1, 3, false, t0, 4100), call(1, 1, true, t0, 200), call(2, 1, false, t0+10_000*ms, 4),
		}, 350},
		{"every call retried", []timeline.Event{call(1, 3, false, t0, 4100), call(1, 2, true, t0, 2200)}, 0},
		{"whole seconds", []timeline.Event{call(1, 1, false, int64(100*time.Second), 1000)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := firstWaveMs(&timeline.Timeline{Events: tc.events}); got != tc.want {
				t.Errorf("firstWaveMs = %g ms, want %g", got, tc.want)
			}
		})
	}
}

// TestWaveSeedCount pins how many seeds the as-measured wave check counts
// over: the rows' own when a user asked for fewer than the default, to
// keep a quick run quick, and at least WaveSeeds otherwise.
func TestWaveSeedCount(t *testing.T) {
	for _, tt := range []struct{ rows, want int }{
		{1, 1}, {DefaultSeeds - 1, DefaultSeeds - 1}, {DefaultSeeds, WaveSeeds}, {WaveSeeds + 4, WaveSeeds + 4},
	} {
		if got := waveSeedCount(tt.rows); got != tt.want {
			t.Errorf("rows over %d seeds: waves over %d, want %d", tt.rows, got, tt.want)
		}
	}
}

// subSecondRetryAfter reads an exact SDK wait a fraction of a second off
// the whole seconds as retry-after-ms, and leaves whole-second waits,
// a busy client's lateness on them included, to retry-after.
func TestSubSecondRetryAfter(t *testing.T) {
	sdk := func(s float64) analyze.FixedDelay {
		return analyze.FixedDelay{Layer: "sdk", Kind: "sdk retry delay", Delay: s, Times: 2}
	}
	requeue := analyze.FixedDelay{Layer: "job runner", Kind: "requeue delay", Delay: 10.006, Times: 1}
	for _, tc := range []struct {
		name     string
		suspects []analyze.FixedDelay
		header   int // retry-after measured so far, 0 when not
		wantMs   float64
		wantOK   bool
	}{
		{"2.5 s waits, no header", []analyze.FixedDelay{requeue, sdk(2.503)}, 0, 2503, true},
		{"2.5 s waits under a 3 s header", []analyze.FixedDelay{requeue, sdk(2.503)}, 3, 2503, true},
		{"whole seconds", []analyze.FixedDelay{requeue, sdk(2.0)}, 2, 0, false},
		{"whole seconds sent late", []analyze.FixedDelay{requeue, sdk(2.093)}, 2, 0, false},
		// A header of 5 s cannot have sent 2.5 s: the wait is something else.
		{"header far from the wait", []analyze.FixedDelay{requeue, sdk(2.503)}, 5, 0, false},
		{"no SDK term", []analyze.FixedDelay{requeue}, 0, 0, false},
		{"sub-second waits are a backoff", []analyze.FixedDelay{sdk(0.45)}, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &analyze.Result{Waves: analyze.Waves{Suspects: tc.suspects}}
			ms, ok := subSecondRetryAfter(res, simulate.SDKPolicy{RetryAfterS: tc.header})
			if ms != tc.wantMs || ok != tc.wantOK {
				t.Errorf("subSecondRetryAfter = %g, %v; want %g, %v", ms, ok, tc.wantMs, tc.wantOK)
			}
		})
	}
}
