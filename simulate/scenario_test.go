package simulate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseScenarioErrors(t *testing.T) {
	tests := []struct {
		name string
		json string
		want string // the error must contain this
	}{
		{
			name: "unknown top-level field",
			json: "{\n  \"name\": \"x\",\n  \"seeed\": 3\n}",
			want: `bad.json:3: unknown field "seeed"`,
		},
		{
			name: "unknown nested field names its path and line",
			json: "{\n  \"bucket\": {\n    \"capacity\": 10,\n    \"refil_per_s\": 1\n  }\n}",
			want: `bad.json:4: unknown field "bucket.refil_per_s"`,
		},
		{
			name: "unknown field in interactive_sdk",
			json: "{\"interactive_sdk\": {\"max_attempt\": 2}}",
			want: `bad.json:1: unknown field "interactive_sdk.max_attempt"`,
		},
		{
			name: "bad requeue jitter name",
			json: "{\n  \"runner\": {\n    \"requeue_jitter\": \"fulll\"\n  }\n}",
			want: `bad.json:3: runner.requeue_jitter: "fulll": want one of none, full, equal, pct`,
		},
		{
			name: "bad retry-after mode",
			json: "{\"sdk\": {\"retry_after_mode\": \"honour\"}}",
			want: `bad.json:1: sdk.retry_after_mode: "honour": want one of exact, jitter, ignore`,
		},
		{
			name: "bad interactive retry-after mode",
			json: "{\"interactive_sdk\": {\"retry_after_mode\": \"x\"}}",
			want: `interactive_sdk.retry_after_mode: "x"`,
		},
		{
			name: "bad arrivals",
			json: "{\"interactive\": {\"arrivals\": \"bursty\"}}",
			want: `interactive.arrivals: "bursty": want one of even, poisson`,
		},
		{
			name: "survival above one",
			json: "{\n\"runner\": {\"survival\": 1.5}}",
			want: `bad.json:2: runner.survival: 1.5: want a probability in [0, 1]`,
		},
		{
			name: "pct jitter over 100",
			json: "{\"runner\": {\"requeue_jitter\": \"pct\", \"requeue_jitter_pct\": 150}}",
			want: `runner.requeue_jitter_pct: 150: want 0 to 100`,
		},
		{
			name: "negative delay",
			json: "{\"runner\": {\"requeue_delay_s\": -1}}",
			want: `runner.requeue_delay_s: -1: want a finite number >= 0`,
		},
		{
			name: "cost above capacity",
			json: "{\"bucket\": {\"capacity\": 100}, \"interactive\": {\"cost\": 1}, \"batch\": {\"cost\": 200}}",
			want: `batch.cost: 200 exceeds bucket.capacity 100`,
		},
		{
			name: "negative retry-after-ms",
			json: "{\"sdk\": {\"retry_after_ms\": -5}}",
			want: `sdk.retry_after_ms: -5: want 0 to 86,400,000 milliseconds`,
		},
		{
			name: "zero attempts",
			json: "{\"sdk\": {\"max_attempts\": 0}}",
			want: `sdk.max_attempts: 0: want 1 to 100`,
		},
		{
			name: "wrong type names field and line",
			json: "{\n\"batch\": {\n\"tasks\": \"many\"}}",
			want: `bad.json:3: field batch.tasks:`,
		},
		{
			name: "syntax error names line",
			json: "{\n\"name\": \"x\",,\n}",
			want: `bad.json:2: invalid character ','`,
		},
		{
			name: "truncated",
			json: "{\n\"name\": \"x\"",
			want: `bad.json:`,
		},
		{
			name: "bad start time",
			json: "{\n\"start\": \"yesterday\"}",
			want: `bad.json:2: start: want an RFC 3339 time`,
		},
		{
			name: "trailing data",
			json: "{} {}",
			want: `data after the scenario object`,
		},
		{
			name: "empty",
			json: "",
			want: `empty scenario`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenario("bad.json", []byte(tt.json))
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseScenarioDefaultsAndOverrides(t *testing.T) {
	sc, err := ParseScenario("s.json", []byte(`{
		"name": "small",
		"batch": {"tasks": 7},
		"sdk": {"retry_after_s": 5},
		"interactive_sdk": {"max_attempts": 1}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultScenario()
	if sc.Batch.Tasks != 7 || sc.Batch.Cost != def.Batch.Cost || sc.Batch.Route != def.Batch.Route {
		t.Errorf("batch = %+v, want tasks 7 and the default cost and route", sc.Batch)
	}
	if !sc.Start.Equal(def.Start) || sc.TailS != def.TailS {
		t.Errorf("start %v tail %v, want the defaults", sc.Start, sc.TailS)
	}
	// interactive_sdk starts from the file's sdk block, not from the defaults.
	if sc.InteractiveSDK == nil || sc.InteractiveSDK.MaxAttempts != 1 || sc.InteractiveSDK.RetryAfterS != 5 {
		t.Errorf("interactive_sdk = %+v, want max_attempts 1 and retry_after_s 5 from sdk", sc.InteractiveSDK)
	}
}

func TestScenarioFilesLoad(t *testing.T) {
	paths, err := filepath.Glob("../testdata/scenarios/*.json")
	if err != nil || len(paths) < 4 {
		t.Fatalf("want at least 4 scenario files, got %v (%v)", paths, err)
	}
	for _, p := range paths {
		sc, err := LoadScenario(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if want := strings.TrimSuffix(filepath.Base(p), ".json"); sc.Name != want {
			t.Errorf("%s: name %q, want %q", p, sc.Name, want)
		}
	}
	if _, err := LoadScenario("../testdata/scenarios/missing.json"); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

// FuzzParseScenario checks that no input panics the parser and that whatever
// it accepts passes validation.
func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"name":"x","bucket":{"capacity":5,"refill_per_s":1},"batch":{"tasks":3,"cost":1}}`))
	f.Add([]byte(`{"interactive_sdk":{"max_attempts":2},"runner":{"requeue_jitter":"equal"}}`))
	f.Add([]byte("{\n\"runner\": {\"survival\": 1.5}}"))
	f.Add([]byte(`{"a":[1,{"b":2}]}`))
	f.Add([]byte(`{"bucket":{"reject_fraction":0.1,"debt_floor":7000},"request_bucket":{"capacity":5,"refill_per_s":1},"sdk":{"backoff":"equal","retry_budget":{"max_tokens":10,"token_ratio":0.1}}}`))
	f.Add([]byte(`{"batch":{"concurrency":{"mode":"adaptive","limit":4,"min":1,"max":8,"decrease":0.5}},"layers":[{"max_attempts":2},{"max_attempts":3,"backoff":"decorrelated"}]}`))
	if data, err := os.ReadFile("../testdata/scenarios/seed-incident.json"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario("fuzz.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if err := sc.Validate(); err != nil {
			t.Errorf("accepted scenario fails validation: %v", err)
		}
	})
}
