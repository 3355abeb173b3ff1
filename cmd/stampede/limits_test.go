package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/stampede/stampede/timeline"
)

// TestLimitsCoverWriting runs a write under each limit: the limit stops
// it as it stops reading, a writer that ignores its context is given up
// on after writeGrace, and a write that finished stands.
func TestLimitsCoverWriting(t *testing.T) {
	// waits holds its output until the context ends.
	waits := func(ctx context.Context) error {
		<-ctx.Done()
		return context.Cause(ctx)
	}
	tests := []struct {
		name   string
		limits limitFlags
		// signal cancels the command's context once write has started.
		signal  bool
		write   func(ctx context.Context) error
		wantErr string
		// within bounds the time from the start of write to the return.
		within time.Duration
	}{
		{name: "--timeout while writing", limits: limitFlags{timeout: 300 * time.Millisecond}, write: waits,
			wantErr: "stopped after --timeout 300ms: the run did not finish in time; no output written", within: time.Second},
		{name: "--max-memory while writing", limits: limitFlags{maxMemory: "64MiB", spillDir: t.TempDir()},
			write: func(ctx context.Context) error {
				// A rendering that grows past the budget. One byte a
				// page makes it resident; a byte-by-byte fill takes
				// longer than writeGrace under the race detector.
				b := make([]byte, 256<<20)
				for i := 0; i < len(b); i += 4096 {
					b[i] = 1
				}
				err := waits(ctx)
				runtime.KeepAlive(b)
				return err
			},
			wantErr: "over --max-memory 64MiB", within: 2 * time.Second},
		{name: "a signal while writing", signal: true, write: waits, wantErr: "interrupted; no output written", within: time.Second},
		{name: "a writer that ignores the signal", signal: true,
			write:   func(ctx context.Context) error { select {} },
			wantErr: "interrupted; no output written", within: writeGrace + time.Second},
		{name: "a write that finished as the signal came", signal: true,
			write:  func(ctx context.Context) error { <-ctx.Done(); return nil },
			within: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd := &cobra.Command{}
			cmd.SetContext(ctx)
			cmd.SetErr(&bytes.Buffer{})
			l := tt.limits
			defer l.close()
			// started is atomic: run may return, after writeGrace, while
			// write still runs.
			var started atomic.Int64
			write := func(ctx context.Context) error {
				started.Store(time.Now().UnixNano())
				if tt.signal {
					cancel()
				}
				return tt.write(ctx)
			}
			err := l.run(cmd, nil, func(context.Context) error { return nil }, write)
			took := time.Since(time.Unix(0, started.Load()))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("run = %v, want the finished write to stand", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("run = %v, want an error with %q", err, tt.wantErr)
			}
			if took > tt.within {
				t.Errorf("returned %v after the write started, want within %v", took.Round(time.Millisecond), tt.within)
			}
		})
	}
}

// TestStopWhileWritingTimeline stops ingest, as Ctrl-C does, once its
// temporary file is there, on a timeline large enough that writing it takes
// a while: the command fails with the interruption within 2 s, and neither
// the output nor its temporary file is left.
func TestStopWhileWritingTimeline(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a timeline of a million events")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.arrow")
	must(t, timeline.WriteFile(context.Background(), in, manyEvents(1_000_000)))
	for _, out := range []string{"out.arrow", "out.parquet"} {
		t.Run(out, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stopped time.Time
			seen := make(chan struct{})
			go func() {
				defer close(seen)
				for ctx.Err() == nil {
					entries, _ := os.ReadDir(dir)
					for _, e := range entries {
						if strings.HasPrefix(e.Name(), "."+out+".tmp-") {
							stopped = time.Now()
							cancel()
							return
						}
					}
					time.Sleep(time.Millisecond)
				}
			}()
			cmd := newRootCmd()
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			cmd.SetArgs([]string{"ingest", in, "-o", filepath.Join(dir, out)})
			err := cmd.ExecuteContext(ctx)
			returned := time.Now()
			cancel()
			<-seen
			if stopped.IsZero() {
				t.Fatalf("the run ended (%v) before its temporary file was seen", err)
			}
			if !errors.Is(err, errInterrupted) {
				t.Errorf("ingest = %v, want %v", err, errInterrupted)
			}
			t.Logf("returned %v after the stop", returned.Sub(stopped).Round(time.Millisecond))
			if took := returned.Sub(stopped); took > 2*time.Second {
				t.Errorf("returned %v after the stop, want within 2s", took.Round(time.Millisecond))
			}
			// The writer goes on a moment after the command returns; by
			// then it has removed its temporary file.
			deadline := time.Now().Add(2 * time.Second)
			for {
				entries, _ := os.ReadDir(dir)
				if len(entries) == 1 {
					break
				}
				if time.Now().After(deadline) {
					for _, e := range entries {
						if e.Name() != "in.arrow" {
							t.Errorf("left %s behind", e.Name())
						}
					}
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// manyEvents is an access log's worth of attempts, one a millisecond.
func manyEvents(n int) *timeline.Timeline {
	tl := &timeline.Timeline{
		Events:  make([]timeline.Event, n),
		Sources: []timeline.Source{{Path: "access.log", Format: "nginx", Lines: int64(n), Parsed: int64(n), Events: int64(n)}},
	}
	start := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC).UnixNano()
	for i := range tl.Events {
		ev := &tl.Events[i]
		ev.Start = start + int64(i)*int64(time.Millisecond)
		ev.Line = int64(i + 1)
		ev.Layer = timeline.LayerHTTP
		ev.Status = 200
		ev.Outcome = timeline.OutcomeOK
		if i%3 == 0 {
			ev.Status = 429
			ev.Outcome = timeline.OutcomeThrottled
		}
		ev.RetryAfter = timeline.NoRetryAfter
	}
	return tl
}
