package ingest

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/internal/golden"
	"github.com/stampede/stampede/timeline"
)

// readWithParser reads input with p through read's own line loop, so
// these formats are tested without the detection chain.
func readWithParser(t testing.TB, name string, input []byte, p lineParser) *timeline.Timeline {
	t.Helper()
	tl := &timeline.Timeline{Sources: []timeline.Source{{Path: name, Format: p.format()}}}
	lr := &lineReader{r: bufio.NewReaderSize(bytes.NewReader(input), 64<<10)}
	if err := parseLines(lr, tl, p, false, name); err != nil {
		t.Fatal(err)
	}
	return tl
}

// detectionChain is the order these sniffers take around the existing
// ones.
func detectionChain() []sniffer {
	return append(append([]sniffer{}, accessFormatSniffers...), sniffJSONL, sniffNginx)
}

// detect runs the chain over the sample of input, as chooseParser does.
func detect(input []byte) (lineParser, []string) {
	sample := sampleOf(input, true)
	var tried []string
	for _, sn := range detectionChain() {
		p, why := sn(sample, Options{}, newInterner())
		if p != nil {
			return p, tried
		}
		tried = append(tried, why)
	}
	return nil, tried
}

// parseOne parses a single line with a fresh parser of the named format.
func parseOne(t *testing.T, format, line string) (timeline.Event, string) {
	t.Helper()
	p := newAccessFormatParser(format, newInterner())
	if p == nil {
		t.Fatalf("no parser for %q", format)
	}
	var e timeline.Event
	reason := p.parse([]byte(line), &e)
	return e, reason
}

var accessExamples = []struct {
	file   string // under testdata/ingest
	format string
}{
	{"k6/results.json", "k6"},
	{"vegeta/results.json", "vegeta-json"},
	{"vegeta/results.csv", "vegeta-csv"},
	{"jmeter/results.jtl", "jmeter"},
	{"caddy/access.log", "caddy"},
	{"traefik/access.json", "traefik-json"},
	{"traefik/access.log", "traefik-clf"},
	{"apigateway/access.json", "apigateway-json"},
	{"apigateway/access-clf.log", "apigateway-clf"},
	{"cloudflare/http_requests.json", "cloudflare"},
	{"gcp-lb/requests.jsonl", "gcp-lb"},
	{"kong/file-log.json", "kong"},
}

// TestAccessFormatGolden reads each example with its parser, checks that
// detection picks that parser, and compares the timeline with its golden
// file beside the example.
func TestAccessFormatGolden(t *testing.T) {
	for _, ex := range accessExamples {
		t.Run(ex.file, func(t *testing.T) {
			path := filepath.Join("..", "testdata", "ingest", ex.file)
			input, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p, tried := detect(input)
			if p == nil || p.format() != ex.format {
				got := "nothing"
				if p != nil {
					got = p.format()
				}
				t.Errorf("detected %s, want %s (tried %s)", got, ex.format, strings.Join(tried, "; "))
			}
			tl := readWithParser(t, path, input, newAccessFormatParser(ex.format, newInterner()))
			s := tl.Sources[0]
			if s.Parsed+s.Skipped != s.Lines || s.Events != s.Parsed {
				t.Errorf("accounting: %+v", s)
			}
			compareGolden(t, renderTimeline(tl), path+".golden")
		})
	}
}

func compareGolden(t *testing.T, got, path string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}

// TestAccessSniffersLeaveOtherFormats checks that no sniffer here claims
// the other formats' examples (or the real traces), so adding them to the
// chain changes no detection.
func TestAccessSniffersLeaveOtherFormats(t *testing.T) {
	mine := map[string]bool{}
	for _, ex := range accessExamples {
		mine[filepath.Dir(ex.file)] = true
	}
	var files []string
	for _, pattern := range []string{"testdata/ingest/*", "testdata/ingest/*/*", "testdata/traces/*/*"} {
		m, err := filepath.Glob(filepath.Join("..", filepath.FromSlash(pattern)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked := 0
	for _, path := range files {
		rel, _ := filepath.Rel(filepath.Join("..", "testdata", "ingest"), path)
		switch ext := filepath.Ext(path); {
		case mine[filepath.Dir(filepath.ToSlash(rel))], ext == ".golden", ext == ".md", ext == ".conf", ext == ".gz",
			filepath.Base(path) == "truth.json":
			continue
		}
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			continue
		}
		input, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		sample := sampleOf(input[:min(len(input), readBufferBytes)], len(input) <= readBufferBytes)
		if len(sample) == 0 {
			continue
		}
		for _, sn := range accessFormatSniffers {
			if p, _ := sn(sample, Options{}, newInterner()); p != nil {
				t.Errorf("%s claimed by %s", path, p.format())
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d files checked", checked)
	}
}

// TestAccessSniffersNotMine pins the "not mine" reasons that detection
// errors list.
func TestAccessSniffersNotMine(t *testing.T) {
	caddyOther := `{"level":"info","ts":1796006849.8912,"logger":"tls.cache.maintenance","msg":"started"}`
	tests := []struct {
		name  string
		sn    sniffer
		input string
		want  string
	}{
		{"k6 on calls", sniffK6, `{"ts_start":"2026-11-30T02:47:30Z"}`,
			"k6 (0 of 1 lines; line 1: not a k6 Point or Metric record)"},
		{"k6 on text", sniffK6, "a\nb\n", "k6 (0 of 2 lines; line 1: not a JSON object)"},
		{"vegeta-json on k6", sniffVegetaJSON, `{"type":"Point","metric":"vus","data":{"time":"2026-11-30T02:47:30Z","value":1}}`,
			"vegeta-json (0 of 1 lines; line 1: no timestamp)"},
		{"caddy on other loggers only", sniffCaddy, caddyOther, "caddy (no line from logger http.log.access)"},
		{"caddy on calls", sniffCaddy, `{"ts":1796006849.8912,"task":"t"}`, "caddy (0 of 1 lines; line 1: no logger and ts)"},
		{"traefik-json on caddy", sniffTraefikJSON, caddyOther, "traefik-json (0 of 1 lines; line 1: no StartUTC)"},
		{"apigateway-json on calls", sniffAPIGatewayJSON, `{"request_id":"r","ts":1}`,
			"apigateway-json (0 of 1 lines; line 1: no requestId)"},
		{"jmeter on vegeta csv", sniffJMeter, "1796006850000000417,200,183200000,64,52,,,a,0\n",
			"jmeter (no timeStamp header; 0 of 1 lines; line 1: 9 columns where the header has 17)"},
		{"vegeta-csv on jmeter", sniffVegetaCSV, "1796006850005,214,POST chat,200,OK,Batch 1-1,text,true,,1200,512,20,20,https://h/,211,0,2\n",
			"vegeta-csv (0 of 1 lines; line 1: 17 columns: want 6, 9 or 12)"},
		{"traefik-clf on apigateway", sniffTraefikCLF, `198.51.100.23 - - [30/Nov/2026:02:47:30 +0000] "POST /p HTTP/1.1" 200 1034 c6af9ac6`,
			"traefik-clf (0 of 1 lines; line 1: 8 fields: want 13)"},
		{"apigateway-clf on combined", sniffAPIGatewayCLF, `203.0.113.7 - - [21/Aug/2026:10:15:02 +0000] "POST /v1/chat/completions HTTP/1.1" 429 123 "-" "OpenAI/Python 3.3.1"`,
			"apigateway-clf (0 of 1 lines; line 1: 9 fields: want 8)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, why := tt.sn(sampleOf([]byte(tt.input), true), Options{}, newInterner())
			if p != nil {
				t.Fatalf("claimed as %s", p.format())
			}
			if why != tt.want {
				t.Errorf("why:\n got %s\nwant %s", why, tt.want)
			}
		})
	}
}

// TestAccessFormatLines checks the fields of single lines, including those
// the examples do not show.
func TestAccessFormatLines(t *testing.T) {
	base := ns("2026-11-30T02:47:30Z")
	http := func(e timeline.Event) timeline.Event {
		e.Layer = timeline.LayerHTTP
		if e.RetryAfter == 0 {
			e.RetryAfter = timeline.NoRetryAfter
		}
		return e
	}
	tests := []struct {
		name, format, line string
		want               timeline.Event
	}{
		{"k6 throttle", "k6",
			`{"type":"Point","metric":"http_reqs","data":{"time":"2026-11-30T03:47:30.5+01:00","value":1,"tags":{"status":"429","method":"POST","url":"https://h.test/v1/x?a=1","name":"https://h.test/v1/x?a=1","error_code":"1429"}}}`,
			http(timeline.Event{Start: base + 500e6, Status: 429, Route: timeline.Intern("/v1/x"), Outcome: timeline.OutcomeThrottled})},
		{"k6 keys in any order, metric after data", "k6",
			`{"data":{"tags":{"status":"0","error":"dial: i/o timeout","error_code":"1211"},"time":"2026-11-30T02:47:30Z"},"metric":"http_reqs","type":"Point"}`,
			http(timeline.Event{Start: base, ErrorCode: timeline.Intern("dial: i/o timeout"), Outcome: timeline.OutcomeRetryable})},
		{"vegeta json retry-after date", "vegeta-json",
			`{"attack":"","seq":0,"code":429,"timestamp":"2026-11-30T02:47:30Z","latency":1000000000,"error":"429 Too Many Requests","url":"http://h/v1/m","headers":{"Retry-After":["Mon, 30 Nov 2026 02:47:33 GMT"]}}`,
			http(timeline.Event{Start: base, End: base + 1e9, Status: 429, Route: timeline.Intern("/v1/m"), RetryAfter: timeline.MillisOf(2 * time.Second), Outcome: timeline.OutcomeThrottled})},
		{"vegeta csv six columns", "vegeta-csv",
			`1796006850000000000,503,2500000,10,0,"503 Service Unavailable"`,
			http(timeline.Event{Start: base, End: base + 2500000, Status: 503, Outcome: timeline.OutcomeRetryable})},
		{"vegeta csv connection error", "vegeta-csv",
			`1796006850000000000,0,0,10,0,"dial tcp: connection refused",,a,7`,
			http(timeline.Event{Start: base, End: base, ErrorCode: timeline.Intern("dial tcp: connection refused"), Outcome: timeline.OutcomeRetryable})},
		{"jmeter headerless default columns", "jmeter",
			`1796006850000,12,POST chat,429,Too Many Requests,T 1-1,text,false,,180,512,1,1,https://h/v1/x,10,0,2`,
			http(timeline.Event{Start: base, End: base + 12e6, Status: 429, Route: timeline.Intern("/v1/x"), Outcome: timeline.OutcomeThrottled})},
		{"jmeter success=false on 200", "jmeter",
			`1796006850000,12,POST chat,200,OK,T 1-1,text,false,"Assertion failed, ""x""",180,512,1,1,null,10,0,2`,
			http(timeline.Event{Start: base, End: base + 12e6, Status: 200, Route: timeline.Intern("POST chat"), Outcome: timeline.OutcomeRetryable})},
		{"caddy sdk headers", "caddy",
			`{"logger":"http.log.access","ts":1796006851.0,"duration":1,"status":400,"request":{"uri":"/m","headers":{"User-Agent":["Botocore/1.29"],"Amz-Sdk-Request":["attempt=3; max=3"],"Amz-Sdk-Invocation-Id":["inv"],"X-Job-Id":["job"]}},"resp_headers":{"X-Amzn-Errortype":["ThrottlingException:http://x"],"Retry-After":["1.5"]}}`,
			http(timeline.Event{Start: base, End: base + 1e9, Status: 400, Route: timeline.Intern("/m"), Client: timeline.Intern("Botocore/1.29"), TaskID: timeline.Intern("job"), CallID: timeline.Intern("inv"),
				Attempt: 3, MaxAttempts: 3, ErrorCode: timeline.Intern("ThrottlingException"), RetryAfter: timeline.MillisOf(1500 * time.Millisecond), Outcome: timeline.OutcomeThrottled})},
		{"caddy iso ts and string duration", "caddy",
			`{"logger":"http.log.access","ts":"2026-11-30T02:47:31Z","duration":"250ms","status":200,"request":{"headers":{"X-Stainless-Retry-Count":["1"]}}}`,
			http(timeline.Event{Start: base + 750e6, End: base + 1e9, Status: 200, Attempt: 2, Outcome: timeline.OutcomeOK})},
		{"traefik json retries", "traefik-json",
			`{"StartUTC":"2026-11-30T02:47:30Z","Duration":5000000,"DownstreamStatus":502,"OriginStatus":502,"RetryAttempts":3,"RequestPath":"/v1/x?y"}`,
			http(timeline.Event{Start: base, End: base + 5e6, Status: 502, Attempt: 4, Route: timeline.Intern("/v1/x"), Outcome: timeline.OutcomeRetryable})},
		{"traefik json sdk attempt wins", "traefik-json",
			`{"StartUTC":"2026-11-30T02:47:30Z","DownstreamStatus":429,"RetryAttempts":0,"request_Amz-Sdk-Request":"attempt=2; max=5","downstream_Retry-After":"3"}`,
			http(timeline.Event{Start: base, Status: 429, Attempt: 2, MaxAttempts: 5, RetryAfter: timeline.MillisOf(3 * time.Second), Outcome: timeline.OutcomeThrottled})},
		{"apigateway json gateway throttle", "apigateway-json",
			`{"requestId":"r1","requestTime":"30/Nov/2026:02:47:30 +0000","status":"429","integrationStatus":"-","errorResponseType":"THROTTLED","responseLatency":"3","path":"/prod/v1/x"}`,
			http(timeline.Event{Start: base, End: base + 3e6, Status: 429, ErrorCode: timeline.Intern("THROTTLED"), RequestID: timeline.Intern("r1"), Route: timeline.Intern("/prod/v1/x"), Outcome: timeline.OutcomeThrottled})},
		{"apigateway json epoch wins, numbers", "apigateway-json",
			`{"requestId":"r2","requestTime":"bogus","requestTimeEpoch":1796006850250,"status":200,"error":{"responseType":"-"}}`,
			http(timeline.Event{Start: base + 250e6, Status: 200, RequestID: timeline.Intern("r2"), Outcome: timeline.OutcomeOK})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := parseOne(t, tt.format, tt.line)
			if reason != "" {
				t.Fatalf("skipped: %s", reason)
			}
			if got != tt.want {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestAccessFormatBadLines pins the exact reason and line number of each
// kind of unusable line, per format.
func TestAccessFormatBadLines(t *testing.T) {
	tests := []struct {
		format string
		lines  []string
		want   []timeline.Skip
	}{
		{"k6", []string{
			`{"type":"Point","metric":"http_reqs","data":{"time":"2026-11-30T02:47:30Z","tags":{"status":"200"}}}`,
			`{"type":"Metric","data":{"name":"http_reqs","type":"counter"},"metric":"http_reqs"}`,
			`{"type":"Point","metric":"vus","data":{"time":"2026-11-30T02:47:30Z","value":3}}`,
			`{"type":"Point","metric":"http_reqs","data":{"value":1}}`,
			`{"type":"Point","metric":"http_reqs","data":{"time":"noon"}}`,
			`{"type":"Point","metric":"http_reqs","data":{"time":"2026-11-30T02:47:30Z","tags":{"status":"OK"}}}`,
			`{"type":"Point","metric":"http_reqs","data":{"time":"2026-11-30T02:47:30Z","tags":{"status":"200"}}`,
			`{"type":"Point","metric":"http_reqs","data":{"time":"2026-11-30T02:47:30Z","tags":{"status":"200"}}} x`,
		}, []timeline.Skip{
			{Line: 2, Reason: "not an http_reqs point"},
			{Line: 3, Reason: "not an http_reqs point"},
			{Line: 4, Reason: "no data.time"},
			{Line: 5, Reason: `bad data.time "noon": want a time`},
			{Line: 6, Reason: `bad data.tags.status "OK": want an HTTP status`},
			{Line: 7, Reason: "invalid JSON at byte 100: unterminated object"},
			{Line: 8, Reason: "invalid JSON at byte 102: unexpected text after the object"},
		}},
		{"vegeta-json", []string{
			`{"code":200,"timestamp":"2026-11-30T02:47:30Z","latency":1}`,
			`{"code":200,"latency":1}`,
			`{"timestamp":"2026-11-30T02:47:30Z"}`,
			`{"code":"x","timestamp":"2026-11-30T02:47:30Z"}`,
			`{"code":200,"timestamp":"2026-11-30T02:47:30Z","latency":-5}`,
			`{"code":200,"timestamp":"2026-11-30T02:47:30Z","headers":{"Retry-After":["1"}}`,
		}, []timeline.Skip{
			{Line: 2, Reason: "no timestamp"},
			{Line: 3, Reason: "no code"},
			{Line: 4, Reason: `bad code "x": want an HTTP status`},
			{Line: 5, Reason: "bad latency -5: want a duration"},
			{Line: 6, Reason: "invalid JSON at byte 79: unterminated object"},
		}},
		{"vegeta-csv", []string{
			`1796006850000000000,200,5,1,1,`,
			`1796006850000000000,200,5,1,1`,
			`1796006850,200,5,1,1,`,
			`1796006850000000000,OK,5,1,1,`,
			`1796006850000000000,200,-5,1,1,`,
			`1796006850000000000,200,5,1,1,"unterminated`,
			`1796006850000000000,200,5,1,1,"a"b`,
		}, []timeline.Skip{
			{Line: 2, Reason: "5 columns: want 6, 9 or 12"},
			{Line: 3, Reason: `bad timestamp "1796006850": want Unix nanoseconds`},
			{Line: 4, Reason: `bad code "OK": want an HTTP status`},
			{Line: 5, Reason: `bad latency "-5": want nanoseconds`},
			{Line: 6, Reason: "unterminated quoted field at byte 31"},
			{Line: 7, Reason: "text after a closing quote at byte 34"},
		}},
		{"jmeter", []string{
			`timeStamp,elapsed,responseCode,success`,
			`1796006850000,5,200,true`,
			`1796006850000,5,200`,
			`yesterday,5,200,true`,
			`1796006850000,soon,200,true`,
			`1796006850000,5,200,maybe`,
			`elapsed,responseCode`,
			`5,200`,
		}, []timeline.Skip{
			{Line: 1, Reason: "header"},
			{Line: 3, Reason: "3 columns where the header has 4"},
			{Line: 4, Reason: `bad timeStamp "yesterday": want epoch milliseconds`},
			{Line: 5, Reason: `bad elapsed "soon": want milliseconds`},
			{Line: 6, Reason: `bad success "maybe": want true or false`},
			{Line: 7, Reason: "2 columns where the header has 4"},
			{Line: 8, Reason: "2 columns where the header has 4"},
		}},
		{"caddy", []string{
			`{"logger":"http.log.access","ts":1796006850,"status":200}`,
			`{"logger":"http.handlers.reverse_proxy","ts":1796006850,"msg":"upstream roundtrip"}`,
			`{"ts":1796006850,"status":200}`,
			`{"logger":"http.log.access","status":200}`,
			`{"logger":"http.log.access","ts":1796006850,"duration":"fast","status":200}`,
			`{"logger":"http.log.access","ts":1796006850,"status":"2xx"}`,
			`{"logger":"http.log.accessor","ts":1796006850,"status":200}`,
		}, []timeline.Skip{
			{Line: 2, Reason: `not an access log entry (logger "http.handlers.reverse_proxy")`},
			{Line: 3, Reason: "no logger: not a Caddy log entry"},
			{Line: 4, Reason: "no ts"},
			{Line: 5, Reason: `bad duration "fast": want a duration`},
			{Line: 6, Reason: `bad status "2xx": want an HTTP status`},
			{Line: 7, Reason: `not an access log entry (logger "http.log.accessor")`},
		}},
		{"traefik-json", []string{
			`{"StartUTC":"2026-11-30T02:47:30Z","DownstreamStatus":200}`,
			`{"DownstreamStatus":200}`,
			`{"StartUTC":"30/Nov/2026","DownstreamStatus":200}`,
			`{"StartUTC":"2026-11-30T02:47:30Z","Duration":"1s"}`,
			`{"StartUTC":"2026-11-30T02:47:30Z","RetryAttempts":-1}`,
		}, []timeline.Skip{
			{Line: 2, Reason: "no StartUTC"},
			{Line: 3, Reason: `bad StartUTC "30/Nov/2026": want a time`},
			{Line: 4, Reason: `bad Duration "1s": want a duration`},
			{Line: 5, Reason: "bad RetryAttempts -1: want a whole number"},
		}},
		{"traefik-clf", []string{
			`1.2.3.4 - - [30/Nov/2026:02:47:30 +0000] "GET / HTTP/1.1" 200 2 "-" "ua" 1 "r" "u" 5ms`,
			`1.2.3.4 - - [30/Nov/2026:02:47:30 +0000] "GET / HTTP/1.1" 200 2 "-" "ua" 1 "r" "u"`,
			`1.2.3.4 - - [30/Nov/2026:02:47:30] "GET / HTTP/1.1" 200 2 "-" "ua" 1 "r" "u" 5ms`,
			`1.2.3.4 - - [30/Nov/2026:02:47:30 +0000] "GET / HTTP/1.1" 2000 2 "-" "ua" 1 "r" "u" 5ms`,
			`1.2.3.4 - - [30/Nov/2026:02:47:30 +0000] "GET / HTTP/1.1" 200 2 "-" "ua" 1 "r" "u" 5s`,
			`1.2.3.4 - - [30/Nov/2026:02:47:30 +0000] "GET / HTTP/1.1" 200 2 "-" "ua 1 "r" "u" 5ms`,
			`1.2.3.4 - - [30/Nov/2026:02:47:30 +0000 "GET / HTTP/1.1" 200 2 "-" "ua" 1 "r" "u" 5ms`,
		}, []timeline.Skip{
			{Line: 2, Reason: "12 fields: want 13"},
			{Line: 3, Reason: `bad time "30/Nov/2026:02:47:30": want 02/Jan/2006:15:04:05 -0700`},
			{Line: 4, Reason: `bad status "2000"`},
			{Line: 5, Reason: `bad duration "5s": want milliseconds, e.g. 12ms`},
			{Line: 6, Reason: "no space after a field at byte 76"},
			{Line: 7, Reason: "unterminated [ at byte 13"},
		}},
		{"apigateway-json", []string{
			`{"requestId":"r","requestTime":"30/Nov/2026:02:47:30 +0000","status":"200"}`,
			`{"requestTime":"30/Nov/2026:02:47:30 +0000","status":"200"}`,
			`{"requestId":"r","status":"200"}`,
			`{"requestId":"r","requestTimeEpoch":"1796006850","status":"200"}`,
			`{"requestId":"r","requestTime":"Monday","status":"200"}`,
			`{"requestId":"r","requestTime":"30/Nov/2026:02:47:30 +0000","status":"200","responseLatency":"n/a"}`,
		}, []timeline.Skip{
			{Line: 2, Reason: "no requestId"},
			{Line: 3, Reason: "no requestTime or requestTimeEpoch"},
			{Line: 4, Reason: `bad requestTimeEpoch "1796006850": want epoch milliseconds`},
			{Line: 5, Reason: `bad requestTime "Monday": want a time like 02/Jan/2006:15:04:05 -0700`},
			{Line: 6, Reason: `bad responseLatency "n/a": want a duration`},
		}},
		{"apigateway-clf", []string{
			`1.2.3.4 - - [30/Nov/2026:02:47:30 +0000] "POST /p HTTP/1.1" 429 52 c6af9ac7`,
			`1.2.3.4 - - [30/Nov/2026:02:47:30 +0000] "POST /p HTTP/1.1" 429 52 -`,
			`1.2.3.4 - - [30/Nov/2026:02:47:30 +0000] "POST /p HTTP/1.1" - 52 c6af9ac7`,
			`1.2.3.4 - - [30/Nov/2026:02:47:30 +0000] "POST /p HTTP/1.1 429 52 c6af9ac7`,
		}, []timeline.Skip{
			{Line: 2, Reason: "no requestId"},
			{Line: 3, Reason: `bad status "-"`},
			{Line: 4, Reason: "unterminated quoted field at byte 42"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			input := []byte(strings.Join(tt.lines, "\n") + "\n")
			tl := readWithParser(t, tt.format, input, newAccessFormatParser(tt.format, newInterner()))
			s := tl.Sources[0]
			if s.Lines != int64(len(tt.lines)) || s.Skipped != int64(len(tt.want)) || s.Parsed+s.Skipped != s.Lines {
				t.Errorf("accounting: %+v", s)
			}
			for i := range max(len(tt.want), len(s.Samples)) {
				var got, want timeline.Skip
				if i < len(s.Samples) {
					got = s.Samples[i]
				}
				if i < len(tt.want) {
					want = tt.want[i]
				}
				if got != want {
					t.Errorf("skip %d: got %+v, want %+v", i, got, want)
				}
			}
		})
	}
}

// TestAccessSniffersBeforeJSONL shows why the JSON sniffers here must run
// before sniffJSONL: it claims every one of their examples.
func TestAccessSniffersBeforeJSONL(t *testing.T) {
	for _, ex := range accessExamples {
		input, err := os.ReadFile(filepath.Join("..", "testdata", "ingest", ex.file))
		if err != nil {
			t.Fatal(err)
		}
		p, _ := sniffJSONL(sampleOf(input, true), Options{}, newInterner())
		isJSON := input[0] == '{'
		if (p != nil) != isJSON {
			t.Errorf("%s: sniffJSONL claims it: %v, want %v", ex.file, p != nil, isJSON)
		}
	}
}

// TestAccessFormatsRegistry checks that every format has an example and
// that names and aliases open the right parser.
func TestAccessFormatsRegistry(t *testing.T) {
	examples := map[string]bool{}
	for _, ex := range accessExamples {
		examples[ex.format] = true
	}
	for _, f := range accessFormats {
		if !examples[f.name] {
			t.Errorf("%s has no example", f.name)
		}
		for _, name := range append([]string{f.name}, f.aliases...) {
			if p := newAccessFormatParser(name, newInterner()); p == nil || p.format() != f.name {
				t.Errorf("%q does not open %s", name, f.name)
			}
		}
	}
	if newAccessFormatParser("nginx", newInterner()) != nil {
		t.Error("nginx opened here")
	}
}
