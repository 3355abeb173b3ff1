// Command prof runs stampede's ingest and analysis on the given inputs under
// the CPU and heap profilers, printing how long each stage took, so that a
// profile of the library can be taken on any file:
//
//	go run ./bench/prof -cpu cpu.prof /tmp/access.log
//	go tool pprof -top cpu.prof
//
// -peak writes the heap profile of the largest heap seen while it ran, the
// one behind the peak resident set:
//
//	go run ./bench/prof -peak peak.prof /tmp/access.log
//	go tool pprof -sample_index=inuse_space -top peak.prof
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/spill"
)

func main() {
	cpu := flag.String("cpu", "", "write a CPU profile to this file")
	mem := flag.String("mem", "", "write a heap profile (after the analysis) to this file")
	spillBudget := flag.Int64("spill", 0, "spill the events to a temporary file, keeping the resident set under this many MiB (0: in memory)")
	peak := flag.String("peak", "", "write the heap profile of the largest heap seen during the run to this file")
	flag.Parse()
	if os.Getenv("GOGC") == "" {
		// As the command sets it.
		debug.SetGCPercent(25)
	}
	if *spillBudget > 0 {
		stop, err := spill.Start(spill.Options{Budget: *spillBudget << 20})
		if err != nil {
			fail(err)
		}
		defer stop()
	}
	if *cpu != "" {
		f, err := os.Create(*cpu)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	if *mem != "" || *peak != "" {
		runtime.MemProfileRate = 64 << 10
	}
	if *peak != "" {
		stop := watchPeak(*peak)
		defer stop()
	}
	cfg := stampede.Config{Inputs: flag.Args(), Seed: 1}
	t0 := time.Now()
	tl, err := stampede.Ingest(context.Background(), cfg)
	if err != nil {
		fail(err)
	}
	t1 := time.Now()
	res := analyze.Run(tl, analyze.Options{Seed: cfg.Seed})
	t2 := time.Now()
	fmt.Printf("ingest %v  analyze %v  events %d  attempts %d\n", t1.Sub(t0).Round(time.Millisecond), t2.Sub(t1).Round(time.Millisecond), len(tl.Events), res.Reconcile.HTTP.Attempts)
	if *mem != "" {
		f, err := os.Create(*mem)
		if err != nil {
			fail(err)
		}
		runtime.GC()
		if err := pprof.WriteHeapProfile(f); err != nil {
			fail(err)
		}
		f.Close()
	}
	runtime.KeepAlive(tl)
}

// watchPeak samples the heap every 20 ms and, each time it is a tenth
// larger than the largest written so far, writes its profile to path.
func watchPeak(path string) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var written uint64
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse < written+written/10 {
				continue
			}
			written = ms.HeapInuse
			f, err := os.Create(path)
			if err != nil {
				fail(err)
			}
			if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
				fail(err)
			}
			f.Close()
			fmt.Fprintf(os.Stderr, "peak: heap in use %d MiB\n", written>>20)
		}
	}()
	return func() { close(done); <-finished }
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "prof:", err)
	os.Exit(1)
}
