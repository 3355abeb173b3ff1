package analyze

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stampede/stampede/internal/golden"
	"github.com/stampede/stampede/timeline"
)

func TestRunInputsAndWindow(t *testing.T) {
	tl := callIDTimeline()
	tl.Sources = []timeline.Source{{Path: "access.log", Format: "nginx", Lines: 12, Parsed: 10, Skipped: 2, Events: 10,
		Samples: []timeline.Skip{{Line: 3, Reason: "bad status"}, {Line: 7, Reason: "truncated"}}}}
	res := Run(tl, Options{})
	if len(res.Inputs) != 1 {
		t.Fatalf("inputs = %+v", res.Inputs)
	}
	in := res.Inputs[0]
	want := []SkipSample{{"access.log:3", "bad status"}, {"access.log:7", "truncated"}}
	if in.Lines != 12 || in.Parsed != 10 || in.Skipped != 2 || !reflect.DeepEqual(in.Samples, want) {
		t.Errorf("input = %+v", in)
	}
	if !containsSubstr(res.Warnings, "2 lines skipped in access.log") {
		t.Errorf("warnings %q lack the skipped lines", res.Warnings)
	}
	if got := res.Window.Duration; got < 62.5 || got > 62.7 {
		t.Errorf("window duration %v, want 62.6 s (first start to last end)", got)
	}
	if res.SchemaVersion != SchemaVersion {
		t.Errorf("schema version %q", res.SchemaVersion)
	}
}

// TestRunIsPure: Run leaves the timeline as it found it and gives the same
// result twice.
func TestRunIsPure(t *testing.T) {
	in := incident{sizes: geometric(100, 0.7, 6), width: time.Second, requeue: 10 * time.Second, attempts: 2,
		retryAfter: 2 * time.Second, attemptTime: 50 * time.Millisecond, background: 1, seed: 1}
	tl := in.build()
	before := append([]timeline.Event(nil), tl.Events...)
	a, _ := json.Marshal(Run(tl, Options{Seed: 5}))
	b, _ := json.Marshal(Run(tl, Options{Seed: 5}))
	if !reflect.DeepEqual(before, tl.Events) {
		t.Error("Run modified the timeline")
	}
	if !bytes.Equal(a, b) {
		t.Error("two runs with the same seed differ")
	}
}

func TestRunEmptyTimeline(t *testing.T) {
	res := Run(&timeline.Timeline{}, Options{})
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("null")) {
		t.Errorf("empty result has null lists: %s", out)
	}
}

// TestRunGolden pins the whole result, JSON as a report would render it,
// for incidents of known shape. Run with -update after an intended change
// and review the diff.
func TestRunGolden(t *testing.T) {
	cases := map[string]*timeline.Timeline{
		"requeue60-retryafter12-sdklog": incident{sizes: geometric(200, 0.7, 6), width: 2 * time.Second,
			requeue: 60 * time.Second, attempts: 3, retryAfter: 12 * time.Second, attemptTime: 100 * time.Millisecond,
			background: 0.5, seed: 1}.build(),
		"requeue10-wholeseconds": incident{sizes: []int{300, 191, 120, 81, 51, 31, 16, 8}, width: 600 * time.Millisecond,
			requeue: 10 * time.Second, attempts: 1, attemptTime: 150 * time.Millisecond, background: 2,
			wholeSeconds: true, seed: 3}.build(),
		"attempt-numbers-no-sdklog": attemptNumberTimeline(),
		"poisson":                   poissonTraffic(2, 3*time.Minute, 1),
	}
	for name, tl := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := json.MarshalIndent(Run(tl, Options{Seed: 1}), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden.Check(t, filepath.Join("testdata", "golden", name+".json"), got)
		})
	}
}

func itoa(i int) string { return count(int64(i)) }
