package analyze

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/stampede/stampede/timeline"
)

// attemptsAt builds joins over HTTP attempts at the given seconds, of the
// given classes and outcomes (one each, or all alike when one is given).
func attemptsAt(secs []float64, classes []timeline.Class, outs []timeline.Outcome) *joins {
	evs := make([]timeline.Event, len(secs))
	for k, s := range secs {
		evs[k] = ev(timeline.LayerHTTP, s, outs[min(k, len(outs)-1)], classes[min(k, len(classes)-1)], "", "", 0)
	}
	return buildJoins(build(evs...))
}

// TestAttemptStarts checks the attempt starts read in place against the
// sorted copy the comb search used to make: the same starts, ends and
// counts between two times.
func TestAttemptStarts(t *testing.T) {
	full := [2]float64{math.Inf(-1), math.Inf(1)}
	for _, tc := range []struct {
		name    string
		secs    []float64
		classes []timeline.Class
		window  [2]float64
	}{
		{"no class known: every attempt", []float64{3, 1, 2, 2, 5}, []timeline.Class{timeline.ClassUnknown}, full},
		{"batch among interactive", []float64{0, 0.5, 1, 1, 2, 3.5, 4, 9}, []timeline.Class{bat, ia, ia, bat, bat, ia, bat, ia}, full},
		{"window cuts both ends", []float64{0, 1, 2, 3, 4, 5, 6}, []timeline.Class{bat}, [2]float64{1, 5}},
		{"window ends on equal starts", []float64{1, 2, 2, 2, 3}, []timeline.Class{bat}, [2]float64{2, 2}},
		{"batch only at the ends", []float64{0, 1, 2, 3}, []timeline.Class{bat, ia, ia, bat}, full},
		{"one batch attempt", []float64{0, 1, 2}, []timeline.Class{ia, bat, ia}, full},
		{"none in the window", []float64{0, 1, 2}, []timeline.Class{bat}, [2]float64{1.2, 1.8}},
		{"no attempts", nil, []timeline.Class{bat}, full},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := attemptsAt(tc.secs, tc.classes, []timeline.Outcome{ok})
			window := [2]int64{math.MinInt64, math.MaxInt64}
			if !math.IsInf(tc.window[0], -1) {
				window = [2]int64{genEpoch + int64(tc.window[0]*1e9), genEpoch + int64(tc.window[1]*1e9)}
			}
			batch := hasClass(j, bat)
			var want []int64
			for _, i := range j.http {
				if e := &j.tl.Events[i]; (!batch || e.Class == bat) && e.Start >= window[0] && e.Start <= window[1] {
					want = append(want, e.Start)
				}
			}
			a, name := attemptStartsIn(j, window)
			if wantName := map[bool]string{true: "batch attempts", false: "all attempts"}[batch]; name != wantName {
				t.Errorf("name %q, want %q", name, wantName)
			}
			if got := slices.Collect(a.all()); !slices.Equal(got, want) {
				t.Errorf("starts %v, want %v", got, want)
			}
			first, last, two := a.ends()
			if two != (len(want) >= 2) || (two && (first != want[0] || last != want[len(want)-1])) {
				t.Errorf("ends %d, %d, %v; want %v", first, last, two, want)
			}
			if two && !slices.Equal(binTimes(first, last, 3e8, a.all()).counts, binSeries(want, 3e8).counts) {
				t.Errorf("bins differ from the copy's")
			}
			for from := -1.0; from <= 10; from += 0.25 {
				for to := from; to <= 10; to += 0.5 {
					lo, hi := genEpoch+int64(from*1e9), genEpoch+int64(to*1e9)
					if got, want := a.count(lo, hi), countIn(want)(lo, hi); got != want {
						t.Errorf("count [%v, %v) = %d, want %d", from, to, got, want)
					}
				}
			}
		})
	}
}

// TestAfterThrottle checks the search for what follows a throttle against
// the sorted copies of the ok and throttled starts bucketTimes used to
// make, over searches in time order, out of it, and repeated.
func TestAfterThrottle(t *testing.T) {
	const retryable = timeline.OutcomeRetryable
	for _, tc := range []struct {
		name string
		secs []float64
		outs []timeline.Outcome
	}{
		{"ok after each throttle", []float64{0, 1, 2, 3, 4, 5}, []timeline.Outcome{thr, ok, thr, ok, thr, ok}},
		{"a long refusal", []float64{0, 1, 2, 3, 4, 5, 6, 7}, []timeline.Outcome{ok, thr, thr, thr, thr, thr, thr, ok}},
		{"errors between the throttle and the ok", []float64{0, 1, 2, 3, 4}, []timeline.Outcome{thr, retryable, retryable, ok, thr}},
		{"equal starts", []float64{1, 1, 1, 2, 2, 2}, []timeline.Outcome{thr, ok, thr, thr, ok, thr}},
		{"no ok at all", []float64{0, 1, 2}, []timeline.Outcome{thr}},
		{"no throttle at all", []float64{0, 1, 2}, []timeline.Outcome{ok}},
		{"no attempts", nil, []timeline.Outcome{ok}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := attemptsAt(tc.secs, []timeline.Class{bat}, tc.outs)
			var oks, thrs []int64
			for _, i := range j.http {
				switch e := &j.tl.Events[i]; e.Outcome {
				case ok:
					oks = append(oks, e.Start)
				case thr:
					thrs = append(thrs, e.Start)
				}
			}
			// What bucketTimes computed from the copies.
			wantNext := func(after int64) (int64, bool) {
				k := sort.Search(len(oks), func(i int) bool { return oks[i] > after })
				if k == len(oks) {
					return 0, false
				}
				return oks[k], true
			}
			wantRefused := func(from, to int64) int64 {
				k := sort.Search(len(thrs), func(i int) bool { return thrs[i] >= to })
				if k == 0 || thrs[k-1] <= from {
					return 0
				}
				return thrs[k-1] - from
			}
			var queries []float64
			for s := -1.0; s <= 9; s += 0.5 {
				queries = append(queries, s)
			}
			// Back in time and again, as a search outside the last
			// stretch, or within it, would be.
			queries = append(queries, 3, 0, 0, 5.5, 1, 1, 8, -1)
			a := newAfterThrottle(j)
			for _, s := range queries {
				after := genEpoch + int64(s*1e9)
				got, found := a.nextOK(after)
				want, wantFound := wantNext(after)
				if got != want || found != wantFound {
					t.Fatalf("nextOK(%v) = %d, %v; want %d, %v", s, got, found, want, wantFound)
				}
				for to := s; to <= 9; to += 0.5 {
					until := genEpoch + int64(to*1e9)
					if got, want := a.refusedFor(after, until), wantRefused(after, until); got != want {
						t.Errorf("refusedFor(%v, %v) = %d, want %d", s, to, got, want)
					}
				}
			}
		})
	}
}

// TestFitted checks that fitted keeps a slice's values and gives up
// capacity only where much of it is unused.
func TestFitted(t *testing.T) {
	for _, tc := range []struct {
		len, cap int
		shrunk   bool
	}{
		{0, 0, false},
		{0, 100, true},
		{10, 100, true},
		{87, 100, true},
		{88, 100, false},
		{100, 100, false},
	} {
		s := make([]int32, tc.len, tc.cap)
		for i := range s {
			s[i] = int32(3*i + 1)
		}
		want := slices.Clone(s)
		got := fitted(s)
		if !slices.Equal(got, want) {
			t.Errorf("len %d cap %d: values %v, want %v", tc.len, tc.cap, got, want)
		}
		if shrunk := cap(got) != tc.cap; shrunk != tc.shrunk || (shrunk && cap(got) != tc.len) {
			t.Errorf("len %d cap %d: cap %d after", tc.len, tc.cap, cap(got))
		}
	}
}

// TestHistogramPercentile checks quantiles read from a histogram against
// percentileSorted of the values it counts.
func TestHistogramPercentile(t *testing.T) {
	for _, hist := range [][]Bucket{
		{{Value: 3, Units: 1}},
		{{Value: 1, Units: 2}, {Value: 3, Units: 1}},
		{{Value: 1, Units: 1006}, {Value: 2, Units: 298}, {Value: 3, Units: 12455}},
		{{Value: 1, Units: 5}, {Value: 2, Units: 1}, {Value: 7, Units: 3}, {Value: 40, Units: 1}},
	} {
		var sorted []float64
		for _, b := range hist {
			for range b.Units {
				sorted = append(sorted, float64(b.Value))
			}
		}
		for _, p := range []float64{-1, 0, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1, 2} {
			if got, want := histogramPercentile(hist, len(sorted), p), percentileSorted(sorted, p); got != want {
				t.Errorf("%v, p %v: %v, want %v", hist, p, got, want)
			}
		}
	}
}

// TestQueueAttemptsNumbered checks that logged queue attempt numbers still
// give queue attempts held as they were gathered: every call with a task
// in one of them.
func TestQueueAttemptsNumbered(t *testing.T) {
	j := buildJoins(callIDTimeline())
	if !j.queueExact || len(j.queueCalls) != 0 || j.queueAttemptCount() != len(j.queueAttempts) {
		t.Fatalf("exact %v: %d queue attempts held, %d calls named", j.queueExact, len(j.queueAttempts), len(j.queueCalls))
	}
	var calls, inQueue int32
	for ci := range j.calls {
		if j.calls[ci].task != timeline.NoSym {
			calls++
		}
	}
	for qi := range j.queueAttemptCount() {
		if qa := j.queueAttempt(int32(qi)); qa != j.queueAttempts[qi] {
			t.Errorf("queue attempt %d read as %+v, held as %+v", qi, qa, j.queueAttempts[qi])
		}
		inQueue += j.queueAttempt(int32(qi)).calls
	}
	if inQueue != calls {
		t.Errorf("%d calls in the queue attempts, want %d", inQueue, calls)
	}
}

// TestQueueAttemptsFromCalls checks the queue attempts made from their
// calls when read, where the logs carry no queue attempt numbers, against
// those the joins held before: one per call with a task, in call order.
func TestQueueAttemptsFromCalls(t *testing.T) {
	h := timeline.LayerHTTP
	for _, tc := range []struct {
		name string
		tl   *timeline.Timeline
	}{
		{"attempt numbers per task", attemptNumberTimeline()},
		{"calls before 1970", build(ev(h, -2e9, thr, bat, "T1", "", 1), ev(h, -2e9+1, ok, bat, "T1", "", 2), ev(h, -2e9+5, thr, bat, "T1", "", 1), ev(h, -2e9+6, thr, bat, "", "", 1))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := buildJoins(tc.tl)
			if j.queueExact {
				t.Fatal("queue attempt numbers where none were logged")
			}
			var want []queueAttemptUnit
			for ci := range j.calls {
				c := &j.calls[ci]
				if c.task == timeline.NoSym {
					continue
				}
				// As buildQueue made them.
				qa := queueAttemptUnit{start: c.start, calls: 1}
				if c.end >= 0 {
					qa.end, qa.failed = c.end, c.failed()
				}
				want = append(want, qa)
			}
			if j.queueAttemptCount() != len(want) || len(want) == 0 || len(j.queueAttempts) != 0 {
				t.Fatalf("%d queue attempts, want %d", j.queueAttemptCount(), len(want))
			}
			for qi, w := range want {
				if got := j.queueAttempt(int32(qi)); got != w {
					t.Errorf("queue attempt %d: %+v, want %+v", qi, got, w)
				}
			}
		})
	}
}

// TestGroupsPastTheirEstimate checks the joins where more attempts open a
// group than the attempts numbered 1 that size the groups: the groups grow
// and are all kept, in order.
func TestGroupsPastTheirEstimate(t *testing.T) {
	h := timeline.LayerHTTP
	for _, tc := range []struct {
		name  string
		evs   []timeline.Event
		sizes []int32 // attempts per group, in order
	}{
		{"a retry number again opens a call", []timeline.Event{ev(h, 0, thr, bat, "T1", "", 2), ev(h, 1, thr, bat, "T1", "", 3), ev(h, 2, ok, bat, "T1", "", 2), ev(h, 3, ok, bat, "T2", "", 5)}, []int32{2, 1, 1}},
		{"thousands of calls, none numbered 1", func() []timeline.Event {
			var evs []timeline.Event
			for k := range 3000 {
				evs = append(evs, ev(h, float64(k), thr, bat, fmt.Sprintf("T%d", k), "", 2), ev(h, float64(k)+0.5, ok, bat, fmt.Sprintf("T%d", k), "", 3))
			}
			return evs
		}(), slices.Repeat([]int32{2}, 3000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := build(tc.evs...)
			j := joinAll(tl, countEvents(tl))
			var sizes []int32
			for g := range j.groups {
				sizes = append(sizes, j.groups[g].n)
				if first := &j.tl.Events[j.groups[g].first]; first.TaskID != j.groups[g].task {
					t.Errorf("group %d: task %v, its first attempt's %v", g, j.groups[g].task, first.TaskID)
				}
			}
			if !slices.Equal(sizes, tc.sizes) {
				t.Errorf("groups of %v attempts, want %v", sizes, tc.sizes)
			}
			if cap(j.groups) != len(j.groups) {
				t.Errorf("%d groups held in %d", len(j.groups), cap(j.groups))
			}
		})
	}
}
