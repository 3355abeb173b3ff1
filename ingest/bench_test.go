package ingest

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/timeline"
)

// generateNginx writes n lines in the stampede format: 300 tasks retried
// in waves, so task ids, call ids and user agents repeat the way they do in
// an incident, and $time_local changes once per ~100 lines.
func generateNginx(n int) []byte {
	var b bytes.Buffer
	start := time.Date(2026, 11, 30, 2, 47, 30, 0, time.UTC)
	for i := 0; i < n; i++ {
		end := start.Add(time.Duration(i) * 10 * time.Millisecond)
		status, ra := 429, `"2"`
		if i%5 == 0 {
			status, ra = 200, `"-"`
		}
		fmt.Fprintf(&b, `10.0.%d.%d - - [%s] "POST /model/anthropic.claude-3-haiku-20240307-v1%%3A0/invoke HTTP/1.1" %d 65 "-" "Botocore/1.29.27 Python/3.11.2 Linux/6.18.44" 0.%03d 0.%03d "-" "ttl=20261130T024931Z; attempt=%d; max=3" "3c4fb880-9542-4755-9885-%012d" "task-%04d" %d.%03d %s`+"\n",
			i%7, i%251, end.Format("02/Jan/2006:15:04:05 -0700"), status, i%1000, i%1000, i%3+1, i%900, i%300,
			end.Unix(), end.Nanosecond()/1e6, ra)
	}
	return b.Bytes()
}

// generateJSONL writes n call records shaped like calls.jsonl.
func generateJSONL(n int) []byte {
	var b bytes.Buffer
	start := time.Date(2026, 11, 30, 2, 47, 30, 0, time.UTC)
	for i := 0; i < n; i++ {
		t0 := start.Add(time.Duration(i) * 10 * time.Millisecond)
		fmt.Fprintf(&b, `{"ts_start":"%s","ts_end":"%s","t_start":%d.%06d,"kind":"batch","task_id":"task-%04d","queue_attempt":%d,"call_id":"task-%04d/q%d","model":"anthropic.claude-3-haiku-20240307-v1:0","outcome":"error","error_type":"ThrottlingException","error_code":"ThrottlingException","http_status":429,"request_id":"b2b737ec-0103-46c8-8000-%012d","sdk_retry_count":0,"http_attempts":1,"duration_ms":559,"meta":{"tags":["a","b"],"n":1},"amz_sdk_invocation_id":"4292ab7c-144c-46e5-be5d-%012d"}`+"\n",
			t0.Format("2006-01-02T15:04:05.000Z"), t0.Add(559*time.Millisecond).Format("2006-01-02T15:04:05.000Z"),
			t0.Unix(), t0.Nanosecond()/1e3, i%300, i/300+1, i%300, i/300+1, i, i%900)
	}
	return b.Bytes()
}

func benchmarkRead(b *testing.B, data []byte, opt Options) {
	lines := bytes.Count(data, []byte{'\n'})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tl, err := Read(bytes.NewReader(data), "bench", opt)
		if err != nil || tl.Sources[0].Parsed != int64(lines) {
			b.Fatalf("%v %+v", err, tl.Sources[0].Samples)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	total := float64(lines) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/line")
}

func BenchmarkNginx(b *testing.B) {
	benchmarkRead(b, generateNginx(20000), Options{})
}

func BenchmarkJSONL(b *testing.B) {
	benchmarkRead(b, generateJSONL(20000), Options{})
}

// generateLines writes n lines of a text format, each from line(i, t) with
// t advancing 10 ms a line.
func generateLines(n int, line func(i int, t time.Time) string) []byte {
	var b bytes.Buffer
	start := time.Date(2026, 11, 30, 2, 47, 30, 0, time.UTC)
	for i := 0; i < n; i++ {
		b.WriteString(line(i, start.Add(time.Duration(i)*10*time.Millisecond)))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func BenchmarkApache(b *testing.B) {
	data := generateLines(20000, func(i int, t time.Time) string {
		return fmt.Sprintf(`10.1.4.%d - - [%s] "POST /v1/messages HTTP/1.1" %d 112 "-" "anthropic-sdk-python/0.40.0" %d "task-%04d" "2"`,
			i%251, t.Format("02/Jan/2006:15:04:05 -0700"), 200+229*(i%2), 1000+i%5000, i%300)
	})
	benchmarkRead(b, data, Options{Format: "apache", LogFormat: `%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i" %D "%{X-Task-Id}i" "%{Retry-After}o"`})
}

func BenchmarkEnvoy(b *testing.B) {
	data := generateLines(20000, func(i int, t time.Time) string {
		return fmt.Sprintf(`[%s] "POST /v1/chat/completions HTTP/1.1" %d %s 1834 18 %d - "10.0.35.30" "OpenAI/Python 1.30.1" "0d2c6a8e-6a4b-4d4f-9d0a-%012d" "api.internal" "10.0.2.7:8080"`,
			t.Format("2006-01-02T15:04:05.000Z"), 200+229*(i%2), []string{"-", "RL"}[i%2], i%900, i)
	})
	benchmarkRead(b, data, Options{})
}

func BenchmarkALB(b *testing.B) {
	data := generateLines(20000, func(i int, t time.Time) string {
		return fmt.Sprintf(`https %s app/api-prod/50dc6c495c0c9188 10.20.1.%d:53412 10.0.3.41:8080 0.000 0.402 0.000 429 429 1834 211 "POST https://api.example.com:443/v1/chat/completions HTTP/1.1" "OpenAI/Python 1.30.1" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/api/73e2d6bc24d8a067 "Root=1-674a7d32-%024d" "api.example.com" "arn:aws:acm:us-east-2:123456789012:certificate/12345678-1234-1234-1234-123456789012" 10 %s "forward" "-" "-" "10.0.3.41:8080" "429" "-" "-" TID_1234abcd`,
			t.Add(400*time.Millisecond).Format("2006-01-02T15:04:05.000000Z"), i%251, i, t.Format("2006-01-02T15:04:05.000000Z"))
	})
	benchmarkRead(b, data, Options{})
}

// BenchmarkNginxUpstreamRetries reads lines that each expand to two or
// three attempts.
func BenchmarkNginxUpstreamRetries(b *testing.B) {
	data := generateLines(20000, func(i int, t time.Time) string {
		return fmt.Sprintf(`%d.%03d rt=1.000 s=200 us="502, %s200" urt="0.600, %s0.300" "task-%04d"`,
			t.Unix(), t.Nanosecond()/1e6, []string{"", "429 : "}[i%2], []string{"", "0.050 : "}[i%2], i%300)
	})
	benchmarkRead(b, data, Options{LogFormat: `$msec rt=$request_time s=$status us="$upstream_status" urt="$upstream_response_time" "$http_x_task_id"`})
}

// incidentNginx is the seed incident, scaled 8-fold, as the stampede
// log_format: the lines `stampede analyze` reads in practice, whose task
// ids are mostly new from one line to the next.
var incidentNginx = sync.OnceValues(func() ([]byte, error) {
	sc, err := simulate.LoadScenario("../testdata/scenarios/seed-incident.json")
	if err != nil {
		return nil, err
	}
	sc.Scale(8)
	out, err := simulate.Run(sc)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := out.WriteAccessLog(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
})

func BenchmarkNginxIncident(b *testing.B) {
	data, err := incidentNginx()
	if err != nil {
		b.Fatal(err)
	}
	benchmarkRead(b, data, Options{})
}

// BenchmarkNginxParse is the parser alone on the incident's lines, without
// reading or growing the events slice.
func BenchmarkNginxParse(b *testing.B) {
	data, err := incidentNginx()
	if err != nil {
		b.Fatal(err)
	}
	f, err := compileNamedOrCustom("stampede")
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
	p := newNginxParser(f, newInterner())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	var e timeline.Event
	for b.Loop() {
		for i, line := range lines {
			e = timeline.Event{Line: int64(i + 1)}
			if reason := p.parse(line, &e); reason != "" {
				b.Fatalf("line %d: %s", i+1, reason)
			}
		}
	}
	b.ReportMetric(float64(len(lines))*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
