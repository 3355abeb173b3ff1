package ingest

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede/stampede/internal/golden"
	"github.com/stampede/stampede/timeline"
)

func TestDocumentAndSpanGolden(t *testing.T) {
	dir := filepath.Join("..", "testdata", "ingest")
	for _, tt := range []struct{ file, golden string }{
		{"otlp/traces.jsonl", "otlp-traces.jsonl.golden"},
		{"otlp/request.json", "otlp-request.json.golden"},
		{"har/session.har", "har-session.har.golden"},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			tl, err := ReadFile(filepath.Join(dir, tt.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if o := tl.Sources[0].Observer; o != timeline.ObserverClient {
				t.Errorf("observer %s, want client", o)
			}
			golden.Check(t, filepath.Join(dir, "golden", tt.golden), []byte(renderTimeline(tl)))
		})
	}
}

// otlpSpanLine wraps client spans (JSON objects) into one
// ExportTraceServiceRequest line.
func otlpSpanLine(spans ...string) string {
	return `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{},"spans":[` +
		strings.Join(spans, ",") + `]}]}]}`
}

// clientSpan is a client span with the given attributes (KeyValue objects).
func clientSpan(attrs ...string) string {
	return `{"traceId":"t1","spanId":"s2","parentSpanId":"s1","kind":3,"startTimeUnixNano":"1796006850000000000",` +
		`"endTimeUnixNano":"1796006850500000000","attributes":[` + strings.Join(attrs, ",") + `]}`
}

func intAttr(k, v string) string { return `{"key":"` + k + `","value":{"intValue":"` + v + `"}}` }
func strAttr(k, v string) string { return `{"key":"` + k + `","value":{"stringValue":"` + v + `"}}` }

func TestOTLPSpans(t *testing.T) {
	good := clientSpan(intAttr("http.response.status_code", "429"))
	tests := []struct {
		name string
		line string
		want []timeline.Event
	}{
		{"attempt 1 without resend_count, call is the parent span", otlpSpanLine(good), []timeline.Event{{
			Start: 1796006850000000000, End: 1796006850500000000, Status: 429, Attempt: 1, CallID: timeline.Intern("s1")}}},
		{"resend count, trace id without a parent, value before key", otlpSpanLine(
			strings.Replace(clientSpan(`{"value":{"intValue":"503"},"key":"http.status_code"}`, intAttr("http.request.resend_count", "2")), `"parentSpanId":"s1"`, `"parentSpanId":""`, 1)),
			[]timeline.Event{{Start: 1796006850000000000, End: 1796006850500000000, Status: 503, Attempt: 3, CallID: timeline.Intern("t1")}}},
		{"retry-after as a plain string, span task id wins over the resource's",
			strings.Replace(otlpSpanLine(clientSpan(intAttr("http.response.status_code", "429"), strAttr("http.response.header.retry-after", "1.5"), strAttr("task.id", "a"))),
				`"attributes":[]`, `"attributes":[`+strAttr("task.id", "r")+`]`, 1),
			[]timeline.Event{{Start: 1796006850000000000, End: 1796006850500000000, Status: 429, Attempt: 1, CallID: timeline.Intern("s1"), TaskID: timeline.Intern("a"), RetryAfter: 1500}}},
		{"server and internal spans are not attempts", otlpSpanLine(strings.Replace(good, `"kind":3`, `"kind":2`, 1), good),
			[]timeline.Event{{Start: 1796006850000000000, End: 1796006850500000000, Status: 429, Attempt: 1, CallID: timeline.Intern("s1")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := readLines(t, Options{Format: "otlp"}, tt.line)
			if len(tl.Events) != len(tt.want) {
				t.Fatalf("%d events, want %d: %+v", len(tl.Events), len(tt.want), tl.Sources[0].Samples)
			}
			for i, w := range tt.want {
				w.Line, w.Layer = 1, timeline.LayerHTTP
				w.Outcome = timeline.Classify(w.Status, "")
				if w.RetryAfter == 0 {
					w.RetryAfter = timeline.NoRetryAfter
				}
				if tl.Events[i] != w {
					t.Errorf("event %d:\n got %+v\nwant %+v", i, tl.Events[i], w)
				}
			}
		})
	}
}

func TestOTLPBadLines(t *testing.T) {
	good := otlpSpanLine(clientSpan(intAttr("http.response.status_code", "200")))
	lines := []string{
		good,
		otlpSpanLine(clientSpan(intAttr("http.response.status_code", "2000"))),
		otlpSpanLine(clientSpan(intAttr("http.response.status_code", "200"), intAttr("http.request.resend_count", "x"))),
		otlpSpanLine(strings.Replace(clientSpan(intAttr("http.status_code", "200")), `"startTimeUnixNano":"1796006850000000000",`, ``, 1)),
		otlpSpanLine(strings.Replace(clientSpan(intAttr("http.status_code", "200")), `"endTimeUnixNano":"1796006850500000000"`, `"endTimeUnixNano":"1"`, 1)),
		otlpSpanLine(strings.Replace(clientSpan(intAttr("http.status_code", "200")), `"kind":3`, `"kind":9`, 1)),
		otlpSpanLine(clientSpan()),
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"kind":3,`,
		`{"resourceSpans":[]} trailing`,
		good,
	}
	want := []timeline.Skip{
		{Line: 2, Reason: `span s2: bad http.response.status_code "2000": want an HTTP status`},
		{Line: 3, Reason: `span s2: bad http.request.resend_count "x": want a whole number`},
		{Line: 4, Reason: `span s2: no startTimeUnixNano`},
		{Line: 5, Reason: `span s2: bad endTimeUnixNano "1": want nanoseconds since the epoch, after the start`},
		{Line: 6, Reason: `bad kind 9: want a span kind`},
		{Line: 7, Reason: `no HTTP client span (kind 3 with a status code)`},
		{Line: 8, Reason: `invalid JSON at byte 33: unterminated array`},
		{Line: 9, Reason: `invalid JSON at byte 22: unexpected text after the object`},
	}
	checkSkips(t, readLines(t, Options{Format: "otlp-json"}, lines...), len(lines), want)
}

func checkSkips(t *testing.T, tl *timeline.Timeline, lines int, want []timeline.Skip) {
	t.Helper()
	s := tl.Sources[0]
	if s.Lines != int64(lines) || s.Skipped != int64(len(want)) || s.Parsed+s.Skipped != s.Lines {
		t.Errorf("accounting %+v", s)
	}
	if len(s.Samples) != len(want) {
		t.Fatalf("skips %+v", s.Samples)
	}
	for i := range want {
		if s.Samples[i] != want[i] {
			t.Errorf("skip %d: got %+v, want %+v", i, s.Samples[i], want[i])
		}
	}
}

// harDoc wraps entries, one per line, into a HAR document whose entries
// start on line 3.
func harDoc(entries ...string) string {
	return "{\"log\":{\"version\":\"1.2\",\"creator\":{},\n\"entries\":[\n" + strings.Join(entries, ",\n") + "\n]}}\n"
}

const harEntryOK = `{"startedDateTime":"2026-11-30T02:47:30Z","time":5,"request":{"url":"/v1","headers":[]},"response":{"status":200,"headers":[]}}`

func TestHARBadEntries(t *testing.T) {
	tests := []struct {
		name   string
		doc    string
		lines  int64
		events int
		want   []timeline.Skip
	}{
		{"entry problems skip the entry's lines", harDoc(
			harEntryOK,
			`{"time":5,"response":{"status":200}}`,
			`{"startedDateTime":"yesterday","response":{"status":200}}`,
			`{"startedDateTime":"2026-11-30T02:47:30Z","time":"5","response":{"status":200}}`,
			`{"startedDateTime":"2026-11-30T02:47:30Z","request":{}}`,
			`{"startedDateTime":"2026-11-30T02:47:30Z","response":{"status":"200"}}`,
			"{\"startedDateTime\":\n\"2026-11-30T02:47:30Z\",\"response\":{\"status\":1000}}",
			`7`,
			harEntryOK,
		), 13, 2, []timeline.Skip{
			{Line: 4, Reason: `entry at line 4: no startedDateTime`},
			{Line: 5, Reason: `entry at line 5: bad startedDateTime "yesterday": want an ISO 8601 time`},
			{Line: 6, Reason: `entry at line 6: bad time "5": want milliseconds`},
			{Line: 7, Reason: `entry at line 7: no response.status`},
			{Line: 8, Reason: `entry at line 8: bad response.status "200": want an HTTP status`},
			{Line: 9, Reason: `entry at line 9: bad response.status 1000: want an HTTP status`},
			{Line: 10, Reason: `entry at line 9: bad response.status 1000: want an HTTP status`},
			{Line: 11, Reason: `entry at line 11: not an object`},
		}},
		{"a cut entry loses the rest of the file",
			"{\"log\":{\"entries\":[\n" + harEntryOK + ",\n{\"startedDateTime\":\"2026\n\n", 4, 1, []timeline.Skip{
				{Line: 3, Reason: `entry at line 3: invalid JSON at byte 169: unterminated string (the rest of the file cannot be read)`},
				{Line: 4, Reason: `entry at line 3: invalid JSON at byte 169: unterminated string (the rest of the file cannot be read)`},
			}},
		{"two entries on one line, one bad: the line is skipped, the good one kept",
			`{"log":{"entries":[` + harEntryOK + `,{"response":{"status":200}}]}}`, 1, 1, []timeline.Skip{
				{Line: 1, Reason: `entry at line 1: no startedDateTime`},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := Read(strings.NewReader(tt.doc), "x.har", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := tl.Sources[0].Format; got != "har" {
				t.Fatalf("format %q", got)
			}
			checkSkips(t, tl, int(tt.lines), tt.want)
			if len(tl.Events) != tt.events {
				t.Errorf("%d events, want %d", len(tl.Events), tt.events)
			}
		})
	}
}

func TestOTLPDocumentErrors(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"{\n  \"resourceSpans\": [\n    {\"scopeSpans\": 3}\n  ]\n}\n", `r.json:3: not an OTLP/JSON document: invalid JSON at byte 43: expected an array`},
		{"{\n  \"resourceSpans\": [\n    {\"scopeSpans\": [}\n  ]\n}\n", `r.json:4: not an OTLP/JSON document: invalid JSON at byte 48: expected ',' or '}'`},
		// Well formed, as the OpenTelemetry proto repository's example:
		// only a server span, so nothing to read, but no fault either.
		{"{\n  \"resourceSpans\": [\n    {\"scopeSpans\": [{\"spans\": [{\"kind\": 2}]}]}\n  ]\n}\n", `r.json:1: an OTLP/JSON document with no HTTP client span (kind 3 with a status code), so it holds no HTTP attempt to read`},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(tt.doc), "r.json", Options{})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: got %v, want %s", tt.doc, err, tt.want)
		}
	}
}

func TestHARDocumentErrors(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"{\"log\":{\"version\":\"1.2\"},\n\"entries\":[]}", `x.har:1: not a HAR document: no "log"."entries" array`},
		{"{\"log\":{\"entries\":[]}}\n}", `x.har:2: not a HAR document: unexpected text after the document`},
		{"{\"log\":{\"entries\":[],\n\"pages\":[}}", `x.har:2: not a HAR document: invalid JSON at byte 34: unterminated object`},
		{"[]", `x.har:1: not a HAR document: expected '{'`},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(tt.doc), "x.har", Options{Format: "har"})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: got %v, want %s", tt.doc, err, tt.want)
		}
	}
}

func FuzzOTLPLine(f *testing.F) {
	f.Add(otlpSpanLine(clientSpan(intAttr("http.response.status_code", "429"), strAttr("http.response.header.retry-after", "2"))))
	f.Add(`{"resourceSpans":[{"resource":{"attributes":[{"key":"task.id","value":{"arrayValue":{"values":[{"arrayValue":{}}]}}}]}}]}`)
	f.Add(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"kind":"SPAN_KIND_CLIENT"}]}]}]}`)
	f.Add("{\n\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [\n" + clientSpan(intAttr("http.status_code", "429")) + "\n]}]}]")
	f.Fuzz(func(t *testing.T, line string) {
		checkAccounting(t, []byte(line+"\n"+line), Options{Format: "otlp"})
		var e timeline.Event
		newOTLPParser(newInterner()).parse([]byte(line), &e)
	})
}

func FuzzHARDocument(f *testing.F) {
	f.Add(harDoc(harEntryOK, harEntryOK))
	f.Add(`{"log":{"entries":[{"startedDateTime":"2026-11-30T02:47:30Z","response":{"status":429,"headers":[{"name":"Retry-After","value":"Mon, 30 Nov 2026 02:47:41 GMT"}]}}]}}`)
	f.Add("{\"log\":{\"entries\":[{\n")
	f.Fuzz(func(t *testing.T, doc string) {
		checkAccounting(t, []byte(doc), Options{Format: "har"})
		var e timeline.Event
		newHARParser(newInterner()).parse([]byte(doc), &e)
	})
}

// BenchmarkOTLP reports the rate of reading OTLP/JSON lines of three
// attempts each.
func BenchmarkOTLP(b *testing.B) {
	span := clientSpan(intAttr("http.response.status_code", "429"), strAttr("url.full", "https://api.example.com/v1/chat"),
		strAttr("user_agent.original", "OpenAI/Python 1.30.1"), strAttr("task.id", "task-0001"))
	line := otlpSpanLine(span, span, span) + "\n"
	data := bytes.Repeat([]byte(line), 2000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "b", Options{Format: "otlp"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(2000*b.N)/b.Elapsed().Seconds(), "lines/s")
}

// TestEnvoyJSONRetryCount checks the SDK's retry count request header as
// Envoy JSON logs carry it, which numbers attempts when Envoy's own
// attempt count is not logged.
func TestEnvoyJSONRetryCount(t *testing.T) {
	const line = `{"start_time":"2026-11-30T02:47:30.104Z","response_code":429,"x_stainless_retry_count":"2"}`
	tl := readLines(t, Options{Format: "envoy-json"},
		line,
		strings.Replace(line, `"2"`, `"-"`, 1),
		strings.Replace(line, `"2"`, `"two"`, 1),
		strings.Replace(line, `}`, `,"x_envoy_attempt_count":5}`, 1))
	var attempts []int32
	for _, e := range tl.Events {
		attempts = append(attempts, int32(e.Attempt))
	}
	if len(attempts) != 3 || attempts[0] != 3 || attempts[1] != 0 || attempts[2] != 5 {
		t.Errorf("attempts %v, want [3 0 5]", attempts)
	}
	checkSkips(t, tl, 4, []timeline.Skip{{Line: 3, Reason: `bad x_stainless_retry_count "two": want a whole number`}})
}

// TestHARNoResponse pins the outcome of entries that got no response
// (status 0): a retryable error under the browser's reason or, with none,
// "no_response", so that every attempt falls in an outcome.
func TestHARNoResponse(t *testing.T) {
	tests := []struct {
		entry, code string
	}{
		{`{"startedDateTime":"2026-11-30T02:47:30Z","time":5,"response":{"status":0}}`, "no_response"},
		{`{"startedDateTime":"2026-11-30T02:47:30Z","time":5,"response":{"status":0,"_error":"net::ERR_CONNECTION_RESET"}}`, "net::ERR_CONNECTION_RESET"},
	}
	for _, tt := range tests {
		tl, err := Read(strings.NewReader(harDoc(tt.entry)), "x.har", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tl.Events) != 1 || tl.Events[0].Outcome != timeline.OutcomeRetryable || tl.Events[0].ErrorCode.String() != tt.code {
			t.Errorf("%s: events %+v, want one retryable error %s", tt.entry, tl.Events, tt.code)
		}
	}
}
