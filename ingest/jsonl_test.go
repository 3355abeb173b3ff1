package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
)

func parseJSONLine(t *testing.T, fields map[string]string, line string) (timeline.Event, string) {
	t.Helper()
	p, err := newJSONLParser(fields, newInterner())
	if err != nil {
		t.Fatal(err)
	}
	var e timeline.Event
	reason := p.parse([]byte(line), &e)
	return e, reason
}

func TestJSONLine(t *testing.T) {
	base := ns("2026-11-30T02:47:30Z")
	call := func(e timeline.Event) timeline.Event {
		if e.Layer == 0 {
			e.Layer = timeline.LayerCall
		}
		if e.RetryAfter == 0 {
			e.RetryAfter = timeline.NoRetryAfter
		}
		return e
	}
	tests := []struct {
		name   string
		fields map[string]string
		line   string
		want   timeline.Event
	}{
		{
			name: "calls.jsonl shape",
			line: `{"ts_start":"2026-11-30T02:47:30.930Z","ts_end":"2026-11-30T02:47:31.489Z","t_start":1796006850.930209,` +
				`"kind":"batch","task_id":"task-0196","queue_attempt":1,"call_id":"task-0196/q1","outcome":"error",` +
				`"error_type":"ThrottlingException","error_code":"ThrottlingException","http_status":429,"request_id":"r1",` +
				`"sdk_retry_count":0,"http_attempts":1,"amz_sdk_invocation_id":"4292ab7c","next":"abandoned","requeue_delay_ms":null}`,
			want: call(timeline.Event{Start: base + 930e6, End: base + 1489e6, Class: timeline.ClassBatch,
				Outcome: timeline.OutcomeThrottled, Status: 429, QueueAttempt: 1, Attempts: 1,
				ErrorCode: timeline.Intern("ThrottlingException"), TaskID: timeline.Intern("task-0196"), CallID: timeline.Intern("4292ab7c"), RequestID: timeline.Intern("r1")}),
		},
		{
			name: "nulls are absent; call_id when there is no invocation id",
			line: `{"ts_start":"2026-11-30T02:47:30Z","task_id":null,"queue_attempt":null,"call_id":"ui-1","amz_sdk_invocation_id":null,"outcome":"ok","http_status":200,"error_code":null}`,
			want: call(timeline.Event{Start: base, Outcome: timeline.OutcomeOK, Status: 200, CallID: timeline.Intern("ui-1")}),
		},
		{
			name: "epoch seconds with fraction, duration_ms",
			line: `{"t_start":1796006850.5,"duration_ms":250}`,
			want: call(timeline.Event{Start: base + 500e6, End: base + 750e6}),
		},
		{
			name: "epoch milliseconds",
			line: `{"ts":1796006850123}`,
			want: call(timeline.Event{Start: base + 123e6}),
		},
		{
			name: "epoch microseconds as a string",
			line: `{"timestamp":"1796006850123456"}`,
			want: call(timeline.Event{Start: base + 123456e3}),
		},
		{
			name: "epoch nanoseconds",
			line: `{"time":1796006850123456789}`,
			want: call(timeline.Event{Start: base + 123456789}),
		},
		{
			name: "exponent notation",
			line: `{"start":1.79600685e9}`,
			want: call(timeline.Event{Start: base}),
		},
		{
			name: "offset, nanosecond fraction, end_time",
			line: `{"start_time":"2026-11-30T03:47:30.000000001+01:00","end_time":"2026-11-30 02:47:31"}`,
			want: call(timeline.Event{Start: base + 1, End: base + 1e9}),
		},
		{
			name: "nested values are skipped, escapes in skipped strings",
			line: `{"meta":{"a":[1,{"b":"}]\"{"}],"c":"\\"},"@timestamp":"2026-11-30T02:47:30Z","tags":["x","y"],"status":"503"}`,
			want: call(timeline.Event{Start: base, Status: 503, Outcome: timeline.OutcomeRetryable}),
		},
		{
			name: "escaped strings are decoded",
			line: `{"ts":"2026-11-30T02:47:30Z","task":"t\u00e9\"1\\","client":"\ud83d\ude00 sdk","url":"https://h.example/v1/x?y=1"}`,
			want: call(timeline.Event{Start: base, TaskID: timeline.Intern(`té"1\`), Client: timeline.Intern("😀 sdk"), Route: timeline.Intern("/v1/x")}),
		},
		{
			name: "attempt record, retry_count+1, retry_after_ms, layer",
			line: `{"ts":"2026-11-30T02:47:30Z","layer":"attempt","retry_count":2,"status_code":429,"retry_after_ms":1500,"x_request_id":"q"}`,
			want: call(timeline.Event{Start: base, Layer: timeline.LayerHTTP, Attempt: 3, Status: 429,
				Outcome: timeline.OutcomeThrottled, RetryAfter: timeline.MillisOf(1500 * time.Millisecond), RequestID: timeline.Intern("q")}),
		},
		{
			name: "retries+1 for attempts, queue layer, class synonyms",
			line: `{"ts":"2026-11-30T02:47:30Z","layer":"queue_attempt","retries":1,"traffic_class":"interactive","delivery_count":4,"retry_after":2}`,
			want: call(timeline.Event{Start: base, Layer: timeline.LayerQueue, Attempts: 2, QueueAttempt: 4,
				Class: timeline.ClassInteractive, RetryAfter: timeline.MillisOf(2 * time.Second)}),
		},
		{
			name: "error outcome with OK status is still a failure",
			line: `{"ts":"2026-11-30T02:47:30Z","result":"failed","status":200}`,
			want: call(timeline.Event{Start: base, Status: 200, Outcome: timeline.OutcomeRetryable}),
		},
		{
			name: "ok outcome keeps OK despite an earlier attempt's code",
			line: `{"ts":"2026-11-30T02:47:30Z","outcome":"ok","http_status":200,"error_code":"ThrottlingException","sdk_retry_count":2}`,
			want: call(timeline.Event{Start: base, Status: 200, ErrorCode: timeline.Intern("ThrottlingException"), Attempts: 3, Outcome: timeline.OutcomeOK}),
		},
		{
			name: "throttled outcome without status",
			line: `{"ts":"2026-11-30T02:47:30Z","outcome":"throttled"}`,
			want: call(timeline.Event{Start: base, Outcome: timeline.OutcomeThrottled}),
		},
		{
			name: "error code decides",
			line: `{"ts":"2026-11-30T02:47:30Z","outcome":"error","code":"ValidationException","status":400}`,
			want: call(timeline.Event{Start: base, Status: 400, ErrorCode: timeline.Intern("ValidationException"), Outcome: timeline.OutcomeNonRetryable}),
		},
		{
			name:   "user mapping overrides detection",
			fields: map[string]string{"start": "begin", "task": "job.id", "duration_ms": "took", "call": "call_id"},
			line:   `{"ts":"2000-01-01T00:00:00Z","begin":"2026-11-30T02:47:30Z","job.id":"j1","task_id":"ignored","took":1000,"call_id":"c","amz_sdk_invocation_id":"i"}`,
			want:   call(timeline.Event{Start: base, End: base + 1e9, TaskID: timeline.Intern("j1"), CallID: timeline.Intern("c")}),
		},
		{
			name:   "two fields may share a key",
			fields: map[string]string{"call": "id", "request": "id"},
			line:   `{"ts":"2026-11-30T02:47:30Z","id":"x"}`,
			want:   call(timeline.Event{Start: base, CallID: timeline.Intern("x"), RequestID: timeline.Intern("x")}),
		},
		{
			name: "negative numbers mean not applicable",
			line: `{"ts":"2026-11-30T02:47:30Z","queue_attempt":-1,"retry_after":-1,"status":-1}`,
			want: call(timeline.Event{Start: base}),
		},
		{
			name: "duplicate key: last wins; whitespace everywhere",
			line: " { \"ts\" : \"2000-01-01T00:00:00Z\" ,\t\"ts\" : \"2026-11-30T02:47:30Z\" } ",
			want: call(timeline.Event{Start: base}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := parseJSONLine(t, tt.fields, tt.line)
			if reason != "" {
				t.Fatalf("skipped: %s", reason)
			}
			if got != tt.want {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestJSONLBadLines(t *testing.T) {
	good := `{"ts":"2026-11-30T02:47:30Z"}`
	lines := []string{
		good,
		`{"ts":"2026-11-30T02:47:30Z","task":"unterminated}`,
		`{"task":"t"}`,
		`["not", "an", "object"]`,
		`{"ts":"yesterday"}`,
		`{"ts":"2026-11-30T02:47:30Z","http_status":"abc"}`,
		`{"ts":"2026-11-30T02:47:30Z"} trailing`,
		`{"ts":"2026-11-30T02:47:30Z","a":{"b":[1,2}`,
		`{"ts":"2026-11-30T02:47:30Z","outcome":"maybe"}`,
		`{"ts":"2026-11-30T02:47:30Z","task":{"id":1}}`,
		`{"ts":"2026-11-30T02:47:30Z" "task":"x"}`,
		`{"ts":tru}`,
		`{"ts":"2026-11-30T02:47:30Z","task":"\q"}`,
		`{"ts":"2026-11-30T02:47:30Z",}`,
		good,
	}
	want := []timeline.Skip{
		{Line: 2, Reason: `invalid JSON at byte 37: unterminated string`},
		{Line: 3, Reason: `no start time (looked for ts_start, start_time, start, timestamp, ts, time, @timestamp, t_start)`},
		{Line: 4, Reason: `not a JSON object`},
		{Line: 5, Reason: `bad ts "yesterday": want a time`},
		{Line: 6, Reason: `bad http_status "abc": want a whole number`},
		{Line: 7, Reason: `invalid JSON at byte 31: unexpected text after the object`},
		{Line: 8, Reason: `invalid JSON at byte 34: unterminated object`},
		{Line: 9, Reason: `bad outcome "maybe": want ok, success, error, failed or throttled`},
		{Line: 10, Reason: `bad task an object or array: want a string`},
		{Line: 11, Reason: `invalid JSON at byte 30: expected ',' or '}'`},
		{Line: 12, Reason: `invalid JSON at byte 7: unexpected 't'`},
		{Line: 13, Reason: `invalid JSON at byte 38: invalid escape`},
		{Line: 14, Reason: `invalid JSON at byte 30: expected a key`},
	}
	tl, err := Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), "calls.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := tl.Sources[0]
	if s.Format != "jsonl" || s.Lines != int64(len(lines)) || s.Parsed != 2 || s.Skipped != int64(len(want)) {
		t.Errorf("accounting: %+v", s)
	}
	for i := range want {
		if i >= len(s.Samples) || s.Samples[i] != want[i] {
			var got timeline.Skip
			if i < len(s.Samples) {
				got = s.Samples[i]
			}
			t.Errorf("skip %d: got %+v, want %+v", i, got, want[i])
		}
	}
}

func TestParseFieldMapping(t *testing.T) {
	got, err := ParseFieldMapping([]string{"ts=start_time", "task = job.id", "duration_ms=took_ms"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["start"] != "start_time" || got["task"] != "job.id" || got["duration_ms"] != "took_ms" {
		t.Errorf("got %v", got)
	}
	for _, bad := range []string{"start", "=x", "start=", "when=t"} {
		if _, err := ParseFieldMapping([]string{bad}); err == nil {
			t.Errorf("ParseFieldMapping(%q): no error", bad)
		}
	}
	if _, err := ParseFieldMapping([]string{"when=t"}); err == nil || !strings.Contains(err.Error(), "fields are start, end, duration_ms") {
		t.Errorf("error should list the fields: %v", err)
	}
}

// TestJSONLKeyPositions feeds one parser lines whose keys move, appear and
// vanish from line to line, as a producer that changes its key order or
// omits empty fields writes them: the keys remembered by position must
// never stand in for the key a line actually holds, so every line must
// read as it does to a parser that has seen no other.
func TestJSONLKeyPositions(t *testing.T) {
	lines := []struct{ name, line string }{
		{"first order", `{"ts_start":"2026-11-30T02:47:30Z","task_id":"t1","http_status":429,"kind":"batch"}`},
		{"same order", `{"ts_start":"2026-11-30T02:47:31Z","task_id":"t2","http_status":200,"kind":"batch"}`},
		{"keys swapped", `{"task_id":"t3","ts_start":"2026-11-30T02:47:32Z","kind":"interactive","http_status":503}`},
		{"another key of the same length in its place", `{"call_id":"c4","ts_start":"2026-11-30T02:47:32.5Z","kind":"batch"}`},
		{"an unwanted key of that length in its place", `{"zzzz_id":"c4","ts_start":"2026-11-30T02:47:32.7Z","kind":"batch"}`},
		{"a key dropped", `{"ts_start":"2026-11-30T02:47:33Z","http_status":200}`},
		{"an unwanted key where a wanted one was", `{"ts_start":"2026-11-30T02:47:34Z","extra":"t9","http_status":429}`},
		{"a wanted key where an unwanted one was", `{"ts_start":"2026-11-30T02:47:35Z","task_id":"t5","http_status":429}`},
		{"a key that prefixes another", `{"ts_start":"2026-11-30T02:47:36Z","task_i":"x","task_id":"t6"}`},
		{"an escaped key", `{"ts_start":"2026-11-30T02:47:37Z","task\u005fid":"t7","http_status":200}`},
		{"an empty key", `{"":"t8","ts_start":"2026-11-30T02:47:38Z","http_status":200}`},
		{"more keys than positions remembered", `{"ts_start":"2026-11-30T02:47:39Z"` + strings.Repeat(`,"k":1`, maxKeyPositions) + `,"task_id":"t10"}`},
		{"after it, the first order again", `{"ts_start":"2026-11-30T02:47:40Z","task_id":"t11","http_status":429,"kind":"batch"}`},
	}
	shared, err := newJSONLParser(nil, newInterner())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range lines {
		t.Run(tc.name, func(t *testing.T) {
			want, wantReason := parseJSONLine(t, nil, tc.line)
			var got timeline.Event
			gotReason := shared.parse([]byte(tc.line), &got)
			if got != want || gotReason != wantReason {
				t.Errorf("after other lines: %+v %q\nalone:             %+v %q", got, gotReason, want, wantReason)
			}
		})
	}
}
