package analyze

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
)

// dayLong is 28 hours of periodic bursts plus background at 100 ms
// resolution: a million bins and about 1.4 million events. Built once; the
// generator is slower than the analysis.
var dayLong = sync.OnceValue(func() *timeline.Timeline {
	return incident{sizes: geometric(2000, 0.995, 1180), width: 3 * time.Second, requeue: 75 * time.Second,
		attempts: 2, retryAfter: 10 * time.Second, attemptTime: 100 * time.Millisecond, background: 1, seed: 9}.build()
})

// dayBins is a day of 100 ms bins, the size the wave analysis must handle
// well within a second.
const dayBins = 864_000

// BenchmarkFindWaves is the wave analysis alone over a million bins: the
// periodogram and ACF with their surrogates on the call starts, then the
// retry-after comb (10 s) searched on the attempts, which the call starts
// do not show. s/day is the time scaled to a day of 100 ms bins.
func BenchmarkFindWaves(b *testing.B) {
	j := buildJoins(dayLong())
	bins := len(binSeries(pickSeries(j).times, int64(100*time.Millisecond)).counts)
	b.ResetTimer()
	for b.Loop() {
		jj := *j // findWaves lets go of its joins' slices
		w := findWaves(&jj, Options{Seed: 1}, true)
		if !w.Periodic {
			b.Fatalf("not periodic: best lag %v", w.BestLag)
		}
		if math.Abs(w.IntraWaveSpacing-10.1) > 0.2 {
			b.Fatalf("comb %v s from %q, want 10.1 s", w.IntraWaveSpacing, w.IntraWaveSeries)
		}
	}
	b.ReportMetric(float64(bins)*float64(b.N)/b.Elapsed().Seconds(), "bins/s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*dayBins/float64(bins), "s/day")
}

// dayNested is a million 100 ms bins of waves seen on the wire only, each
// a comb of three attempts 12 s apart: the worst case, where the detector
// must find the comb and then the requeue period it nests in.
var dayNested = sync.OnceValue(func() *timeline.Timeline {
	return incident{sizes: geometric(300, 0.9995, 1150), width: 2 * time.Second, requeue: 66 * time.Second,
		attempts: 3, retryAfter: 12 * time.Second, attemptTime: 100 * time.Millisecond, background: 0.5,
		wireOnly: true, seed: 10}.build()
})

// BenchmarkFindWavesNested is the period and comb search over a million bins.
func BenchmarkFindWavesNested(b *testing.B) {
	j := buildJoins(dayNested())
	bins := len(binSeries(pickSeries(j).times, int64(100*time.Millisecond)).counts)
	if bins < 1_000_000 {
		b.Fatalf("%d bins, want at least a million", bins)
	}
	b.ResetTimer()
	for b.Loop() {
		jj := *j // findWaves lets go of its joins' slices
		if w := findWaves(&jj, Options{Seed: 1}, true); !w.Periodic || w.IntraWaveSpacing == 0 {
			b.Fatalf("periodic %v, period %v, comb %v", w.Periodic, w.Period, w.IntraWaveSpacing)
		}
	}
	b.ReportMetric(float64(bins)*float64(b.N)/b.Elapsed().Seconds(), "bins/s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*dayBins/float64(bins), "s/day")
}

// BenchmarkRun is every analysis, joins included.
func BenchmarkRun(b *testing.B) {
	tl := dayLong()
	b.ResetTimer()
	for b.Loop() {
		Run(tl, Options{Seed: 1})
	}
	b.ReportMetric(float64(len(tl.Events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
