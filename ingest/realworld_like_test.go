package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede/stampede/timeline"
)

// TestRealWorldLikeLogs reads logs shaped as their users have them (under
// testdata/ingest/realworld-like, each written for the feature it pins)
// with detection on, and checks the format chosen, the accounting, the
// throttles found and whether detection voiced a doubt.
func TestRealWorldLikeLogs(t *testing.T) {
	tests := []struct {
		file    string
		format  string
		parsed  int64 // of the file's lines; the rest are skipped
		events  int64
		throttl int
		// warn is a substring of a detection warning, or "" for none.
		warn string
	}{
		// ingress-nginx's upstreaminfo: the upstream list "502, 429" is
		// two attempts, absent upstream fields are "-".
		{"ingress-upstreaminfo.log", "nginx:upstreaminfo", 4, 5, 2, ""},
		// main plus rt=/uct=/uht=/urt= timings.
		{"nginx-main-timing.log", "nginx:main_timing", 3, 3, 1, ""},
		// main and combined lines mixed, X-Forwarded-For lists as client.
		{"nginx-xff-mixed.log", "nginx:main", 5, 5, 1, "that nginx:main does not read"},
		// Traefik's common format with one line damaged: that line is
		// skipped, not read as some other CLF.
		{"traefik-clf-damaged.log", "traefik-clf", 2, 2, 1, "only 2 of 3 sampled lines read as traefik-clf"},
		// Apache vhost_combined, with and without the port.
		{"apache-vhost-combined.log", "apache:vhost_combined", 2, 2, 1, ""},
		{"apache-ssl-request.log", "apache:ssl_request_log", 2, 2, 0, ""},
		// Istio's default text format, current and Mixer-era.
		{"istio-default.log", "envoy:istio", 3, 3, 2, ""},
		{"istio-mixer.log", "envoy:istio_mixer", 2, 2, 1, ""},
		// A short snippet with one bad line is read, the bad line skipped.
		{"nginx-short-bad.log", "nginx:combined", 2, 2, 1, "only 2 of 3 sampled lines read"},
		// Collector prefixes are skipped.
		{"caddy-compose.log", "caddy", 2, 2, 1, ""},
		{"nginx-kubectl.log", "nginx:main", 2, 2, 1, ""},
		{"nginx-syslog.log", "nginx:combined", 2, 2, 1, ""},
		// API Gateway JSON as copied from the CloudWatch console.
		{"apigateway-console.json", "apigateway-json:pretty", 23, 2, 1, ""},
		// [$time_iso8601] in place of [$time_local].
		{"nginx-iso8601.log", "nginx:main", 2, 2, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tl, err := ReadFile(filepath.Join("..", "testdata", "ingest", "realworld-like", tt.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := tl.Sources[0]
			if s.Format != tt.format || s.Parsed != tt.parsed || s.Parsed+s.Skipped != s.Lines || s.Events != tt.events {
				t.Errorf("got %s parsed=%d skipped=%d events=%d; want %s parsed=%d events=%d (skips %+v)",
					s.Format, s.Parsed, s.Skipped, s.Events, tt.format, tt.parsed, tt.events, s.Samples)
			}
			throttled := 0
			for _, e := range tl.Events {
				if e.Outcome == timeline.OutcomeThrottled {
					throttled++
				}
			}
			if throttled != tt.throttl {
				t.Errorf("%d throttled, want %d", throttled, tt.throttl)
			}
			w := strings.Join(s.Warnings, "\n")
			if tt.warn == "" && w != "" || !strings.Contains(w, tt.warn) {
				t.Errorf("warnings %q, want %q", w, tt.warn)
			}
		})
	}
}

// TestJSONLLayer pins the layer of JSON-lines records that do not name
// theirs: an access log in JSON is read as attempts (with a note), a call
// log as calls, and Options.Layer overrides both.
func TestJSONLLayer(t *testing.T) {
	dir := filepath.Join("..", "testdata", "ingest")
	tests := []struct {
		file, layer string
		want        timeline.Layer
		note        bool
		err         string
	}{
		{"realworld-like/nginx-json-access.jsonl", "", timeline.LayerHTTP, true, ""},
		{"realworld-like/nginx-json-access.jsonl", "call", timeline.LayerCall, false, ""},
		{"realworld-like/sdk-calls.jsonl", "", timeline.LayerCall, false, ""},
		{"realworld-like/sdk-calls.jsonl", "attempt", timeline.LayerHTTP, false, ""},
		{"realworld-like/sdk-calls.jsonl", "task", 0, false, `layer "task": want attempt or call`},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.layer, func(t *testing.T) {
			tl, err := ReadFile(filepath.Join(dir, tt.file), Options{Layer: tt.layer})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tl.Events {
				if e.Layer != tt.want {
					t.Fatalf("line %d: layer %v, want %v", e.Line, e.Layer, tt.want)
				}
			}
			if got := len(tl.Sources[0].Warnings) > 0; got != tt.note {
				t.Errorf("warnings %q, want a note: %v", tl.Sources[0].Warnings, tt.note)
			}
		})
	}
}

// TestForcedFormatBehindPrefix checks that a format the user names still
// reads lines behind a collector prefix, and that a format whose lines open
// with a time like kubectl's is not cut by it.
func TestForcedFormatBehindPrefix(t *testing.T) {
	tests := []struct {
		name, input string
		opt         Options
		parsed      int64
	}{
		{"caddy behind docker compose", "realworld-like/caddy-compose.log", Options{Format: "caddy"}, 2},
		{"nginx behind kubectl", "realworld-like/nginx-kubectl.log", Options{Format: "nginx"}, 2},
		{"main behind kubectl", "realworld-like/nginx-kubectl.log", Options{LogFormat: "main"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := ReadFile(filepath.Join("..", "testdata", "ingest", tt.input), tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if s := tl.Sources[0]; s.Parsed != tt.parsed || len(s.Warnings) > 0 {
				t.Errorf("%+v", s)
			}
		})
	}
	// The time that opens this format's lines looks like kubectl's prefix.
	lines := "2026-11-30T02:47:31Z 429 /v1/chat/completions\n2026-11-30T02:47:32Z 200 /v1/chat/completions\n"
	tl, err := Read(strings.NewReader(lines), "iso.log", Options{LogFormat: "$time_iso8601 $status $uri"})
	if err != nil {
		t.Fatal(err)
	}
	if s := tl.Sources[0]; s.Parsed != 2 || tl.Events[0].Status != 429 {
		t.Errorf("%+v, events %+v", s, tl.Events)
	}
}

// TestPrefixedLogInPieces reads a log behind a kubectl prefix in pieces at
// once, as a large file is, and wants what reading it whole gives.
func TestPrefixedLogInPieces(t *testing.T) {
	defer func(n int64) { minPieceBytes = n }(minPieceBytes)
	minPieceBytes = 256
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "2026-11-30T02:%02d:%02d.000000000Z 192.0.2.7 - - [30/Nov/2026:02:%02d:%02d +0000] \"POST /v1/chat/completions HTTP/1.1\" %d 61 \"-\" \"OpenAI/Python 1.52.0\" \"-\"\n",
			i/60, i%60, i/60, i%60, 200+229*(i%2))
	}
	path := filepath.Join(t.TempDir(), "kubectl.log")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	whole, err := ReadFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, parts, err := ReadFileParts(path, Options{}, 4)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range parts {
		n += len(p.Events)
	}
	if src.Format != "nginx:main" || src.Parsed != 400 || len(src.Warnings) > 0 || n != len(whole.Events) || len(whole.Events) != 400 {
		t.Errorf("in pieces %+v with %d events; whole %+v", src, n, whole.Sources[0])
	}
}
