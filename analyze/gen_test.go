package analyze

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/stampede/stampede/timeline"
)

// incident describes a synthetic throttling incident whose ground truth is
// known by construction: a batch of tasks hits a limiter, every failed call
// is requeued after a fixed delay, and each wave is a known fraction of the
// one before.
type incident struct {
	// sizes are the calls in each wave; pins the wave count and decay ratio.
	sizes []int
	// width spreads each first wave's call starts uniformly; later waves
	// inherit the spread through the per-task requeue. Pins Wave.Width.
	width time.Duration
	// requeue is the job runner's delay after a failed call; jitter, when
	// set, draws each requeue uniformly from requeue ± jitter. Pins the
	// requeue DelayStats and, jitter-free, the period.
	requeue, jitter time.Duration
	// attempts each call makes; retryAfter separates them (the server's
	// retry-after honoured exactly), attemptTime is each attempt's duration.
	// Period = requeue + (attempts-1)*retryAfter + attempts*attemptTime.
	attempts    int
	retryAfter  time.Duration
	attemptTime time.Duration
	// background is a Poisson rate of single-attempt batch calls per
	// second, unrelated to the waves.
	background float64
	// wholeSeconds truncates every timestamp to the second, as access logs
	// with $time_local do.
	wholeSeconds bool
	// wireOnly keeps only HTTP attempts with no call id, attempt number or
	// SDK log, so the detector must bin all attempts and sees the
	// retry-after comb inside each wave.
	wireOnly bool
	seed     uint64
}

func (in incident) period() time.Duration {
	return in.requeue + time.Duration(in.attempts-1)*in.retryAfter + time.Duration(in.attempts)*in.attemptTime
}

var genEpoch = time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC).UnixNano()

// build returns the timeline. Tasks that survive into wave q+1 are the first
// sizes[q+1] of wave q; of the others, one in two succeeds on its last
// attempt and the rest are abandoned, so both outcomes occur in every wave.
func (in incident) build() *timeline.Timeline {
	rng := rand.New(rand.NewPCG(in.seed, 7))
	tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "synthetic.log", Format: "synthetic"}}}
	trunc := func(t int64) int64 {
		if in.wholeSeconds {
			return t - t%int64(time.Second)
		}
		return t
	}
	lead := 20 * time.Second
	start := make([]int64, in.sizes[0])
	for i := range start {
		start[i] = genEpoch + int64(lead) + rng.Int64N(int64(in.width)+1)
	}
	line := int64(0)
	for q, size := range in.sizes {
		next := make([]int64, 0, size)
		for task := 0; task < size; task++ {
			t := start[task]
			continueTask := q+1 < len(in.sizes) && task < in.sizes[q+1]
			succeeds := !continueTask && task%2 == 0
			callID := fmt.Sprintf("call-%d-%d", task, q)
			taskID := fmt.Sprintf("task-%04d", task)
			callStart := t
			var end int64
			for a := 1; a <= in.attempts; a++ {
				end = t + int64(in.attemptTime)
				out := timeline.OutcomeThrottled
				ra := timeline.MillisOf(in.retryAfter)
				if a == in.attempts && succeeds {
					out, ra = timeline.OutcomeOK, timeline.NoRetryAfter
				}
				if ra == 0 {
					ra = timeline.NoRetryAfter
				}
				line++
				e := timeline.Event{Start: trunc(t), End: trunc(end), Layer: timeline.LayerHTTP, Outcome: out,
					Class: timeline.ClassBatch, Status: timeline.Small(statusOf(out)), Attempt: timeline.Small(a), TaskID: timeline.Intern(taskID), CallID: timeline.Intern(callID),
					RetryAfter: ra, Line: line}
				if in.wireOnly {
					e.Attempt, e.TaskID, e.CallID = 0, timeline.NoSym, timeline.NoSym
				}
				tl.Events = append(tl.Events, e)
				t = end + int64(in.retryAfter)
			}
			if !in.wireOnly {
				out := timeline.OutcomeThrottled
				if succeeds {
					out = timeline.OutcomeOK
				}
				line++
				tl.Events = append(tl.Events, timeline.Event{Start: trunc(callStart), End: trunc(end), Layer: timeline.LayerCall,
					Outcome: out, Class: timeline.ClassBatch, Attempts: timeline.Small(in.attempts), QueueAttempt: timeline.Small(q + 1),
					TaskID: timeline.Intern(taskID), CallID: timeline.Intern(callID), RetryAfter: timeline.NoRetryAfter, Line: line})
			}
			if continueTask {
				d := int64(in.requeue)
				if in.jitter > 0 {
					d += rng.Int64N(2*int64(in.jitter)+1) - int64(in.jitter)
				}
				next = append(next, end+d)
			}
		}
		start = next
	}
	if in.background > 0 {
		last := genEpoch
		for _, e := range tl.Events {
			last = max(last, e.Start)
		}
		last += int64(lead)
		for t, n := genEpoch, 0; ; n++ {
			t += int64(rng.ExpFloat64() / in.background * 1e9)
			if t > last {
				break
			}
			line++
			e := timeline.Event{Start: trunc(t), End: trunc(t + int64(in.attemptTime)), Layer: timeline.LayerHTTP,
				Outcome: timeline.OutcomeOK, Class: timeline.ClassBatch, Status: 200, Attempt: 1,
				TaskID: timeline.Intern(fmt.Sprintf("bg-%d", n)), CallID: timeline.Intern(fmt.Sprintf("bg-%d", n)), RetryAfter: timeline.NoRetryAfter, Line: line}
			if in.wireOnly {
				e.Attempt, e.TaskID, e.CallID = 0, timeline.NoSym, timeline.NoSym
			}
			tl.Events = append(tl.Events, e)
			if !in.wireOnly {
				e.Layer, e.Attempts, e.QueueAttempt, e.Attempt, e.Status = timeline.LayerCall, 1, 1, 0, 0
				line++
				e.Line = line
				tl.Events = append(tl.Events, e)
			}
		}
	}
	tl.Sources[0].Lines, tl.Sources[0].Parsed, tl.Sources[0].Events = line, line, line
	tl.Sort()
	return tl
}

func statusOf(o timeline.Outcome) int32 {
	if o == timeline.OutcomeOK {
		return 200
	}
	return 429
}

// geometric returns n wave sizes starting at first, each ratio of the last.
func geometric(first float64, ratio float64, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = int(first + 0.5)
		first *= ratio
	}
	return out
}

// poissonTraffic is aperiodic batch traffic: single-attempt calls at a
// constant Poisson rate, some throttled. Pins "no waves" on pure noise.
func poissonTraffic(rate float64, span time.Duration, seed uint64) *timeline.Timeline {
	rng := rand.New(rand.NewPCG(seed, 11))
	tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "poisson.log", Format: "synthetic"}}}
	for t, n := genEpoch, 0; t < genEpoch+int64(span); n++ {
		t += int64(rng.ExpFloat64() / rate * 1e9)
		out := timeline.OutcomeOK
		if rng.Float64() < 0.3 {
			out = timeline.OutcomeThrottled
		}
		tl.Events = append(tl.Events, timeline.Event{Start: t, End: t + 1e8, Layer: timeline.LayerHTTP, Outcome: out,
			Class: timeline.ClassBatch, Status: timeline.Small(statusOf(out)), Attempt: 1, TaskID: timeline.Intern(fmt.Sprintf("t%d", n)),
			CallID: timeline.Intern(fmt.Sprintf("c%d", n)), RetryAfter: timeline.NoRetryAfter, Line: int64(n + 1)})
	}
	tl.Sort()
	return tl
}
