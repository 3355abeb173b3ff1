package stampede_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/analyze"
)

// TestSameIncidentBehindHAProxy analyses one storm recorded twice, once
// behind HAProxy (option httplog, x-task-id and x-stainless-retry-count
// captured) and once behind nginx, and asks for the same story from both:
// the attempts and throttles each endpoint saw, the period and the waves.
// The two runs are separate recordings, so their counts differ by the
// few attempts a run's timing lets through; each log must match its own
// endpoint exactly, and the two must agree to within that.
func TestSameIncidentBehindHAProxy(t *testing.T) {
	type figures struct {
		attempts, throttled int64
		period              float64
		waves               int
		truth               recordedTruth
	}
	read := func(scenario string, captures []string) figures {
		dir := filepath.Join("testdata", "recorded", scenario)
		raw, err := os.ReadFile(filepath.Join(dir, "truth.json"))
		if err != nil {
			t.Fatal(err)
		}
		var f figures
		if err := json.Unmarshal(raw, &f.truth); err != nil {
			t.Fatal(err)
		}
		res, err := stampede.Analyze(context.Background(), stampede.Config{
			Inputs: []string{filepath.Join(dir, "access.log.gz")}, Seed: 1, HAProxyCaptures: captures})
		if err != nil {
			t.Fatal(err)
		}
		f.attempts, f.throttled = res.Reconcile.HTTP.Attempts, res.Reconcile.HTTP.Throttled
		f.period = res.Waves.Period
		f.waves = len(res.Waves.Waves)
		t.Logf("%s: %d attempts, %d throttled, period %.2f s, %d waves (truth %d, %d, %.2f s, %d waves)", scenario,
			f.attempts, f.throttled, f.period, f.waves, f.truth.HTTP.Requests, f.truth.HTTP.Throttled, f.truth.Waves.MedianPeriod, len(f.truth.Waves.WavesDetail))
		return f
	}
	hap := read("openai-ra2-fixed10-haproxy", []string{"x-task-id", "x-stainless-retry-count"})
	ngx := read("openai-ra2-fixed10-nginx", nil)
	for _, f := range []figures{hap, ngx} {
		if f.attempts != f.truth.HTTP.Requests || f.throttled != f.truth.HTTP.Throttled {
			t.Errorf("%d attempts, %d throttled; the endpoint saw %d, %d", f.attempts, f.throttled, f.truth.HTTP.Requests, f.truth.HTTP.Throttled)
		}
		if n := len(f.truth.Waves.WavesDetail); f.waves != n {
			t.Errorf("%d waves, the endpoint's log has %d", f.waves, n)
		}
	}
	near := func(a, b int64) bool { return math.Abs(float64(a-b)) <= 0.02*float64(max(a, b)) }
	if !near(hap.attempts, ngx.attempts) || !near(hap.throttled, ngx.throttled) {
		t.Errorf("behind HAProxy %d attempts, %d throttled; behind nginx %d, %d", hap.attempts, hap.throttled, ngx.attempts, ngx.throttled)
	}
	if hap.waves != ngx.waves {
		t.Errorf("behind HAProxy %d waves, behind nginx %d", hap.waves, ngx.waves)
	}
	if math.Abs(hap.period-ngx.period) > 0.25 || hap.period == 0 {
		t.Errorf("behind HAProxy a period of %.2f s, behind nginx %.2f s", hap.period, ngx.period)
	}
}

// TestHAProxyOwnLimitInReconciliation checks that 429s HAProxy made itself
// (a deny on a stick-table rate: PR--, <NOSRV>) are reported as the
// proxy's own limit, apart from the endpoint's 429s; and so are those of
// the other proxies and CDNs in front of an endpoint, each by its code.
func TestHAProxyOwnLimitInReconciliation(t *testing.T) {
	tests := []struct {
		file      string
		captures  []string
		throttled int64
		byProxy   int64
		code      string
	}{
		{"haproxy/httplog.log", []string{"x-task-id", "x-stainless-retry-count", "user-agent"}, 3, 1, "haproxy:PR--"},
		{"haproxy/syslog.log", nil, 3, 2, "haproxy:PR--"},
		{"cloudflare/http_requests.json", nil, 2, 1, "cloudflare:ratelimit"},
		{"gcp-lb/requests.jsonl", nil, 2, 1, "gclb:denied_by_security_policy"},
		{"kong/file-log.json", nil, 2, 1, "kong"},
		{"cloudfront/standard.log", nil, 2, 1, "cloudfront:LimitExceeded"},
		{"alb/alb.log", nil, 2, 1, "elb"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := stampede.Analyze(context.Background(), stampede.Config{
				Inputs: []string{"testdata/ingest/" + tt.file}, Seed: 1, HAProxyCaptures: tt.captures})
			if err != nil {
				t.Fatal(err)
			}
			rc := res.Reconcile
			if rc.HTTP.Throttled != tt.throttled || rc.ThrottledByProxy != tt.byProxy || len(rc.ProxyCodes) != 1 || rc.ProxyCodes[0] != tt.code {
				t.Fatalf("throttled %d, by the proxy %d %v", rc.HTTP.Throttled, rc.ThrottledByProxy, rc.ProxyCodes)
			}
			attempts := "attempts"
			verb := "were"
			if tt.byProxy == 1 {
				verb = "was"
			}
			want := fmt.Sprintf("%d of the %d throttled %s %s refused by the proxy's own limit (%s), not by the endpoint's.", tt.byProxy, tt.throttled, attempts, verb, tt.code)
			if !explains(rc, want) {
				t.Errorf("explanation %q, want %q", rc.Explanation, want)
			}
		})
	}
	// The endpoint's own 429s carry no proxy code.
	res, err := stampede.Analyze(context.Background(), stampede.Config{Inputs: []string{"testdata/recorded/openai-ra2-fixed10-haproxy/access.log.gz"}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reconcile.ThrottledByProxy != 0 {
		t.Errorf("%d of the endpoint's 429s taken as the proxy's", res.Reconcile.ThrottledByProxy)
	}
}

func explains(rc analyze.Reconciliation, s string) bool {
	for _, e := range rc.Explanation {
		if strings.Contains(e, s) {
			return true
		}
	}
	return false
}
