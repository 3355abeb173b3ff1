package stampede_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/simulate"
)

// benchLines is the size of the access log the end-to-end benchmark reads.
const benchLines = 1_000_000

// largeAccessLog simulates the seed incident scaled 64-fold (tasks, bucket
// and interactive rate alike, so the waves keep their shape) and writes its
// access log, cut at benchLines lines.
func largeAccessLog(b *testing.B) (path string, size int64) {
	b.Helper()
	sc, err := simulate.LoadScenario("testdata/scenarios/seed-incident.json")
	if err != nil {
		b.Fatal(err)
	}
	const scale = 64
	sc.Batch.Tasks *= scale
	sc.Bucket.Capacity *= scale
	sc.Bucket.RefillPerS *= scale
	sc.Interactive.RatePerS *= scale
	out, err := simulate.Run(sc)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := out.WriteAccessLog(&buf); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	n := 0
	for i, c := range data {
		if c == '\n' {
			n++
			if n == benchLines {
				data = data[:i+1]
				break
			}
		}
	}
	if n < benchLines {
		b.Fatalf("simulated log has %d lines, want %d", n, benchLines)
	}
	path = filepath.Join(b.TempDir(), "access.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path, int64(len(data))
}

// BenchmarkIngestAnalyze1M measures the whole pipeline, ingest and every
// analysis, on a 1M-line nginx access log; MB/s comes from b.SetBytes.
func BenchmarkIngestAnalyze1M(b *testing.B) {
	path, size := largeAccessLog(b)
	cfg := stampede.Config{Inputs: []string{path}, Seed: 1}
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		res, err := stampede.Analyze(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if res.Reconcile.HTTP.Attempts != benchLines {
			b.Fatalf("analysed %d attempts, want %d", res.Reconcile.HTTP.Attempts, benchLines)
		}
	}
	b.ReportMetric(float64(benchLines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkIngest1M isolates parsing and timeline building from the analyses.
func BenchmarkIngest1M(b *testing.B) {
	path, size := largeAccessLog(b)
	cfg := stampede.Config{Inputs: []string{path}}
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		if _, err := stampede.Ingest(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchLines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
