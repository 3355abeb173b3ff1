package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
)

// readLines reads lines with opt and fails the test on an error.
func readLines(t *testing.T, opt Options, lines ...string) *timeline.Timeline {
	t.Helper()
	tl, err := Read(strings.NewReader(strings.Join(lines, "\n")), "m.log", opt)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestNginxUpstreamAttempts(t *testing.T) {
	const format = `$msec rt=$request_time s=$status us="$upstream_status" urt="$upstream_response_time" ` +
		`"$http_x_stainless_retry_count" "$sent_http_retry_after"`
	base := timeline.Event{Layer: timeline.LayerHTTP, RetryAfter: timeline.NoRetryAfter, Line: 1}
	ev := func(start, end string, status int32, attempt int32, o timeline.Outcome, ra time.Duration) timeline.Event {
		e := base
		e.Start, e.Status, e.Attempt, e.Outcome = ns(start), timeline.Small(status), timeline.Small(attempt), o
		if end != "" {
			e.End = ns(end)
		}
		if ra != 0 {
			e.RetryAfter = timeline.MillisOf(ra)
		}
		return e
	}
	tests := []struct {
		name string
		line string
		want []timeline.Event
	}{
		{
			name: "one upstream is one event, as parse makes it",
			line: `1796006851.000 rt=0.500 s=200 us="200" urt="0.400" "-" "-"`,
			want: []timeline.Event{ev("2026-11-30T02:47:30.5Z", "2026-11-30T02:47:31Z", 200, 0, timeline.OutcomeOK, 0)},
		},
		{
			name: "next upstream: attempts back to back, ending at the log time",
			line: `1796006851.000 rt=1.000 s=429 us="502, 429" urt="0.600, 0.300" "-" "2"`,
			want: []timeline.Event{
				ev("2026-11-30T02:47:30.1Z", "2026-11-30T02:47:30.7Z", 502, 1, timeline.OutcomeRetryable, 0),
				ev("2026-11-30T02:47:30.7Z", "2026-11-30T02:47:31Z", 429, 2, timeline.OutcomeThrottled, 2*time.Second),
			},
		},
		{
			name: "internal redirect separator counts as another attempt",
			line: `1796006851.000 rt=1.000 s=200 us="503 : 429, 200" urt="0.1 : 0.2, 0.3" "-" "-"`,
			want: []timeline.Event{
				ev("2026-11-30T02:47:30.4Z", "2026-11-30T02:47:30.5Z", 503, 1, timeline.OutcomeRetryable, 0),
				ev("2026-11-30T02:47:30.5Z", "2026-11-30T02:47:30.7Z", 429, 2, timeline.OutcomeThrottled, 0),
				ev("2026-11-30T02:47:30.7Z", "2026-11-30T02:47:31Z", 200, 3, timeline.OutcomeOK, 0),
			},
		},
		{
			name: "a last '-' keeps the client's status; an SDK attempt number is kept",
			line: `1796006851.000 rt=2.000 s=499 us="504, -" urt="1.500, -" "1" "-"`,
			want: []timeline.Event{
				ev("2026-11-30T02:47:29.5Z", "2026-11-30T02:47:31Z", 504, 2, timeline.OutcomeRetryable, 0),
				ev("2026-11-30T02:47:31Z", "2026-11-30T02:47:31Z", 499, 2, timeline.OutcomeNonRetryable, 0),
			},
		},
		{
			name: "times that do not match the statuses leave the request's span",
			line: `1796006851.000 rt=1.000 s=200 us="502, 200" urt="0.5" "-" "-"`,
			want: []timeline.Event{
				ev("2026-11-30T02:47:30Z", "2026-11-30T02:47:31Z", 502, 1, timeline.OutcomeRetryable, 0),
				ev("2026-11-30T02:47:30Z", "2026-11-30T02:47:31Z", 200, 2, timeline.OutcomeOK, 0),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := readLines(t, Options{LogFormat: format}, tt.line)
			s := tl.Sources[0]
			if s.Lines != 1 || s.Parsed != 1 || s.Events != int64(len(tt.want)) {
				t.Errorf("accounting %+v", s)
			}
			if len(tl.Events) != len(tt.want) {
				t.Fatalf("got %d events, want %d: %+v", len(tl.Events), len(tt.want), tl.Events)
			}
			for i := range tt.want {
				if tl.Events[i] != tt.want[i] {
					t.Errorf("event %d:\n got %+v\nwant %+v", i, tl.Events[i], tt.want[i])
				}
			}
		})
	}
}

// TestMultiLineAccounting checks that Parsed counts lines and Events counts
// attempts when lines expand, and that a skipped line leaves no events.
func TestMultiLineAccounting(t *testing.T) {
	const format = `$msec $status "$upstream_status"`
	tl := readLines(t, Options{LogFormat: format},
		`1796006851.000 200 "502, 503, 200"`,
		`1796006851.000 2x0 "502, 200"`,
		`1796006852.000 200 "200"`,
	)
	s := tl.Sources[0]
	if s.Lines != 3 || s.Parsed != 2 || s.Skipped != 1 || s.Events != 4 || len(tl.Events) != 4 {
		t.Errorf("accounting %+v, %d events", s, len(tl.Events))
	}
	for i, line := range []int64{1, 1, 1, 3} {
		if tl.Events[i].Line != line {
			t.Errorf("event %d on line %d, want %d", i, tl.Events[i].Line, line)
		}
	}
	if want := (timeline.Skip{Line: 2, Reason: `bad $status "2x0"`}); len(s.Samples) != 1 || s.Samples[0] != want {
		t.Errorf("skips %+v", s.Samples)
	}
}
