package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stampede/stampede/analyze"
)

// whatIfFixture is a comparison shaped like the seed incident's, with one
// log-derived string carrying a terminal escape.
func whatIfFixture() *analyze.WhatIf {
	sp := func(med, lo, hi float64) analyze.Spread { return analyze.Spread{Median: med, Min: lo, Max: hi} }
	return &analyze.WhatIf{
		Source: "trace",
		Parameters: []analyze.WhatIfParameter{
			{Name: "tasks", Value: 1180, Text: "1,180", Source: "measured"},
			{Name: "task tokens", Value: 28000, Text: "28,000", Source: "given"},
		},
		Seeds:    []uint64{1, 2, 3},
		Capacity: analyze.WhatIfCapacity{TokensPerMinute: 2e6, InteractiveTokensPerMinute: 288000, TaskTokens: 28000, TasksPerMinute: 61.143, Tasks: 1180, DrainS: 1157.9},
		Rows: []analyze.WhatIfRow{
			{Policy: "as measured", Description: "3 SDK attempts", Requests: sp(22996, 22487, 23176), DrainS: sp(697, 685, 697), Billed: sp(10646, 10634, 10648)},
			{Policy: "jitter + cap + concurrency limit", Description: "limit 12", Requests: sp(12059, 12052, 12071), DrainS: sp(-1, -1, -1), Billed: sp(11273, 11273, 11273)},
		},
		Validation: []analyze.WhatIfCheck{{Name: "waves", Trace: 9, Simulated: 9, Tolerance: 0.05, OK: true}},
		Recommendations: []string{
			"bound batch concurrency at 12: a wave becomes 12 requests in flight, not 1,180",
		},
		NonRetryable: []analyze.RetriedError{{Code: "ValidationException\x1b[31m", Status: 400, Errors: 10, Retried: 8, Wasted: 16}},
		Notes:        []string{"token sizes given"},
	}
}

func TestWhatIfInEveryFormat(t *testing.T) {
	r := incidentResult()
	r.WhatIf = whatIfFixture()
	for _, f := range Formats {
		t.Run(string(f), func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, r, f); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			want := []string{"concurrency limit", "bound batch concurrency at 12", "ValidationException"}
			if f != FormatJSON {
				want = append(want, "what if", "12,059", "12,052–12,071", "61.1 tasks/min", "not drained")
			}
			for _, w := range want {
				if !strings.Contains(strings.ToLower(out), strings.ToLower(w)) {
					t.Errorf("%s report lacks %q", f, w)
				}
			}
			if strings.Contains(out, "\x1b[31m") {
				t.Errorf("%s report passes a terminal escape from a log through", f)
			}
		})
	}
}

func TestWhatIfJSONMatchesSchema(t *testing.T) {
	r := incidentResult()
	r.WhatIf = whatIfFixture()
	var b bytes.Buffer
	if err := Render(&b, r, FormatJSON); err != nil {
		t.Fatal(err)
	}
	for _, p := range validate(t, loadSchema(t), b.Bytes()) {
		if strings.Contains(p, "what_if") {
			t.Error(p)
		}
	}
}

func TestRenderWhatIfAlone(t *testing.T) {
	wi := whatIfFixture()
	for _, f := range Formats {
		var b bytes.Buffer
		if err := RenderWhatIf(&b, wi, f, Options{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if f == FormatJSON {
			var back analyze.WhatIf
			if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back.Rows) != 2 {
				t.Errorf("json: %v, %d rows", err, len(back.Rows))
			}
			continue
		}
		// The recommendations lead as findings and are not repeated.
		if n := strings.Count(b.String(), "bound batch concurrency at 12"); n != 1 {
			t.Errorf("%s: recommendation shown %d times, want once", f, n)
		}
	}
	if err := RenderWhatIf(&bytes.Buffer{}, nil, FormatTable, Options{}); err == nil {
		t.Error("no error for a nil comparison")
	}
}
