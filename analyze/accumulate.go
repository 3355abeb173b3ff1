package analyze

import (
	"runtime"
	"sync"

	"github.com/stampede/stampede/spill"
	"github.com/stampede/stampede/timeline"
)

// An accumulator is one analysis's share of the incident summary. It is
// fed the events of one stretch of the timeline at a time (add), and the
// states of two stretches combine, the earlier taking in the later
// (merge), so that one code path serves one core, every core, and states
// computed apart; the analysis then finalises its part of the Result from
// the merged state.
type accumulator[S any] interface {
	// add takes in tl.Events[lo:hi].
	add(tl *timeline.Timeline, lo, hi int)
	// merge takes in the state of the stretch that follows this one's.
	merge(later S)
}

// minStretch is the fewest events a stretch is given: below it, starting
// a goroutine and merging its state cost more than the events.
const minStretch = 1 << 16

// accumulate feeds tl's events to fresh states, a stretch of them per
// core, and merges the states in time order.
func accumulate[S accumulator[S]](tl *timeline.Timeline, fresh func() S) S {
	return accumulateIn(tl, fresh, max(1, min(cores(), len(tl.Events)/minStretch)))
}

// cores is how many of the analyses' goroutines run at once: every core,
// or one while the events are in the spill. There the resident set is
// held by a watchdog that needs a free core to look, and several passes
// over spilled events at once fault them back in faster than it drops
// them: a 10M-line run under --max-memory 1GiB peaked at 1.7 GB that way,
// against 0.9 GB one pass at a time.
func cores() int {
	if _, spilling := spill.Current(); spilling {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// goOrNow runs f on a goroutine of wg, or now when cores() is 1.
func goOrNow(wg *sync.WaitGroup, f func()) {
	if cores() == 1 {
		f()
		return
	}
	wg.Go(f)
}

// accumulateIn is accumulate over the given number of stretches, as
// equal as the events allow.
func accumulateIn[S accumulator[S]](tl *timeline.Timeline, fresh func() S, stretches int) S {
	return mergeStretches(len(tl.Events), stretches, func(lo, hi int) S {
		s := fresh()
		s.add(tl, lo, hi)
		return s
	})
}

// mergeStretches cuts [0, n) into the given number of stretches, as equal
// as n allows, builds each one's state at once, the last on this
// goroutine, and merges the states in order.
func mergeStretches[S interface{ merge(S) }](n, stretches int, build func(lo, hi int) S) S {
	stretches = max(1, min(stretches, n))
	states := make([]S, stretches)
	var wg sync.WaitGroup
	for k := range stretches {
		lo, hi := k*n/stretches, (k+1)*n/stretches
		run := func() { states[k] = build(lo, hi) }
		if k == stretches-1 {
			run()
			continue
		}
		wg.Go(run)
	}
	wg.Wait()
	for _, s := range states[1:] {
		states[0].merge(s)
	}
	return states[0]
}
