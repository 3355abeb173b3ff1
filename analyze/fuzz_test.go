package analyze

import (
	"encoding/json"
	"testing"

	"github.com/stampede/stampede/timeline"
)

// eventsFromBytes turns fuzz input into a sorted timeline, 6 bytes an event:
// start offset (2 bytes, tenths of a second), layer, outcome, join keys and
// attempt number.
func eventsFromBytes(data []byte) *timeline.Timeline {
	tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "fuzz"}}}
	layers := []timeline.Layer{timeline.LayerHTTP, timeline.LayerHTTP, timeline.LayerCall, timeline.LayerQueue}
	outcomes := []timeline.Outcome{ok, thr, timeline.OutcomeRetryable, timeline.OutcomeNonRetryable, timeline.OutcomeUnknown}
	for i := 0; i+6 <= len(data); i += 6 {
		d := data[i : i+6]
		start := genEpoch + (int64(d[0])<<8|int64(d[1]))*1e8
		e := timeline.Event{Start: start, Layer: layers[d[2]%4], Outcome: outcomes[d[3]%5], Class: timeline.Class(d[3] / 5 % 3),
			RetryAfter: timeline.NoRetryAfter, Line: int64(i/6 + 1)}
		if d[2]&8 != 0 {
			e.End = start + int64(d[5])*1e7
		}
		if d[4]&7 != 0 {
			e.TaskID = timeline.Intern(string(rune('A' + d[4]&7)))
		}
		if d[4]&0x38 != 0 {
			e.CallID = timeline.Intern(string(rune('a' + (d[4]>>3)&7)))
		}
		e.Attempt = timeline.Small(d[5] % 5)
		e.QueueAttempt = timeline.Small(d[5] / 5 % 4)
		e.Attempts = timeline.Small(d[5] / 20 % 4)
		e.MaxAttempts = timeline.Small(d[2] / 16 % 5)
		if d[2]&4 != 0 {
			e.RetryAfter = 0
		}
		tl.Events = append(tl.Events, e)
	}
	tl.Sort()
	return tl
}

// FuzzRun: no event sequence makes Run panic, produce a result JSON cannot
// encode (NaN, Inf) or break the throttled-attempt accounting.
func FuzzRun(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 0, 1, 9, 1, 0, 2, 0, 0, 9, 2, 0, 3, 2, 0, 9, 45})
	f.Add([]byte{0, 0, 0, 1, 1, 1, 0, 100, 0, 1, 1, 1, 0, 200, 0, 1, 1, 1, 1, 44, 0, 1, 1, 1, 1, 144, 8, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		tl := eventsFromBytes(data)
		res := Run(tl, Options{Seed: 1})
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not encode: %v", err)
		}
		r := res.Reconcile
		if r.ThrottledRecovered+r.ThrottledInFailedCalls+r.ThrottledInUnknownCalls+r.ThrottledUnjoined != r.HTTP.Throttled {
			t.Fatalf("throttled split %d+%d+%d+%d != %d", r.ThrottledRecovered, r.ThrottledInFailedCalls, r.ThrottledInUnknownCalls, r.ThrottledUnjoined, r.HTTP.Throttled)
		}
	})
}
