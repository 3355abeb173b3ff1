package analyze

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/stampede/stampede/ingest"
	"github.com/stampede/stampede/timeline"
)

// readTimeline reads logs into one classed, sorted timeline, as a run does.
func readTimeline(t *testing.T, paths ...string) *timeline.Timeline {
	t.Helper()
	tl := &timeline.Timeline{}
	for _, p := range paths {
		one, err := ingest.ReadFile(p, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tl.Append(one)
	}
	tl.Sort()
	timeline.ApplyClassRules(tl, timeline.DefaultClassRules, false)
	timeline.ResolveClasses(tl)
	return tl
}

// TestAccumulatorsMergeAsOne: an accumulator's state is the same whether
// the events come in one stretch or in many merged in time order, on real
// logs, so that every core, and states computed elsewhere, give the one
// answer.
func TestAccumulatorsMergeAsOne(t *testing.T) {
	inputs := []struct {
		name  string
		paths []string
	}{
		{"bundled incident", []string{"../testdata/seed-incident/access.log", "../testdata/seed-incident/calls.jsonl"}},
		{"openai-node behind nginx, with its SDK log", []string{"../testdata/recorded/openai-ra2-fixed10/access.log.gz", "../testdata/recorded/openai-ra2-fixed10/sdk_debug.log.gz"}},
		{"botocore, whole-second stamps", []string{"../testdata/recorded/boto-legacy-fixed10/access.log.gz"}},
	}
	for _, in := range inputs {
		tl := readTimeline(t, in.paths...)
		one := accumulateIn(tl, func() *eventCounts { return newEventCounts(tl) }, 1)
		w := one.window()
		series := accumulateIn(tl, func() *seriesCounts { return newSeriesCounts(w) }, 1).finalize()
		counted := one.observers(tl)
		table, bound := clientsIn(tl, counted, 1)
		j := joinAll(tl, countEvents(tl))
		// The joins drop the event-to-group index once they have tallied;
		// the chains of the groups give it back.
		j.groupOf = slices.Repeat([]int32{-1}, len(tl.Events))
		for g := range j.groups {
			for i := range j.chain(j.groups[g].first) {
				j.groupOf[i] = int32(g)
			}
		}
		tally := tallyAttemptsIn(j, 1)
		if !reflect.DeepEqual(tally, j.tally) {
			t.Errorf("%s: the joins' tally differs from one over the rebuilt index", in.name)
		}
		if tally.attempts == 0 || tally.throttledRecovered+tally.throttledInFailed+tally.throttledInUnknown == 0 {
			t.Fatalf("%s: no attempts tallied", in.name)
		}
		if len(series.Rate) == 0 || one.bestRank(tl) < 0 {
			t.Fatalf("%s: nothing accumulated", in.name)
		}
		for _, stretches := range []int{2, 3, 7, 64, 1000} {
			many := accumulateIn(tl, func() *eventCounts { return newEventCounts(tl) }, stretches)
			if !reflect.DeepEqual(one, many) {
				t.Errorf("%s, %d stretches: event counts differ", in.name, stretches)
			}
			if got := tallyAttemptsIn(j, stretches); !reflect.DeepEqual(tally, got) {
				t.Errorf("%s, %d stretches: attempt tallies differ", in.name, stretches)
			}
			got := accumulateIn(tl, func() *seriesCounts { return newSeriesCounts(w) }, stretches).finalize()
			if !reflect.DeepEqual(series, got) {
				t.Errorf("%s, %d stretches: series differ", in.name, stretches)
			}
			gotTable, gotBound := clientsIn(tl, counted, stretches)
			if !reflect.DeepEqual(table, gotTable) || bound != gotBound {
				t.Errorf("%s, %d stretches: clients differ", in.name, stretches)
			}
		}
	}
}

// TestEventCounts checks the counts against hand-counted events: the
// window, and the HTTP side from the best observer only.
func TestEventCounts(t *testing.T) {
	thr, ok := timeline.OutcomeThrottled, timeline.OutcomeOK
	sources := []timeline.Source{{Path: "access.log", Observer: timeline.ObserverProxy}, {Path: "sdk.log", Observer: timeline.ObserverSDK}}
	ev := func(s float64, src int32, l timeline.Layer, o timeline.Outcome, c timeline.Class) timeline.Event {
		return timeline.Event{Start: int64(s * 1e9), End: int64((s + 0.5) * 1e9), Source: src, Layer: l, Outcome: o, Class: c}
	}
	tests := []struct {
		name          string
		events        []timeline.Event
		window        [2]float64
		all, batch    HTTPSide
		counted       []bool
		wantNoWindow  bool
		wantBestRank  int
		interactiveOK int64
	}{
		{name: "no events", wantNoWindow: true, counted: []bool{false, false}, wantBestRank: -1},
		{name: "the proxy's attempts count, the SDK's repeat them",
			events: []timeline.Event{
				ev(1, 0, timeline.LayerHTTP, thr, timeline.ClassBatch), ev(1.1, 1, timeline.LayerHTTP, thr, timeline.ClassBatch),
				ev(2, 0, timeline.LayerHTTP, ok, timeline.ClassBatch), ev(3, 0, timeline.LayerHTTP, ok, timeline.ClassInteractive),
				ev(9, 1, timeline.LayerCall, ok, timeline.ClassBatch),
			},
			window:        [2]float64{1, 9.5},
			all:           HTTPSide{Attempts: 3, OK: 2, Throttled: 1, ThrottleRate: 1.0 / 3},
			batch:         HTTPSide{Attempts: 2, OK: 1, Throttled: 1, ThrottleRate: 0.5},
			counted:       []bool{true, false},
			wantBestRank:  timeline.ObserverProxy.Rank(),
			interactiveOK: 1},
		{name: "the SDK's attempts alone",
			events:       []timeline.Event{ev(4, 1, timeline.LayerHTTP, thr, timeline.ClassBatch)},
			window:       [2]float64{4, 4.5},
			all:          HTTPSide{Attempts: 1, Throttled: 1, ThrottleRate: 1},
			batch:        HTTPSide{Attempts: 1, Throttled: 1, ThrottleRate: 1},
			counted:      []bool{false, true},
			wantBestRank: timeline.ObserverSDK.Rank()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &timeline.Timeline{Sources: sources, Events: tt.events}
			c := countEvents(tl)
			w := c.window()
			if tt.wantNoWindow != w.Start.IsZero() {
				t.Fatalf("window %+v", w)
			}
			if !tt.wantNoWindow && (w.Start.UnixNano() != int64(tt.window[0]*1e9) || w.End.UnixNano() != int64(tt.window[1]*1e9)) {
				t.Errorf("window %v to %v, want %g to %g s", w.Start, w.End, tt.window[0], tt.window[1])
			}
			if got := c.httpSide(tl, timeline.ClassUnknown, true); got != tt.all {
				t.Errorf("all: %+v, want %+v", got, tt.all)
			}
			if got := c.httpSide(tl, timeline.ClassBatch, false); got != tt.batch {
				t.Errorf("batch: %+v, want %+v", got, tt.batch)
			}
			if got := c.httpSide(tl, timeline.ClassInteractive, false); got.OK != tt.interactiveOK {
				t.Errorf("interactive: %+v, want %d ok", got, tt.interactiveOK)
			}
			if got := c.observers(tl); !reflect.DeepEqual(got, tt.counted) {
				t.Errorf("counted sources %v, want %v", got, tt.counted)
			}
			if got := c.bestRank(tl); got != tt.wantBestRank {
				t.Errorf("best rank %d, want %d", got, tt.wantBestRank)
			}
		})
	}
}

// clientsIn is the clients table accumulated over the given stretches.
func clientsIn(tl *timeline.Timeline, counted []bool, stretches int) ([]Client, TableBound) {
	order := accumulateIn(tl, func() *clientOrder { return newClientOrder(counted) }, stretches).order
	return accumulateIn(tl, func() *clientCounts { return newClientCounts(counted, order) }, stretches).finalize(order)
}

// TestClientsMergePastTheBound: with more clients than are counted apart,
// which ones are, and how many User-Agents the "other" row takes in, do
// not depend on where the stretches split, even when a client a later
// stretch counted apart turns out to be past the bound.
func TestClientsMergePastTheBound(t *testing.T) {
	src := []timeline.Source{{Path: "access.log", Observer: timeline.ObserverProxy}}
	tests := []struct {
		name    string
		clients int // distinct products, each on two lines far apart
	}{
		{"under the bound", maxClientRows / 2},
		{"at the bound", maxClientRows},
		{"past it", 3 * maxClientRows},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &timeline.Timeline{Sources: src}
			for round := range 2 {
				for i := range tt.clients {
					// The second round names them backwards: a stretch
					// over it alone sees the last clients first.
					k := i
					if round == 1 {
						k = tt.clients - 1 - i
					}
					ua := timeline.Intern(fmt.Sprintf("probe-%d/1.0", k))
					tl.Events = append(tl.Events, timeline.Event{Start: int64(len(tl.Events)) * 1e6, Layer: timeline.LayerHTTP,
						Outcome: timeline.OutcomeThrottled, Client: ua, Status: 429})
				}
			}
			counted := []bool{true}
			want, wantBound := clientsIn(tl, counted, 1)
			if n := tt.clients; n > maxClientRows && (wantBound.Uncounted != int64(n-maxClientRows)) {
				t.Fatalf("one stretch: %d User-Agents in other, want %d", wantBound.Uncounted, n-maxClientRows)
			}
			var attempts int64
			for _, c := range want {
				attempts += c.Attempts
			}
			if attempts != int64(len(tl.Events)) {
				t.Fatalf("the rows hold %d attempts, want %d", attempts, len(tl.Events))
			}
			for _, stretches := range []int{2, 3, 5, 16} {
				got, gotBound := clientsIn(tl, counted, stretches)
				if !reflect.DeepEqual(want, got) || wantBound != gotBound {
					t.Errorf("%d stretches: %d rows %+v, want %d rows %+v", stretches, len(got), gotBound, len(want), wantBound)
				}
			}
		})
	}
}
