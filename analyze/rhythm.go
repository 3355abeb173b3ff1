package analyze

import (
	"math"
	"sort"
	"time"

	"github.com/stampede/stampede/timeline"
)

// taskRhythm is how far apart a task's queue attempts began, measured from
// each failed queue attempt's start to the start of the task's next one.
// A job runner's fixed requeue delay after SDK calls that fail the same
// way every time (the same retries, each after the same retry-after) makes
// that one spacing for every task, and tasks that failed together come
// back together at it: the period a storm's waves keep, measured on the
// tasks themselves instead of on the bursts.
type taskRhythm struct {
	// spacing is the mean of the gaps between the 10th and 90th
	// percentiles, low and high those percentiles, in seconds.
	spacing, low, high float64
	n                  int
}

// minRhythmGaps is the fewest gaps a rhythm is read from: ten puts a gap
// on either side of the central 80%.
const minRhythmGaps = 10

// measureTaskRhythm measures the tasks' rhythm, and says whether it is one
// spacing: its central 80% within periodTolerance of it of each other,
// plus the resolution the starts are known to (a second where they come
// from whole-second stamps). Jitter in the requeue delay, or in the SDK's
// backoff, spreads the gaps wider.
func measureTaskRhythm(j *joins, resolution float64) (taskRhythm, bool) {
	var gaps []float64
	for ti := range j.tasks {
		qas := j.queueAttemptsOf(&j.tasks[ti])
		for k := 1; k < len(qas); k++ {
			prev, next := j.queueAttempt(qas[k-1]), j.queueAttempt(qas[k])
			if prev.failed {
				gaps = append(gaps, seconds(next.start-prev.start))
			}
		}
	}
	if len(gaps) < minRhythmGaps {
		return taskRhythm{}, false
	}
	sort.Float64s(gaps)
	r := taskRhythm{low: percentileSorted(gaps, 0.1), high: percentileSorted(gaps, 0.9), n: len(gaps)}
	var sum float64
	var in int
	for _, g := range gaps {
		if g >= r.low && g <= r.high {
			sum += g
			in++
		}
	}
	r.spacing = sum / float64(in)
	return r, r.spacing > 0 && r.high-r.low <= periodTolerance*r.spacing+resolution
}

// rhythmChance is how often bursts at random times would space three of
// them (the outer two twice the spacing apart) within tol of a spacing
// named before they were looked at: the share of spacings from minLag to
// half the series that tol either side of it covers.
func rhythmChance(tol, minLag, span float64) float64 {
	room := span/2 - minLag
	if room <= 0 {
		return 1
	}
	return math.Min(1, 2*tol/room)
}

// rhythmResolution is how finely the queue attempts' starts are known: to
// the second where they come from whole-second stamps, as they are or less
// a logged request time.
func rhythmResolution(j *joins) float64 {
	if !j.callsFromLog && wholeSecondAttempts(j) {
		return 1
	}
	for q := range j.queueAttemptCount() {
		if j.queueAttempt(int32(q)).start%int64(time.Second) != 0 {
			return 0
		}
	}
	return 1
}

// firstWaveCallsDiffer reports whether the first burst, off the grid, is
// the storm's first wave, whose failed calls took longer or shorter than
// the later waves' did. The next wave follows each by the requeue delay
// after its failed calls end, so the first gap differs from the period by
// as much as the first wave's calls differ from the later waves'. Longer:
// a client-wide retry quota (botocore's and the AWS SDK v3's standard
// mode) runs out during the first wave and the later waves' calls fail at
// their first attempt (boto-standard-fixed9-short), or the endpoint
// answers the whole herd more slowly (the openai-node re-runs under
// testdata/recorded/whatif, 0.6 to 1.3 s late). Shorter: calls that wait
// for a clock time (a retry-after sent as an HTTP date) end on a whole
// second, and the first wave's began further into one than the later
// waves', which begin on whole seconds themselves
// (anthropic-radate2-fixed8-short, 0.73 s early). The first wave is then
// the largest, off the grid by more than its tolerance and less than a
// period short of two, and its calls' difference matches the gap's. Only
// failed calls of tasks are weighed: they are what the job runner sends
// again. diff is positive where the first wave's calls took longer.
func firstWaveCallsDiffer(j *joins, centresNs []float64, waves []Wave, onGrid []bool, period, binWidth float64) (gap, diff float64, ok bool) {
	if len(waves) == 0 || onGrid[0] || period <= 0 {
		return 0, 0, false
	}
	first := -1
	for g, on := range onGrid {
		if !on {
			continue
		}
		if first < 0 {
			first = g
		}
		if waves[g].Size > waves[0].Size {
			return 0, 0, false
		}
	}
	tol := max(gridTolerance*period, 1.5*binWidth)
	if first < 0 {
		return 0, 0, false
	}
	gap = (centresNs[first] - centresNs[0]) / 1e9
	excess := gap - period
	if math.Abs(excess) <= tol || math.Abs(excess) >= period-tol {
		return 0, 0, false
	}
	herd, ok := failedCallLength(j, waves[0])
	if !ok {
		return 0, 0, false
	}
	var later []float64
	for g, on := range onGrid {
		if on {
			if d, ok := failedCallLength(j, waves[g]); ok {
				later = append(later, d)
			}
		}
	}
	if len(later) < minRepeats-1 {
		return 0, 0, false
	}
	diff = herd - percentile(later, 0.5)
	if math.Abs(diff) <= tol || math.Abs(diff-excess) > tol {
		return 0, 0, false
	}
	return gap, diff, true
}

// failedCallLength is the mean length, in seconds, of the failed calls of
// tasks that began in the wave's arrival window. The calls are in order of
// their start (buildCalls).
func failedCallLength(j *joins, w Wave) (float64, bool) {
	from := w.Start.UnixNano()
	to := from + int64(w.Width*1e9)
	var sum float64
	n := 0
	for i := sort.Search(len(j.calls), func(i int) bool { return j.calls[i].start >= from }); i < len(j.calls) && j.calls[i].start <= to; i++ {
		if c := &j.calls[i]; c.failed() && c.task != timeline.NoSym {
			sum += seconds(c.end - c.start)
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}
