package ingest

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
)

// truth holds the figures of truth.json that the ingesters must reproduce:
// the endpoint's own record of every request, cross-checked against the
// logs when the traces were recorded.
type truth struct {
	HTTP struct {
		Requests int64            `json:"requests"`
		ByStatus map[string]int64 `json:"by_status"`
		ByClass  map[string]struct {
			Requests int64 `json:"requests"`
		} `json:"by_class"`
	} `json:"http"`
	Calls map[string]struct {
		SDKCalls     int64 `json:"sdk_calls"`
		OK           int64 `json:"ok"`
		Failed       int64 `json:"failed"`
		HTTPAttempts int64 `json:"http_attempts"`
	} `json:"calls"`
	AccessLogCheck struct {
		FirstSecondUTC time.Time `json:"first_second_utc"`
		PerSecondAll   []int64   `json:"per_second_all"`
		PerSecond429   []int64   `json:"per_second_429"`
	} `json:"access_log_check"`
}

func traceDir(scenario string) string {
	return filepath.Join("..", "testdata", "traces", scenario)
}

func readTruth(t *testing.T, scenario string) truth {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(traceDir(scenario), "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr truth
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

func readTrace(t *testing.T, scenario, file, wantFormat string) *timeline.Timeline {
	t.Helper()
	tl, err := ReadFile(filepath.Join(traceDir(scenario), file), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := tl.Sources[0]
	if s.Format != wantFormat {
		t.Errorf("%s/%s: detected %q, want %q", scenario, file, s.Format, wantFormat)
	}
	if s.Skipped != 0 || s.Parsed != s.Lines || s.Events != s.Lines || int64(len(tl.Events)) != s.Lines {
		t.Errorf("%s/%s: accounting %+v", scenario, file, s)
	}
	return tl
}

func TestTraceAccessLogs(t *testing.T) {
	for _, scenario := range []string{"botocore-standard", "no-throttle"} {
		t.Run(scenario, func(t *testing.T) {
			tr := readTruth(t, scenario)
			custom := readTrace(t, scenario, "access.log", "nginx:retry")
			combined := readTrace(t, scenario, "access_combined.log", "nginx:combined")
			for _, tl := range []*timeline.Timeline{custom, combined} {
				if got := tl.Sources[0].Lines; got != tr.HTTP.Requests {
					t.Errorf("%s: %d lines, truth has %d requests", tl.Sources[0].Path, got, tr.HTTP.Requests)
				}
				byStatus := map[int32]int64{}
				for _, e := range tl.Events {
					byStatus[int32(e.Status)]++
					if e.Layer != timeline.LayerHTTP {
						t.Fatalf("line %d: layer %v", e.Line, e.Layer)
					}
					if (e.Status == 429) != (e.Outcome == timeline.OutcomeThrottled) {
						t.Errorf("line %d: status %d outcome %v", e.Line, e.Status, e.Outcome)
					}
				}
				for status, n := range tr.HTTP.ByStatus {
					var code int32
					for _, c := range status {
						code = code*10 + int32(c-'0')
					}
					if byStatus[code] != n {
						t.Errorf("%s: %d lines with status %s, truth %d", tl.Sources[0].Path, byStatus[code], status, n)
					}
				}
			}

			// nginx stamps $time_local when the request ends; truth counts
			// requests per such second.
			first := tr.AccessLogCheck.FirstSecondUTC.UnixNano()
			perSecond := make([]int64, len(tr.AccessLogCheck.PerSecondAll))
			per429 := make([]int64, len(perSecond))
			for _, e := range combined.Events {
				i := (e.Start - first) / int64(time.Second)
				if i < 0 || int(i) >= len(perSecond) || e.End != 0 {
					t.Fatalf("line %d: start %v end %d outside the window", e.Line, e.Time(), e.End)
				}
				perSecond[i]++
				if e.Status == 429 {
					per429[i]++
				}
			}
			for i := range perSecond {
				if perSecond[i] != tr.AccessLogCheck.PerSecondAll[i] || per429[i] != tr.AccessLogCheck.PerSecond429[i] {
					t.Errorf("second %d: %d requests (%d throttled), truth %d (%d)", i, perSecond[i], per429[i],
						tr.AccessLogCheck.PerSecondAll[i], tr.AccessLogCheck.PerSecond429[i])
				}
			}

			// The custom format carries the retry headers and the task id.
			var withTask int64
			for i, e := range custom.Events {
				if e.TaskID != timeline.NoSym {
					withTask++
				}
				if e.Attempt < 1 || e.Attempt > 3 {
					t.Errorf("line %d: attempt %d", e.Line, e.Attempt)
				}
				if e.End == 0 || e.End-e.Start > int64(5*time.Second) || e.End%int64(time.Second) != 0 {
					t.Errorf("line %d: start %d end %d", e.Line, e.Start, e.End)
				}
				if c := combined.Events[i]; c.Start != e.End || c.Status != e.Status || c.Route != e.Route || c.Client != e.Client {
					t.Errorf("line %d differs between formats: %+v vs %+v", e.Line, c, e)
				}
			}
			if want := tr.HTTP.ByClass["batch"].Requests; withTask != want {
				t.Errorf("%d attempts carry a task id, truth has %d batch requests", withTask, want)
			}
		})
	}
}

func TestTraceBotocoreHeaders(t *testing.T) {
	tl := readTrace(t, "botocore-standard", "access.log", "nginx:retry")
	byAttempt := map[int32]int64{}
	for _, e := range tl.Events {
		byAttempt[int32(e.Attempt)]++
		if len(e.CallID.String()) != 36 {
			t.Errorf("line %d: call id %q is not an amz-sdk-invocation-id", e.Line, e.CallID)
		}
		if (e.Attempt > 1) != (e.MaxAttempts == 3) {
			t.Errorf("line %d: attempt %d max %d", e.Line, e.Attempt, e.MaxAttempts)
		}
	}
	// From the amz-sdk-request header: 963 calls started, 153 second and
	// 37 third attempts (truth: 1153 requests for 963 calls).
	if byAttempt[1] != 963 || byAttempt[2] != 153 || byAttempt[3] != 37 {
		t.Errorf("attempts by number: %v", byAttempt)
	}
}

func TestTraceCalls(t *testing.T) {
	for _, scenario := range []string{"botocore-standard", "no-throttle"} {
		t.Run(scenario, func(t *testing.T) {
			tr := readTruth(t, scenario)
			tl := readTrace(t, scenario, "calls.jsonl", "jsonl")
			type tally struct{ calls, ok, failed, attempts int64 }
			got := map[string]*tally{"batch": {}, "interactive": {}}
			for _, e := range tl.Events {
				if e.Layer != timeline.LayerCall || e.End <= e.Start || e.CallID == timeline.NoSym || e.Attempts < 1 {
					t.Errorf("line %d: %+v", e.Line, e)
				}
				g := got[e.Class.String()]
				if g == nil {
					t.Fatalf("line %d: class %v", e.Line, e.Class)
				}
				g.calls++
				g.attempts += int64(e.Attempts)
				if e.Outcome.Failed() {
					g.failed++
				} else if e.Outcome == timeline.OutcomeOK {
					g.ok++
				}
				if (e.Class == timeline.ClassBatch) != (e.TaskID != timeline.NoSym && e.QueueAttempt >= 1) {
					t.Errorf("line %d: class %v task %q queue attempt %d", e.Line, e.Class, e.TaskID, e.QueueAttempt)
				}
			}
			for class, want := range tr.Calls {
				g := got[class]
				if g.calls != want.SDKCalls || g.ok != want.OK || g.failed != want.Failed || g.attempts != want.HTTPAttempts {
					t.Errorf("%s: got %+v, truth calls=%d ok=%d failed=%d attempts=%d", class, *g,
						want.SDKCalls, want.OK, want.Failed, want.HTTPAttempts)
				}
			}
		})
	}
}

func TestReadFileGzip(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join(traceDir("no-throttle"), "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "access.log.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write(plain)
	zw.Close()
	f.Close()
	tl, err := ReadFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := tl.Sources[0]; s.Path != path || s.Format != "nginx:retry" || s.Lines != 403 || s.Parsed != 403 {
		t.Errorf("%+v", s)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.log"), Options{}); err == nil || !strings.Contains(err.Error(), "missing.log") {
		t.Errorf("missing file: %v", err)
	}
}
