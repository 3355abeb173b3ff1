package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/ingest"
	"github.com/stampede/stampede/internal/memlimit"
	"github.com/stampede/stampede/spill"
)

// A full run holds about footprintPerLine bytes per line and
// footprintPerByte per byte of text: fitted to nginx logs of 178-byte
// lines (5M to 56M of them, about 178 bytes of memory per line) and of
// 81-byte lines (3M, about 137), with a sixth to spare. Per line, since
// the events are; a fixed ratio to the bytes takes short lines for half
// what they need.
const (
	footprintPerLine = 120
	footprintPerByte = 0.5
)

// estimatedFootprint is the memory a run over inputs may need, from their
// sizes once decompressed; known is false when an input's size cannot be
// told beforehand (standard input, a FIFO), which then counts as 0.
func estimatedFootprint(inputs []string) (bytes int64, known bool) {
	files, err := stampede.ExpandInputs(inputs)
	if err != nil {
		// The run fails on the inputs before it needs any memory.
		return 0, true
	}
	known = true
	var total float64
	for _, f := range files {
		size, ok := ingest.SizeOf(f)
		known = known && ok
		total += float64(size.Lines)*footprintPerLine + float64(size.Bytes)*footprintPerByte
	}
	return int64(total), known
}

// availableMemory is the room the run has: the smallest of the machine's
// available memory, its cgroup's limit less usage, and GOMEMLIMIT.
func (l *limitFlags) availableMemory() (memlimit.Room, bool) {
	host := memlimit.Self()
	if l.host != nil {
		host = l.host()
	}
	return host.Available()
}

// defaultWorkingSet is the most a run without --max-memory holds in
// memory before its events go to a spill file, however much the machine
// has: a log of distinct task ids, or tens of GB of any log, would
// otherwise take gigabytes of a shared CI runner or laptop. Below it a run
// never touches the disk; above it the spill costs about a tenth more CPU.
// --max-memory sets another bound, larger or smaller.
const defaultWorkingSet = 1280 << 20

// autoSpill decides, without --max-memory, whether the run spills: at once
// when the inputs look larger than the smaller of half the room and
// defaultWorkingSet, in standby when an input's size cannot be known, else
// never. stop ends what it started.
func (l *limitFlags) autoSpill(inputs []string, stderr io.Writer) (stop func()) {
	room, ok := l.availableMemory()
	if !ok {
		room = memlimit.Room{Bytes: 2 * defaultWorkingSet}
	}
	footprint, known := estimatedFootprint(inputs)
	target, why := room.Bytes/2, fmt.Sprintf("half of the %s of memory available (%s)", formatBytes(room.Bytes), room.By)
	if target > defaultWorkingSet || !ok {
		target, why = defaultWorkingSet, fmt.Sprintf("%s, the most a run holds in memory unless --max-memory says otherwise", formatBytes(defaultWorkingSet))
	}
	switch {
	case footprint > target:
		fmt.Fprintf(stderr, "stampede: the inputs may need more than %s; spilling events to a file in %s to stay under %s (set --max-memory to choose)\n",
			why, spillDirName(l.spillDir), formatBytes(target))
		return l.spillOrNot(target, stderr)
	case !known:
		// Nothing tells how large the input will grow, so the spill
		// waits in standby and takes the first slice that would carry the
		// heap past half the target: what was read before moves there as
		// the events next double, the rest is left for that copy and the
		// analyses. A run that stays small never touches the disk and
		// says nothing.
		stop, err := spill.Start(spill.Options{Dir: l.spillDir, Budget: int64(float64(target) * spillShare), HeapAbove: target / 2,
			OnFirst: func(err error) {
				if err != nil {
					fmt.Fprintf(stderr, "stampede: reading an input of unknown size (standard input or a pipe), the heap passed %s; %v; reading in memory\n", formatBytes(target/2), err)
					return
				}
				fmt.Fprintf(stderr, "stampede: reading an input of unknown size (standard input or a pipe), the heap passed %s, half of %s; spilling events to a file in %s to stay under %s (set --max-memory to choose)\n",
					formatBytes(target/2), why, spillDirName(l.spillDir), formatBytes(target))
			}})
		if err != nil {
			fmt.Fprintf(stderr, "stampede: %v; reading in memory\n", err)
			return func() {}
		}
		return stop
	}
	return spill.KeepOffHeap()
}

// spillOrNot starts a spill that holds the resident set near target, or,
// where no spill file can be made, says so and lets the run go on in
// memory: without a budget the user asked for, a full run is still the
// better outcome.
func (l *limitFlags) spillOrNot(target int64, stderr io.Writer) (stop func()) {
	stop, err := spill.Start(spill.Options{Dir: l.spillDir, Budget: int64(float64(target) * spillShare)})
	if err != nil {
		fmt.Fprintf(stderr, "stampede: %v; reading in memory\n", err)
		return func() {}
	}
	return stop
}

// liveHeapOver reports whether the heap's live objects are over limit, and
// the heap it measured; ok is false where the runtime does not say. The
// heap's objects count garbage not yet collected, which rises and falls
// with the collector's timing: judged on them, a run whose live heap stayed
// near the budget passed in some runs and failed in others. A reading over
// the limit is therefore confirmed after a collection, and only the live
// heap it leaves stops the run.
func liveHeapOver(limit int64) (heap uint64, over, ok bool) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() bool {
		metrics.Read(sample)
		return sample[0].Value.Kind() == metrics.KindUint64
	}
	if !read() {
		return 0, false, false
	}
	if sample[0].Value.Uint64() <= uint64(limit) {
		return sample[0].Value.Uint64(), false, true
	}
	runtime.GC()
	if !read() {
		return 0, false, false
	}
	return sample[0].Value.Uint64(), sample[0].Value.Uint64() > uint64(limit), true
}

// What a run holds on the heap whatever it spills: the runtime and read
// buffers, and per input file its accounting (counts, skip samples,
// warnings, its row in the result), which holds strings and so cannot go
// to the spill file. Measured at about 1 KB a file on 25,000 and 100,000
// one-line logs (a live heap of 22 to 28 MB and 85 to 100 MB); half as
// much again to spare.
const (
	heapPerRun  = 4 << 20
	heapPerFile = 1536
)

// refuseBudget fails a --max-memory too small for the inputs' fixed heap,
// before any work: near that heap, whether the watchdog stopped a run
// depended on where the collector stood, and 25,000 files under one
// budget passed in some runs and failed in others. Under the estimate the
// run is refused every time; above it, the live heap stays under the
// budget.
func refuseBudget(limit int64, flag string, inputs []string) error {
	files, err := stampede.ExpandInputs(inputs)
	if err != nil {
		// Reading the inputs will say what is wrong with them.
		return nil
	}
	need := heapPerRun + int64(len(files))*heapPerFile
	if limit >= need {
		return nil
	}
	return fmt.Errorf("stopped before reading: %d input files keep about %s on the heap, over --max-memory %s: that part cannot spill; give at least %s, or read fewer files",
		len(files), formatBytes(need), flag, sizeFlag(need))
}

// sizeFlag writes n bytes as a --max-memory value, rounded up to a MiB.
func sizeFlag(n int64) string { return fmt.Sprintf("%dMiB", (n+1<<20-1)>>20) }
