package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/internal/golden"
	"github.com/stampede/stampede/timeline"
)

// renderTimeline writes a timeline as stable text: the source's accounting,
// one line per event with every field, then the skipped lines.
func renderTimeline(tl *timeline.Timeline) string {
	var b strings.Builder
	for _, s := range tl.Sources {
		fmt.Fprintf(&b, "source %s format=%s lines=%d parsed=%d skipped=%d events=%d\n",
			filepath.Base(s.Path), s.Format, s.Lines, s.Parsed, s.Skipped, s.Events)
	}
	stamp := func(ns int64) string {
		if ns == 0 {
			return "-"
		}
		return time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000000000Z")
	}
	opt := func(s string) string {
		if s == "" {
			return "-"
		}
		return fmt.Sprintf("%q", s)
	}
	for _, e := range tl.Events {
		ra := "-"
		if e.RetryAfter != timeline.NoRetryAfter {
			ra = e.RetryAfter.Duration().String()
		}
		fmt.Fprintf(&b, "%d: start=%s end=%s %s %s class=%s status=%d attempt=%d/%d queue_attempt=%d attempts=%d retry_after=%s code=%s route=%s client=%s task=%s call=%s request=%s\n",
			e.Line, stamp(e.Start), stamp(e.End), e.Layer, e.Outcome, e.Class, e.Status, e.Attempt, e.MaxAttempts,
			e.QueueAttempt, e.Attempts, ra, opt(e.ErrorCode.String()), opt(e.Route.String()), opt(e.Client.String()), opt(e.TaskID.String()),
			opt(e.CallID.String()), opt(e.RequestID.String()))
	}
	for _, s := range tl.Sources {
		for _, k := range s.Samples {
			fmt.Fprintf(&b, "skip %s:%d: %s\n", filepath.Base(s.Path), k.Line, k.Reason)
		}
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	dir := filepath.Join("..", "testdata", "ingest")
	timed, err := os.ReadFile(filepath.Join(dir, "timed.conf"))
	if err != nil {
		t.Fatal(err)
	}
	apacheTimed, err := os.ReadFile(filepath.Join(dir, "apache", "timed.conf"))
	if err != nil {
		t.Fatal(err)
	}
	envoyRetries, err := os.ReadFile(filepath.Join(dir, "envoy", "retries.conf"))
	if err != nil {
		t.Fatal(err)
	}
	haproxyCustom, err := os.ReadFile(filepath.Join(dir, "haproxy", "custom.conf"))
	if err != nil {
		t.Fatal(err)
	}
	cloudfrontSelected, err := os.ReadFile(filepath.Join(dir, "cloudfront", "realtime-selected.conf"))
	if err != nil {
		t.Fatal(err)
	}
	captures := []string{"x-task-id", "x-stainless-retry-count", "user-agent"}
	tests := []struct {
		file   string
		opt    Options
		golden string // name encodes the options
	}{
		{"apache/common.log", Options{}, "apache-common.log.golden"},
		{"apache/timed.log", Options{Format: "apache", LogFormat: string(apacheTimed)}, "apache-timed.log.format-apache-logformat-timed.golden"},
		{"envoy/default.log", Options{Format: "envoy"}, "envoy-default.log.format-envoy.golden"},
		{"envoy/retries.log", Options{LogFormat: string(envoyRetries)}, "envoy-retries.log.logformat-retries.golden"},
		{"envoy/access.json", Options{Format: "envoy-json"}, "envoy-access.json.format-envoy-json.golden"},
		{"alb/alb.log", Options{Format: "alb"}, "alb.log.format-alb.golden"},
		{"haproxy/httplog.log", Options{HAProxyCaptures: captures}, "haproxy-httplog.log.captures.golden"},
		{"haproxy/syslog.log", Options{}, "haproxy-syslog.log.golden"},
		{"haproxy/clf.log", Options{HAProxyCaptures: captures[:2]}, "haproxy-clf.log.captures.golden"},
		{"haproxy/custom.log", Options{LogFormat: string(haproxyCustom)}, "haproxy-custom.log.logformat-custom.golden"},
		{"cloudfront/standard.log", Options{}, "cloudfront-standard.log.golden"},
		{"cloudfront/realtime.log", Options{}, "cloudfront-realtime.log.golden"},
		{"cloudfront/realtime-selected.log", Options{Format: "cloudfront", LogFormat: string(cloudfrontSelected)}, "cloudfront-realtime-selected.log.format-cloudfront-logformat-selected.golden"},
		{"botocore-access.log", Options{}, "botocore-access.log.golden"},
		// nginx logs when a request ends: these start $request_time earlier.
		{"realworld-like/ingress-upstreaminfo.log", Options{}, "realworld-like-ingress-upstreaminfo.log.golden"},
		{"realworld-like/nginx-main-timing.log", Options{}, "realworld-like-nginx-main-timing.log.golden"},
		{"botocore-access_combined.log", Options{}, "botocore-access_combined.log.golden"},
		{"botocore-calls.jsonl", Options{}, "botocore-calls.jsonl.golden"},
		{"no-throttle-access.log", Options{}, "no-throttle-access.log.golden"},
		{"no-throttle-calls.jsonl", Options{}, "no-throttle-calls.jsonl.golden"},
		{"stampede.log", Options{}, "stampede.log.golden"},
		{"timed.log", Options{LogFormat: string(timed)}, "timed.log.logformat-timed.golden"},
		{"app.jsonl", Options{Format: "jsonl"}, "app.jsonl.golden"},
		{"app.jsonl", Options{Format: "jsonl", Fields: map[string]string{"code": "error_type", "call": "task_id"}},
			"app.jsonl.fields-code-call.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			tl, err := ReadFile(filepath.Join(dir, tt.file), tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			got := renderTimeline(tl)
			golden.Check(t, filepath.Join(dir, "golden", tt.golden), []byte(got))
		})
	}
}
