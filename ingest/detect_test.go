package ingest

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDetectEveryExample reads every example log under testdata/ingest
// with detection on and checks the format it picks. A custom format's
// definition sits beside its log as a .conf file and is passed as
// LogFormat, whose language is recognised from its text, as a user would.
// A new example file fails the test until it is listed here.
func TestDetectEveryExample(t *testing.T) {
	want := map[string]string{
		"alb/alb.log":                              "alb",
		"apache/common.log":                        "apache:common",
		"apache/timed.log":                         "apache:custom",
		"apigateway/access-clf.log":                "apigateway-clf",
		"apigateway/access.json":                   "apigateway-json",
		"app.jsonl":                                "jsonl",
		"botocore-access.log":                      "nginx:retry",
		"botocore-access_combined.log":             "nginx:combined",
		"botocore-calls.jsonl":                     "jsonl",
		"caddy/access.log":                         "caddy",
		"cloudflare/http_requests.json":            "cloudflare",
		"cloudfront/realtime-selected.log":         "cloudfront:custom",
		"cloudfront/realtime.log":                  "cloudfront:realtime",
		"cloudfront/standard.log":                  "cloudfront",
		"gcp-lb/requests.jsonl":                    "gcp-lb",
		"kong/file-log.json":                       "kong",
		"envoy/access.json":                        "envoy-json",
		"envoy/default.log":                        "envoy:default",
		"envoy/retries.log":                        "envoy:custom",
		"har/session.har":                          "har",
		"haproxy/clf.log":                          "haproxy:clf",
		"haproxy/custom.log":                       "haproxy:custom",
		"haproxy/httplog.log":                      "haproxy:httplog",
		"haproxy/syslog.log":                       "haproxy:httplog",
		"jmeter/results.jtl":                       "jmeter",
		"k6/results.json":                          "k6",
		"nginx-json/access.jsonl":                  "jsonl",
		"no-throttle-access.log":                   "nginx:retry",
		"no-throttle-calls.jsonl":                  "jsonl",
		"otlp/traces.jsonl":                        "otlp-json",
		"otlp/request.json":                        "otlp-json",
		"realworld-like/apache-ssl-request.log":    "apache:ssl_request_log",
		"realworld-like/apigateway-console.json":   "apigateway-json:pretty",
		"realworld-like/apache-vhost-combined.log": "apache:vhost_combined",
		"realworld-like/caddy-compose.log":         "caddy",
		"realworld-like/ingress-upstreaminfo.log":  "nginx:upstreaminfo",
		"realworld-like/istio-default.log":         "envoy:istio",
		"realworld-like/istio-mixer.log":           "envoy:istio_mixer",
		"realworld-like/nginx-iso8601.log":         "nginx:main",
		"realworld-like/nginx-json-access.jsonl":   "jsonl",
		"realworld-like/nginx-kubectl.log":         "nginx:main",
		"realworld-like/nginx-main-timing.log":     "nginx:main_timing",
		"realworld-like/nginx-short-bad.log":       "nginx:combined",
		"realworld-like/nginx-syslog.log":          "nginx:combined",
		"realworld-like/nginx-xff-mixed.log":       "nginx:main",
		"realworld-like/sdk-calls.jsonl":           "jsonl",
		"realworld-like/traefik-clf-damaged.log":   "traefik-clf",
		"sdk/aws-js-v3/calls.jsonl":                "aws-js-v3",
		"sdk/aws-js-v3/console.txt":                "aws-js-v3:console",
		"sdk/aws-js-v3/prefixed.log":               "aws-js-v3",
		"sdk/botocore/legacy-adaptive.log":         "botocore",
		"sdk/botocore/legacy-429.log":              "botocore",
		"sdk/botocore/standard.log":                "botocore",
		"sdk/openai-node/console-no-time.log":      "openai-node",
		"sdk/openai-node/debug-retry-after.log":    "openai-node",
		"sdk/openai-node/no-throttle.log":          "openai-node",
		"sdk/openai-node/retries.log":              "openai-node",
		"sdk/openai-python/debug-headers.log":      "openai-python",
		"sdk/openai-python/retries.log":            "openai-python",
		"sdk/openai-python/retry-only.log":         "openai-python",
		"stampede.log":                             "nginx:stampede",
		"timed.log":                                "nginx:custom",
		"traefik/access.json":                      "traefik-json",
		"traefik/access.log":                       "traefik-clf",
		"vegeta/results.csv":                       "vegeta-csv",
		"vegeta/results.json":                      "vegeta-json",
	}
	// The .conf beside a log, by log.
	confs := map[string]string{
		"apache/timed.log":                 "apache/timed.conf",
		"cloudfront/realtime-selected.log": "cloudfront/realtime-selected.conf",
		"envoy/retries.log":                "envoy/retries.conf",
		"haproxy/custom.log":               "haproxy/custom.conf",
		"timed.log":                        "timed.conf",
	}
	// JSONL field mappings, by log: nginx's escape=json log names its
	// keys after its variables.
	mappings := map[string][]string{
		"nginx-json/access.jsonl": {"start=msec", "route=uri", "client=ua", "request=rid"},
	}
	// Files that hold no event by design: SDK console output has no times.
	timeless := map[string]bool{"sdk/aws-js-v3/console.txt": true, "sdk/openai-node/console-no-time.log": true}
	root := filepath.Join("..", "testdata", "ingest")
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && d.Name() == "golden":
			return filepath.SkipDir
		case d.IsDir(), strings.HasSuffix(rel, ".md"), strings.HasSuffix(rel, ".golden"), strings.HasSuffix(rel, ".conf"):
			return nil
		}
		seen[rel] = true
		t.Run(rel, func(t *testing.T) {
			format, ok := want[rel]
			if !ok {
				t.Fatalf("no expected format for %s: add it to the table", rel)
			}
			var opt Options
			if conf, ok := confs[rel]; ok {
				def, err := os.ReadFile(filepath.Join(root, conf))
				if err != nil {
					t.Fatal(err)
				}
				opt.LogFormat = string(def)
			}
			if fields, ok := mappings[rel]; ok {
				m, err := ParseFieldMapping(fields)
				if err != nil {
					t.Fatal(err)
				}
				opt.Fields = m
			}
			tl, err := ReadFile(path, opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := tl.Sources[0].Format; got != format {
				t.Errorf("detected %s, want %s", got, format)
			}
			if s := tl.Sources[0]; s.Events == 0 && !timeless[rel] {
				t.Errorf("no events: %+v", s)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range want {
		if !seen[rel] {
			t.Errorf("%s is listed but not under testdata/ingest", rel)
		}
	}
}

// TestDetectUnknownListsEveryCandidate checks that input no format claims
// gives an error naming every format that was tried, with why it said no.
func TestDetectUnknownListsEveryCandidate(t *testing.T) {
	_, err := Read(strings.NewReader("hello world\nthis is not a log\n"), "notes.txt", Options{})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "notes.txt: cannot detect the format; tried ") {
		t.Errorf("error %q", msg)
	}
	for _, f := range Formats() {
		if !strings.Contains(msg, f.Name) {
			t.Errorf("error does not name %s: %s", f.Name, msg)
		}
	}
	if n := strings.Count(msg, "; ") + 1; n < len(sniffers) {
		t.Errorf("%d reasons for %d sniffers: %s", n, len(sniffers), msg)
	}
}

// TestSmallFileBuffers checks that a small file is read with a buffer of
// its size, and that detection still sees all of it: a file that ends
// without a newline, and one that grew after it was measured, read the
// same as through a reader of unknown size.
func TestSmallFileBuffers(t *testing.T) {
	tests := []struct {
		name  string
		size  int64
		limit int
		want  int
	}{
		{"unknown size", 0, readBufferBytes, readBufferBytes},
		{"one line", 81, readBufferBytes, 4 << 10},
		{"just under the limit", readBufferBytes - 1, readBufferBytes, readBufferBytes},
		{"over the limit", 5 << 20, readBufferBytes, readBufferBytes},
		{"between", 100 << 10, readBufferBytes, 100<<10 + 1},
	}
	for _, tt := range tests {
		if got := bufferFor(tt.size, tt.limit); got != tt.want {
			t.Errorf("%s: bufferFor(%d, %d) = %d, want %d", tt.name, tt.size, tt.limit, got, tt.want)
		}
	}
	line := `10.0.0.1 - - [01/Nov/2026:00:00:00 +0000] "GET /a HTTP/1.1" 429 0 "-" "curl/8.0"`
	for _, tc := range []struct {
		name string
		text string
		// grow is appended after the size is taken.
		grow string
	}{
		{"one line", line + "\n", ""},
		{"no final newline", line + "\n" + line, ""},
		{"grew after stat", line + "\n", strings.Repeat(line+"\n", 200)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A reader with no Len is one of unknown size.
			want, err := Read(struct{ io.Reader }{strings.NewReader(tc.text + tc.grow)}, "x.log", Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := read(strings.NewReader(tc.text+tc.grow), "x.log", Options{}, int64(len(tc.text)))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := got.Sources[0], want.Sources[0]; g.Format != w.Format || g.Lines != w.Lines || g.Parsed != w.Parsed || len(got.Events) != len(want.Events) {
				t.Errorf("read with the size: %+v, %d events; without: %+v, %d events", g, len(got.Events), w, len(want.Events))
			}
		})
	}
}
