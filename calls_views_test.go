package stampede

import (
	"testing"

	"github.com/stampede/stampede/timeline"
)

func TestDropRedundantCalls(t *testing.T) {
	call := func(src int32, req, task string) timeline.Event {
		e := timeline.Event{Layer: timeline.LayerCall, Source: src, RequestID: timeline.Intern(req), Attempts: 1}
		if task != "" {
			e.TaskID = timeline.Intern(task)
		}
		return e
	}
	tests := []struct {
		name     string
		events   []timeline.Event
		wantKept int
		wantDups []int64
	}{
		// The application's call log names tasks; the SDK's logger does
		// not: the SDK's record of the same request goes.
		{name: "one call in two logs", events: []timeline.Event{call(0, "r1", "t1"), call(1, "r1", ""), call(0, "r2", "t2"), call(1, "r2", "")},
			wantKept: 2, wantDups: []int64{0, 2}},
		{name: "different requests stay", events: []timeline.Event{call(0, "r1", "t1"), call(1, "r3", "")},
			wantKept: 2, wantDups: []int64{0, 0}},
		// A retried call logs one request id per try in its own file: never
		// merged within one input.
		{name: "one input repeating an id", events: []timeline.Event{call(0, "r1", "t1"), call(0, "r1", "t1")},
			wantKept: 2, wantDups: []int64{0, 0}},
		{name: "no request ids", events: []timeline.Event{call(0, "", "t1"), call(1, "", "")},
			wantKept: 2, wantDups: []int64{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &timeline.Timeline{Events: tt.events, Sources: []timeline.Source{{Path: "calls.jsonl", Events: 2}, {Path: "sdk.log", Events: 2}}}
			dropRedundantCalls(tl)
			if len(tl.Events) != tt.wantKept {
				t.Errorf("kept %d events, want %d", len(tl.Events), tt.wantKept)
			}
			for i, want := range tt.wantDups {
				if tl.Sources[i].Duplicates != want {
					t.Errorf("source %d: %d duplicates, want %d", i, tl.Sources[i].Duplicates, want)
				}
			}
		})
	}
}
