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
	if s.Parsed+s.Skipped != s.Lines || s.Events != int64(len(tl.Events)) || s.Events != s.Parsed {
		t.Fatalf("accounting %+v with %d events", s, len(tl.Events))
	}
	for i, e := range tl.Events {
		if e.Line < 1 || e.Line > s.Lines || (i > 0 && e.Line <= tl.Events[i-1].Line) {
			t.Fatalf("event %d has line %d of %d", i, e.Line, s.Lines)
		}
	}
}

func FuzzNginxLine(f *testing.F) {
	for _, c := range nginxLineCases() {
		f.Add(c.format, c.line)
	}
	f.Add("retry", retryLine)
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
