package main

import (
	"fmt"
	"io"

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

// autoSpill decides, without --max-memory, whether the run spills: at once
// when the inputs look larger than half the room, in standby when an
// input's size cannot be known, else never. stop ends what it started.
func (l *limitFlags) autoSpill(inputs []string, stderr io.Writer) (stop func()) {
	room, ok := l.availableMemory()
	if !ok {
		return func() {}
	}
	footprint, known := estimatedFootprint(inputs)
	half := room.Bytes / 2
	switch {
	case footprint > half:
		fmt.Fprintf(stderr, "stampede: the inputs may need more than half of the %s of memory available (%s); spilling events to a file in %s to stay under %s (set --max-memory to choose)\n",
			formatBytes(room.Bytes), room.By, spillDirName(l.spillDir), formatBytes(half))
		return l.spillOrNot(half, stderr)
	case !known:
		// Nothing tells how large the input will grow, so the spill
		// waits in standby and takes the first slice that would carry the
		// heap past a quarter of the room: what was read before moves
		// there as the events next double, the rest is left for that copy
		// and the analyses. A run that stays small never touches the disk
		// and says nothing.
		stop, err := spill.Start(spill.Options{Dir: l.spillDir, Budget: int64(float64(half) * spillShare), HeapAbove: room.Bytes / 4,
			OnFirst: func(err error) {
				if err != nil {
					fmt.Fprintf(stderr, "stampede: reading an input of unknown size (standard input or a pipe), the heap passed %s; %v; reading in memory\n", formatBytes(room.Bytes/4), err)
					return
				}
				fmt.Fprintf(stderr, "stampede: reading an input of unknown size (standard input or a pipe), the heap passed %s, a quarter of the %s of memory available (%s); spilling events to a file in %s to stay under %s (set --max-memory to choose)\n",
					formatBytes(room.Bytes/4), formatBytes(room.Bytes), room.By, spillDirName(l.spillDir), formatBytes(half))
			}})
		if err != nil {
			fmt.Fprintf(stderr, "stampede: %v; reading in memory\n", err)
			return func() {}
		}
		return stop
	}
	return func() {}
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
