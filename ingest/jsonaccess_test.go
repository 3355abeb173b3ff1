package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
)

func TestJSONPaths(t *testing.T) {
	js := newJSONPaths("a", "b.c", "b.d.e", "h.X", "err", "err.type")
	tests := []struct {
		line string
		want map[int]string // slot -> text; absent slots must be nil
	}{
		{`{"a":"x","b":{"c":1,"d":{"e":"deep"}}}`, map[int]string{0: "x", 1: "1", 2: "deep"}},
		{`{"b":{"c":{"no":"object"},"z":[1,{"c":2}]},"a":null}`, map[int]string{}},
		{`{"h":{"X":["first","second"]},"zz":{"a":"not top"}}`, map[int]string{3: "first"}},
		{`{"h":{"X":[]}}`, map[int]string{}},
		{`{"h":{"X":"plain"}}`, map[int]string{3: "plain"}},
		{`{"err":"timeout"}`, map[int]string{4: "timeout"}},
		{`{"err":{"type":"THROTTLED"}}`, map[int]string{5: "THROTTLED"}},
		{`{"a":"t\u00e9\"q","b":{"c":"-"}}`, map[int]string{0: `té"q`}},
	}
	for _, tt := range tests {
		if reason := js.scan([]byte(tt.line)); reason != "" {
			t.Errorf("%s: %s", tt.line, reason)
			continue
		}
		for slot := range js.paths {
			got, want := js.text(slot), tt.want[slot]
			if (got == nil) != (want == "") || string(got) != want {
				t.Errorf("%s: %s = %q, want %q", tt.line, js.paths[slot], got, want)
			}
		}
	}
}

func TestCSVSplitter(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`a,b,c`, []string{"a", "b", "c"}},
		{`,,`, []string{"", "", ""}},
		{`"a,b",c`, []string{"a,b", "c"}},
		{`"say ""hi""",x`, []string{`say "hi"`, "x"}},
		{`x,""`, []string{"x", ""}},
		{`"""",""""""`, []string{`"`, `""`}},
	}
	var s csvSplitter
	for _, tt := range tests {
		got, reason := s.split([]byte(tt.line))
		if reason != "" {
			t.Errorf("%s: %s", tt.line, reason)
			continue
		}
		var gs []string
		for _, f := range got {
			gs = append(gs, string(f))
		}
		if strings.Join(gs, "|") != strings.Join(tt.want, "|") || len(gs) != len(tt.want) {
			t.Errorf("%s: got %q, want %q", tt.line, gs, tt.want)
		}
	}
}

func TestCLFSplitter(t *testing.T) {
	var s clfSplitter
	toks, reason := s.split([]byte(`1.2.3.4 - u [30/Nov/2026:02:47:30 +0000] "GET /a\"b HTTP/1.1" 200  "" 5ms`))
	if reason != "" {
		t.Fatal(reason)
	}
	var got []string
	for _, tk := range toks {
		d := tk.delim
		if d == 0 {
			d = '_'
		}
		got = append(got, fmt.Sprintf("%c%s", d, tk.b))
	}
	want := `_1.2.3.4 _- _u [30/Nov/2026:02:47:30 +0000 "GET /a\"b HTTP/1.1 _200 " _5ms`
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

// TestNginxEscapeJSONAsJSONL reads an nginx access log written with
// escape=json through the JSONL reader with a field mapping: the format
// needs no parser of its own when its log_format names a layer and uses
// the JSONL keys (duration_s, task_id, status, retry_after) or mapped ones.
func TestNginxEscapeJSONAsJSONL(t *testing.T) {
	path := filepath.Join("..", "testdata", "ingest", "nginx-json", "access.jsonl")
	fields, err := ParseFieldMapping([]string{"start=msec", "route=uri", "client=ua", "request=rid"})
	if err != nil {
		t.Fatal(err)
	}
	input, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newJSONLParser(fields, newInterner())
	if err != nil {
		t.Fatal(err)
	}
	tl := readWithParser(t, path, input, p)
	compareGolden(t, renderTimeline(tl), path+".golden")
	for _, e := range tl.Events {
		if e.Layer != timeline.LayerHTTP || e.Route.String() != "/v1/chat/completions" || e.Client == timeline.NoSym || e.TaskID == timeline.NoSym || e.End <= e.Start {
			t.Errorf("line %d: fields not mapped: %+v", e.Line, e)
		}
	}
	// nginx writes an unset variable as "" under escape=json: absent, so
	// the attempts without a Retry-After header are read, not skipped.
	s := tl.Sources[0]
	if s.Parsed != s.Lines || s.Skipped != 0 {
		t.Errorf("lines with unset variables skipped: %+v", s)
	}
	for _, e := range tl.Events {
		if e.Status == 200 && e.RetryAfter != timeline.NoRetryAfter {
			t.Errorf("line %d: empty retry_after read as %v", e.Line, e.RetryAfter)
		}
	}
}

// checkAccessAccounting reads input with p and asserts the books balance.
func checkAccessAccounting(t *testing.T, input []byte, p lineParser) {
	tl := readWithParser(t, "fuzz", input, p)
	s := tl.Sources[0]
	if s.Parsed+s.Skipped != s.Lines || s.Events != int64(len(tl.Events)) || s.Events != s.Parsed {
		t.Fatalf("accounting %+v with %d events", s, len(tl.Events))
	}
	for _, e := range tl.Events {
		if e.Start == 0 || e.Layer != timeline.LayerHTTP || (e.End != 0 && e.End < e.Start) {
			t.Fatalf("line %d: bad event %+v", e.Line, e)
		}
	}
}

func FuzzAccessFormats(f *testing.F) {
	for _, ex := range accessExamples {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "ingest", ex.file))
		if err != nil {
			f.Fatal(err)
		}
		lines := strings.SplitN(string(b), "\n", 4)
		f.Add(ex.format, strings.Join(lines[:min(3, len(lines))], "\n"))
	}
	f.Add("jmeter", "timeStamp,elapsed\n\"1796006850000\",\"\"\"5\"\n")
	f.Add("caddy", `{"logger":"http.log.access","ts":1e400,"duration":"-1s","request":{"headers":{"User-Agent":[{"x":1}]}}}`)
	f.Add("traefik-clf", `a - - [x] "" 1 2 "" "" 3 "" "" 4ms`)
	f.Add("vegeta-csv", "1796006850000000000,200,5,1,1,,,a,0,GET,http://h/x,!!notbase64")
	f.Add("caddy", "")
	f.Add("vegeta-json", `{"code":0,"timestamp":0}`)
	f.Add("vegeta-json", `{"code":0,"timestamp":"2026-11-30T02:47:30Z","latency":9223372036854775807}`)
	f.Fuzz(func(t *testing.T, format, input string) {
		p := newAccessFormatParser(format, newInterner())
		if p == nil {
			return
		}
		checkAccessAccounting(t, []byte(input), p)
		// Detection must not panic, and what it picks must read the input.
		if p, _ := detect([]byte(input)); p != nil {
			readWithParser(t, "fuzz", []byte(input), p)
		}
	})
}

// BenchmarkAccessFormats reads ~8 MB of each format, for MB/s and lines/s.
func BenchmarkAccessFormats(b *testing.B) {
	for _, ex := range accessExamples {
		b.Run(ex.format, func(b *testing.B) {
			one, err := os.ReadFile(filepath.Join("..", "testdata", "ingest", ex.file))
			if err != nil {
				b.Fatal(err)
			}
			if ex.format == "jmeter" {
				// Keep one header: later ones would be counted as skipped.
				_, rest, _ := bytes.Cut(one, []byte("\n"))
				one = rest
			}
			input := bytes.Repeat(one, 8<<20/len(one)+1)
			lines := bytes.Count(input, []byte("\n"))
			b.SetBytes(int64(len(input)))
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				readWithParser(b, ex.file, input, newAccessFormatParser(ex.format, newInterner()))
			}
			sec := time.Since(start).Seconds()
			b.ReportMetric(float64(len(input))*float64(b.N)/sec/1e6, "MB/s")
			b.ReportMetric(float64(lines)*float64(b.N)/sec, "lines/s")
			runtime.KeepAlive(input)
		})
	}
}
