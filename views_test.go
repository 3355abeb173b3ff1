package stampede

import (
	"fmt"
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
)

// twoViews builds two proxy inputs in different formats: n requests in the
// first, and in the second the first `shared` of them again (stamped as a
// combined log would: whole seconds, no end) plus `own` requests of its own.
func twoViews(n, shared, own int) *timeline.Timeline {
	tl := &timeline.Timeline{Sources: []timeline.Source{
		{Path: "access.log", Format: "nginx:retry", Observer: timeline.ObserverProxy},
		{Path: "access_combined.log", Format: "nginx:combined", Observer: timeline.ObserverProxy},
	}}
	base := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC).UnixNano()
	for i := range n {
		end := base + int64(i)*int64(97*time.Millisecond)
		status := int32(200)
		if i%3 == 0 {
			status = 429
		}
		tl.Events = append(tl.Events, timeline.Event{
			Start: end - int64(40*time.Millisecond), End: end, Layer: timeline.LayerHTTP, Status: timeline.Small(status),
			Route: timeline.Intern("/invoke"), Client: timeline.Intern("Botocore/1.29.27"), RequestID: timeline.Intern(fmt.Sprint("r", i)), Source: 0, Line: int64(i + 1),
		})
		if i < shared {
			tl.Events = append(tl.Events, timeline.Event{
				Start: end - end%int64(time.Second), Layer: timeline.LayerHTTP, Status: timeline.Small(status),
				Route: timeline.Intern("/invoke"), Client: timeline.Intern("Botocore/1.29.27"), Source: 1, Line: int64(i + 1),
			})
		}
	}
	for i := range own {
		tl.Events = append(tl.Events, timeline.Event{
			Start: base + int64(i)*int64(time.Second), Layer: timeline.LayerHTTP, Status: 200,
			Route: timeline.Intern("/other"), Client: timeline.Intern("curl/8.0"), Source: 1, Line: int64(shared + i + 1),
		})
	}
	for i := range tl.Sources {
		for _, e := range tl.Events {
			if int(e.Source) == i {
				tl.Sources[i].Events++
				tl.Sources[i].Lines++
				tl.Sources[i].Parsed++
			}
		}
	}
	tl.Sort()
	return tl
}

func TestDropRedundantViews(t *testing.T) {
	tests := []struct {
		name             string
		n, shared, own   int
		wantDups         [2]int64
		wantEventsAfter  int
		wantSecondEvents int64
	}{
		{name: "same requests in two formats: the plainer copy goes", n: 500, shared: 500, wantDups: [2]int64{0, 500}, wantEventsAfter: 500},
		{name: "the plainer log also has requests of its own: they stay", n: 500, shared: 480, own: 20, wantDups: [2]int64{0, 480}, wantEventsAfter: 520, wantSecondEvents: 20},
		{name: "two servers' own traffic: nothing goes", n: 300, shared: 0, own: 300, wantEventsAfter: 600, wantSecondEvents: 300},
		{name: "a fifth in common is chance, not a copy", n: 500, shared: 100, own: 400, wantEventsAfter: 1000, wantSecondEvents: 500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := twoViews(tc.n, tc.shared, tc.own)
			dropRedundantViews(tl)
			got := [2]int64{tl.Sources[0].Duplicates, tl.Sources[1].Duplicates}
			if got != tc.wantDups {
				t.Errorf("duplicates %v, want %v", got, tc.wantDups)
			}
			if len(tl.Events) != tc.wantEventsAfter {
				t.Errorf("%d events kept, want %d", len(tl.Events), tc.wantEventsAfter)
			}
			for i, s := range tl.Sources {
				if s.Events+s.Duplicates != s.Parsed {
					t.Errorf("%s: %d events + %d duplicates != %d parsed", s.Path, s.Events, s.Duplicates, s.Parsed)
				}
				if i == 1 && s.Events != tc.wantSecondEvents {
					t.Errorf("%s keeps %d events, want %d", s.Path, s.Events, tc.wantSecondEvents)
				}
			}
		})
	}
}
