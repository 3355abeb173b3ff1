// Command prof runs stampede's ingest and analysis on the given inputs under
// the CPU and heap profilers, printing how long each stage took, so that a
// profile of the library can be taken on any file:
//
//	go run ./bench/prof -cpu cpu.prof /tmp/access.log
//	go tool pprof -top cpu.prof
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
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
	flag.Parse()
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
	if *mem != "" {
		runtime.MemProfileRate = 64 << 10
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

func fail(err error) {
	fmt.Fprintln(os.Stderr, "prof:", err)
	os.Exit(1)
}
