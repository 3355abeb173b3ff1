package ingest

import (
	"strings"
	"testing"

	"github.com/stampede/stampede/timeline"
)

// Lines in HAProxy's option httplog format, with two request headers
// captured: x-task-id, then x-stainless-retry-count.
const (
	haproxyLine      = `10.0.4.21:51746 [01/Dec/2026:12:00:18.031] fe_api be_model/model1 0/0/0/4/5 429 453 - - ---- 12/12/3/3/0 0/0 {task-0002|1} "POST /v1/chat/completions?x=1 HTTP/1.1"`
	haproxyDenyLine  = `10.0.4.22:40112 [01/Dec/2026:12:00:20.310] fe_api fe_api/<NOSRV> 0/-1/-1/-1/0 429 212 - - PR-- 14/14/0/0/0 0/0 {task-0003|0} "POST /v1/chat/completions HTTP/1.1"`
	haproxyQueueLine = `10.0.4.23:40990 [01/Dec/2026:12:00:21.002] fe_api be_model/<NOSRV> 0/30001/-1/-1/30001 503 217 - - sQ-- 40/40/38/0/0 0/12 {task-0004|0} "POST /v1/chat/completions HTTP/1.1"`
	haproxyNoCapLine = `10.0.4.21:51744 [01/Dec/2026:12:00:18.025] fe_api be_model/model1 0/0/1/212/213 200 1834 - - ---- 12/12/3/3/0 0/0 "GET /v1/models HTTP/1.1"`
	haproxyCLFLine   = `10.0.4.22 - - [01/Dec/2026:12:00:20 +0000] "POST /v1/chat/completions HTTP/1.1" 429 212 "" "" 40112 310 "fe_api" "fe_api" "<NOSRV>" 0 -1 -1 -1 0 PR-- 14 14 0 0 0 0 0 "-" "-" "task-0003" "0"`
)

var haproxyCaptures = []string{"x-task-id", "x-stainless-retry-count"}

func TestHAProxyLines(t *testing.T) {
	http := func(e timeline.Event) timeline.Event {
		e.Layer, e.Line = timeline.LayerHTTP, 1
		if e.RetryAfter == 0 {
			e.RetryAfter = timeline.NoRetryAfter
		}
		return e
	}
	route := timeline.Intern("/v1/chat/completions")
	tests := []struct {
		name string
		opt  Options
		line string
		want timeline.Event
	}{
		{"an upstream 429: start at %tr, end %Ta later, captures named", Options{HAProxyCaptures: haproxyCaptures}, haproxyLine,
			http(timeline.Event{Start: ns("2026-12-01T12:00:18.031Z"), End: ns("2026-12-01T12:00:18.036Z"), Status: 429,
				Outcome: timeline.OutcomeThrottled, Route: route, TaskID: timeline.Intern("task-0002"), Attempt: 2})},
		{"unnamed captures are not read", Options{}, haproxyLine,
			http(timeline.Event{Start: ns("2026-12-01T12:00:18.031Z"), End: ns("2026-12-01T12:00:18.036Z"), Status: 429,
				Outcome: timeline.OutcomeThrottled, Route: route})},
		{"a 429 HAProxy denied itself (PR--, <NOSRV>) is the proxy's", Options{HAProxyCaptures: haproxyCaptures}, haproxyDenyLine,
			http(timeline.Event{Start: ns("2026-12-01T12:00:20.310Z"), End: ns("2026-12-01T12:00:20.310Z"), Status: 429,
				ErrorCode: timeline.Intern("haproxy:PR--"), Outcome: timeline.OutcomeThrottled, Route: route,
				TaskID: timeline.Intern("task-0003"), Attempt: 1})},
		{"a queue timeout's 503 is HAProxy's too", Options{HAProxyCaptures: haproxyCaptures}, haproxyQueueLine,
			http(timeline.Event{Start: ns("2026-12-01T12:00:21.002Z"), End: ns("2026-12-01T12:00:51.003Z"), Status: 503,
				ErrorCode: timeline.Intern("haproxy:sQ--"), Outcome: timeline.OutcomeRetryable, Route: route,
				TaskID: timeline.Intern("task-0004"), Attempt: 1})},
		{"no capture block at all", Options{}, haproxyNoCapLine,
			http(timeline.Event{Start: ns("2026-12-01T12:00:18.025Z"), End: ns("2026-12-01T12:00:18.238Z"), Status: 200,
				Outcome: timeline.OutcomeOK, Route: timeline.Intern("/v1/models")})},
		{"behind a syslog prefix", Options{}, "Dec  1 12:00:18 lb1 haproxy[2310]: " + haproxyNoCapLine,
			http(timeline.Event{Start: ns("2026-12-01T12:00:18.025Z"), End: ns("2026-12-01T12:00:18.238Z"), Status: 200,
				Outcome: timeline.OutcomeOK, Route: timeline.Intern("/v1/models")})},
		{"option httplog clf", Options{HAProxyCaptures: haproxyCaptures}, haproxyCLFLine,
			http(timeline.Event{Start: ns("2026-12-01T12:00:20Z"), End: ns("2026-12-01T12:00:20Z"), Status: 429,
				ErrorCode: timeline.Intern("haproxy:PR--"), Outcome: timeline.OutcomeThrottled, Route: route,
				TaskID: timeline.Intern("task-0003"), Attempt: 1})},
		{"a custom log-format with headers by name", Options{LogFormat: `%Ts.%ms %{+Q}r %ST %Ta %tsc %b/%s %[req.hdr(x-task-id)] %{+Q}[req.hdr(amz-sdk-request)] %[res.hdr(retry-after)]`},
			`1796126418.031 "POST /model/m/invoke HTTP/1.1" 429 5 ---- be_model/model1 task-0002 "attempt=2; max=3" 12`,
			http(timeline.Event{Start: ns("2026-12-01T12:00:18.031Z"), End: ns("2026-12-01T12:00:18.036Z"), Status: 429,
				Outcome: timeline.OutcomeThrottled, Route: timeline.Intern("/model/m/invoke"), TaskID: timeline.Intern("task-0002"),
				Attempt: 2, MaxAttempts: 3, RetryAfter: 12_000})},
		{"the unique id is the request's", Options{LogFormat: `[%tr] %ST %Ta %ID`},
			`[01/Dec/2026:12:00:18.031] 200 5 7F000001:B1C4_0A000415:1F90_6566C8E2_0003:77A1`,
			http(timeline.Event{Start: ns("2026-12-01T12:00:18.031Z"), End: ns("2026-12-01T12:00:18.036Z"), Status: 200,
				Outcome: timeline.OutcomeOK, RequestID: timeline.Intern("7F000001:B1C4_0A000415:1F90_6566C8E2_0003:77A1")})},
		{"a capture slot in a custom log-format", Options{LogFormat: `[%tr] %ST %Ta %[capture.req.hdr(1)]`, HAProxyCaptures: haproxyCaptures},
			`[01/Dec/2026:12:00:18.031] 200 5 2`,
			http(timeline.Event{Start: ns("2026-12-01T12:00:18.031Z"), End: ns("2026-12-01T12:00:18.036Z"), Status: 200,
				Outcome: timeline.OutcomeOK, Attempt: 3})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := readLines(t, tt.opt, tt.line)
			if len(tl.Events) != 1 {
				t.Fatalf("%d events; source %+v", len(tl.Events), tl.Sources[0])
			}
			if got := tl.Events[0]; got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if f := tl.Sources[0].Format; !strings.HasPrefix(f, "haproxy:") {
				t.Errorf("format %s", f)
			}
		})
	}
}

// TestHAProxyBadLines checks that every malformed line is skipped with a
// reason that names what is wrong and where, and that reading goes on.
func TestHAProxyBadLines(t *testing.T) {
	lines := []string{
		haproxyLine,
		strings.Replace(haproxyLine, "01/Dec/2026:12:00:18.031", "01/Dec/2026:12:00:18", 1),
		strings.Replace(haproxyLine, " 429 ", " 4290 ", 1),
		strings.Replace(haproxyLine, "0/0/0/4/5", "0/0/0/4/x", 1),
		haproxyLine[:60],
		strings.Replace(haproxyLine, `"POST`, `"POST`+"\x00", 1)[:len(haproxyLine)-3],
		haproxyLine + " trailing",
		haproxyLine,
	}
	tl := readLines(t, Options{Format: "haproxy", HAProxyCaptures: haproxyCaptures}, lines...)
	want := []timeline.Skip{
		{Line: 2, Reason: `bad %tr "01/Dec/2026:12:00:18"`},
		{Line: 3, Reason: `bad %ST "4290"`},
		{Line: 4, Reason: `bad %Ta "x"`},
		{Line: 5, Reason: `%s: no ' ' after column 60`},
		{Line: 6, Reason: `%r: unterminated quote at column 124`},
		{Line: 7, Reason: `unexpected text "trailing" after the end of the format`},
	}
	s := tl.Sources[0]
	if s.Lines != int64(len(lines)) || s.Skipped != int64(len(want)) || s.Parsed+s.Skipped != s.Lines {
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

func TestHAProxyLogFormatLanguage(t *testing.T) {
	tests := []struct {
		def, family string
	}{
		{haproxyHTTPLogFormat, "haproxy"},
		{haproxyCLFLogFormat, "haproxy"},
		{"httplog", "haproxy"},
		{"clf", "haproxy"},
		{`log-format "${HAPROXY_HTTP_LOG_FMT} %[req.hdr(x-task-id)]"`, "haproxy"},
		{`%ci:%cp [%tr] %ST %Ta`, "haproxy"},
		{`%h %l %u %t "%r" %>s %b`, "apache"},
		{`%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i" %D`, "apache"},
		{`[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%" %RESPONSE_CODE% %DURATION%`, "envoy"},
		{`%TRACE_ID% %RESPONSE_CODE%`, "envoy"},
		{`$remote_addr [$time_local] "$request" $status`, "nginx"},
		{"combined", "nginx"},
	}
	for _, tt := range tests {
		if got := logFormatFamily(tt.def); got != tt.family {
			t.Errorf("%s: %s, want %s", tt.def, got, tt.family)
		}
	}
	for _, def := range []string{"%ci %ST %Ta", "[%tr] %ST%Ta", "[%tr] %{+Q"} {
		if err := CompileLogFormat(def); err == nil {
			t.Errorf("%q compiled", def)
		}
	}
}

// TestHAProxyCaptureNote checks that captured headers no name explains are
// said to be unread, with the option that reads them.
func TestHAProxyCaptureNote(t *testing.T) {
	tl := readLines(t, Options{}, haproxyLine, haproxyDenyLine)
	w := tl.Sources[0].Warnings
	if len(w) != 1 || !strings.Contains(w[0], "2 captured request headers are not read") || !strings.Contains(w[0], "--haproxy-captures") {
		t.Errorf("warnings %q", w)
	}
	tl = readLines(t, Options{HAProxyCaptures: haproxyCaptures}, haproxyLine, haproxyDenyLine)
	if w := tl.Sources[0].Warnings; len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

func FuzzHAProxyLine(f *testing.F) {
	for _, l := range []string{haproxyLine, haproxyDenyLine, haproxyQueueLine, haproxyNoCapLine, haproxyCLFLine} {
		f.Add("", l)
	}
	f.Add(`%Ts.%ms %{+Q}r %ST %Ta %tsc %b/%s %[req.hdr(x-task-id)] %{+Q}[req.hdr(amz-sdk-request)] %[res.hdr(retry-after)]`,
		`1796126418.031 "POST /model/m/invoke HTTP/1.1" 429 5 ---- be_model/model1 task-0002 "attempt=2; max=3" 12`)
	f.Add(`[%t] %ST %Tt %hrl %hsl`, `[01/Dec/2026:12:00:18.031] 200 +5 "a" "b" "c"`)
	f.Fuzz(func(t *testing.T, def, line string) {
		opt := Options{Format: "haproxy", LogFormat: def, HAProxyCaptures: []string{"x-task-id", "x-stainless-retry-count", "res:retry-after"}}
		if def != "" {
			if _, err := compileHAProxyNamedOrCustom(def); err != nil {
				return
			}
		}
		checkAccounting(t, []byte(line+"\n"+line), opt)
	})
}
