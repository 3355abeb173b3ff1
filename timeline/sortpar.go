package timeline

import (
	"runtime"
	"slices"
	"sync"

	"github.com/stampede/stampede/spill"
)

// minParallelSort is the fewest keys worth splitting between cores.
const minParallelSort = 1 << 16

// sortParallel sorts keys, whose order cmp makes total (no two keys
// equal), on every core and in place: a partition around a sampled median
// splits the keys, and each side is sorted on a core of its own. With a
// total order the result is the one slices.SortFunc gives. Keys in the
// spill are sorted on one core: the watchdog that holds the resident set
// needs a free one to look.
func sortParallel[K any](keys []K, cmp func(a, b K) int) {
	workers := runtime.GOMAXPROCS(0)
	if _, spilling := spill.Current(); spilling {
		workers = 1
	}
	sortOn(keys, cmp, workers)
}

func sortOn[K any](keys []K, cmp func(a, b K) int, workers int) {
	if workers < 2 || len(keys) < minParallelSort {
		slices.SortFunc(keys, cmp)
		return
	}
	p := partitionAtMedian(keys, cmp)
	var wg sync.WaitGroup
	wg.Go(func() { sortOn(keys[:p], cmp, workers/2) })
	sortOn(keys[p:], cmp, workers-workers/2)
	wg.Wait()
}

// partitionAtMedian moves the keys below the median of an even sample of
// them to the front and returns how many there are. Logs are nearly in
// time order, so the scans swap few keys.
func partitionAtMedian[K any](keys []K, cmp func(a, b K) int) int {
	const samples = 255
	sample := make([]K, 0, samples)
	for k := range samples {
		sample = append(sample, keys[k*(len(keys)-1)/(samples-1)])
	}
	slices.SortFunc(sample, cmp)
	pivot := sample[samples/2]
	i, j := 0, len(keys)-1
	for {
		for i <= j && cmp(keys[i], pivot) < 0 {
			i++
		}
		for i <= j && cmp(keys[j], pivot) >= 0 {
			j--
		}
		if i >= j {
			return i
		}
		keys[i], keys[j] = keys[j], keys[i]
	}
}
