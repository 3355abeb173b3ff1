package stampede_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/timeline"
)

// TestIngestProgressReachesTotal reads a whole incident folder, files in
// parallel, and checks the snapshots: the total is every file's size, bytes
// and lines only grow to it, and the last file done brings Bytes to the
// total.
func TestIngestProgressReachesTotal(t *testing.T) {
	const dir = "testdata/traces/botocore-standard"
	files, err := stampede.ExpandInputs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		total += st.Size()
	}

	var mu sync.Mutex
	var snaps []stampede.Progress
	cfg := stampede.Config{Inputs: []string{dir}, Progress: func(p stampede.Progress) {
		mu.Lock()
		snaps = append(snaps, p)
		mu.Unlock()
	}}
	tl, err := stampede.Ingest(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var lines int64
	for _, s := range tl.Sources {
		lines += s.Lines
	}
	if len(snaps) == 0 {
		t.Fatal("Progress never called")
	}
	var final stampede.Progress
	for _, p := range snaps {
		if p.TotalBytes != total || p.Files != len(files) {
			t.Errorf("snapshot %+v: want TotalBytes %d, Files %d", p, total, len(files))
		}
		if p.Bytes > total {
			t.Errorf("snapshot %+v: read more than the total", p)
		}
		if p.FilesDone == p.Files {
			final = p
		}
	}
	if final.Bytes != total || final.Lines != lines {
		t.Errorf("last snapshot %+v: want Bytes %d, Lines %d", final, total, lines)
	}
}

// TestIngestProgressTimelineFile checks that a timeline file, read without
// line-level progress, still counts toward the total when done.
func TestIngestProgressTimelineFile(t *testing.T) {
	tl, err := stampede.Ingest(context.Background(), stampede.Config{Inputs: []string{"testdata/traces/no-throttle/access.log"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "timeline.arrow")
	if err := timeline.WriteFile(context.Background(), path, tl); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var last stampede.Progress
	cfg := stampede.Config{Inputs: []string{path}, Progress: func(p stampede.Progress) { last = p }}
	if _, err := stampede.Ingest(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if last.Bytes != st.Size() || last.FilesDone != 1 {
		t.Errorf("last snapshot %+v: want Bytes %d of 1 file", last, st.Size())
	}
}

// BenchmarkIngest1MProgress is BenchmarkIngest1M with a progress callback
// of the CLI's weight (a mutex and a few stores), to show watching an
// ingest costs nothing measurable.
func BenchmarkIngest1MProgress(b *testing.B) {
	path, size := largeAccessLog(b)
	var mu sync.Mutex
	var last stampede.Progress
	cfg := stampede.Config{Inputs: []string{path}, Progress: func(p stampede.Progress) {
		mu.Lock()
		last = p
		mu.Unlock()
	}}
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		if _, err := stampede.Ingest(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchLines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	if last.Bytes != size {
		b.Fatalf("progress ended at %d bytes, want %d", last.Bytes, size)
	}
}
