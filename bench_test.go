package stampede_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/simulate"
)

// benchLines is the size of the access log the end-to-end benchmarks read.
const benchLines = 1_000_000

// simulatedLogs are the seed incident scaled 64-fold (tasks, bucket and
// interactive rate alike, so the waves keep their shape), written once per
// test binary in each format the benchmarks read and cut at benchLines
// lines.
var simulatedLogs = struct {
	once  sync.Once
	nginx []byte
	envoy []byte
	err   error
}{}

func simulated(b *testing.B) (nginx, envoy []byte) {
	b.Helper()
	s := &simulatedLogs
	s.once.Do(func() {
		sc, err := simulate.LoadScenario("testdata/scenarios/seed-incident.json")
		if err != nil {
			s.err = err
			return
		}
		// The seed incident scaled to at least benchLines lines.
		sc.Scale(96)
		out, err := simulate.Run(sc)
		if err != nil {
			s.err = err
			return
		}
		var buf bytes.Buffer
		if s.err = out.WriteAccessLog(&buf); s.err != nil {
			return
		}
		s.nginx = firstLines(buf.Bytes(), benchLines)
		buf = bytes.Buffer{}
		if s.err = out.WriteEnvoyJSON(&buf); s.err != nil {
			return
		}
		s.envoy = firstLines(buf.Bytes(), benchLines)
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	if bytes.Count(s.nginx, []byte{'\n'}) < benchLines {
		b.Fatalf("simulated log has fewer than %d lines", benchLines)
	}
	return s.nginx, s.envoy
}

func firstLines(data []byte, n int) []byte {
	for i, c := range data {
		if c == '\n' {
			n--
			if n == 0 {
				return data[:i+1]
			}
		}
	}
	return data
}

// benchFile writes data under the benchmark's temporary directory.
func benchFile(b *testing.B, name string, data []byte) (path string, size int64) {
	b.Helper()
	path = filepath.Join(b.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path, int64(len(data))
}

// largeAccessLog writes the simulated nginx access log (stampede format).
func largeAccessLog(b *testing.B) (path string, size int64) {
	nginx, _ := simulated(b)
	return benchFile(b, "access.log", nginx)
}

// reportLines adds lines/s beside the MB/s that b.SetBytes gives.
func reportLines(b *testing.B) {
	b.ReportMetric(float64(benchLines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkIngestAnalyze1M measures the whole pipeline, ingest and every
// analysis, on a 1M-line nginx access log; MB/s comes from b.SetBytes.
func BenchmarkIngestAnalyze1M(b *testing.B) {
	path, size := largeAccessLog(b)
	benchmarkAnalyze(b, path, size)
}

// BenchmarkIngestAnalyze1MEnvoyJSON is the same attempts as JSON lines.
func BenchmarkIngestAnalyze1MEnvoyJSON(b *testing.B) {
	_, envoy := simulated(b)
	path, size := benchFile(b, "envoy.jsonl", envoy)
	benchmarkAnalyze(b, path, size)
}

// BenchmarkIngestAnalyze1MGzip reads the nginx log gzipped; MB/s counts
// the uncompressed bytes, so that it compares with the plain file's.
func BenchmarkIngestAnalyze1MGzip(b *testing.B) {
	nginx, _ := simulated(b)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(nginx); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	path, _ := benchFile(b, "access.log.gz", buf.Bytes())
	benchmarkAnalyze(b, path, int64(len(nginx)))
}

func benchmarkAnalyze(b *testing.B, path string, size int64) {
	cfg := stampede.Config{Inputs: []string{path}, Seed: 1}
	b.SetBytes(size)
	b.ReportAllocs()
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
	reportLines(b)
}

// BenchmarkIngest1M isolates parsing and timeline building from the analyses.
func BenchmarkIngest1M(b *testing.B) {
	path, size := largeAccessLog(b)
	cfg := stampede.Config{Inputs: []string{path}}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := stampede.Ingest(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
	reportLines(b)
}

// BenchmarkAnalyze1M runs every analysis on a timeline already read, so
// that benchstat can follow the analyses apart from parsing. MB/s is of the
// log the timeline came from.
func BenchmarkAnalyze1M(b *testing.B) {
	path, size := largeAccessLog(b)
	tl, err := stampede.Ingest(context.Background(), stampede.Config{Inputs: []string{path}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		analyze.Run(tl, analyze.Options{Seed: 1})
	}
	reportLines(b)
}
