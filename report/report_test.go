package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/internal/golden"
)

const goldenDir = "../testdata/report"

var incidentStart = time.Date(2026, 3, 14, 9, 20, 0, 0, time.UTC)

func at(s float64) time.Time {
	return incidentStart.Add(time.Duration(s * float64(time.Second)))
}

// incidentResult is a hand-built result shaped like a batch incident with
// an 84 s requeue delay: three SDK attempts per call, an uncapped job
// runner, retry waves every 84 s that shrink by about half, and a 429 rate
// far above the application's error rate.
func incidentResult() *analyze.Result {
	stopped := at(520.4)
	return &analyze.Result{
		SchemaVersion: analyze.SchemaVersion,
		Window:        analyze.Window{Start: incidentStart, End: at(612.25), Duration: 612.25},
		Inputs: []analyze.Input{
			{Path: "logs/access.log", Format: "nginx-custom", Lines: 48213, Parsed: 48190, Skipped: 23, Events: 48190,
				Samples: []analyze.SkipSample{
					{Position: "logs/access.log:1", Reason: "header line"},
					{Position: "logs/access.log:30412", Reason: "truncated: no status field"},
				}},
			{Path: "logs/calls.jsonl", Format: "jsonl-calls", Lines: 16120, Parsed: 16120, Events: 16120},
		},
		Findings: []string{
			"Each task cost 4.31 HTTP requests: 2.87 attempts per call × 1.50 queue attempts per task; the job runner has no attempt cap.",
			"The 429 rate was 61.4% of attempts while only 9.8% of calls failed: retries inside the SDK recovered most throttles.",
			"Retries arrived in waves every 84.2 s, matching the job runner's 84 s requeue delay.",
		},
		Reconcile: analyze.Reconciliation{
			HTTP:                   analyze.HTTPSide{Attempts: 46288, OK: 17402, Throttled: 28431, Retryable: 402, NonRetryable: 53, ThrottleRate: 0.6142},
			App:                    analyze.AppSide{Calls: 16120, Failed: 1580, FailedThrottle: 1547, ErrorRate: 0.0980, Source: "sdk log"},
			AttemptsPerCall:        2.8715,
			ThrottledRecovered:     23612,
			ThrottledInFailedCalls: 4641,
			ThrottledUnjoined:      178,
			CallsRecoveredByRetry:  12204,
			ByClass: []analyze.ClassReconciliation{
				{Class: "batch",
					HTTP:            analyze.HTTPSide{Attempts: 44590, OK: 15812, Throttled: 28336, Retryable: 390, NonRetryable: 52, ThrottleRate: 0.63548},
					App:             analyze.AppSide{Calls: 14520, Failed: 1571, FailedThrottle: 1540, ErrorRate: 0.10820, Source: "sdk log"},
					AttemptsPerCall: 3.0709},
				{Class: "interactive",
					HTTP:            analyze.HTTPSide{Attempts: 1698, OK: 1590, Throttled: 95, Retryable: 12, NonRetryable: 1, ThrottleRate: 0.05595},
					App:             analyze.AppSide{Calls: 1600, Failed: 9, FailedThrottle: 7, ErrorRate: 0.005625, Source: "sdk log"},
					AttemptsPerCall: 1.06125},
			},
			Method:         "exact: amz-sdk-invocation-id",
			AttemptsJoined: 46110,
			Explanation: []string{
				"The HTTP rate counts 28,431 throttled attempts over 46,288 attempts; the application rate counts 1,580 failed calls over 16,120 calls.",
				"23,612 throttled attempts were followed by a successful attempt of the same call and never reached the application.",
			},
		},
		Amplification: analyze.Amplification{
			Layers: []analyze.LayerStats{
				{Name: "attempts per call", Units: 16120, Mean: 2.8715, P50: 3, P99: 3, Max: 3, Capped: true, Cap: 3,
					CapEvidence: "71.2% of calls stop at exactly 3 attempts and none exceed it", GiveUpRate: 0.0021, Exact: true,
					Method:    "amz-sdk-request attempt=N/max=3",
					Histogram: []analyze.Bucket{{Value: 1, Units: 3104}, {Value: 2, Units: 1538}, {Value: 3, Units: 11478}}},
				{Name: "calls per queue attempt", Units: 16120, Mean: 1, P50: 1, P99: 1, Max: 1, Capped: true, Cap: 1,
					CapEvidence: "one call per queue attempt", Exact: true, Method: "task id join",
					Histogram: []analyze.Bucket{{Value: 1, Units: 16120}}},
				{Name: "queue attempts per task", Units: 10747, Mean: 1.49995, P50: 1, P99: 6, Max: 9, Capped: false,
					CapEvidence: "counts fall geometrically (ratio 0.49) up to 9 with no pile-up at the maximum", GiveUpRate: 0.33, Exact: true,
					Method:    "task id join",
					Histogram: []analyze.Bucket{{Value: 1, Units: 7163}, {Value: 2, Units: 1980}, {Value: 3, Units: 902}, {Value: 4, Units: 420}, {Value: 5, Units: 170}, {Value: 6, Units: 71}, {Value: 7, Units: 29}, {Value: 8, Units: 9}, {Value: 9, Units: 3}}},
			},
			Product:  4.3071,
			Tasks:    10747,
			Requests: 46288,
			Billed:   17402,
			Exact:    true,
		},
		Waves: analyze.Waves{
			Series:           "batch call starts",
			BinWidth:         1,
			Bins:             613,
			MinLag:           5,
			Periodic:         true,
			Period:           84.2,
			ACF:              0.6213,
			Threshold:        0.1822,
			Significance:     3.41,
			IntraWaveSpacing: 12,
			Waves: []analyze.Wave{
				{Start: at(95.1), Width: 14.32, Size: 3210, Attempts: 9011, Throttled: 6820},
				{Start: at(179.4), Width: 13.9, Size: 1633, Attempts: 4610, Throttled: 3402},
				{Start: at(263.5), Width: 12.75, Size: 802, Attempts: 2281, Throttled: 1615},
				{Start: at(347.8), Width: 12.2, Size: 398, Attempts: 1120, Throttled: 760},
				{Start: at(432.0), Width: 11.6, Size: 190, Attempts: 520, Throttled: 301},
			},
			DecayRatio:    0.4982,
			DecayR2:       0.9968,
			BurstsStopped: &stopped,
			Delays: []analyze.DelayStats{
				{Kind: "retry-after", N: 28431, Mean: 12, Sigma: 0, P50: 12, Min: 12, Max: 12, Fixed: true},
				{Kind: "sdk retry delay", N: 30168, Mean: 12.004, Sigma: 0.0031, P50: 12, Min: 11.998, Max: 12.02, Fixed: true},
				{Kind: "requeue delay", N: 5373, Mean: 84.03, Sigma: 0.21, P50: 84.0, Min: 83.7, Max: 84.9, Fixed: true},
			},
			Suspects: []analyze.FixedDelay{
				{Layer: "job runner", Kind: "requeue delay", Delay: 84.03, Sigma: 0.21, Times: 1,
					Text: "The job runner requeues failed tasks after 84.0 s ± 0.21 s, one requeue per period."},
				{Layer: "server", Kind: "retry-after", Delay: 12, Sigma: 0, Times: 2,
					Text: "Every throttle carried retry-after: 12 and the SDK slept exactly that long, which combs each wave at 12 s."},
			},
		},
		Warnings: []string{
			"178 throttled attempts (0.6%) could not be joined to a call.",
			"Fewer than 6 periods observed: the period is uncertain by about ±2 s.",
		},
	}
}

// goldenCases pin every format over a rich and an empty result.
var goldenCases = []struct {
	name   string
	result func() *analyze.Result
}{
	{"seed", incidentResult},
	{"empty", func() *analyze.Result { return &analyze.Result{} }},
	{"partial", partialResult},
}

// partialResult has calls and inputs but no periodic finding and no
// delays: the shape of a run with no throttling.
func partialResult() *analyze.Result {
	return &analyze.Result{
		SchemaVersion: analyze.SchemaVersion,
		Window:        analyze.Window{Start: incidentStart, End: at(59.5), Duration: 59.5},
		Inputs:        []analyze.Input{{Path: "access.log", Format: "nginx-combined", Lines: 1200, Parsed: 1200, Events: 1200}},
		Reconcile: analyze.Reconciliation{
			HTTP:   analyze.HTTPSide{Attempts: 1200, OK: 1200},
			Method: "estimated from counts",
		},
		Amplification: analyze.Amplification{Product: 1, Tasks: 1200, Requests: 1200, Billed: 1200},
		Waves:         analyze.Waves{Series: "call starts", BinWidth: 1, Bins: 60, BestLag: 7, ACF: 0.08, Threshold: 0.21},
		Warnings:      []string{"no SDK or job-runner log: calls are inferred from attempts"},
	}
}

var formatExt = map[Format]string{FormatTable: "table", FormatMarkdown: "md", FormatJSON: "json", FormatHTML: "html"}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		for _, f := range Formats {
			name := tc.name + "." + formatExt[f] + ".golden"
			t.Run(name, func(t *testing.T) {
				var buf bytes.Buffer
				if err := Render(&buf, tc.result(), f); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, filepath.Join(goldenDir, name), buf.Bytes())
			})
		}
	}
}

func TestRenderIsDeterministicAndPure(t *testing.T) {
	for _, f := range Formats {
		r := incidentResult()
		var a, b bytes.Buffer
		if err := Render(&a, r, f); err != nil {
			t.Fatal(err)
		}
		if err := Render(&b, r, f); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("%s: two renders differ", f)
		}
		fresh := incidentResult()
		if r.Waves.Period != fresh.Waves.Period || len(r.Findings) != len(fresh.Findings) {
			t.Errorf("%s: Render modified the result", f)
		}
	}
	empty := &analyze.Result{}
	if err := Render(&bytes.Buffer{}, empty, FormatJSON); err != nil {
		t.Fatal(err)
	}
	if empty.SchemaVersion != "" || empty.Inputs != nil {
		t.Error("JSON normalisation leaked into the caller's result")
	}
}

func TestEmptyResultSaysSo(t *testing.T) {
	wants := []string{"no periodic waves found", "no input files", "no attempts or calls to reconcile", "No findings."}
	for _, f := range []Format{FormatTable, FormatMarkdown} {
		var buf bytes.Buffer
		if err := Render(&buf, &analyze.Result{}, f); err != nil {
			t.Fatal(err)
		}
		for _, w := range wants {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s: empty result does not say %q", f, w)
			}
		}
	}
}

// hostile is what a crafted log line can smuggle into any string field.
const hostile = "evil\x1b[31mRED\x1b[0m\x1b]0;owned\x07 <script>alert(1)</script> a|b\nforged row\r\u202egnp.exe\u009b2J *bold* [x](http://e) &amp;"

func hostileResult() *analyze.Result {
	r := incidentResult()
	r.Findings = append(r.Findings, hostile)
	r.Warnings = append(r.Warnings, hostile)
	r.Inputs[0].Path = hostile
	r.Inputs[0].Samples[0].Position = hostile + ":1"
	r.Inputs[0].Samples[0].Reason = hostile
	r.Reconcile.ByClass[0].Class = hostile
	r.Reconcile.Method = hostile
	r.Reconcile.Explanation = []string{hostile}
	r.Amplification.Layers[0].Name = hostile
	r.Amplification.Layers[0].CapEvidence = hostile
	r.Waves.Series = hostile
	r.Waves.Delays[0].Kind = hostile
	r.Waves.Suspects[0].Text = hostile
	return r
}

func TestHostileStringsRenderInert(t *testing.T) {
	for _, f := range Formats {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := Render(&buf, hostileResult(), f); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, bad := range []string{"\x1b", "\r", "\u202e", "\u009b", "\x07", "<script>"} {
				// A terminal shows markup as text; only the document
				// formats must not carry it raw.
				if bad == "<script>" && f == FormatTable {
					continue
				}
				if strings.Contains(out, bad) {
					t.Errorf("output contains %q", bad)
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "forged row") {
					t.Errorf("a log string started its own line: %q", line)
				}
			}
			switch f {
			case FormatMarkdown:
				for _, line := range strings.Split(out, "\n") {
					if strings.HasPrefix(line, "|") && strings.Contains(line, "evil") && strings.Contains(line, "a|b") {
						t.Errorf("unescaped | in table row: %q", line)
					}
				}
				for _, want := range []string{`\<script\>`, `a\|b`, `\*bold\*`, `\[x\]`, `\&amp;`} {
					if !strings.Contains(out, want) {
						t.Errorf("markdown lacks escaped %q", want)
					}
				}
			case FormatTable:
				if !strings.Contains(out, "evilRED <script>alert(1)</script> a|b forged row gnp.exe *bold*") {
					t.Errorf("table output does not show the string as inert text:\n%s", out)
				}
			case FormatHTML:
				if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
					t.Error("HTML does not show the script payload as escaped text")
				}
			case FormatJSON:
				if !strings.Contains(out, `\u003cscript\u003e`) || !strings.Contains(out, `\u001b[31m`) {
					t.Error("JSON does not escape markup and control characters")
				}
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    Format
		wantErr bool
	}{
		{"table", FormatTable, false},
		{"Markdown", FormatMarkdown, false},
		{"md", FormatMarkdown, false},
		{" json ", FormatJSON, false},
		{"HTML", FormatHTML, false},
		{"pdf", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		got, err := ParseFormat(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	if err := Render(&bytes.Buffer{}, &analyze.Result{}, "yaml"); err == nil || !strings.Contains(err.Error(), `"yaml"`) {
		t.Errorf("Render with unknown format: %v", err)
	}
	if err := Render(&bytes.Buffer{}, nil, FormatTable); err == nil {
		t.Error("Render(nil) succeeded")
	}
}

func TestJSONRejectsNaN(t *testing.T) {
	r := incidentResult()
	r.Amplification.Product = nan()
	if err := Render(&bytes.Buffer{}, r, FormatJSON); err == nil {
		t.Error("NaN rendered as JSON")
	}
	var buf bytes.Buffer
	if err := Render(&buf, r, FormatTable); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "= "+notAvailable) {
		t.Error("table does not show NaN product as not available")
	}
}

// TestDelaySpreadLabel pins the delays table's word for each delay's
// spread: it must not call jittered a delay the finding says whole-second
// stamps cannot judge.
func TestDelaySpreadLabel(t *testing.T) {
	tests := []struct {
		name  string
		delay analyze.DelayStats
		want  string
	}{
		{"fixed", analyze.DelayStats{Kind: "requeue delay", N: 40, Mean: 10, P50: 10, Min: 10, Max: 10, Fixed: true}, "fixed"},
		{"jittered", analyze.DelayStats{Kind: "requeue delay", N: 40, Mean: 10, Sigma: 2.9, P50: 10, Min: 5, Max: 15}, "jittered"},
		{"too coarse to tell", analyze.DelayStats{Kind: "requeue delay", N: 35, Mean: 3, Sigma: 0.15, P50: 3, Min: 2.81, Max: 3.8,
			WholeSeconds: true, TooCoarse: true}, "too coarse"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := partialResult()
			r.Waves.Delays = []analyze.DelayStats{tc.delay}
			for _, f := range []Format{FormatTable, FormatMarkdown, FormatHTML} {
				var b bytes.Buffer
				if err := Render(&b, r, f); err != nil {
					t.Fatal(err)
				}
				out := b.String()
				row := out[strings.Index(out, "requeue delay"):]
				row = row[:strings.IndexAny(row, "\n")]
				if f == FormatHTML {
					row = out[strings.Index(out, "requeue delay"):]
					row = row[:strings.Index(row, "</tr>")]
				}
				if !strings.Contains(row, tc.want) {
					t.Errorf("%s: delays row %q lacks %q", f, row, tc.want)
				}
				for _, other := range []string{"fixed", "jittered", "too coarse"} {
					if other != tc.want && strings.Contains(row, other) {
						t.Errorf("%s: delays row %q says %q, want %q", f, row, other, tc.want)
					}
				}
			}
		})
	}
}
