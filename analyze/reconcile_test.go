package analyze

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stampede/stampede/timeline"
)

// ev is a terse constructor for hand-built timelines: start in seconds
// after genEpoch.
func ev(layer timeline.Layer, sec float64, out timeline.Outcome, class timeline.Class, task, call string, attempt int32) timeline.Event {
	start := genEpoch + int64(sec*1e9)
	return timeline.Event{Start: start, End: start + 1e8, Layer: layer, Outcome: out, Class: class, Status: timeline.Small(statusOf(out)),
		TaskID: timeline.Intern(task), CallID: timeline.Intern(call), Attempt: timeline.Small(attempt), RetryAfter: timeline.NoRetryAfter}
}

const (
	ok  = timeline.OutcomeOK
	thr = timeline.OutcomeThrottled
	bat = timeline.ClassBatch
	ia  = timeline.ClassInteractive
)

// callLog builds a call event as the SDK log reports it.
func callLog(sec float64, out timeline.Outcome, class timeline.Class, task, call string, attempts, queueAttempt int32) timeline.Event {
	e := ev(timeline.LayerCall, sec, out, class, task, call, 0)
	e.Attempts, e.QueueAttempt, e.Status = timeline.Small(attempts), timeline.Small(queueAttempt), 0
	return e
}

func build(events ...timeline.Event) *timeline.Timeline {
	tl := &timeline.Timeline{Events: events, Sources: []timeline.Source{{Path: "hand.log"}}}
	for i := range tl.Events {
		tl.Events[i].Line = int64(i + 1)
	}
	tl.Sort()
	return tl
}

// callIDTimeline: calls joined by amz-sdk-invocation-id with an SDK log.
// c1 recovers after two throttles, c2 fails after three, its task is
// requeued into c3, c4 is interactive, and one throttled attempt carries no
// key at all.
func callIDTimeline() *timeline.Timeline {
	h := timeline.LayerHTTP
	evs := []timeline.Event{
		ev(h, 0, thr, bat, "T1", "c1", 0), ev(h, 1, thr, bat, "T1", "c1", 0), ev(h, 2, ok, bat, "T1", "c1", 0),
		ev(h, 0.5, thr, bat, "T2", "c2", 0), ev(h, 1.5, thr, bat, "T2", "c2", 0), ev(h, 2.5, thr, bat, "T2", "c2", 0),
		ev(h, 62.5, ok, bat, "T2", "c3", 0),
		ev(h, 3, ok, ia, "", "c4", 0),
		ev(h, 4, thr, ia, "", "", 0),
		callLog(0, ok, bat, "T1", "c1", 3, 1), callLog(0.5, thr, bat, "T2", "c2", 3, 1),
		callLog(62.5, ok, bat, "T2", "c3", 1, 2), callLog(3, ok, ia, "", "c4", 1, 0),
	}
	for i := range evs {
		if evs[i].Layer == h && evs[i].CallID != timeline.NoSym {
			evs[i].MaxAttempts = 3
		}
	}
	return build(evs...)
}

// attemptNumberTimeline: no SDK log and no call id; calls are cut per task
// where attempt 1 starts (x-stainless-retry-count). One attempt has no key.
func attemptNumberTimeline() *timeline.Timeline {
	h := timeline.LayerHTTP
	return build(
		ev(h, 0, thr, bat, "T1", "", 1), ev(h, 1, ok, bat, "T1", "", 2),
		ev(h, 0.2, thr, bat, "T2", "", 1), ev(h, 1.2, thr, bat, "T2", "", 2),
		ev(h, 61.3, ok, bat, "T2", "", 1),
		ev(h, 5, ok, ia, "", "", 0),
	)
}

func TestReconcile(t *testing.T) {
	tests := []struct {
		name      string
		tl        *timeline.Timeline
		http      HTTPSide
		app       AppSide
		apc       float64
		recovered int64
		inFailed  int64
		unjoined  int64
		byRetry   int64
		// unjoinedAttempts is every attempt without a key, throttled or not.
		unjoinedAttempts int64
		method           string
		appSource        string
		warnSubstr       []string
	}{
		{
			name: "call id with SDK log", tl: callIDTimeline(),
			http: HTTPSide{Attempts: 9, OK: 3, Throttled: 6, ThrottleRate: 6.0 / 9},
			app:  AppSide{Calls: 4, Failed: 1, FailedThrottle: 1, ErrorRate: 0.25, Source: "sdk log"},
			apc:  2, recovered: 2, inFailed: 3, unjoined: 1, byRetry: 1, unjoinedAttempts: 1,
			method:     "partial: 88.9% of attempts by call id",
			appSource:  "sdk log",
			warnSubstr: []string{"11.1% of 9 HTTP attempts had no call id or attempt number"},
		},
		{
			name: "attempt numbers per task, no SDK log", tl: attemptNumberTimeline(),
			http: HTTPSide{Attempts: 6, OK: 3, Throttled: 3, ThrottleRate: 0.5},
			app:  AppSide{Calls: 3, Failed: 1, FailedThrottle: 1, ErrorRate: 1.0 / 3},
			apc:  5.0 / 3, recovered: 1, inFailed: 2, unjoined: 0, byRetry: 1, unjoinedAttempts: 1,
			method:     "partial: 0.0% of attempts by call id, 83.3% by attempt numbers per task",
			appSource:  "inferred",
			warnSubstr: []string{"16.7% of 6 HTTP attempts had no call id or attempt number", "no SDK call log"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Run(tc.tl, Options{})
			r := res.Reconcile
			if r.HTTP != tc.http {
				t.Errorf("HTTP = %+v, want %+v", r.HTTP, tc.http)
			}
			app := r.App
			app.Source = ""
			want := tc.app
			want.Source = ""
			if app != want {
				t.Errorf("App = %+v, want %+v", r.App, tc.app)
			}
			if !strings.HasPrefix(r.App.Source, tc.appSource) {
				t.Errorf("App.Source = %q, want prefix %q", r.App.Source, tc.appSource)
			}
			if !near(r.AttemptsPerCall, tc.apc) {
				t.Errorf("AttemptsPerCall = %v, want %v", r.AttemptsPerCall, tc.apc)
			}
			if r.ThrottledRecovered != tc.recovered || r.ThrottledInFailedCalls != tc.inFailed || r.ThrottledUnjoined != tc.unjoined {
				t.Errorf("split = %d/%d/%d, want %d/%d/%d", r.ThrottledRecovered, r.ThrottledInFailedCalls, r.ThrottledUnjoined,
					tc.recovered, tc.inFailed, tc.unjoined)
			}
			if sum := r.ThrottledRecovered + r.ThrottledInFailedCalls + r.ThrottledUnjoined; sum != r.HTTP.Throttled {
				t.Errorf("throttled split sums to %d, want %d", sum, r.HTTP.Throttled)
			}
			if r.AttemptsJoined != r.HTTP.Attempts-tc.unjoinedAttempts {
				t.Errorf("AttemptsJoined = %d, want %d", r.AttemptsJoined, r.HTTP.Attempts-tc.unjoinedAttempts)
			}
			if r.CallsRecoveredByRetry != tc.byRetry {
				t.Errorf("CallsRecoveredByRetry = %d, want %d", r.CallsRecoveredByRetry, tc.byRetry)
			}
			if !strings.HasPrefix(r.Method, tc.method) {
				t.Errorf("Method = %q, want prefix %q", r.Method, tc.method)
			}
			for _, w := range tc.warnSubstr {
				if !containsSubstr(res.Warnings, w) {
					t.Errorf("no warning containing %q in %q", w, res.Warnings)
				}
			}
			if len(r.Explanation) == 0 {
				t.Error("no explanation")
			}
			for _, s := range r.Explanation {
				t.Log(s)
			}
		})
	}
}

func TestReconcileExplanationWording(t *testing.T) {
	tests := []struct {
		name string
		r    Reconciliation
		want []string
	}{
		{
			name: "exact",
			r: Reconciliation{
				HTTP:               HTTPSide{Attempts: 33952, Throttled: 10593, ThrottleRate: 10593.0 / 33952},
				App:                AppSide{Calls: 12040, Failed: 494, ErrorRate: 494.0 / 12040},
				AttemptsPerCall:    2.82,
				ThrottledRecovered: 9114, ThrottledInFailedCalls: 1479,
			},
			want: []string{
				"31.2% of 33,952 HTTP attempts were throttled (10,593), but only 4.1% of 12,040 calls failed (494): each call made 2.82 attempts on average, and 9,114 throttled attempts were retried into a success.",
				"Of the 10,593 throttled attempts, 9,114 were followed by a successful retry of the same call and 1,479 belonged to calls that failed.",
			},
		},
		{
			// botocore's standard debug log alone: the last attempt at the
			// limit may have been a success or a throttle. The ranges
			// overlap, so neither rate is said to be the lower.
			name: "unknown outcomes make ranges",
			r: Reconciliation{
				HTTP:               HTTPSide{Attempts: 1153, Throttled: 931, Unknown: 37, ThrottleRate: 931.0 / 1153, ThrottleRateMax: 968.0 / 1153},
				App:                AppSide{Calls: 963, Failed: 741, Unknown: 37, ErrorRate: 741.0 / 963, ErrorRateMax: 778.0 / 963},
				AttemptsPerCall:    1.2,
				ThrottledRecovered: 7, ThrottledInFailedCalls: 850, ThrottledInUnknownCalls: 74,
			},
			want: []string{
				"80.7% to 84.0% of 1,153 HTTP attempts were throttled (931, and up to 37 more attempts of unknown outcome), and 76.9% to 80.8% of 963 calls failed (741, and up to 37 more calls of unknown outcome): each call made 1.20 attempts on average, and 7 throttled attempts were retried into a success (up to 74 more in the calls of unknown outcome).",
				"Of the 931 throttled attempts, 7 were followed by a successful retry of the same call, 850 belonged to calls that failed and 74 belonged to calls whose outcome the log does not show.",
			},
		},
		{
			// Ranges apart still differ.
			name: "ranges apart",
			r: Reconciliation{
				HTTP:            HTTPSide{Attempts: 100, Throttled: 80, Unknown: 2, ThrottleRate: 0.8, ThrottleRateMax: 0.82},
				App:             AppSide{Calls: 50, Failed: 10, Unknown: 2, ErrorRate: 0.2, ErrorRateMax: 0.24},
				AttemptsPerCall: 2,
			},
			want: []string{
				"80.0% to 82.0% of 100 HTTP attempts were throttled (80, and up to 2 more attempts of unknown outcome), but only 20.0% to 24.0% of 50 calls failed (10, and up to 2 more calls of unknown outcome): each call made 2.00 attempts on average, and 0 throttled attempts were retried into a success.",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := explainReconcile(&tc.r)
			for i, want := range tc.want {
				if i >= len(got) || got[i] != want {
					t.Errorf("sentence %d:\ngot  %q\nwant %q", i, got, want)
				}
			}
		})
	}
}

// TestThrottledSplitInvariant: whatever the join keys, every throttled
// attempt lands in exactly one of recovered, in failed calls, in calls of
// unknown outcome, unjoined.
func TestThrottledSplitInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	outcomes := []timeline.Outcome{ok, thr, thr, timeline.OutcomeRetryable, timeline.OutcomeNonRetryable, timeline.OutcomeUnknown}
	for iter := 0; iter < 200; iter++ {
		var evs []timeline.Event
		for i := 0; i < 1+rng.IntN(60); i++ {
			task, call := "", ""
			if rng.IntN(3) > 0 {
				task = string(rune('A' + rng.IntN(5)))
			}
			if rng.IntN(2) == 0 {
				call = string(rune('a' + rng.IntN(8)))
			}
			evs = append(evs, ev(timeline.LayerHTTP, rng.Float64()*100, outcomes[rng.IntN(len(outcomes))], bat, task, call, int32(rng.IntN(4))))
		}
		if rng.IntN(2) == 0 {
			evs = append(evs, callLog(rng.Float64()*100, outcomes[rng.IntN(len(outcomes))], bat, "A", "a", int32(rng.IntN(4)), 1))
		}
		r := Reconcile(build(evs...))
		if sum := r.ThrottledRecovered + r.ThrottledInFailedCalls + r.ThrottledInUnknownCalls + r.ThrottledUnjoined; sum != r.HTTP.Throttled {
			t.Fatalf("iteration %d: split %d+%d+%d+%d != %d throttled", iter, r.ThrottledRecovered, r.ThrottledInFailedCalls, r.ThrottledInUnknownCalls, r.ThrottledUnjoined, r.HTTP.Throttled)
		}
		if r.HTTP.OK+r.HTTP.Throttled+r.HTTP.Retryable+r.HTTP.NonRetryable+r.HTTP.Unknown != r.HTTP.Attempts {
			t.Fatalf("iteration %d: outcomes do not sum to attempts: %+v", iter, r.HTTP)
		}
		// The rates' ranges hold what the unknown outcomes could be.
		if h := r.HTTP; h.Unknown > 0 && !near(h.ThrottleRateMax, float64(h.Throttled+h.Unknown)/float64(h.Attempts)) {
			t.Fatalf("iteration %d: throttle rate range %v to %v for %+v", iter, h.ThrottleRate, h.ThrottleRateMax, h)
		}
		if a := r.App; a.Failed+a.Unknown > a.Calls || (a.Unknown > 0 && a.ErrorRateMax < a.ErrorRate) {
			t.Fatalf("iteration %d: app side %+v", iter, a)
		}
	}
}

func containsSubstr(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestAttemptNumbersOrderCalls pins the join on logs stamped to the whole
// second: a throttled attempt that ended just before a second boundary can
// appear to start after the fast retry that followed it. The wire's attempt
// numbers, not the estimated starts, say which attempt came last.
func TestAttemptNumbersOrderCalls(t *testing.T) {
	h := timeline.LayerHTTP
	first := ev(h, 1.999, thr, bat, "T1", "c1", 1)
	retry := ev(h, 1.801, ok, bat, "T1", "c1", 2)
	r := Reconcile(build(first, retry))
	if r.ThrottledRecovered != 1 || r.ThrottledInFailedCalls != 0 || r.CallsRecoveredByRetry != 1 {
		t.Errorf("recovered %d, in failed calls %d, calls recovered %d; want 1, 0, 1",
			r.ThrottledRecovered, r.ThrottledInFailedCalls, r.CallsRecoveredByRetry)
	}
	if r.App.Failed != 0 {
		t.Errorf("inferred %d failed calls, want 0: the call's last attempt succeeded", r.App.Failed)
	}
}

// TestFlippedAttemptsJoinByTask pins the join by task and attempt number on
// stamps to the whole second, where a start is the stamp less the
// request's time: two attempts ending within one second can read in
// either order, and the attempt numbers say which call each belongs to.
func TestFlippedAttemptsJoinByTask(t *testing.T) {
	// stamped is an attempt of task T1 logged at a whole second, having
	// taken rt seconds.
	stamped := func(stamp, rt float64, out timeline.Outcome, attempt int32) timeline.Event {
		e := ev(timeline.LayerHTTP, stamp-rt, out, bat, "T1", "", attempt)
		e.End = genEpoch + int64(stamp*1e9)
		return e
	}
	failedCall := []timeline.Event{stamped(10, 0.001, thr, 1), stamped(11, 0.001, thr, 2), stamped(12, 0.001, thr, 3)}
	tests := []struct {
		name                               string
		events                             []timeline.Event
		recovered, inFailed, calls, failed int64
	}{
		{name: "a fast success read before the throttle it retried",
			events:    append(slices.Clone(failedCall), stamped(20, 0.001, thr, 1), stamped(20, 0.2, ok, 2)),
			recovered: 1, inFailed: 3, calls: 2, failed: 1},
		{name: "a call's last retry read after the next call's first attempt",
			events:    append([]timeline.Event{stamped(10, 0.001, thr, 1), stamped(11, 0.001, thr, 2), stamped(12, 0.001, thr, 3)}, stamped(12, 0.3, ok, 1)),
			recovered: 0, inFailed: 3, calls: 2, failed: 1},
		{name: "a retry read after its own call's next retry, stamped in one second",
			events:    append(slices.Clone(failedCall), stamped(19, 0, thr, 1), stamped(20, 0.001, thr, 3), stamped(20, 0, thr, 2)),
			recovered: 0, inFailed: 6, calls: 2, failed: 2},
		{name: "in order",
			events:    append(slices.Clone(failedCall), stamped(20, 0.001, thr, 1), stamped(21, 0.2, ok, 2)),
			recovered: 1, inFailed: 3, calls: 2, failed: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Reconcile(build(tc.events...))
			if r.ThrottledRecovered != tc.recovered || r.ThrottledInFailedCalls != tc.inFailed || r.App.Calls != tc.calls || r.App.Failed != tc.failed {
				t.Errorf("recovered %d, in failed calls %d, calls %d, failed %d; want %d, %d, %d, %d",
					r.ThrottledRecovered, r.ThrottledInFailedCalls, r.App.Calls, r.App.Failed, tc.recovered, tc.inFailed, tc.calls, tc.failed)
			}
		})
	}
}

// TestCallsJoinByRequestID: an SDK log with no call id on the wire still
// joins to its attempts through the request id of the call's last attempt.
func TestCallsJoinByRequestID(t *testing.T) {
	h := timeline.LayerHTTP
	a1 := ev(h, 0, thr, bat, "T1", "", 1)
	a2 := ev(h, 12, ok, bat, "T1", "", 2)
	a1.RequestID, a2.RequestID = timeline.Intern("req_1"), timeline.Intern("req_2")
	call := callLog(0, ok, bat, "T1", "", 0, 1)
	call.RequestID = timeline.Intern("req_2")
	j := buildJoins(build(a1, a2, call))
	if len(j.calls) != 1 || j.calls[0].group < 0 {
		t.Fatalf("call not joined to its attempts: %+v", j.calls)
	}
	if got := j.calls[0].attempts; got != 2 {
		t.Errorf("call has %d attempts, want the 2 of its group", got)
	}
}
