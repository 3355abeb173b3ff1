package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
)

const (
	apacheCombinedLine = `10.1.4.20 - - [30/Nov/2026:02:47:30 +0000] "POST /v1/messages HTTP/1.1" 429 112 "-" "anthropic-sdk-python/0.40.0"`
	apacheCommonLine   = `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`
	envoyDefaultLine   = `[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"`
	envoyJSONLine      = `{"start_time":"2026-11-30T02:47:30.400Z","path":"/v1/x","response_code":"429","response_flags":"URX","duration":"1210","upstream_request_attempt_count":"2","user_agent":"ua","x_request_id":"-"}`
	albLine            = `https 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.086 0.048 0.037 200 200 0 57 "GET https://www.example.com:443/ HTTP/1.1" "curl/7.46.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337281-1d84f3d73c47ec4e58577259" "www.example.com" "arn:aws:acm:us-east-2:123456789012:certificate/12345678-1234-1234-1234-123456789012" 1 2018-07-02T22:22:48.364000Z "authenticate,forward" "-" "-" "10.0.0.1:80" "200" "-" "-"`
	albELB429Line      = `https 2026-11-30T02:47:30.500311Z app/api/50dc 10.20.1.17:53418 - -1 -1 -1 429 - 1834 150 "POST https://api.example.com:443/v1/x HTTP/1.1" "ua" - - - "Root=1-a" "api.example.com" "-" 0 2026-11-30T02:47:30.500101Z "waf" "-" "-" "-" "-" "-" "-"`
)

// TestDetection pins which format the sniffer chain picks for each kind
// of input, including the lines nginx and Apache share.
func TestDetection(t *testing.T) {
	tests := []struct {
		name, input, format string
	}{
		{"combined lines are nginx's first", apacheCombinedLine, "nginx:combined"},
		{"common is Apache's", apacheCommonLine, "apache:common"},
		{"Apache combined with an ident nginx cannot have", strings.Replace(apacheCombinedLine, " - - ", " ident - ", 1), "apache:combined"},
		{"Envoy default", envoyDefaultLine, "envoy:default"},
		{"Envoy JSON before JSONL", envoyJSONLine, "envoy-json"},
		{"JSONL without Envoy keys stays JSONL", `{"start_time":"2026-11-30T02:47:30Z","status":429}`, "jsonl"},
		{"ALB", albLine + "\n" + albELB429Line, "alb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := readLines(t, Options{}, tt.input)
			s := tl.Sources[0]
			if s.Format != tt.format {
				t.Errorf("format %q, want %q", s.Format, tt.format)
			}
			if s.Skipped != 0 {
				t.Errorf("skipped %+v", s.Samples)
			}
		})
	}
}

// TestFormatOption checks that every registered format can be forced, by
// name, alias or name:variant, and that a LogFormat's language is
// recognised from its text.
func TestFormatOption(t *testing.T) {
	tests := []struct {
		name  string
		opt   Options
		input string
		want  string
	}{
		{"nginx", Options{Format: "nginx"}, apacheCombinedLine, "nginx:combined"},
		{"apache picks among its named formats", Options{Format: "apache"}, apacheCombinedLine, "apache:combined"},
		{"apache:common", Options{Format: "apache:common"}, apacheCommonLine, "apache:common"},
		{"LogFormat wins over the variant", Options{Format: "apache:combined", LogFormat: "common"}, apacheCommonLine, "apache:common"},
		{"APACHE:combined (case of the name)", Options{Format: "APACHE:combined"}, apacheCombinedLine, "apache:combined"},
		{"common names Apache's", Options{LogFormat: "common"}, apacheCommonLine, "apache:common"},
		{"combined keeps meaning nginx's", Options{LogFormat: "combined"}, apacheCombinedLine, "nginx:combined"},
		{"Apache directives", Options{LogFormat: `%h %l %u %t "%r" %>s %b`}, apacheCommonLine, "apache:custom"},
		{"Apache directive", Options{LogFormat: `LogFormat "%h %l %u %t \"%r\" %>s %b" common`}, apacheCommonLine, "apache:custom"},
		{"envoy", Options{Format: "envoy"}, envoyDefaultLine, "envoy:default"},
		{"envoy:default", Options{Format: "envoy:default"}, envoyDefaultLine, "envoy:default"},
		{"Envoy operators", Options{LogFormat: EnvoyDefaultFormat + `\n`}, envoyDefaultLine, "envoy:custom"},
		{"envoy-json", Options{Format: "envoy-json"}, envoyJSONLine, "envoy-json"},
		{"jsonl alias", Options{Format: "ndjson"}, envoyJSONLine, "jsonl"},
		{"a field mapping means JSONL", Options{Fields: map[string]string{"status": "response_code"}}, envoyJSONLine, "jsonl"},
		{"alb", Options{Format: "alb"}, albLine, "alb"},
		{"alb alias", Options{Format: "aws-alb"}, albLine, "alb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := readLines(t, tt.opt, tt.input)
			if s := tl.Sources[0]; s.Format != tt.want || s.Skipped != 0 {
				t.Errorf("format %q, want %q; skips %+v", s.Format, tt.want, s.Samples)
			}
		})
	}
}

func TestFormatsRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Formats() {
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			if seen[n] || n != strings.ToLower(n) || strings.Contains(n, ":") {
				t.Errorf("format name %q is repeated or not lower case without ':'", n)
			}
			seen[n] = true
		}
		if f.Detect == "" || len(f.Fields) == 0 {
			t.Errorf("%s: no detection rule or fields", f.Name)
		}
		for _, field := range f.Fields {
			if _, err := jsonFieldByName(field); err != nil && field != "max_attempts" {
				t.Errorf("%s: field %q is not a timeline field name", f.Name, field)
			}
		}
		// A registered format opens on empty input.
		if _, err := Read(strings.NewReader(""), "e", Options{Format: f.Name}); err != nil {
			t.Errorf("%s on empty input: %v", f.Name, err)
		}
	}
	Formats()[0].Fields[0] = "changed"
	if Formats()[0].Fields[0] == "changed" {
		t.Error("Formats shares its slices with the registry")
	}
}

func TestCompileApacheFormat(t *testing.T) {
	tests := []struct {
		def   string
		kinds []varKind
		err   string
	}{
		{def: `%h %t "%r" %>s %D %{X-Task-Id}i %{Retry-After}o %{ms}T %T %{us}T %400,501{User-Agent}i %L %U`,
			kinds: []varKind{varIgnored, varTimeLocal, varRequest, varStatus, varDurationUs, varTaskID, varRetryAfter,
				varDurationMs, varRequestTime, varDurationUs, varUserAgent, varRequestID, varURI}},
		{def: `%{%d/%b/%Y:%H:%M:%S %z}t %s`, kinds: []varKind{varTimeLocal, varStatus}},
		{def: `%{msec}t 100%% %>s`, kinds: []varKind{varTimeEpochMs, varStatus}},
		{def: `%{%Y-%m-%d}t %s`, err: `LogFormat: %{%Y-%m-%d}t: stampede reads %t`},
		{def: `%t %{m}T`, err: `LogFormat: %{m}T: the unit must be s, ms or us`},
		{def: `%t %i`, err: `LogFormat: %i needs a header name`},
		{def: `%t %{Referer`, err: `LogFormat: unterminated %{ at offset 3`},
		{def: `%t %`, err: `LogFormat: '%' at offset 3 is not followed by a directive`},
		{def: `%t %{x}#`, err: `LogFormat: "%{x}#" is not a directive`},
		{def: `"%t %s`, err: `LogFormat: unterminated quote`},
	}
	for _, tt := range tests {
		f, err := compileApacheFormat("custom", tt.def)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.def, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.def, err)
			continue
		}
		var got []varKind
		for _, fd := range f.fields {
			got = append(got, fd.kind)
		}
		if len(got) != len(tt.kinds) {
			t.Errorf("%s: kinds %v, want %v", tt.def, got, tt.kinds)
			continue
		}
		for i := range got {
			if got[i] != tt.kinds[i] {
				t.Errorf("%s: field %d (%s) kind %d, want %d", tt.def, i, f.fields[i].tok, got[i], tt.kinds[i])
			}
		}
	}
}

func TestCompileEnvoyFormat(t *testing.T) {
	tests := []struct {
		def   string
		kinds []varKind
		err   string
	}{
		{def: `%START_TIME(%Y-%m-%dT%H:%M:%E3SZ)% %RESPONSE_CODE% %RESPONSE_FLAGS% %DURATION% %UPSTREAM_REQUEST_ATTEMPT_COUNT% ` +
			`%REQ(:PATH)% %REQ(USER-AGENT):20% %REQ(X-ENVOY-ATTEMPT-COUNT)% %RESP(X-ENVOY-ATTEMPT-COUNT)% %RESP(RETRY-AFTER)% %BYTES_SENT%`,
			kinds: []varKind{varTimeISO, varStatus, varResponseFlags, varDurationMs, varAttemptCount, varURI, varUserAgent,
				varAttemptNumber, varAttemptCount, varRetryAfter, varIgnored}},
		{def: `'%START_TIME(%s)% %RESPONSE_CODE%\n'`, kinds: []varKind{varMsec, varStatus}},
		{def: `%START_TIME(%d/%m)% %RESPONSE_CODE%`, err: `envoy format: %START_TIME(%d/%m)%: stampede reads`},
		{def: `%START_TIME%%RESPONSE_CODE%`, err: `envoy format: %START_TIME% and %RESPONSE_CODE% are not separated`},
		{def: `%START_TIME% %REQ(X`, err: `envoy format: unterminated %REQ( at offset 13`},
		{def: `%START_TIME% % %`, err: `envoy format: '%' at offset 13 is not followed by an operator`},
		{def: `%RESPONSE_CODE%`, err: `envoy format: no time (%START_TIME%)`},
	}
	for _, tt := range tests {
		f, err := compileEnvoyFormat("custom", tt.def)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.def, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.def, err)
			continue
		}
		var got []varKind
		for _, fd := range f.fields {
			got = append(got, fd.kind)
		}
		if len(got) != len(tt.kinds) {
			t.Errorf("%s: kinds %v, want %v", tt.def, got, tt.kinds)
			continue
		}
		for i := range got {
			if got[i] != tt.kinds[i] {
				t.Errorf("%s: field %d (%s) kind %d, want %d", tt.def, i, f.fields[i].tok, got[i], tt.kinds[i])
			}
		}
	}
}

type lineCase struct {
	name string
	opt  Options
	line string
	want []timeline.Event
}

// formatLineCases also seed FuzzFormatLine.
func formatLineCases() []lineCase {
	http := func(e timeline.Event) timeline.Event {
		e.Layer, e.Line = timeline.LayerHTTP, 1
		if e.RetryAfter == 0 {
			e.RetryAfter = timeline.NoRetryAfter
		}
		return e
	}
	return []lineCase{
		{
			name: "Apache %t is the start, %D the duration",
			opt:  Options{LogFormat: `%t "%r" %>s %D "%{User-Agent}i" "%{X-Task-Id}i" "%{Retry-After}o"`},
			line: `[30/Nov/2026:03:47:30 +0100] "POST /v1/messages?x=1 HTTP/1.1" 429 250000 "sdk/1" "task-1" "3"`,
			want: []timeline.Event{http(timeline.Event{Start: ns("2026-11-30T02:47:30Z"), End: ns("2026-11-30T02:47:30.25Z"),
				Status: 429, Outcome: timeline.OutcomeThrottled, Route: timeline.Intern("/v1/messages"), Client: timeline.Intern("sdk/1"), TaskID: timeline.Intern("task-1"),
				RetryAfter: timeline.MillisOf(3 * time.Second)})},
		},
		{
			name: "Apache %{ms}T and %{msec}t",
			opt:  Options{Format: "apache", LogFormat: `%{msec}t %s %{ms}T`},
			line: `1796006850500 503 1500`,
			want: []timeline.Event{http(timeline.Event{Start: ns("2026-11-30T02:47:30.5Z"), End: ns("2026-11-30T02:47:32Z"),
				Status: 503, Outcome: timeline.OutcomeRetryable})},
		},
		{
			name: "Apache %T in whole seconds",
			opt:  Options{Format: "apache", LogFormat: `%{sec}t %s %T`},
			line: `1796006850 200 2`,
			want: []timeline.Event{http(timeline.Event{Start: ns("2026-11-30T02:47:30Z"), End: ns("2026-11-30T02:47:32Z"),
				Status: 200, Outcome: timeline.OutcomeOK})},
		},
		{
			name: "Envoy default",
			opt:  Options{Format: "envoy"},
			line: envoyDefaultLine,
			want: []timeline.Event{http(timeline.Event{Start: ns("2016-04-15T20:17:00.31Z"), End: ns("2016-04-15T20:17:00.536Z"),
				Status: 204, Outcome: timeline.OutcomeOK, Route: timeline.Intern("/api/v1/locations"), Client: timeline.Intern("nsq2http"),
				RequestID: timeline.Intern("cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2")})},
		},
		{
			name: "Envoy flags on a success only annotate",
			opt:  Options{LogFormat: `%START_TIME% %RESPONSE_CODE% %RESPONSE_FLAGS%`},
			line: `2026-11-30T02:47:30Z 200 DI`,
			want: []timeline.Event{http(timeline.Event{Start: ns("2026-11-30T02:47:30Z"), Status: 200, Outcome: timeline.OutcomeOK})},
		},
		{
			name: "Envoy x-envoy-attempt-count numbers the attempt; RL is a throttle",
			opt:  Options{LogFormat: `%START_TIME% %RESPONSE_CODE% %RESPONSE_FLAGS% %REQ(X-ENVOY-ATTEMPT-COUNT)%`},
			line: `2026-11-30T02:47:30Z 429 RL 3`,
			want: []timeline.Event{http(timeline.Event{Start: ns("2026-11-30T02:47:30Z"), Status: 429, Attempt: 3,
				Outcome: timeline.OutcomeThrottled, ErrorCode: timeline.Intern("RL")})},
		},
		{
			name: "Envoy upstream retries: N attempts, the last with the final status",
			opt:  Options{LogFormat: `%START_TIME% %RESPONSE_CODE% %RESPONSE_FLAGS% %DURATION% %UPSTREAM_REQUEST_ATTEMPT_COUNT%`},
			line: `2026-11-30T02:47:30Z 503 URX 900 3`,
			want: []timeline.Event{
				http(timeline.Event{Start: ns("2026-11-30T02:47:30Z"), Attempt: 1, Outcome: timeline.OutcomeRetryable}),
				http(timeline.Event{Start: ns("2026-11-30T02:47:30Z"), Attempt: 2, Outcome: timeline.OutcomeRetryable}),
				http(timeline.Event{Start: ns("2026-11-30T02:47:30Z"), End: ns("2026-11-30T02:47:30.9Z"), Attempt: 3,
					Status: 503, ErrorCode: timeline.Intern("URX"), Outcome: timeline.OutcomeRetryable}),
			},
		},
		{
			name: "Envoy JSON, every value a string",
			opt:  Options{},
			line: envoyJSONLine,
			want: []timeline.Event{
				http(timeline.Event{Start: ns("2026-11-30T02:47:30.4Z"), Attempt: 1, Outcome: timeline.OutcomeRetryable,
					Route: timeline.Intern("/v1/x"), Client: timeline.Intern("ua")}),
				http(timeline.Event{Start: ns("2026-11-30T02:47:30.4Z"), End: ns("2026-11-30T02:47:31.61Z"), Attempt: 2,
					Status: 429, ErrorCode: timeline.Intern("URX"), Outcome: timeline.OutcomeThrottled, Route: timeline.Intern("/v1/x"), Client: timeline.Intern("ua")}),
			},
		},
		{
			name: "ALB: a 429 the load balancer made is marked elb",
			opt:  Options{Format: "alb"},
			line: albELB429Line,
			want: []timeline.Event{http(timeline.Event{Start: ns("2026-11-30T02:47:30.500101Z"), End: ns("2026-11-30T02:47:30.500311Z"),
				Status: 429, ErrorCode: timeline.Intern(ALBErrorCode), Outcome: timeline.OutcomeThrottled, Route: timeline.Intern("/v1/x"), Client: timeline.Intern("ua"),
				RequestID: timeline.Intern("Root=1-a")})},
		},
		{
			name: "ALB without request_creation_time starts at time minus the processing times",
			opt:  Options{Format: "alb"},
			line: `http 2026-11-30T02:47:31Z my-lb 1.2.3.4:1 10.0.0.1:80 0.250 0.500 0.250 429 429 0 29 "GET http://h:80/v1/y?q HTTP/1.1" "curl/7.38.0"`,
			want: []timeline.Event{http(timeline.Event{Start: ns("2026-11-30T02:47:30Z"), End: ns("2026-11-30T02:47:31Z"),
				Status: 429, Outcome: timeline.OutcomeThrottled, Route: timeline.Intern("/v1/y"), Client: timeline.Intern("curl/7.38.0")})},
		},
	}
}

func TestFormatLines(t *testing.T) {
	for _, tt := range formatLineCases() {
		t.Run(tt.name, func(t *testing.T) {
			tl := readLines(t, tt.opt, tt.line)
			if s := tl.Sources[0]; s.Skipped != 0 || s.Events != int64(len(tt.want)) {
				t.Fatalf("accounting %+v", s)
			}
			for i := range tt.want {
				if tl.Events[i] != tt.want[i] {
					t.Errorf("event %d:\n got %+v\nwant %+v", i, tl.Events[i], tt.want[i])
				}
			}
		})
	}
}

// TestFormatBadLines pins the exact reason and line number of each kind of
// unusable line in every format, and that reading goes on after each.
func TestFormatBadLines(t *testing.T) {
	tests := []struct {
		name  string
		opt   Options
		lines []string
		want  []timeline.Skip
	}{
		{
			name: "apache combined",
			opt:  Options{Format: "apache:combined"},
			lines: []string{
				apacheCombinedLine,
				strings.Replace(apacheCombinedLine, "429", "4x9", 1),
				strings.Replace(apacheCombinedLine, "Nov", "Foo", 1),
				apacheCombinedLine + " extra",
				strings.TrimSuffix(apacheCombinedLine, `"`),
				apacheCommonLine,
				apacheCombinedLine,
			},
			want: []timeline.Skip{
				{Line: 2, Reason: `bad %>s "4x9"`},
				{Line: 3, Reason: `bad %t "30/Foo/2026:02:47:30 +0000"`},
				{Line: 4, Reason: `unexpected text at column 114 after the end of the format`},
				{Line: 5, Reason: `expected '"' after %{User-Agent}i at column 86`},
				{Line: 6, Reason: `expected ' "' after %b at column 82`},
			},
		},
		{
			name: "envoy default",
			opt:  Options{Format: "envoy"},
			lines: []string{
				envoyDefaultLine,
				strings.Replace(envoyDefaultLine, "2016-04-15T", "2016-04-15 X", 1),
				strings.Replace(envoyDefaultLine, " 226 ", " 2.2.6 ", 1),
				strings.Replace(envoyDefaultLine, " 204 ", " 2040 ", 1),
				`plain text`,
				envoyDefaultLine,
			},
			want: []timeline.Skip{
				{Line: 2, Reason: `bad %START_TIME% "2016-04-15 X20:17:00.310Z"`},
				{Line: 3, Reason: `bad %DURATION% "2.2.6"`},
				{Line: 4, Reason: `bad %RESPONSE_CODE% "2040"`},
				{Line: 5, Reason: `expected '[' at column 1`},
			},
		},
		{
			name: "envoy json",
			opt:  Options{Format: "envoy-json"},
			lines: []string{
				envoyJSONLine,
				`{"response_code":200}`,
				`{"start_time":"2026-11-30T02:47:30Z","response_code":"ok"}`,
				`{"start_time":"2026-11-30T02:47:30Z","duration":"slow"}`,
				`{"start_time":"2026-11-30T02:47:30Z","upstream_request_attempt_count":true}`,
				`{"start_time":`,
				envoyJSONLine,
			},
			want: []timeline.Skip{
				{Line: 2, Reason: `no start time (looked for start_time, timestamp, @timestamp)`},
				{Line: 3, Reason: `bad response_code "ok": want a whole number`},
				{Line: 4, Reason: `bad duration "slow": want a duration`},
				{Line: 5, Reason: `bad upstream_request_attempt_count true: want a whole number`},
				{Line: 6, Reason: `invalid JSON at byte 15: expected a value`},
			},
		},
		{
			name: "alb",
			opt:  Options{Format: "alb"},
			lines: []string{
				albLine,
				strings.Replace(albLine, "https ", "ftp ", 1),
				strings.Replace(albLine, "2018-07-02T22:23:00.186641Z", "yesterday", 1),
				strings.Replace(albLine, "0.048", "x", 1),
				strings.Replace(albLine, " 200 200 ", " 2000 200 ", 1),
				strings.Replace(albLine, " 200 200 ", " 200 OK ", 1),
				strings.Replace(albLine, "2018-07-02T22:22:48.364000Z", "soon", 1),
				`https 2018-07-02T22:23:00.186641Z app/lb 1.2.3.4:1`,
				`https 2018-07-02T22:23:00.186641Z app/lb 1.2.3.4:1 - 0 0 0 200 200 0 57 "GET / HTTP/1.1`,
				albLine,
			},
			want: []timeline.Skip{
				{Line: 2, Reason: `type "ftp" is not http, https, h2, grpcs, ws or wss`},
				{Line: 3, Reason: `bad time "yesterday"`},
				{Line: 4, Reason: `bad target_processing_time "x"`},
				{Line: 5, Reason: `bad elb_status_code "2000"`},
				{Line: 6, Reason: `bad target_status_code "OK"`},
				{Line: 7, Reason: `bad request_creation_time "soon"`},
				{Line: 8, Reason: `4 fields, an ALB entry has at least 14`},
				{Line: 9, Reason: `unterminated quote in request at column 73`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := readLines(t, tt.opt, tt.lines...)
			s := tl.Sources[0]
			if s.Lines != int64(len(tt.lines)) || s.Skipped != int64(len(tt.want)) || s.Parsed+s.Skipped != s.Lines {
				t.Errorf("accounting %+v", s)
			}
			if len(s.Samples) != len(tt.want) {
				t.Fatalf("skips %+v", s.Samples)
			}
			for i := range tt.want {
				if s.Samples[i] != tt.want[i] {
					t.Errorf("skip %d: got %+v, want %+v", i, s.Samples[i], tt.want[i])
				}
			}
			if last := tl.Events[len(tl.Events)-1]; last.Line != s.Lines {
				t.Errorf("last event on line %d, want %d", last.Line, s.Lines)
			}
		})
	}
}
