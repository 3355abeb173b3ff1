package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/internal/memlimit"
	"github.com/stampede/stampede/internal/safefile"
	"github.com/stampede/stampede/spill"
	"github.com/stampede/stampede/timeline"
)

// limitFlags bound a run's time and memory; shared by the commands that
// read logs.
type limitFlags struct {
	maxMemory string
	timeout   time.Duration
	spillDir  string
	// stopSpill ends the spill run started; the command calls close once
	// its output is written, which reads the spilled events too.
	stopSpill func()
	// host is where the memory available is read; nil is the running
	// process's. Tests give a fake one.
	host func() memlimit.Host
}

func (l *limitFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&l.maxMemory, "max-memory", "", "hold the resident set near this size, e.g. 512MiB or 4GiB, by spilling the events to a temporary file; stop with an error (exit 2) if the heap alone grows past it (default: a spill starts anyway when the inputs look larger than 1.25 GiB, or than half the memory available: the least of MemAvailable, the cgroup's limit less its usage, and GOMEMLIMIT)")
	cmd.Flags().StringVar(&l.spillDir, "spill-dir", "", "directory for the spill file (default: $TMPDIR or /tmp); it needs free space of about 1.5 times the uncompressed input")
	cmd.Flags().DurationVar(&l.timeout, "timeout", 0, "stop with an error (exit 2) when the run takes longer, e.g. 90s or 10m (default: no limit)")
}

// watchdogInterval is how often the heap is measured against --max-memory:
// often enough to stop a runaway read well before the machine swaps.
const watchdogInterval = 20 * time.Millisecond

// errInterrupted is the cause when a signal ended the run.
var errInterrupted = errors.New("interrupted; no output written")

// writeGrace is how long a stopped run waits for its output to be
// abandoned: every writer looks at its context at least once a batch, a
// chart or a megabyte, so it removes its temporary files well within this,
// and the run still exits within about a second of the signal.
const writeGrace = time.Second

// run calls work and then write under the limits: the memory watchdog,
// --timeout and the signals cover reading, analysing, rendering and writing
// alike. It returns as soon as a limit is hit or ctx ends (Ctrl-C,
// SIGTERM) while work runs, without waiting for it: the command then fails
// and the process exits, so nothing is written from an unfinished run. Once
// write has started, it waits up to writeGrace for write to give up, so
// that its temporary files go; an output already in place then stands and
// the run succeeds, so an exit status of 2 always means no new output. A
// panic in work or write becomes an error rather than a crash.
func (l *limitFlags) run(cmd *cobra.Command, inputs []string, work, write func(ctx context.Context) error) error {
	limit, err := parseSize(l.maxMemory)
	if err != nil {
		return fmt.Errorf("--max-memory: %w", err)
	}
	if l.stopSpill == nil {
		if l.stopSpill, err = l.startSpill(limit, inputs, cmd.ErrOrStderr()); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancelCause(cmd.Context())
	defer cancel(nil)
	if l.timeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, l.timeout,
			fmt.Errorf("stopped after --timeout %s: the run did not finish in time; no output written", l.timeout))
		defer stop()
	}
	if limit > 0 {
		// The soft limit makes the collector work harder before the
		// watchdog has to give up.
		prev := debug.SetMemoryLimit(limit)
		defer debug.SetMemoryLimit(prev)
		go watchMemory(ctx, limit, l.maxMemory, cancel)
	}
	// writing is set before write looks at ctx, so that a stop seen after
	// that look also sees writing, and waits.
	var writing atomic.Bool
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("internal error, please report it with the input that caused it: %v\n%s", r, debug.Stack())
			}
		}()
		if err := work(ctx); err != nil {
			done <- err
			return
		}
		writing.Store(true)
		if ctx.Err() != nil {
			done <- context.Cause(ctx)
			return
		}
		done <- write(ctx)
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		if !writing.Load() {
			return stopCause(ctx)
		}
		select {
		case err = <-done:
		case <-time.After(writeGrace):
			// Stuck, in a slow disk's fsync say: the process exits, and
			// the files it was writing go first.
			safefile.RemoveTemporaries()
			return stopCause(ctx)
		}
	}
	var gf *gateFailure
	if err != nil && ctx.Err() != nil && !errors.As(err, &gf) {
		return stopCause(ctx)
	}
	return err
}

// spillShare is the part of a budget the spill lets the resident set reach
// before it drops its pages: the rest is room for what it faults back in
// between two looks, and for the heap to grow meanwhile.
const spillShare = 0.6

// startSpill turns the spill on when the run has a memory budget, or when
// its inputs look larger than defaultWorkingSet or half the memory the run
// has available (see autoSpill), so that a log larger than memory is
// analysed rather than killed.
func (l *limitFlags) startSpill(limit int64, inputs []string, stderr io.Writer) (stop func(), err error) {
	if limit == 0 {
		return l.autoSpill(inputs, stderr), nil
	}
	if err := refuseBudget(limit, l.maxMemory, inputs); err != nil {
		return nil, err
	}
	stop, err = spill.Start(spill.Options{Dir: l.spillDir, Budget: int64(float64(limit) * spillShare)})
	if err != nil {
		return nil, fmt.Errorf("--max-memory needs a spill file: %w", err)
	}
	return stop, nil
}

func spillDirName(dir string) string {
	if dir == "" {
		return os.TempDir()
	}
	return dir
}

// close ends the spill run started; a command defers it, as the output is
// written from the spilled events too.
func (l *limitFlags) close() {
	if l.stopSpill != nil {
		l.stopSpill()
		l.stopSpill = nil
	}
}

func stopCause(ctx context.Context) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return errInterrupted
}

// watchMemory cancels the run, naming the limit, once the live heap
// passes limit.
func watchMemory(ctx context.Context, limit int64, flag string, cancel context.CancelCauseFunc) {
	tick := time.NewTicker(watchdogInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		heap, over, ok := liveHeapOver(limit)
		if !ok {
			return
		}
		if over {
			why := "raise the limit or read fewer or smaller inputs"
			if st, ok := spill.Current(); ok && st.Fallbacks > 0 {
				// A full spill disk sends the events to the heap.
				why = fmt.Sprintf("the spill file in %s could not grow (%d allocations went to the heap); free space there or give --spill-dir", st.Dir, st.Fallbacks)
			}
			cancel(fmt.Errorf("stopped: the heap reached %s, over --max-memory %s; %s; no output written",
				formatBytes(int64(heap)), flag, why))
			return
		}
	}
}

// parseSize reads a size such as 512MiB, 4GiB, 500MB, 2G or 1048576
// (bytes). Binary and decimal units are both accepted; "" is no limit.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q: want a positive size such as 512MiB or 4GiB", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
		"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
		"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
	}[strings.ToLower(unit)]
	if mult == 0 {
		return 0, fmt.Errorf("%q: unknown unit %q (want B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB)", s, unit)
	}
	if v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q: too large", s)
	}
	return int64(v * mult), nil
}

// noEvents fails a run whose inputs gave no event at all: there is nothing
// to analyse or store, and a report of zeros would pass for a quiet
// incident. The message accounts for every file.
func noEvents(inputs []analyze.Input) error {
	var events int64
	for _, in := range inputs {
		events += in.Events + in.Duplicates
	}
	if events > 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("no events in the input")
	for _, in := range inputs {
		fmt.Fprintf(&b, "\n  %s: %d lines read, %d parsed, %d skipped", in.Path, in.Lines, in.Parsed, in.Skipped)
		if in.Format != "" {
			fmt.Fprintf(&b, " (format %s)", in.Format)
		}
		if len(in.Samples) > 0 {
			fmt.Fprintf(&b, "; first: %s: %s", in.Samples[0].Position, in.Samples[0].Reason)
		}
	}
	return errors.New(b.String())
}

// inputsOf is the line accounting of a timeline's sources, as a result
// carries it.
func inputsOf(sources []timeline.Source) []analyze.Input {
	out := make([]analyze.Input, len(sources))
	for i, s := range sources {
		out[i] = analyze.Input{Path: s.Path, Format: s.Format, Lines: s.Lines, Parsed: s.Parsed,
			Skipped: s.Skipped, Events: s.Events, Duplicates: s.Duplicates}
		if len(s.Samples) > 0 {
			out[i].Samples = []analyze.SkipSample{{Position: fmt.Sprintf("%s:%d", s.Path, s.Samples[0].Line), Reason: s.Samples[0].Reason}}
		}
	}
	return out
}
