package ingest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stampede/stampede/timeline"
)

// checkAccounting reads input and asserts the books balance whatever it is.
func checkAccounting(t *testing.T, input []byte, opt Options) {
	tl, err := Read(bytes.NewReader(input), "fuzz", opt)
	if err != nil {
		return // undetectable input is an error, not a panic
	}
	if len(tl.Sources) != 1 {
		t.Fatalf("%d sources", len(tl.Sources))
	}
	s := tl.Sources[0]
	// A line may hold several attempts, so Events can exceed Parsed; a
	// document format counts its structure lines as parsed, so there
	// Events may also fall short of Parsed.
	document := s.Format == "har" || s.Format == "otlp-json" || strings.HasSuffix(s.Format, ":pretty")
	if s.Parsed+s.Skipped != s.Lines || s.Events != int64(len(tl.Events)) || (!document && s.Events < s.Parsed) {
		t.Fatalf("accounting %+v with %d events", s, len(tl.Events))
	}
	for i, e := range tl.Events {
		if e.Line < 1 || e.Line > s.Lines || (i > 0 && e.Line < tl.Events[i-1].Line) {
			t.Fatalf("event %d has line %d of %d", i, e.Line, s.Lines)
		}
	}
}

func FuzzNginxLine(f *testing.F) {
	for _, c := range nginxLineCases() {
		f.Add(c.format, c.line)
	}
	f.Add("retry", retryLine)
	f.Add("upstreaminfo", `10.0.1.8 - - [30/Nov/2026:02:47:33 +0000] "POST /v1 HTTP/2.0" 429 61 "-" "ua" 731 0.105 [up-8080] [] 10.0.50.81:8080, 10.0.50.80:8080 0, 61 0.100, 0.004 502, 429 7b3e4c1a`)
	f.Add("main_timing", `203.0.113.10 - - [30/Nov/2026:02:47:31 +0000] "POST /v1 HTTP/1.1" 200 1480 "-" "ua" "-" rt=2.250 uct="0.001" uht="2.200" urt="2.249"`)
	f.Add("main", `192.0.2.7 - - [2026-11-30T03:47:31+01:00] "POST /v1 HTTP/1.1" 429 61 "-" "ua" "-"`)
	f.Add("combined", `1.2.3.4 - - [30/Nov/2026:02:47:31 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"`)
	f.Add("stampede", `1.2.3.4 - - [30/Nov/2026:02:47:31 +0000] "POST /v1 HTTP/1.1" 429 10 "-" "ua" 0.250 0.249 "1" "-" "-" "t" 1796006851.500 "Mon, 30 Nov 2026 02:47:41 GMT"`)
	f.Add(`$msec rt=$request_time us=$upstream_status urt=$upstream_response_time`, `1796006851.000 rt=1.000 us=502, 429 : 200 urt=0.5, 0.4 : 0.1`)
	f.Add(`[$time_iso8601] $status "$sent_http_x_amzn_errortype" $sent_http_retry_after_ms`, `[2026-11-30T03:47:31+01:00] 400 "ThrottlingException:x" 12.5`)
	f.Fuzz(func(t *testing.T, format, line string) {
		if _, err := compileNamedOrCustom(format); err != nil {
			return
		}
		checkAccounting(t, []byte(line+"\n"+line), Options{LogFormat: format})
	})
}

func FuzzLogFormatCompile(f *testing.F) {
	for _, def := range NginxFormats() {
		f.Add(def)
	}
	f.Add(`log_format timed escape=json '$msec ' "${status}x" ;`)
	f.Add(`'$msec$status`)
	f.Add(`${`)
	f.Fuzz(func(t *testing.T, def string) {
		lf, err := compileNamedOrCustom(def)
		if err != nil {
			return
		}
		if len(lf.fields) == 0 {
			t.Fatal("compiled a format without variables")
		}
		for i, fd := range lf.fields[:len(lf.fields)-1] {
			if len(fd.next) == 0 {
				t.Fatalf("variable %d ($%s) has no literal after it", i, fd.name)
			}
		}
		// A line rendered from the format must not upset the parser. (It
		// need not parse: a literal may occur inside a sample value.)
		var line strings.Builder
		line.Write(lf.lead)
		for _, fd := range lf.fields {
			line.WriteString(sampleValue(fd.kind))
			line.Write(fd.next)
		}
		var e timeline.Event
		newNginxParser(lf, newInterner()).parse([]byte(line.String()), &e)
	})
}

// sampleValue is a well-formed value for a variable kind.
func sampleValue(k varKind) string {
	switch k {
	case varTimeLocal:
		return "30/Nov/2026:02:47:31 +0000"
	case varTimeISO:
		return "2026-11-30T02:47:31+00:00"
	case varMsec:
		return "1796006851.123"
	case varStatus:
		return "429"
	case varRequestTime:
		return "0.002"
	}
	return "-"
}

func FuzzJSONL(f *testing.F) {
	f.Add(`{"ts_start":"2026-11-30T02:47:30.930Z","ts_end":"2026-11-30T02:47:31.489Z","kind":"batch","task_id":"t","queue_attempt":1,"outcome":"error","http_status":429}`)
	f.Add(`{"meta":{"a":[1,{"b":"}]\"{"}],"c":"\\"},"@timestamp":"2026-11-30T02:47:30Z","tags":["x","y"],"status":"503"}`)
	f.Add(`{"ts":"2026-11-30T02:47:30Z","task":"t\u00e9\"1\\","client":"\ud83d\ude00 sdk","url":"https://h/v1/x?y=1"}`)
	f.Add(`{"t_start":1796006850.5,"duration_ms":250,"retry_after_ms":1.5e3,"time":1e400}`)
	f.Add(`{"ts":tru}`)
	f.Add("\xef\xbb\xbf{\"ts\":1}\r\n\n{")
	f.Fuzz(func(t *testing.T, input string) {
		checkAccounting(t, []byte(input), Options{Format: "jsonl"})
		checkAccounting(t, []byte(input), Options{})
	})
}

// FuzzFormatLine feeds lines to every format through Read, forced by
// Options as in the table cases, and to detection.
func FuzzFormatLine(f *testing.F) {
	for _, c := range formatLineCases() {
		f.Add(c.opt.Format, c.opt.LogFormat, c.line)
	}
	f.Add("alb", "", albLine)
	f.Add("alb", "", `h2 2026-11-30T02:47:30Z x 1:1 - -1 -1 -1 - - 0 0 "- - - " "-" - - - "\"" "-" "-" - -`)
	f.Add("envoy-json", "", `{"start_time":1796006850.5,"duration":null,"response_flags":"-","upstream_request_attempt_count":70}`)
	f.Add("nginx", `$msec $status "$upstream_status" "$upstream_response_time"`, `1796006851.000 200 "502, 503 : 504, 200" "1, 2 : 3, -"`)
	f.Add("envoy", `%START_TIME% %RESPONSE_CODE% %UPSTREAM_REQUEST_ATTEMPT_COUNT% %RESP(X-ENVOY-ATTEMPT-COUNT)%`, `2026-11-30T02:47:30Z - 99 2`)
	f.Add("apache", `%{usec}t %>s "%{Retry-After}o" %{us}T`, `1796006850500000 429 "Mon, 30 Nov 2026 02:47:41 GMT" 12`)
	f.Fuzz(func(t *testing.T, format, logFormat, line string) {
		input := []byte(line + "\n" + line)
		checkAccounting(t, input, Options{Format: format, LogFormat: logFormat})
		checkAccounting(t, input, Options{})
	})
}

// FuzzForeignFormatCompile checks the Apache and Envoy format compilers
// the way FuzzLogFormatCompile checks nginx's.
func FuzzForeignFormatCompile(f *testing.F) {
	for _, d := range apacheNamedFormats {
		f.Add(d)
	}
	f.Add(EnvoyDefaultFormat)
	f.Add(`LogFormat "%h %{X-Task-Id}i %{%d/%b/%Y:%H:%M:%S %z}t \"%r\" %!200,304<s %D" timed`)
	f.Add(`'[%START_TIME(%s)%] %REQ(A?B):3% %RESP(RETRY-AFTER)% %%\n'`)
	f.Add(`%{`)
	f.Add(`%START_TIME(`)
	f.Fuzz(func(t *testing.T, def string) {
		for _, compile := range []func(string) (*logFormat, error){compileApacheNamedOrCustom, compileEnvoyNamedOrCustom} {
			lf, err := compile(def)
			if err != nil {
				continue
			}
			for i, fd := range lf.fields[:len(lf.fields)-1] {
				if len(fd.next) == 0 {
					t.Fatalf("variable %d (%s) has no literal after it", i, fd.display())
				}
			}
			var line strings.Builder
			line.Write(lf.lead)
			for _, fd := range lf.fields {
				line.WriteString(sampleValue(fd.kind))
				line.Write(fd.next)
			}
			p := newNginxParser(lf, newInterner())
			var e timeline.Event
			p.parse([]byte(line.String()), &e)
			p.parseMulti([]byte(line.String()), func() *timeline.Event { return &timeline.Event{} })
		}
	})
}

// FuzzParsersDirect runs the new formats' parsers on a line without Read's
// buffers, for speed, and checks what a claimed line must give.
func FuzzParsersDirect(f *testing.F) {
	for _, c := range formatLineCases() {
		f.Add(c.line)
	}
	f.Add(`{"start_time":"2026-11-30T02:47:30Z","response_code":"-","upstream_request_attempt_count":1e3}`)
	f.Add(`wss 2026-11-30T02:47:30Z x 1:1 - 0.1 -1 0 429 - 0 0 "GET /\"x HTTP/1.1" "ua\\" s p t "" "" "" 1 -`)
	strs := newInterner()
	apache, _ := compileApacheNamedOrCustom("combined")
	envoy, _ := compileEnvoyNamedOrCustom("default")
	parsers := []multiParser{newEnvoyJSONParser(strs), newNginxParser(apache, strs), newNginxParser(envoy, strs)}
	alb := newALBParser(strs)
	f.Fuzz(func(t *testing.T, line string) {
		var e timeline.Event
		if alb.parse([]byte(line), &e) == "" && (e.Layer != timeline.LayerHTTP || e.Start == 0 && e.End == 0) {
			t.Fatalf("alb claimed %q as %+v", line, e)
		}
		for _, p := range parsers {
			var events []timeline.Event
			emit := func() *timeline.Event {
				events = append(events, timeline.Event{Line: 7})
				return &events[len(events)-1]
			}
			if reason := p.parseMulti([]byte(line), emit); reason != "" {
				continue
			}
			if len(events) == 0 || len(events) > maxUpstreamAttempts {
				t.Fatalf("%s: %d events from %q", p.format(), len(events), line)
			}
			for i, e := range events {
				if e.Line != 7 || e.Layer != timeline.LayerHTTP || (len(events) > 1 && int(e.Attempt) != i+1) {
					t.Fatalf("%s: event %d %+v from %q", p.format(), i, e, line)
				}
			}
		}
	})
}
