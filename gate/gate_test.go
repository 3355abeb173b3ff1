package gate

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stampede/stampede/analyze"
)

func TestParse(t *testing.T) {
	tests := []struct {
		expr string
		want Rule
	}{
		{"amplification > 4", Rule{Metric: "amplification", Op: OpGT, Threshold: 4}},
		{"amplification>4", Rule{Metric: "amplification", Op: OpGT, Threshold: 4}},
		{"  http_throttle_rate >= 0.05 ", Rule{Metric: "http_throttle_rate", Op: OpGE, Threshold: 0.05}},
		{"http_throttle_rate > 5%", Rule{Metric: "http_throttle_rate", Op: OpGT, Threshold: 0.05}},
		{"app_error_rate >= 0.1", Rule{Metric: "app_error_rate", Op: OpGE, Threshold: 0.1}},
		{"app-error-rate < 1e-2", Rule{Metric: "app_error_rate", Op: OpLT, Threshold: 0.01}},
		{"waves <= 2", Rule{Metric: "waves", Op: OpLE, Threshold: 2}},
		{"waves == 0", Rule{Metric: "waves", Op: OpEQ, Threshold: 0}},
		{"waves != 0", Rule{Metric: "waves", Op: OpNE, Threshold: 0}},
		{"period < -1", Rule{Metric: "period", Op: OpLT, Threshold: -1}},
		{"periodic", Rule{Metric: "periodic"}},
		{"PERIODIC", Rule{Metric: "periodic"}},
		{"!periodic", Rule{Metric: "periodic", Negated: true}},
		{"uncapped", Rule{Metric: "uncapped"}},
		{"batch.http_throttle_rate > 0.5", Rule{Class: "batch", Metric: "http_throttle_rate", Op: OpGT, Threshold: 0.5}},
		{"interactive.app_error_rate > 1%", Rule{Class: "interactive", Metric: "app_error_rate", Op: OpGT, Threshold: 0.01}},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := Parse(tc.expr)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.expr, err)
			}
			tc.want.Expr = tc.expr
			if got != tc.want {
				t.Errorf("Parse(%q) = %+v, want %+v", tc.expr, got, tc.want)
			}
			// The canonical form parses back to the same rule.
			again, err := Parse(got.String())
			if err != nil {
				t.Fatalf("Parse(%q) of canonical form: %v", got.String(), err)
			}
			again.Expr = got.Expr
			if again != got {
				t.Errorf("round trip via %q: %+v, want %+v", got.String(), again, got)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		expr string
		// want are substrings the message must contain, so it points at
		// the mistake and at the fix.
		want []string
	}{
		{"", []string{"empty", "amplification > 4"}},
		{"   ", []string{"empty"}},
		{"> 4", []string{"expected a metric name", "amplification"}},
		{"amplificaton > 4", []string{`unknown metric "amplificaton"`, "did you mean amplification?"}},
		{"latency > 4", []string{`unknown metric "latency"`, "known metrics:", "periodic"}},
		{"amplification", []string{"amplification is a number", "'amplification > 4'"}},
		{"amplification 4", []string{"expected a comparison", `"4"`}},
		{"amplification >", []string{"expected a number after >"}},
		{"amplification > four", []string{"expected a number after >", `"four"`}},
		{"amplification > 4 5", []string{"expected a number"}},
		{"amplification > NaN", []string{"expected a number"}},
		{"waves = 4", []string{"'=' is not a comparison", "'=='"}},
		{"amplification > 1_000", []string{"expected a number", `"1_000"`}},
		{"amplification > 0x10", []string{"expected a number"}},
		{"amplification > 1e-400", []string{"too small to tell from 0"}},
		{"http_throttle_rate > 500%", []string{"fraction from 0 to 1", "every incident or none"}},
		{"app_error_rate < -0.1", []string{"fraction from 0 to 1"}},
		{"amplification > inf", []string{"expected a number"}},
		{"amplification > 4%", []string{"not a percentage"}},
		{"periodic > 0", []string{"periodic is yes/no", "'!periodic'"}},
		{"!amplification > 4", []string{"'!' applies only to a yes/no metric"}},
		{"!amplification", []string{"amplification is a number"}},
		{"batch.periodic", []string{"not measured per traffic class", "http_throttle_rate"}},
		{".periodic", []string{"not CLASS.METRIC"}},
		{"a.b.c > 1", []string{"not CLASS.METRIC"}},
		{"periodic && uncapped", []string{"expected a comparison"}},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := Parse(tc.expr)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want an error", tc.expr)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Parse(%q) error %q lacks %q", tc.expr, err, w)
				}
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"amplification > 4", "periodic", "!uncapped", "batch.http_throttle_rate >= 5%", "waves != 0", "", "!", "a.b", ">=="} {
		f.Add(s)
	}
	r := sample()
	f.Fuzz(func(t *testing.T, expr string) {
		rule, err := Parse(expr)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Parse(%q): empty error message", expr)
			}
			return
		}
		// Whatever parses has a canonical form that parses to itself and
		// can be evaluated without panicking.
		again, err := Parse(rule.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", rule.String(), expr, err)
		}
		again.Expr = rule.Expr
		if again != rule {
			t.Fatalf("round trip of %q via %q: %+v, want %+v", expr, rule.String(), again, rule)
		}
		Evaluate(r, []Rule{rule})
	})
}

// sample is a small result with a periodic, uncapped incident in two
// classes.
func sample() *analyze.Result {
	return &analyze.Result{
		Reconcile: analyze.Reconciliation{
			HTTP:            analyze.HTTPSide{Attempts: 1000, Throttled: 760, ThrottleRate: 0.76},
			App:             analyze.AppSide{Calls: 400, Failed: 200, ErrorRate: 0.5, Source: "sdk log"},
			AttemptsPerCall: 2.5,
			ByClass: []analyze.ClassReconciliation{
				{Class: "batch", HTTP: analyze.HTTPSide{Attempts: 900, Throttled: 750, ThrottleRate: 750.0 / 900}, App: analyze.AppSide{Calls: 300, Failed: 200, ErrorRate: 2.0 / 3}},
				{Class: "interactive", HTTP: analyze.HTTPSide{Attempts: 100, Throttled: 10, ThrottleRate: 0.1}, App: analyze.AppSide{Calls: 100, Failed: 0}},
			},
		},
		Amplification: analyze.Amplification{
			Product: 10.86, Tasks: 100, Requests: 1086,
			Layers: []analyze.LayerStats{
				{Name: "attempts per call", Units: 400, Max: 3, Capped: true, Cap: 3},
				{Name: "calls per queue attempt", Units: 400, Max: 1},
				{Name: "queue attempts per task", Units: 100, Max: 9},
			},
		},
		Waves: analyze.Waves{Periodic: true, Period: 84.05, ACF: 0.85, Threshold: 0.1, Waves: make([]analyze.Wave, 6)},
	}
}

func TestEvaluate(t *testing.T) {
	r := sample()
	empty := &analyze.Result{}
	// 80 of 100 attempts throttled and 5 more of unknown outcome: the
	// rate lies in [0.80, 0.85].
	ranged := &analyze.Result{Reconcile: analyze.Reconciliation{
		HTTP: analyze.HTTPSide{Attempts: 100, Throttled: 80, Unknown: 5, ThrottleRate: 0.8, ThrottleRateMax: 0.85},
		App:  analyze.AppSide{Calls: 50, Failed: 30, Unknown: 5, ErrorRate: 0.6, ErrorRateMax: 0.7, Source: "sdk log"}}}
	tests := []struct {
		expr     string
		r        *analyze.Result
		failed   bool
		measured bool
		value    float64
	}{
		// A range fails or passes where both its ends do; a threshold
		// between them is not measurable.
		{"http_throttle_rate > 0.5", ranged, true, true, 0.8},
		{"http_throttle_rate > 0.9", ranged, false, true, 0.8},
		{"http_throttle_rate > 0.82", ranged, true, false, 0},
		{"app_error_rate < 0.65", ranged, true, false, 0},
		{"app_error_rate < 0.75", ranged, true, true, 0.6},
		{"amplification > 4", r, true, true, 10.86},
		{"amplification > 11", r, false, true, 10.86},
		{"amplification >= 10.86", r, true, true, 10.86},
		{"periodic", r, true, true, 1},
		{"!periodic", r, false, true, 1},
		{"periodic", empty, false, true, 0},
		{"!periodic", empty, true, true, 0},
		{"uncapped", r, true, true, 1},
		{"uncapped", empty, false, true, 0},
		{"http_throttle_rate > 0.05", r, true, true, 0.76},
		{"http_throttle_rate > 80%", r, false, true, 0.76},
		{"app_error_rate >= 0.1", r, true, true, 0.5},
		{"app_error_rate < 0.5", r, false, true, 0.5},
		{"attempts_per_call > 2", r, true, true, 2.5},
		{"waves >= 6", r, true, true, 6},
		{"waves != 6", r, false, true, 6},
		{"period < 90", r, true, true, 84.05},
		{"interactive.http_throttle_rate > 0.05", r, true, true, 0.1},
		{"Batch.http_throttle_rate > 0.9", r, false, true, 750.0 / 900},
		// A gate that cannot see its metric fails rather than passing.
		{"nosuch.http_throttle_rate > 0.05", r, true, false, 0},
		{"app_error_rate > 0.5", empty, true, false, 0},
		{"amplification > 4", empty, true, false, 0},
		{"period > 1", empty, true, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			rule, err := Parse(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			o := Evaluate(tc.r, []Rule{rule})[0]
			if o.Failed != tc.failed || o.Measured != tc.measured || (o.Measured && o.Value != tc.value) {
				t.Errorf("%s: failed=%v measured=%v value=%v (%s), want failed=%v measured=%v value=%v",
					tc.expr, o.Failed, o.Measured, o.Value, o.Detail, tc.failed, tc.measured, tc.value)
			}
			if !o.Measured && !strings.Contains(o.Detail, "no ") && !strings.Contains(o.Detail, "unknown outcome") {
				t.Errorf("%s: unmeasured outcome does not say what is missing: %q", tc.expr, o.Detail)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	rules, err := ParseAll([]string{"amplification > 4", "http_throttle_rate > 0.9", "periodic"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, Evaluate(sample(), rules), nil); err != nil {
		t.Fatal(err)
	}
	want := "FAIL: amplification > 4 (value 10.86): 1086 requests for 100 tasks\n" +
		"pass: http_throttle_rate > 0.9 (value 0.76 (76.0%)): 760 of 1000 attempts throttled\n" +
		"FAIL: periodic (value yes): period 84.05 s, ACF 0.85 vs threshold 0.10\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestParseAllReportsTheBadRule(t *testing.T) {
	_, err := ParseAll([]string{"periodic", "amplification >> 4"})
	if err == nil || !strings.Contains(err.Error(), `"amplification >> 4"`) {
		t.Fatalf("error %v does not quote the bad rule", err)
	}
}

func TestJUnitParses(t *testing.T) {
	rules, err := ParseAll([]string{"amplification > 4", "waves > 100", "nosuch.app_error_rate > 0"})
	if err != nil {
		t.Fatal(err)
	}
	out := Evaluate(sample(), rules)
	// A log-derived class name or detail must not break the XML.
	out[2].Detail += ` <script>alert("x")</script> & ]]>`
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, `incident <"dir">`, out); err != nil {
		t.Fatal(err)
	}
	var got JUnitSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("JUnit output does not parse: %v\n%s", err, buf.String())
	}
	if got.Tests != 3 || got.Failures != 2 || len(got.Suites) != 1 {
		t.Fatalf("testsuites tests=%d failures=%d suites=%d, want 3, 2, 1", got.Tests, got.Failures, len(got.Suites))
	}
	s := got.Suites[0]
	if s.Name != `incident <"dir">` || s.Tests != 3 || s.Failures != 2 || len(s.Cases) != 3 {
		t.Fatalf("suite %+v", s)
	}
	wantFail := []bool{true, false, true}
	for i, c := range s.Cases {
		if c.Name != rules[i].String() || c.ClassName == "" {
			t.Errorf("case %d: name %q classname %q", i, c.Name, c.ClassName)
		}
		if (c.Failure != nil) != wantFail[i] {
			t.Errorf("case %s: failure %+v, want failed=%v", c.Name, c.Failure, wantFail[i])
		}
	}
	if !strings.Contains(s.Cases[2].Failure.Text, `<script>alert("x")</script> & ]]>`) {
		t.Errorf("failure text not preserved: %q", s.Cases[2].Failure.Text)
	}
}

func TestSummary(t *testing.T) {
	rules, err := ParseAll([]string{"amplification > 4", "waves > 100"})
	if err != nil {
		t.Fatal(err)
	}
	out := Evaluate(sample(), rules)
	out[0].Detail = "a | b <img src=x onerror=alert(1)>\nnext"
	var buf bytes.Buffer
	if err := WriteSummary(&buf, "testdata/x", out); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	for _, want := range []string{"### stampede check: 1 of 2 gates failed", "| ❌ fail | `amplification > 4` | 10.86 |", "| ✅ pass | `waves > 100` | 6 |", `a \| b &lt;img`} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "<img") {
		t.Errorf("summary carries raw HTML:\n%s", s)
	}
	// After the heading and the input line (and blank lines), every row has the table's
	// four columns: the detail's pipe and
	// newline did not add columns or rows.
	for _, line := range strings.Split(strings.TrimSpace(s), "\n")[4:] {
		if !strings.HasPrefix(line, "|") {
			t.Errorf("line %q is outside the table", line)
			continue
		}
		if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != 5 {
			t.Errorf("row %q has %d column separators, want 5", line, n)
		}
	}
}

// The user's --unmeasurable choice decides a rule whose metric the input
// cannot give, and only such a rule: measured rules and unknown metrics keep
// their verdicts, and every output names the choice.
func TestEvaluateUnmeasurable(t *testing.T) {
	r := sample()
	empty := &analyze.Result{}
	tests := []struct {
		expr    string
		r       *analyze.Result
		u       Unmeasurable
		verdict string
		detail  string
		junit   string // "failure", "skipped" or ""
	}{
		{"amplification > 4", empty, UnmeasurableFail, "FAIL", "not measurable: no tasks identified", "failure"},
		{"amplification > 4", empty, UnmeasurableWarn, "warn", "not measurable: no tasks identified (unmeasurable rules warn)", "skipped"},
		{"amplification > 4", empty, UnmeasurablePass, "pass", "not measurable: no tasks identified (unmeasurable rules pass)", ""},
		{"nosuch.http_throttle_rate > 0.05", r, UnmeasurableWarn, "warn", `no traffic class "nosuch" in this input (classes: batch, interactive) (unmeasurable rules warn)`, "skipped"},
		{"amplification > 4", r, UnmeasurablePass, "FAIL", "", "failure"},
		{"amplification > 11", r, UnmeasurableWarn, "pass", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.expr+"/"+string(tc.u), func(t *testing.T) {
			rule, err := Parse(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			o := EvaluateWith(tc.r, []Rule{rule}, tc.u)[0]
			if o.Verdict() != tc.verdict || (tc.detail != "" && o.Detail != tc.detail) {
				t.Errorf("verdict %q detail %q, want %q %q", o.Verdict(), o.Detail, tc.verdict, tc.detail)
			}
			if !strings.HasPrefix(Describe(o), tc.verdict+": ") {
				t.Errorf("Describe = %q, want it to start with %q", Describe(o), tc.verdict)
			}
			var buf bytes.Buffer
			if err := WriteJUnit(&buf, "x", []Outcome{o}); err != nil {
				t.Fatal(err)
			}
			var got JUnitSuites
			if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			c := got.Suites[0].Cases[0]
			kind := ""
			switch {
			case c.Failure != nil:
				kind = "failure"
			case c.Skipped != nil:
				kind = "skipped"
			}
			if kind != tc.junit {
				t.Errorf("JUnit case is %q, want %q:\n%s", kind, tc.junit, buf.String())
			}
		})
	}
}

func TestParseUnmeasurable(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Unmeasurable
		ok   bool
	}{{"fail", UnmeasurableFail, true}, {"WARN", UnmeasurableWarn, true}, {"pass", UnmeasurablePass, true}, {"skip", "", false}, {"", "", false}} {
		got, err := ParseUnmeasurable(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseUnmeasurable(%q) = %q, %v; want %q, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
