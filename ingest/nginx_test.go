package ingest

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/stampede/stampede/timeline"
)

// ns parses an RFC 3339 time into Unix nanoseconds, for expectations.
func ns(s string) int64 {
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return tm.UnixNano()
}

func parseNginxLine(t *testing.T, format, line string) (timeline.Event, string) {
	t.Helper()
	f, err := compileNamedOrCustom(format)
	if err != nil {
		t.Fatal(err)
	}
	var e timeline.Event
	reason := newNginxParser(f, newInterner()).parse([]byte(line), &e)
	return e, reason
}

const retryLine = `127.0.0.1 - - [30/Nov/2026:02:47:31 +0000] "POST /model/m%3A0/invoke?x=1 HTTP/1.1" 429 65 "-" ` +
	`"Botocore/1.29.27 Python/3.11.2" 0.002 0.002 "-" "ttl=20261130T024931Z; attempt=2; max=3" ` +
	`"5aaf3621-5a14-4886-ae60-72f60c5f8788" "task-0022"`

type nginxLineCase struct {
	name   string
	format string
	line   string
	want   timeline.Event
}

// nginxLineCases also seed FuzzNginxLine.
func nginxLineCases() []nginxLineCase {
	return []nginxLineCase{
		{
			name: "retry format, botocore retry", format: "retry", line: retryLine,
			want: timeline.Event{
				Start: ns("2026-11-30T02:47:30.998Z"), End: ns("2026-11-30T02:47:31Z"),
				Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeThrottled, Status: 429,
				Attempt: 2, MaxAttempts: 3, RetryAfter: timeline.NoRetryAfter,
				Route: timeline.Intern("/model/m%3A0/invoke"), Client: timeline.Intern("Botocore/1.29.27 Python/3.11.2"),
				TaskID: timeline.Intern("task-0022"), CallID: timeline.Intern("5aaf3621-5a14-4886-ae60-72f60c5f8788"),
			},
		},
		{
			name: "combined has one timestamp", format: "combined",
			line: `10.0.0.1 - bob [30/Nov/2026:03:47:30 +0100] "GET /v1/x HTTP/1.1" 200 12 "-" "curl/8"`,
			want: timeline.Event{
				Start: ns("2026-11-30T02:47:30Z"), Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeOK,
				Status: 200, RetryAfter: timeline.NoRetryAfter, Route: timeline.Intern("/v1/x"), Client: timeline.Intern("curl/8"),
			},
		},
		{
			name: "stampede format with msec and retry-after", format: "stampede",
			line: `1.2.3.4 - - [30/Nov/2026:02:47:31 +0000] "POST /v1/chat/completions HTTP/1.1" 429 10 "-" "OpenAI/JS 6.49.0" ` +
				`0.250 0.249 "1" "-" "-" "task-7" 1796006851.500 "2"`,
			want: timeline.Event{
				Start: ns("2026-11-30T02:47:31.250Z"), End: ns("2026-11-30T02:47:31.5Z"),
				Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeThrottled, Status: 429,
				Attempt: 2, RetryAfter: timeline.MillisOf(2 * time.Second), Route: timeline.Intern("/v1/chat/completions"),
				Client: timeline.Intern("OpenAI/JS 6.49.0"), TaskID: timeline.Intern("task-7"),
			},
		},
		{
			name:   "retry-after as an HTTP date, relative to the log time",
			format: `$msec $status "$sent_http_retry_after"`,
			line:   `1796006851.000 503 "Mon, 30 Nov 2026 02:47:41 GMT"`,
			want: timeline.Event{
				Start: ns("2026-11-30T02:47:31Z"), Layer: timeline.LayerHTTP,
				Outcome: timeline.OutcomeRetryable, Status: 503, RetryAfter: timeline.MillisOf(10 * time.Second),
			},
		},
		{
			name:   "retry-after-ms wins over retry-after",
			format: `$msec $status $sent_http_retry_after $sent_http_retry_after_ms`,
			line:   `1796006851.000 429 2 1500.5`,
			want: timeline.Event{
				Start: ns("2026-11-30T02:47:31Z"), Layer: timeline.LayerHTTP,
				Outcome: timeline.OutcomeThrottled, Status: 429, RetryAfter: timeline.MillisOf(1500500 * time.Microsecond),
			},
		},
		{
			name:   "amzn error type on a 400 is a throttle",
			format: `[$time_iso8601] $status "$sent_http_x_amzn_errortype" $http_x_request_id`,
			line:   `[2026-11-30T03:47:31+01:00] 400 "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/" r-1`,
			want: timeline.Event{
				Start: ns("2026-11-30T02:47:31Z"), Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeThrottled,
				Status: 400, ErrorCode: timeline.Intern("ThrottlingException"), RequestID: timeline.Intern("r-1"), RetryAfter: timeline.NoRetryAfter,
			},
		},
		{
			name:   "upstream lists: final status is the last",
			format: `$msec rt=$request_time us=$upstream_status urt=$upstream_response_time ua=$upstream_addr x=$http_x_call_id`,
			line:   `1796006851.000 rt=1.000 us=502, 429 : 200 urt=0.5, 0.4 : 0.1 ua=10.0.0.1:80, 10.0.0.2:80 x=c-1`,
			want: timeline.Event{
				Start: ns("2026-11-30T02:47:30Z"), End: ns("2026-11-30T02:47:31Z"), Layer: timeline.LayerHTTP,
				Outcome: timeline.OutcomeOK, Status: 200, CallID: timeline.Intern("c-1"), RetryAfter: timeline.NoRetryAfter,
			},
		},
		{
			name:   "upstream status used when $status is absent; request_uri path",
			format: `$msec $upstream_status $request_uri "$http_x_job_id" $request_id`,
			line:   `1796006851.000 504 /batch/run?id=3 "job-9" abc`,
			want: timeline.Event{
				Start: ns("2026-11-30T02:47:31Z"), Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeRetryable,
				Status: 504, Route: timeline.Intern("/batch/run"), TaskID: timeline.Intern("job-9"), RequestID: timeline.Intern("abc"), RetryAfter: timeline.NoRetryAfter,
			},
		},
		{
			name:   "escape=json writes quotes as backslash-quote",
			format: `log_format j escape=json '{"t":"$msec","s":"$status","ua":"$http_user_agent"}';`,
			line:   `{"t":"1796006851.000","s":"200","ua":"say \"hi\" \\"}`,
			want: timeline.Event{
				Start: ns("2026-11-30T02:47:31Z"), Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeOK,
				Status: 200, Client: timeline.Intern(`say \"hi\" \\`), RetryAfter: timeline.NoRetryAfter,
			},
		},
		{
			name:   "dash means absent, escaped quotes stay inside the value",
			format: `[$time_local] "$request" $status "$http_user_agent" $request_time`,
			line:   `[30/Nov/2026:02:47:31 -0130] "-" 400 "a\x22b" -`,
			want: timeline.Event{
				Start: ns("2026-11-30T04:17:31Z"), Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeNonRetryable,
				Status: 400, Client: timeline.Intern(`a\x22b`), RetryAfter: timeline.NoRetryAfter,
			},
		},
	}
}

func TestNginxLine(t *testing.T) {
	for _, tt := range nginxLineCases() {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := parseNginxLine(t, tt.format, tt.line)
			if reason != "" {
				t.Fatalf("skipped: %s", reason)
			}
			if got != tt.want {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestNginxBadLines pins the exact reason and line number of every kind of
// unusable line, and that reading goes on after each.
func TestNginxBadLines(t *testing.T) {
	good := `1.2.3.4 - - [30/Nov/2026:02:47:31 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"`
	lines := []string{
		good,
		`1.2.3.4 - - [30/Nov/2026:02:47:31 +0000] "GET / HTTP/1.1" abc 1 "-" "ua"`,
		`1.2.3.4 - - [31/Foo/2026:02:47:31 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"`,
		`1.2.3.4 - - [30/Nov/2026:02:47:31 +0000] "GET / HTTP/1.1" 200 1 "-" "ua" "extra"`,
		`1.2.3.4 - - [30/Nov/2026:02:47:31 +0000] "GET / HTTP/1.1" 200 1 "-" "truncated`,
		``,
		`garbage`,
		good,
		`1.2.3.4 - - [30/Nov/2026:02:47:31 +0000] "GET / HTTP/1.1" 2000 1 "-" "ua"`,
	}
	want := []timeline.Skip{
		{Line: 2, Reason: `bad $status "abc"`},
		{Line: 3, Reason: `bad $time_local "31/Foo/2026:02:47:31 +0000"`},
		{Line: 4, Reason: `unexpected text at column 73 after the end of the format`},
		{Line: 5, Reason: `expected '"' after $http_user_agent at column 70`},
		{Line: 6, Reason: `blank line`},
		{Line: 7, Reason: `expected ' - ' after $remote_addr at column 1`},
		{Line: 9, Reason: `bad $status "2000"`},
	}
	tl, err := Read(strings.NewReader(strings.Join(lines, "\n")), "bad.log", Options{LogFormat: "combined"})
	if err != nil {
		t.Fatal(err)
	}
	s := tl.Sources[0]
	if s.Lines != 9 || s.Parsed != 2 || s.Skipped != 7 || s.Events != 2 {
		t.Errorf("accounting: %+v", s)
	}
	if len(s.Samples) != len(want) {
		t.Fatalf("samples: got %+v", s.Samples)
	}
	for i := range want {
		if s.Samples[i] != want[i] {
			t.Errorf("skip %d: got %+v, want %+v", i, s.Samples[i], want[i])
		}
	}
	if tl.Events[0].Line != 1 || tl.Events[1].Line != 8 {
		t.Errorf("event lines: %d, %d", tl.Events[0].Line, tl.Events[1].Line)
	}
}

func TestLineAccounting(t *testing.T) {
	good := `1.2.3.4 - - [30/Nov/2026:02:47:31 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"`
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	zst := func(s string) string {
		w, _ := zstd.NewWriter(nil)
		defer w.Close()
		return string(w.EncodeAll([]byte(s), nil))
	}
	full := gz(good + "\n" + good + "\n")
	fullZst := zst(good + "\n" + good + "\n")
	tests := []struct {
		name                   string
		input                  string
		lines, parsed, skipped int64
	}{
		{"empty", "", 0, 0, 0},
		{"final newline is not a line", good + "\n", 1, 1, 0},
		{"last line without newline is a line", good + "\n" + good, 2, 2, 0},
		{"CRLF", good + "\r\n" + good + "\r\n", 2, 2, 0},
		{"BOM", "\xef\xbb\xbf" + good + "\n", 1, 1, 0},
		{"blank lines count", "\n" + good + "\n\n", 3, 1, 2},
		{"truncated last line", good + "\n" + good[:40], 2, 1, 1},
		{"gzip", full, 2, 2, 0},
		{"gzip cut short", full[:len(full)-10], 3, 2, 1},
		{"gzip with a bad checksum", full[:len(full)-8] + "\x00\x00\x00\x00" + full[len(full)-4:], 3, 2, 1},
		{"zstd", fullZst, 2, 2, 0},
		// zstd decodes a block only whole: a cut in the only block loses it.
		{"zstd cut short", fullZst[:len(fullZst)-6], 1, 0, 1},
		{"line over 4 MiB", good + "\n" + strings.Repeat("x", 5<<20) + "\n" + good + "\n", 3, 2, 1},
		{"line over 4 MiB at the end", good + "\n" + strings.Repeat("x", 5<<20), 2, 1, 1},
		{"long line under the bound", good + "\n" + strings.Repeat("y", 2<<20) + "\n", 2, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := Read(strings.NewReader(tt.input), "x.log", Options{Format: "nginx", LogFormat: "combined"})
			if err != nil {
				t.Fatal(err)
			}
			if len(tl.Sources) != 1 {
				t.Fatalf("%d sources", len(tl.Sources))
			}
			s := tl.Sources[0]
			if s.Lines != tt.lines || s.Parsed != tt.parsed || s.Skipped != tt.skipped || s.Parsed+s.Skipped != s.Lines {
				t.Errorf("got lines=%d parsed=%d skipped=%d, want %d %d %d (%+v)", s.Lines, s.Parsed, s.Skipped, tt.lines, tt.parsed, tt.skipped, s.Samples)
			}
		})
	}
}

func TestLongLineReason(t *testing.T) {
	tl, err := Read(strings.NewReader(strings.Repeat("x", 5<<20)+"\n"), "x.log", Options{LogFormat: "combined"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tl.Sources[0].Samples; len(got) != 1 || got[0] != (timeline.Skip{Line: 1, Reason: "line longer than 4 MiB"}) {
		t.Errorf("samples %+v", got)
	}
}

func TestNginxAutoPick(t *testing.T) {
	combined := `1.2.3.4 - - [30/Nov/2026:02:47:31 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"`
	main := combined + ` "10.1.1.1"`
	tests := []struct {
		name, input, format string
	}{
		{"combined", combined + "\n", "nginx:combined"},
		{"main", main + "\n", "nginx:main"},
		{"retry", retryLine + "\n", "nginx:retry"},
		{"one bad line in twenty still picks", strings.Repeat(combined+"\n", 19) + "junk\n", "nginx:combined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := Read(strings.NewReader(tt.input), "a.log", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := tl.Sources[0].Format; got != tt.format {
				t.Errorf("format %q, want %q", got, tt.format)
			}
		})
	}
}

func TestDetectionErrors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		opt   Options
		want  []string
	}{
		{"unknown text lists every candidate", "hello world\n", Options{},
			[]string{"u.log: cannot detect the format; tried har (the input does not start with '{'); otlp-json (0 of 1 lines are JSON with resourceSpans); aws-js-v3 (no JSON line with",
				"envoy-json (0 of 1 lines are JSON", "k6 (0 of 1 lines", "jmeter", "vegeta-csv", "traefik-clf", "apigateway-clf",
				"jsonl (0 of 1 lines start with '{')",
				`openai-node (no timestamped "[log_…]" request line)`, "botocore (no timestamped botocore request or retry line)",
				"openai-python (no httpx",
				"read with --log-format and its definition",
				"nginx:stampede (0 of 1 lines parse; line 1: expected ' - ' after $remote_addr at column 1)",
				"nginx:retry", "nginx:main", "nginx:combined", "apache:combined (0 of 1 lines parse; line 1: expected ' ' after %l at column 7)",
				"apache:common", "envoy:default (0 of 1 lines parse; line 1: expected '[' at column 1)",
				"alb (0 of 1 lines parse; line 1: 2 fields, an ALB entry has at least 14)"}},
		{"nginx without a fitting named format", "hello\n", Options{Format: "nginx"}, []string{"nginx:combined (0 of 1"}},
		{"invalid log_format", "x\n", Options{LogFormat: "$msec$status"}, []string{"u.log: log_format: $msec and $status"}},
		{"unknown format", "x\n", Options{Format: "csv"}, []string{`unknown format "csv": want auto, nginx, jsonl, apache, envoy, envoy-json, haproxy, cloudfront, alb, openai-node, botocore, openai-python, aws-js-v3, otlp-json, har, k6, vegeta-json`}},
		{"invalid Apache LogFormat", "x\n", Options{LogFormat: `%t %>s%D`}, []string{`u.log: LogFormat: %>s and %D are not separated`}},
		{"invalid envoy format", "x\n", Options{Format: "envoy", LogFormat: `[%START_TIME%] %DURATION`}, []string{`envoy format: %DURATION at offset 15 has no closing '%'`}},
		{"Apache format without a time", "x\n", Options{Format: "apache", LogFormat: `%h %>s`}, []string{`LogFormat: no time (%t or %{sec}t)`}},
		{"bad field mapping", "{}\n", Options{Format: "jsonl", Fields: map[string]string{"when": "t"}}, []string{`unknown field "when"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.input), "u.log", tt.opt)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestEmptyInputs(t *testing.T) {
	for _, opt := range []Options{{}, {Format: "nginx"}, {Format: "jsonl"}, {LogFormat: "retry"}} {
		for _, in := range []string{"", "\n\n"} {
			tl, err := Read(strings.NewReader(in), "e.log", opt)
			if err != nil {
				t.Fatalf("%+v %q: %v", opt, in, err)
			}
			s := tl.Sources[0]
			if len(tl.Events) != 0 || s.Parsed+s.Skipped != s.Lines {
				t.Errorf("%+v %q: %+v", opt, in, s)
			}
		}
	}
}
