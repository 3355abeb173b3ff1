package analyze

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stampede/stampede/ingest"
	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/timeline"
)

// The stage benchmarks time each analysis on a simulated incident read
// through ingest, so that benchstat can follow every stage across commits.

// benchIncident is the seed incident scaled 16-fold (about 280,000
// attempts) as ingest reads its access log, built once per test binary.
var benchIncident struct {
	once    sync.Once
	tl      *timeline.Timeline
	logSize int64
	err     error
}

func benchTimeline(b *testing.B) (*timeline.Timeline, int64) {
	b.Helper()
	s := &benchIncident
	s.once.Do(func() {
		sc, err := simulate.LoadScenario("../testdata/scenarios/seed-incident.json")
		if err != nil {
			s.err = err
			return
		}
		sc.Scale(16)
		out, err := simulate.Run(sc)
		if err != nil {
			s.err = err
			return
		}
		var buf bytes.Buffer
		if s.err = out.WriteAccessLog(&buf); s.err != nil {
			return
		}
		s.logSize = int64(buf.Len())
		if s.tl, s.err = ingest.Read(&buf, "access.log", ingest.Options{}); s.err != nil {
			return
		}
		timeline.ApplyClassRules(s.tl, timeline.DefaultClassRules, false)
		timeline.ResolveClasses(s.tl)
		s.tl.Sort()
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.tl, s.logSize
}

// benchmarkStage times one analysis stage; MB/s is of the access log the
// timeline was read from, events/s of its events.
func benchmarkStage(b *testing.B, stage func(tl *timeline.Timeline, j *joins)) {
	tl, size := benchTimeline(b)
	j := buildJoins(tl)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		stage(tl, j)
	}
	b.ReportMetric(float64(len(tl.Events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkStageJoins(b *testing.B) {
	benchmarkStage(b, func(tl *timeline.Timeline, _ *joins) { buildJoins(tl) })
}

func BenchmarkStageReconcile(b *testing.B) {
	benchmarkStage(b, func(_ *timeline.Timeline, j *joins) { reconcile(j) })
}

func BenchmarkStageAmplify(b *testing.B) {
	benchmarkStage(b, func(_ *timeline.Timeline, j *joins) { amplify(j) })
}

func BenchmarkStageWaves(b *testing.B) {
	benchmarkStage(b, func(_ *timeline.Timeline, j *joins) {
		jj := *j // findWaves lets go of its joins' slices
		findWaves(&jj, Options{Seed: 1}, true)
	})
}

func BenchmarkStageClocks(b *testing.B) {
	benchmarkStage(b, func(tl *timeline.Timeline, _ *joins) { EstimateClocks(tl) })
}

func BenchmarkStageClients(b *testing.B) {
	benchmarkStage(b, func(tl *timeline.Timeline, j *joins) { clients(tl, j.counted) })
}

// BenchmarkStageRun is every analysis, as stampede.Analyze runs them, on
// the same timeline as the stage benchmarks.
func BenchmarkStageRun(b *testing.B) {
	benchmarkStage(b, func(tl *timeline.Timeline, _ *joins) { Run(tl, Options{Seed: 1}) })
}

// BenchmarkClocksManyLogs estimates the clocks of 40 SDK call logs, one
// per worker, against the access log whose attempts carry their call ids:
// the case where one pass per compared log would read every event 40 times.
func BenchmarkClocksManyLogs(b *testing.B) {
	const logs, callsPerLog = 40, 2000
	tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "access.log"}}}
	for l := range logs {
		tl.Sources = append(tl.Sources, timeline.Source{Path: fmt.Sprintf("worker-%d.jsonl", l)})
	}
	for c := range logs * callsPerLog {
		id := timeline.Intern(fmt.Sprintf("call-%d", c))
		start := genEpoch + int64(c)*int64(time.Millisecond)
		tl.Events = append(tl.Events,
			timeline.Event{Start: start + int64(2*time.Millisecond), End: start + int64(150*time.Millisecond), Layer: timeline.LayerHTTP,
				Outcome: timeline.OutcomeOK, Status: 200, Attempt: 1, Source: 0, CallID: id, Line: int64(c + 1), RetryAfter: timeline.NoRetryAfter},
			timeline.Event{Start: start, End: start + int64(160*time.Millisecond), Layer: timeline.LayerCall,
				Outcome: timeline.OutcomeOK, Attempts: 1, Source: int32(1 + c%logs), CallID: id, Line: int64(c/logs + 1), RetryAfter: timeline.NoRetryAfter})
	}
	tl.Sort()
	b.ReportAllocs()
	for b.Loop() {
		EstimateClocks(tl)
	}
}
