package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/internal/golden"
	"github.com/stampede/stampede/timeline"
)

// sdkNow fixes the reading time so that syslog stamps get a stable year.
var sdkNow = ns("2026-11-30T12:00:00Z")

// sdkFormats are the SDK log parsers, constructed with a fixed clock.
var sdkFormats = []struct {
	name  string
	new   func(*interner) lineParser
	sniff sniffer
}{
	{"aws-js-v3", func(s *interner) lineParser { return newAWSJSParser(s) }, sniffAWSJS},
	// Detected by sniffAWSJS, as a variant of aws-js-v3.
	{"aws-js-v3:console", func(*interner) lineParser { return awsJSConsoleParser{} }, nil},
	{"openai-node", func(s *interner) lineParser {
		p := newOpenAINodeParser(s)
		p.pre.now = sdkNow
		return p
	}, sniffOpenAINode},
	{"botocore", func(s *interner) lineParser {
		p := newBotocoreParser(s)
		p.pre.now = sdkNow
		return p
	}, sniffBotocore},
	{"openai-python", func(s *interner) lineParser {
		p := newOpenAIPythonParser(s)
		p.pre.now = sdkNow
		return p
	}, sniffOpenAIPython},
}

func sdkParser(t testing.TB, name string) lineParser {
	for _, f := range sdkFormats {
		if f.name == name {
			return f.new(newInterner())
		}
	}
	t.Fatalf("no SDK format %q", name)
	return nil
}

// readSDK feeds input to p through parseLines, read's own line loop (BOM,
// CRLF, blank lines, accounting), so the parsers are tested without
// detection.
func readSDK(p lineParser, name string, input []byte) *timeline.Timeline {
	t := &timeline.Timeline{Sources: []timeline.Source{{Path: name, Format: p.format()}}}
	lr := &lineReader{r: bufio.NewReaderSize(bytes.NewReader(input), 64<<10)}
	// A reader over bytes fails only at EOF, which parseLines absorbs.
	_ = parseLines(lr, t, p, false, name)
	return t
}

func readSDKFile(t testing.TB, format, path string) *timeline.Timeline {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return readSDK(sdkParser(t, format), path, b)
}

var sdkDir = filepath.Join("..", "testdata", "ingest", "sdk")

// sdkExamples are the example files, by format.
var sdkExamples = []struct{ format, file string }{
	{"openai-node", "openai-node/no-throttle.log"},
	{"openai-node", "openai-node/retries.log"},
	{"openai-node", "openai-node/debug-retry-after.log"},
	{"botocore", "botocore/standard.log"},
	{"botocore", "botocore/legacy-adaptive.log"},
	{"botocore", "botocore/legacy-429.log"},
	{"openai-python", "openai-python/retries.log"},
	{"openai-python", "openai-python/retry-only.log"},
	{"openai-python", "openai-python/debug-headers.log"},
	{"aws-js-v3", "aws-js-v3/calls.jsonl"},
	{"aws-js-v3", "aws-js-v3/prefixed.log"},
	{"aws-js-v3:console", "aws-js-v3/console.txt"},
	{"openai-node", "openai-node/console-no-time.log"},
}

func TestSDKGolden(t *testing.T) {
	for _, ex := range sdkExamples {
		t.Run(ex.file, func(t *testing.T) {
			path := filepath.Join(sdkDir, ex.file)
			got := renderTimeline(readSDKFile(t, ex.format, path))
			golden.Check(t, path+".golden", []byte(got))
		})
	}
}

// TestSDKSniffers checks that each sniffer claims its own examples and no
// other format's, nor any other example under testdata/ingest.
func TestSDKSniffers(t *testing.T) {
	files := map[string]string{}
	root := filepath.Join("..", "testdata", "ingest")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".golden", ".md", ".conf":
			return nil
		}
		files[path] = ""
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range sdkExamples {
		files[filepath.Join(sdkDir, ex.file)] = ex.format
	}
	for file, owner := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sample := sampleOf(b, true)
		// A variant is claimed by its family's sniffer.
		family, _, _ := strings.Cut(owner, ":")
		for _, f := range sdkFormats {
			if f.sniff == nil {
				continue
			}
			p, why := f.sniff(sample, Options{}, newInterner())
			switch {
			case f.name == family && p == nil:
				t.Errorf("%s: %s does not claim it: %s", file, f.name, why)
			case f.name == family && p.format() != owner:
				t.Errorf("%s: %s sniffer returned a %s parser", file, f.name, p.format())
			case f.name != family && p != nil:
				t.Errorf("%s: %s claims it", file, f.name)
			case f.name != family && !strings.HasPrefix(why, f.name+" ("):
				t.Errorf("%s: %s says %q, want it to name the format", file, f.name, why)
			}
		}
	}
}

func TestLogPrefix(t *testing.T) {
	lp := logPrefix{now: sdkNow}
	tests := []struct {
		line string
		want string // RFC 3339, or "" when no time is recognised
		rest string
	}{
		{"2026-11-30T02:47:25.582Z DEBUG x", "2026-11-30T02:47:25.582Z", " DEBUG x"},
		{"2026-08-21 10:15:02,123 - httpx - INFO - m", "2026-08-21T10:15:02.123Z", " - httpx - INFO - m"},
		{"[2026-08-21 10:15:04 - httpx:1025 - INFO] m", "2026-08-21T10:15:04Z", " - httpx:1025 - INFO] m"},
		{"2026-08-21T10:15:05.010+02:00 INFO m", "2026-08-21T08:15:05.01Z", " INFO m"},
		{"2026-08-21T10:15:05-0500 m", "2026-08-21T15:15:05Z", " m"},
		{"2026-08-21 10:15:05 m", "2026-08-21T10:15:05Z", " m"},
		{"Nov 30 02:47:25 host app: m", "2026-11-30T02:47:25Z", " host app: m"},
		{"Nov  3 02:47:25.250 host", "2026-11-03T02:47:25.25Z", " host"},
		{"Dec 31 23:59:59 host", "2025-12-31T23:59:59Z", " host"}, // a month ahead: last year
		{"1796006845.582 m", "2026-11-30T02:47:25.582Z", " m"},
		{"1796006845582 m", "2026-11-30T02:47:25.582Z", " m"},
		{"INFO:httpx:HTTP Request", "", ""},
		{"200 OK", "", ""},
		{"2026-11-30T02:47:25.582Zulu", "", ""},
		{"2026-13-30T02:47:25Z x", "", ""},
		{"Foo 30 02:47:25 x", "", ""},
		{"", "", ""},
		{"[", "", ""},
	}
	for _, tt := range tests {
		ts, rest, ok := lp.split([]byte(tt.line))
		if tt.want == "" {
			if ok {
				t.Errorf("%q: got time %d, want none", tt.line, ts)
			}
			continue
		}
		if !ok || ts != ns(tt.want) || string(rest) != tt.rest {
			t.Errorf("%q: got %v %q %v, want %s %q", tt.line, ts, rest, ok, tt.want, tt.rest)
		}
	}
}

func TestSDKLines(t *testing.T) {
	tests := []struct {
		format, line string
		want         timeline.Event
	}{
		{
			"openai-node", `2026-11-30T02:47:33.377Z INFO [batch] [log_c3e810, retryOf: log_5a1f2e, x-request-id: "req_7c03"] POST https://api.openai.com/v1/chat/completions?x=1 failed with status 429 in 149ms - retrying, 1 attempts remaining`,
			timeline.Event{Start: ns("2026-11-30T02:47:33.228Z"), End: ns("2026-11-30T02:47:33.377Z"),
				Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeThrottled, Class: timeline.ClassBatch,
				Status: 429, Attempt: 1, MaxAttempts: 2, RetryAfter: timeline.NoRetryAfter,
				Route: timeline.Intern("/v1/chat/completions"), CallID: timeline.Intern("log_5a1f2e"), RequestID: timeline.Intern("req_7c03")},
		},
		{
			// @anthropic-ai/sdk names its request id header request-id.
			"openai-node", `2026-12-01T11:25:34.886Z INFO [batch] [log_8a18c8, request-id: "req_011C"] post http://127.0.0.1:18080/v1/messages failed with status 429 in 204ms - retrying, 2 attempts remaining`,
			timeline.Event{Start: ns("2026-12-01T11:25:34.682Z"), End: ns("2026-12-01T11:25:34.886Z"),
				Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeThrottled, Class: timeline.ClassBatch,
				Status: 429, Attempt: 1, MaxAttempts: 3, RetryAfter: timeline.NoRetryAfter,
				Route: timeline.Intern("/v1/messages"), CallID: timeline.Intern("log_8a18c8"), RequestID: timeline.Intern("req_011C")},
		},
		{
			"openai-node", `Nov 30 02:47:36 host node[1]: [log_e4e4f0] connection timed out - retrying, 1 attempts remaining`,
			timeline.Event{Start: ns("2026-11-30T02:47:36Z"), Layer: timeline.LayerHTTP,
				Outcome: timeline.OutcomeRetryable, Attempt: 1, MaxAttempts: 2, RetryAfter: timeline.NoRetryAfter,
				ErrorCode: timeline.Intern("connection_timed_out"), CallID: timeline.Intern("log_e4e4f0")},
		},
		{
			"openai-python", `2026-08-21 10:15:02,123 - httpx - INFO - HTTP Request: POST https://api.openai.com/v1/chat/completions "HTTP/1.1 429 Too Many Requests"`,
			timeline.Event{Start: ns("2026-08-21T10:15:02.123Z"), Layer: timeline.LayerHTTP,
				Outcome: timeline.OutcomeThrottled, Status: 429, RetryAfter: timeline.NoRetryAfter,
				Route: timeline.Intern("/v1/chat/completions")},
		},
		{
			"openai-python", `2025-03-08 01:16:12,361 - openai._base_client - INFO - Retrying request to /chat/completions in 0.383596 seconds`,
			timeline.Event{Start: ns("2025-03-08T01:16:12.361Z"), Layer: timeline.LayerHTTP,
				Outcome: timeline.OutcomeRetryable, RetryAfter: timeline.NoRetryAfter, Route: timeline.Intern("/chat/completions")},
		},
		{
			"botocore", `2026-11-30T02:47:31.000Z ERROR app [task-7] An error occurred (ThrottlingException) when calling the InvokeModel operation (reached max retries: 4): Too many requests`,
			timeline.Event{Start: ns("2026-11-30T02:47:31Z"), End: ns("2026-11-30T02:47:31Z"),
				Layer: timeline.LayerCall, Outcome: timeline.OutcomeThrottled, Attempts: 5,
				RetryAfter: timeline.NoRetryAfter, ErrorCode: timeline.Intern("ThrottlingException"), Route: timeline.Intern("InvokeModel"), Client: timeline.Intern("botocore")},
		},
		{
			"botocore", `2026-11-30T02:47:30.997Z DEBUG botocore.retries.standard [task-0137] Retry needed, retrying request after delay of: 0.146`,
			timeline.Event{Start: ns("2026-11-30T02:47:30.997Z"), End: ns("2026-11-30T02:47:30.997Z"),
				Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeThrottled, Attempt: 1,
				RetryAfter: timeline.NoRetryAfter, Client: timeline.Intern("botocore cfg/retry-mode#standard"), CallID: timeline.Intern("task-0137")},
		},
		{
			"aws-js-v3", `{"time":"2026-11-30T02:47:34.25Z","clientName":"C","commandName":"PutItemCommand","metadata":{"httpStatusCode":"503","attempts":3,"requestId":"r\u0031"}}`,
			timeline.Event{Start: ns("2026-11-30T02:47:34.25Z"), Layer: timeline.LayerCall,
				Outcome: timeline.OutcomeRetryable, Status: 503, Attempts: 3, RetryAfter: timeline.NoRetryAfter,
				Route: timeline.Intern("PutItem"), Client: timeline.Intern("C"), RequestID: timeline.Intern("r1")},
		},
	}
	for _, tt := range tests {
		var e timeline.Event
		if reason := sdkParser(t, tt.format).parse([]byte(tt.line), &e); reason != "" {
			t.Errorf("%s %q: skipped: %s", tt.format, tt.line, reason)
			continue
		}
		if e != tt.want {
			t.Errorf("%s %q:\n got %+v\nwant %+v", tt.format, tt.line, e, tt.want)
		}
	}
}

// TestSDKBadLines pins the exact reason and line number of every skipped
// line.
func TestSDKBadLines(t *testing.T) {
	tests := []struct {
		format string
		input  string
		want   []timeline.Skip
	}{
		{"openai-node", strings.Join([]string{
			`2026-11-30T02:47:34.596Z DEBUG [interactive] [log_44681e] sending request {"method":"post"}`,
			`2026-11-30T02:47:34.751Z DEBUG [interactive] [log_44681e] response start {"status":200}`,
			`2026-11-30T02:47:34.800Z INFO [batch] starting batch`,
			`2026-11-30T02:47:34.900Z INFO [batch] [log_aaaaaa] POST http://h/v1 failed with status 4x9 in 1ms`,
			`2026-11-30T02:47:34.900Z INFO [batch] [log_aaaaaa] POST http://h/v1 failed with status 429 after 1ms`,
			`2026-11-30T02:47:34.900Z INFO [batch] [log_aaaaaa] POST http://h/v1 failed with status 429 in 1s`,
			`[log_aaaaaa] POST http://h/v1 failed with status 429 in 1ms`,
			``,
			`2026-11-30T02:47:34.900Z INFO [batch] [log_] POST http://h/v1 failed with status 429 in 1ms`,
		}, "\n"), []timeline.Skip{
			{Line: 1, Reason: skipRequestDetail},
			{Line: 2, Reason: skipRequestDetail},
			{Line: 3, Reason: skipNotRequestLine},
			{Line: 4, Reason: "status is not a number"},
			{Line: 5, Reason: `no " in <n>ms" after the status`},
			{Line: 6, Reason: `duration is not "<n>ms"`},
			{Line: 7, Reason: skipNodeNoTimestamp},
			{Line: 8, Reason: "blank line"},
			{Line: 9, Reason: skipNotRequestLine},
		}},
		{"openai-python", strings.Join([]string{
			`2026-08-21 10:15:02,125 - openai._base_client - INFO - Retrying request to /chat/completions in 0.383596 seconds`,
			`2026-08-21 10:15:02,125 - openai._base_client - DEBUG - 1 retry left`,
			`INFO:httpx:HTTP Request: POST https://api.openai.com/v1/chat/completions "HTTP/1.1 200 OK"`,
			`2026-08-21 10:15:02,125 - httpx - INFO - HTTP Request: POST`,
			`2026-08-21 10:15:02,125 - httpx - INFO - HTTP Request: POST https://h/v1 HTTP/1.1 200`,
			`2026-08-21 10:15:02,125 - httpx - INFO - HTTP Request: POST https://h/v1 "HTTP/1.1 OK 200"`,
			`2026-08-21 10:15:02,126 - openai._base_client - DEBUG - HTTP Response: POST https://h/v1 "429 Too Many Requests" Headers({})`,
			`2026-08-21 10:15:02,127 - openai._base_client - INFO - Retrying request to /chat/completions in 0.766632 seconds`,
		}, "\n"), []timeline.Skip{
			// Line 1 is an attempt: no httpx line has been read yet.
			{Line: 2, Reason: skipNotRequestLine},
			{Line: 3, Reason: skipNoTimestamp},
			{Line: 4, Reason: "HTTP Request line without a method and URL"},
			{Line: 5, Reason: `HTTP Request line without "HTTP/<version> <status>"`},
			{Line: 6, Reason: "HTTP Request status is not a number"},
			{Line: 7, Reason: skipRequestDetail},
			{Line: 8, Reason: skipRetryDelay},
		}},
		{"openai-python", strings.Join([]string{
			`2025-03-08 01:16:12,300 - openai._base_client - DEBUG - Retrying due to status code 429`,
			`2025-03-08 01:16:12,361 - openai._base_client - INFO - Retrying request to /chat/completions in 0.383596 seconds`,
			`INFO:openai._base_client:Retrying request to /chat/completions in 0.404439 seconds`,
			`2025-03-08 01:16:13,522 - openai._base_client - DEBUG - Retrying due to status code many`,
		}, "\n"), []timeline.Skip{
			{Line: 1, Reason: skipRetryStatus},
			{Line: 3, Reason: skipNoTimestamp},
			{Line: 4, Reason: skipNotRequestLine},
		}},
		{"botocore", strings.Join([]string{
			`2026-11-30T02:47:25.584Z DEBUG botocore.endpoint [MainThread] Setting bedrock-runtime timeout as (10, 120)`,
			`2026-11-30T02:47:25.591Z DEBUG botocore.endpoint [ui-0001] Making request for OperationModel(name=InvokeModel) with params: {}`,
			`2026-11-30T02:47:25.591Z DEBUG botocore.endpoint [ui-0001] Sending http request: <AWSPreparedRequest stream_output=True, method=POST, url=http://h/m/invoke, headers={'a ...`,
			`2026-11-30T02:47:25.700Z DEBUG botocore.retries.standard [ui-0001] Retry needed, retrying request after delay of: 0.5`,
			`2026-11-30T02:47:25.701Z DEBUG botocore.retries.adaptive [ui-0001] Throttling response received, new send rate: 1`,
			`2026-11-30T02:47:25.702Z DEBUG botocore.endpoint [ui-0001] Response received to retry, sleeping for 0.5 seconds`,
			`2026-11-30T02:47:26.200Z DEBUG botocore.endpoint [ui-0001] Sending http request: <AWSPreparedRequest url=http://h/m/invoke>`,
			`2026-11-30T02:47:26.300Z DEBUG botocore.retries.standard [ui-0001] Max attempts of 2 reached.`,
			`2026-11-30T02:47:26.300Z DEBUG botocore.retries.standard [ui-0001] Not retrying request.`,
			`DEBUG:botocore.retries.standard:Not retrying request.`,
			`2026-11-30T02:47:26.400Z ERROR app [ui-0001] An error occurred (ThrottlingException) when calling InvokeModel`,
			`2026-11-30T02:47:26.400Z ERROR app [ui-0001] An error occurred (ThrottlingException`,
			`2026-11-30T02:47:26.400Z ERROR app [ui-0001] An error occurred (ThrottlingException) when calling the InvokeModel: x`,
			`2026-11-30T02:47:27.000Z DEBUG urllib3.connectionpool [ui-0002] Starting new HTTP connection (1): h:80`,
			`2026-11-30T02:47:27.100Z DEBUG urllib3.connectionpool [ui-0002] http://h:80 "POST /m/invoke HTTP/1.1" 429 5`,
			`2026-11-30T02:47:27.101Z DEBUG botocore.retryhandler [ui-0002] retry needed: retryable HTTP status code received: 429`,
		}, "\n"), []timeline.Skip{
			{Line: 1, Reason: skipNotRequestLine},
			{Line: 2, Reason: skipCallStart},
			{Line: 3, Reason: skipAttemptStart},
			{Line: 5, Reason: skipThrottleNote},
			{Line: 6, Reason: skipRepeatDecision},
			{Line: 7, Reason: skipAttemptStart},
			{Line: 8, Reason: skipMaxAttemptNote},
			{Line: 10, Reason: skipNoTimestamp},
			{Line: 11, Reason: `ClientError without "when calling the <operation> operation"`},
			{Line: 12, Reason: "ClientError without an error code"},
			{Line: 13, Reason: `ClientError without "when calling the <operation> operation"`},
			{Line: 14, Reason: skipNotRequestLine},
			{Line: 15, Reason: skipStatusNote},
			{Line: 16, Reason: skipStatusNote},
		}},
		{"aws-js-v3", strings.Join([]string{
			`{"time":1,"msg":"hello"}`,
			`not json`,
			`{"clientName":"C","commandName":"X"}`,
			`{"time":"yesterday","clientName":"C","commandName":"X"}`,
			`{"time":1796006851489,"clientName":"C","commandName":"X","metadata":{"attempts":"many"}}`,
			`{"time":1796006851489,"clientName":"C","commandName":"X","metadata":{"attempts":1}`,
			`{"time":1796006851489,"clientName":"C","commandName":"X"} x`,
		}, "\n"), []timeline.Skip{
			{Line: 1, Reason: skipNotCallRecord},
			{Line: 2, Reason: "not a JSON object"},
			{Line: 3, Reason: "no time (looked for time, timestamp, @timestamp, ts)"},
			{Line: 4, Reason: `bad time "yesterday": want a time`},
			{Line: 5, Reason: `bad attempts "many": want a count`},
			{Line: 6, Reason: "invalid JSON at byte 83: unterminated object"},
			{Line: 7, Reason: "invalid JSON at byte 59: trailing data after the object"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			tl := readSDK(sdkParser(t, tt.format), "bad", []byte(tt.input))
			got := tl.Sources[0].Samples
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("skips:\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestBotocoreCallSplitting pins how attempts are grouped into calls when
// request lines are missing and when a context hosts several calls.
func TestBotocoreCallSplitting(t *testing.T) {
	input := strings.Join([]string{
		`2026-11-30T02:47:30.000Z DEBUG botocore.retries.standard [w1] Retry needed, retrying request after delay of: 0.5`,
		`2026-11-30T02:47:30.600Z DEBUG botocore.retries.standard [w1] Not retrying request.`,
		`2026-11-30T02:47:31.000Z DEBUG botocore.retries.standard [w1] Not retrying request.`,
		`2026-11-30T02:47:32.000Z DEBUG botocore.endpoint [w1] Sending http request: <AWSPreparedRequest url=http://h/a>`,
		`2026-11-30T02:47:32.100Z DEBUG botocore.retries.standard [w2] Not retrying request.`,
		`2026-11-30T02:47:32.200Z DEBUG botocore.endpoint [w1] Response received to retry, sleeping for 0.1 seconds`,
		`2026-11-30T02:47:32.300Z DEBUG botocore.endpoint [w1] Sending http request: <AWSPreparedRequest url=http://h/a>`,
		`2026-11-30T02:47:32.400Z DEBUG botocore.retries.standard [w1] Max attempts of 2 reached.`,
		`2026-11-30T02:47:32.400Z DEBUG botocore.retries.standard [w1] Not retrying request.`,
	}, "\n")
	tl := readSDK(sdkParser(t, "botocore"), "split", []byte(input))
	type got struct {
		line         int64
		call         string
		attempt, max int32
		start, end   int64
		outcome      timeline.Outcome
	}
	want := []got{
		{1, "w1", 1, 0, ns("2026-11-30T02:47:30Z"), ns("2026-11-30T02:47:30Z"), timeline.OutcomeThrottled},
		{2, "w1", 2, 0, ns("2026-11-30T02:47:30.6Z"), ns("2026-11-30T02:47:30.6Z"), timeline.OutcomeOK},
		{3, "w1#2", 1, 0, ns("2026-11-30T02:47:31Z"), ns("2026-11-30T02:47:31Z"), timeline.OutcomeOK},
		{5, "w2", 1, 0, ns("2026-11-30T02:47:32.1Z"), ns("2026-11-30T02:47:32.1Z"), timeline.OutcomeOK},
		{6, "w1#3", 1, 0, ns("2026-11-30T02:47:32Z"), ns("2026-11-30T02:47:32.2Z"), timeline.OutcomeThrottled},
		// At the attempt limit "Not retrying" is a success or the last failure.
		{9, "w1#3", 2, 2, ns("2026-11-30T02:47:32.3Z"), ns("2026-11-30T02:47:32.4Z"), timeline.OutcomeUnknown},
	}
	var gotEvents []got
	for _, e := range tl.Events {
		gotEvents = append(gotEvents, got{e.Line, e.CallID.String(), int32(e.Attempt), int32(e.MaxAttempts), e.Start, e.End, e.Outcome})
	}
	if fmt.Sprint(gotEvents) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", gotEvents, want)
	}
}

// sdkTruth is the part of a trace's truth.json that SDK logs can show.
type sdkTruth struct {
	HTTP struct {
		Requests int            `json:"requests"`
		ByStatus map[string]int `json:"by_status"`
	} `json:"http"`
	Calls map[string]struct {
		SDKCalls     int            `json:"sdk_calls"`
		HTTPAttempts int            `json:"http_attempts"`
		Hist         map[string]int `json:"attempts_per_call_hist"`
	} `json:"calls"`
}

func readSDKTruth(t *testing.T, scenario string) sdkTruth {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "traces", scenario, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tc sdkTruth
	if err := json.Unmarshal(b, &tc); err != nil {
		t.Fatal(err)
	}
	return tc
}

// attemptsPerCall groups attempt events by call and class and counts the
// attempts of each call, as truth.json's histograms do.
func attemptsPerCall(tl *timeline.Timeline, class func(*timeline.Event) string) map[string]map[string]int {
	perCall := map[string]int{}
	classOf := map[string]string{}
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP {
			continue
		}
		perCall[e.CallID.String()]++
		classOf[e.CallID.String()] = class(e)
	}
	hist := map[string]map[string]int{}
	for id, n := range perCall {
		c := classOf[id]
		if hist[c] == nil {
			hist[c] = map[string]int{}
		}
		hist[c][fmt.Sprint(n)]++
	}
	return hist
}

// TestBotocoreTrace reads the whole real botocore trace and checks the
// attempts and calls it yields against the server-side truth.
func TestBotocoreTrace(t *testing.T) {
	truth := readSDKTruth(t, "botocore-standard")
	tl := readSDKFile(t, "botocore", filepath.Join("..", "testdata", "traces", "botocore-standard", "sdk_debug.log"))
	s := tl.Sources[0]
	if s.Parsed+s.Skipped != s.Lines || s.Events != int64(truth.HTTP.Requests) {
		t.Fatalf("accounting %+v, want %d attempt events", s, truth.HTTP.Requests)
	}
	firsts := 0
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Attempt == 1 {
			firsts++
		}
		if e.Start == 0 || e.End < e.Start || e.CallID == timeline.NoSym || !strings.HasPrefix(e.Route.String(), "/model/") {
			t.Fatalf("line %d: %+v", e.Line, *e)
		}
	}
	hist := attemptsPerCall(tl, func(e *timeline.Event) string {
		if strings.HasPrefix(e.CallID.String(), "ui-") {
			return "interactive"
		}
		return "batch"
	})
	calls := 0
	for class, want := range truth.Calls {
		calls += want.SDKCalls
		if fmt.Sprint(hist[class]) != fmt.Sprint(want.Hist) {
			t.Errorf("%s attempts per call: got %v, want %v", class, hist[class], want.Hist)
		}
	}
	if firsts != calls {
		t.Errorf("%d first attempts, want %d calls", firsts, calls)
	}
	// Standard mode logs no status. Retryable decisions are the trace's
	// 429s and "not retrying" its successes, except at the attempt limit,
	// where a success and a last failure read the same.
	outcomes := map[timeline.Outcome]int{}
	for i := range tl.Events {
		outcomes[tl.Events[i].Outcome]++
	}
	ok, thr, unknown := outcomes[timeline.OutcomeOK], outcomes[timeline.OutcomeThrottled], outcomes[timeline.OutcomeUnknown]
	if ok+thr+unknown != len(tl.Events) || ok > truth.HTTP.ByStatus["200"] || thr > truth.HTTP.ByStatus["429"] ||
		ok+unknown < truth.HTTP.ByStatus["200"] || thr+unknown < truth.HTTP.ByStatus["429"] || unknown > 40 {
		t.Errorf("outcomes %v, want %d ok and %d throttled, up to 40 unknown", outcomes, truth.HTTP.ByStatus["200"], truth.HTTP.ByStatus["429"])
	}
	if w := s.Warnings; fmt.Sprint(w) != fmt.Sprint([]string{warnBotoAssumedThrottle, warnBotoLimitUnknown}) {
		t.Errorf("warnings %q, want the assumed throttles and the unknown last attempts", w)
	}
}

// TestOpenAINodeTrace reads the whole real openai-node trace.
func TestOpenAINodeTrace(t *testing.T) {
	truth := readSDKTruth(t, "no-throttle")
	tl := readSDKFile(t, "openai-node", filepath.Join("..", "testdata", "traces", "no-throttle", "sdk_debug.log"))
	if s := tl.Sources[0]; s.Parsed+s.Skipped != s.Lines || s.Events != int64(truth.HTTP.Requests) {
		t.Fatalf("accounting %+v, want %d attempt events", s, truth.HTTP.Requests)
	}
	hist := attemptsPerCall(tl, func(e *timeline.Event) string { return e.Class.String() })
	for class, want := range truth.Calls {
		if fmt.Sprint(hist[class]) != fmt.Sprint(want.Hist) {
			t.Errorf("%s attempts per call: got %v, want %v", class, hist[class], want.Hist)
		}
	}
	for i := range tl.Events {
		if e := &tl.Events[i]; e.Status != 200 || e.Outcome != timeline.OutcomeOK || e.RequestID == timeline.NoSym || e.Duration() <= 0 {
			t.Fatalf("line %d: %+v", e.Line, *e)
		}
	}
}

func FuzzSDKText(f *testing.F) {
	for _, ex := range sdkExamples {
		b, err := os.ReadFile(filepath.Join(sdkDir, ex.file))
		if err != nil {
			f.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		f.Add(strings.Join(lines[:min(len(lines), 12)], "\n"))
	}
	f.Add("[log_a] x with status 1 in 1ms\n[\n[log_\n2026-01-01T00:00:00Z [log_a, retryOf: , x-request-id: \"] y failed with status 999 in .ms")
	f.Add("Jan  1 00:00:00.\n9999999999999999999999 An error occurred () when calling the  operation (reached max retries: 99999999999):")
	f.Fuzz(func(t *testing.T, input string) {
		for _, sf := range sdkFormats {
			tl := readSDK(sf.new(newInterner()), "fuzz", []byte(input))
			s := tl.Sources[0]
			if s.Parsed+s.Skipped != s.Lines || s.Events != int64(len(tl.Events)) {
				t.Fatalf("%s: accounting %+v with %d events", sf.name, s, len(tl.Events))
			}
			sample := sampleOf([]byte(input), true)
			if len(sample) > 0 && sf.sniff != nil {
				sf.sniff(sample, Options{}, newInterner())
			}
		}
	})
}

func FuzzLogPrefix(f *testing.F) {
	for _, l := range []string{"2026-11-30T02:47:25.582Z x", "2026-08-21 10:15:02,123 - h", "[2026-08-21 10:15:04 - h",
		"Nov  3 02:47:25.250 host", "1796006845582 m", "2026-08-21T10:15:05-05:0", "Feb 29 00:00:00"} {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		_, rest, ok := logPrefix{now: sdkNow}.split([]byte(line))
		if !strings.HasSuffix(line, string(rest)) || (ok && len(rest) == len(line)) {
			t.Fatalf("rest %q of %q (ok=%v)", rest, line, ok)
		}
	})
}

func BenchmarkSDKParsers(b *testing.B) {
	for _, tr := range []struct{ format, path string }{
		{"botocore", filepath.Join("..", "testdata", "traces", "botocore-standard", "sdk_debug.log")},
		{"openai-node", filepath.Join("..", "testdata", "traces", "no-throttle", "sdk_debug.log")},
	} {
		data, err := os.ReadFile(tr.path)
		if err != nil {
			b.Fatal(err)
		}
		lines := bytes.Count(data, []byte{'\n'})
		b.Run(tr.format, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				readSDK(sdkParser(b, tr.format), "bench", data)
			}
			b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// A syslog-stamped SDK log read from a file takes its year from the file's
// modification time, not from the clock of the machine analysing it, so the
// same file reads the same in any year.
func TestSyslogYearFromFileTime(t *testing.T) {
	line := `Dec 31 23:59:58 host node[1]: [log_e4e4f0] connection timed out - retrying, 1 attempts remaining` + "\n" +
		`Jan  1 00:00:03 host node[1]: [log_e4e4f1] connection timed out - retrying, 1 attempts remaining` + "\n"
	tests := []struct {
		name      string
		modified  string
		wantFirst string
	}{
		{"written just after new year", "2025-01-01T00:10:00Z", "2024-12-31T23:59:58Z"},
		{"written years later", "2031-01-01T00:00:05Z", "2030-12-31T23:59:58Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "sdk.log")
			if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
				t.Fatal(err)
			}
			mod := time.Unix(0, ns(tc.modified))
			if err := os.Chtimes(p, mod, mod); err != nil {
				t.Fatal(err)
			}
			for _, read := range []func() (*timeline.Timeline, error){
				func() (*timeline.Timeline, error) { return ReadFile(p, Options{Format: "openai-node"}) },
				func() (*timeline.Timeline, error) {
					src, parts, err := ReadFileParts(p, Options{Format: "openai-node"}, 2)
					if err != nil {
						return nil, err
					}
					return timeline.Merge([]timeline.Source{src}, parts), nil
				},
			} {
				tl, err := read()
				if err != nil {
					t.Fatal(err)
				}
				if len(tl.Events) != 2 {
					t.Fatalf("%d events, want 2: %+v", len(tl.Events), tl.Sources)
				}
				if got, want := tl.Events[0].Start, ns(tc.wantFirst); got != want {
					t.Errorf("first stamp %s, want %s", time.Unix(0, got).UTC(), tc.wantFirst)
				}
				if gap := time.Duration(tl.Events[1].Start - tl.Events[0].Start); gap != 5*time.Second {
					t.Errorf("the stamps across new year are %v apart, want 5s", gap)
				}
			}
		})
	}
}
