package simulate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede/stampede/ingest"
	"github.com/stampede/stampede/timeline"
)

// TestWriteFormatsReadBack writes a small incident in every format and
// checks that ingest detects each and reads, attempt for attempt, what the
// access log says: the same times, statuses, attempt numbers, tasks,
// retry-afters, routes and clients.
func TestWriteFormatsReadBack(t *testing.T) {
	sc := loadTestScenario(t, "seed-incident")
	sc.Batch.Tasks = 60
	out, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	formats := []string{"nginx", "envoy-json", "otlp-json"}
	paths, err := out.WriteFormats(dir, formats...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, TruthFile)); err != nil {
		t.Error(err)
	}
	read := make([]*timeline.Timeline, len(paths))
	for i, p := range paths {
		tl, err := ingest.ReadFile(p, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := tl.Sources[0]
		if !strings.HasPrefix(s.Format, formats[i]) || s.Skipped != 0 || len(tl.Events) != len(out.Attempts) {
			t.Fatalf("%s: %+v, %d events for %d attempts", filepath.Base(p), s, len(tl.Events), len(out.Attempts))
		}
		read[i] = tl
	}
	for i, tl := range read[1:] {
		for k, e := range tl.Events {
			w := read[0].Events[k]
			if e.Start != w.Start || e.End != w.End || e.Status != w.Status || e.Outcome != w.Outcome ||
				e.Attempt != w.Attempt || e.TaskID != w.TaskID || e.RetryAfter != w.RetryAfter ||
				e.Route != w.Route || e.Client != w.Client {
				t.Fatalf("%s attempt %d:\n got %+v\nwant %+v", formats[i+1], k+1, e, w)
			}
		}
	}
	// OTLP spans carry the call; its attempts are numbered 1, 2, ... in
	// order of their start.
	last := map[string]int16{}
	for _, e := range read[2].Events {
		if e.CallID == timeline.NoSym {
			t.Fatalf("span without a call: %+v", e)
		}
		if e.Attempt != last[e.CallID.String()]+1 {
			t.Fatalf("call %s: attempt %d after %d", e.CallID, e.Attempt, last[e.CallID.String()])
		}
		last[e.CallID.String()] = e.Attempt
	}
	if len(last) != len(out.Calls) {
		t.Errorf("%d calls in the spans, %d simulated", len(last), len(out.Calls))
	}
}

func TestWriteFormatsDeterministicAndNamed(t *testing.T) {
	sc := loadTestScenario(t, "seed-incident")
	sc.Batch.Tasks = 20
	out, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, write := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return out.WriteEnvoyJSON(b) },
		func(b *bytes.Buffer) error { return out.WriteOTLP(b) },
	} {
		var a, b bytes.Buffer
		if err := write(&a); err != nil {
			t.Fatal(err)
		}
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) || bytes.Count(a.Bytes(), []byte{'\n'}) != len(out.Attempts) {
			t.Errorf("output not deterministic or not one line per attempt")
		}
	}
	_, err = out.WriteFormats(t.TempDir(), "nginx", "csv")
	if err == nil || err.Error() != `write simulation: unknown format "csv": want nginx, jsonl, envoy-json, otlp-json` {
		t.Errorf("got %v", err)
	}
}
