//go:build linux

package stampede_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/spill"
)

// TestSpillGivesTheSameResult analyses each incident in memory, then with
// every slice in the spill file and its pages dropped from the resident set
// every few milliseconds, as a run under a tight --max-memory does: the
// results must be byte-identical.
func TestSpillGivesTheSameResult(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inputs []string
	}{
		{"seed incident, access and call logs", []string{"testdata/seed-incident/access.log", "testdata/seed-incident/calls.jsonl"}},
		{"botocore trace, every log", []string{"testdata/traces/botocore-standard"}},
		{"no-throttle trace", []string{"testdata/traces/no-throttle/access.log", "testdata/traces/no-throttle/sdk_debug.log"}},
		{"rotated files that overlap", []string{"testdata/hostile/rotated"}},
		{"out-of-order lines", []string{"testdata/hostile/out-of-order.log"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := stampede.Config{Inputs: tc.inputs, Seed: 1}
			want := analyzeJSON(t, cfg)
			stop, err := spill.Start(spill.Options{Dir: t.TempDir(), Budget: 1, MinBytes: 1})
			if err != nil {
				t.Fatal(err)
			}
			got := analyzeJSON(t, cfg)
			st, _ := spill.Current()
			stop()
			if st.Bytes == 0 {
				t.Fatal("nothing went to the spill file")
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("the result with the spill differs from the one in memory:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func analyzeJSON(t *testing.T, cfg stampede.Config) []byte {
	t.Helper()
	res, err := stampede.Analyze(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
