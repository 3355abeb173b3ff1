package analyze

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/stampede/stampede/spill"
	"github.com/stampede/stampede/timeline"
)

// Amplify measures how many attempts the retry layers multiplied out of each
// task. Its caveats are in Run's Warnings.
func Amplify(tl *timeline.Timeline) Amplification {
	return amplify(buildJoins(tl))
}

// tryCount is one unit of a layer (a call, a queue attempt, a task): how many
// tries it made and whether its last try failed. 8 bytes, as there are
// as many as calls.
type tryCount struct {
	n      int32
	failed bool
}

// histogramPercentile is percentileSorted of the n values that hist,
// ascending, counts.
func histogramPercentile(hist []Bucket, n int, p float64) float64 {
	// at is the value of rank r among the values sorted.
	at := func(r int) float64 {
		for _, b := range hist {
			if r < int(b.Units) {
				return float64(b.Value)
			}
			r -= int(b.Units)
		}
		return float64(hist[len(hist)-1].Value)
	}
	if p <= 0 {
		return at(0)
	}
	if p >= 1 {
		return at(n - 1)
	}
	pos := p * float64(n-1)
	lo := int(pos)
	frac := pos - float64(lo)
	if lo+1 >= n {
		return at(n - 1)
	}
	return at(lo) + frac*(at(lo+1)-at(lo))
}

// methodNoCalls marks an attempts-per-call layer that had nothing to count
// calls by.
const methodNoCalls = "no call boundaries: each attempt counted as one call"

const (
	layerAttempts      = "attempts per call"
	layerCalls         = "calls per queue attempt"
	layerQueueAttempts = "queue attempts per task"
)

func amplify(j *joins) Amplification {
	a := Amplification{Layers: []LayerStats{}}
	a.Tasks = int64(len(j.tasks))
	taskTraffic := a.Tasks > 0
	inScope := func(c *callUnit) bool { return !taskTraffic || c.task != timeline.NoSym }

	// Requests and Billed: the attempts sent for tasks. Without an access
	// log, the SDK's own attempt counts stand in, one billed attempt per
	// successful call.
	if len(j.http) == 0 {
		for i := range j.calls {
			if c := &j.calls[i]; inScope(c) {
				a.Requests += int64(c.attempts)
				if c.outcome == timeline.OutcomeOK {
					a.Billed++
				}
			}
		}
	}
	if taskTraffic {
		a.Requests += j.tally.taskAttempts
		a.Billed += j.tally.taskOK
	} else {
		a.Requests += j.tally.attempts
		a.Billed += j.tally.ok
	}

	// Layer 1: attempts per call. The queue layers reuse the slice, and
	// have no more units than there are calls.
	units := spill.Make[tryCount](0, len(j.calls))
	defer spill.Free(units)
	for i := range j.calls {
		c := &j.calls[i]
		if inScope(c) && c.attempts > 0 {
			units = append(units, tryCount{c.attempts, c.failed()})
		}
	}
	wireMax := mostCommonMaxAttempts(j, taskTraffic)
	switch {
	case len(units) > 0:
		method := "HTTP attempts joined into calls (" + j.attemptMethod + ")"
		if m, ok := strings.CutPrefix(j.attemptMethod, "exact: "); ok {
			method = "exact: HTTP attempts joined by " + m
		}
		if j.callsFromLog && j.sdkAttempts {
			method = "exact: attempts reported by the SDK per call"
		}
		a.Layers = append(a.Layers, layerStats(layerAttempts, units, true, method, wireMax))
	default:
		calls := int64(0)
		for i := range j.calls {
			if inScope(&j.calls[i]) {
				calls++
			}
		}
		if calls == 0 {
			calls = countFirstAttempts(j, taskTraffic)
		}
		ls := LayerStats{Name: layerAttempts, Method: "estimated from counts: HTTP attempts / calls", Histogram: []Bucket{}}
		if calls > 0 {
			ls.Units = calls
			ls.Mean = float64(a.Requests) / float64(calls)
			ls.CapEvidence = "no per-call attempt counts: cap cannot be judged"
		} else {
			ls.Units = a.Requests
			ls.Mean = 1
			ls.Method = methodNoCalls
			ls.CapEvidence = "no per-call attempt counts: cap cannot be judged"
			// A task id alone does not say which of a task's attempts
			// are one call's retries and which a new queue attempt.
			a.UnsplitTaskAttempts = j.tally.taskAttempts
		}
		if wireMax > 0 {
			ls.Capped, ls.Cap = true, int64(wireMax)
			ls.CapEvidence = fmt.Sprintf("the SDK announced max=%d on the wire (amz-sdk-request)", wireMax)
		}
		a.Layers = append(a.Layers, ls)
	}

	if taskTraffic {
		// Layer 2: calls per queue attempt.
		units = units[:0]
		for qi := range j.queueAttemptCount() {
			qa := j.queueAttempt(int32(qi))
			units = append(units, tryCount{qa.calls, qa.failed})
		}
		ls := layerStats(layerCalls, units, j.queueExact, j.queueMethod, 0)
		if !j.queueExact {
			ls.CapEvidence = "assumed 1 call per queue attempt: the logs carry no queue attempt numbers"
		}
		a.Layers = append(a.Layers, ls)
		// Layer 3: queue attempts per task.
		units = units[:0]
		for ti := range j.tasks {
			qas := j.queueAttemptsOf(&j.tasks[ti])
			last := j.queueAttempt(qas[len(qas)-1])
			units = append(units, tryCount{int32(len(qas)), last.failed})
		}
		a.Layers = append(a.Layers, layerStats(layerQueueAttempts, units, true, "exact: calls grouped by task id", 0))
	}

	a.Product = 1
	a.Exact = true
	for _, l := range a.Layers {
		a.Product *= l.Mean
		a.Exact = a.Exact && l.Exact
	}
	if len(a.Layers) == 0 {
		a.Product = 0
	}
	return a
}

// countFirstAttempts counts attempts numbered 1 when nothing else marks calls.
func countFirstAttempts(j *joins, taskOnly bool) int64 {
	if taskOnly {
		return j.tally.taskFirstAttempts
	}
	return j.tally.firstAttempts
}

// mostCommonMaxAttempts is the attempt limit the SDK announced on the wire
// (amz-sdk-request max=M) most often, or 0.
func mostCommonMaxAttempts(j *joins, taskOnly bool) int {
	seen := map[int32]int64{}
	if taskOnly {
		addCounts(seen, j.callMaxAttempts.task)
		addCounts(seen, j.tally.taskMaxAttempts)
	} else {
		addCounts(seen, j.callMaxAttempts.all)
		addCounts(seen, j.tally.maxAttempts)
	}
	best, bestN := int32(0), int64(0)
	for m, n := range seen {
		if n > bestN || (n == bestN && m > best) {
			best, bestN = m, n
		}
	}
	return int(best)
}

// layerStats summarises one layer's tries per unit and judges whether a
// configured cap stopped it.
func layerStats(name string, units []tryCount, exact bool, method string, wireMax int) LayerStats {
	ls := LayerStats{Name: name, Units: int64(len(units)), Exact: exact, Method: method, Histogram: []Bucket{}}
	if len(units) == 0 {
		ls.CapEvidence = "no units observed"
		return ls
	}
	hist := map[int]int64{}
	var sum float64
	for _, u := range units {
		sum += float64(u.n)
		hist[int(u.n)]++
	}
	ls.Mean = sum / float64(len(units))
	for v, n := range hist {
		ls.Histogram = append(ls.Histogram, Bucket{Value: int64(v), Units: n})
	}
	sort.Slice(ls.Histogram, func(a, b int) bool { return ls.Histogram[a].Value < ls.Histogram[b].Value })
	// The quantiles read the histogram: tries are few distinct small
	// numbers, and the units sorted would be 8 bytes apiece.
	ls.P50 = histogramPercentile(ls.Histogram, len(units), 0.5)
	ls.P99 = histogramPercentile(ls.Histogram, len(units), 0.99)
	ls.Max = float64(ls.Histogram[len(ls.Histogram)-1].Value)
	ls.Capped, ls.Cap, ls.CapEvidence = capVerdict(units, wireMax)
	g := giveUpRates(units)
	ls.GiveUpRate = g.before()
	if len(g.failedKth) <= 2 {
		// No unit made a second try: there is no try before the largest
		// to pool, and the rate is g1, every failed try the last. Left at
		// 0 it would read "never gave up" beside evidence of g1 = 1.00.
		ls.GiveUpRate = g.rate(1)
	}
	return ls
}

// giveUp holds, for each try number k, how many units' k-th try failed and
// how many of those stopped there.
type giveUp struct {
	failedKth []int64 // units whose k-th try failed
	stoppedAt []int64 // units whose final try was the k-th and failed
	atK       []int64 // units that made exactly k tries
}

func giveUpRates(units []tryCount) giveUp {
	maxK := 0
	for _, u := range units {
		maxK = max(maxK, int(u.n))
	}
	g := giveUp{make([]int64, maxK+1), make([]int64, maxK+1), make([]int64, maxK+1)}
	for _, u := range units {
		g.atK[u.n]++
		// Every try before the last failed, else there would be no next try.
		for k := 1; k < int(u.n); k++ {
			g.failedKth[k]++
		}
		if u.failed {
			g.failedKth[u.n]++
			g.stoppedAt[u.n]++
		}
	}
	return g
}

func (g giveUp) rate(k int) float64 {
	return ratio(float64(g.stoppedAt[k]), float64(g.failedKth[k]))
}

// capVerdict reads a layer's give-up rates g_k. A cap M shows as g_M ~ 1 with
// many units stopped at M while g_k for k < M is well below 1; an uncapped
// layer gives up at a roughly constant rate and few units reach its maximum.
func capVerdict(units []tryCount, wireMax int) (bool, int64, string) {
	g := giveUpRates(units)
	m := len(g.atK) - 1
	rates := g.describe(8)
	gBefore := g.before()
	if wireMax > 0 {
		ev := fmt.Sprintf("the SDK announced max=%d on the wire (amz-sdk-request); %s of %s units made %d tries; give-up rate after a failed try: %s",
			wireMax, count(atOrAbove(g, wireMax)), count(int64(len(units))), wireMax, rates)
		if early := earlyStops(g, wireMax); early > 0.5 {
			ev += fmt.Sprintf("; %s of the units that stopped on a failure stopped before the cap (a retry quota or errors it does not retry)", pct(early))
		}
		return true, int64(wireMax), ev
	}
	if m < 2 {
		return false, 0, fmt.Sprintf("every unit made at most 1 try; give-up rate after a failed try: %s", rates)
	}
	pile := g.stoppedAt[m]
	gm := g.rate(m)
	// If the layer gave up at the constant rate gBefore, all of the units
	// that failed try m stopping there has probability gBefore^failed.
	chance := math.Pow(gBefore, float64(g.failedKth[m]))
	if pile >= 3 && gm >= 0.95 && chance < 0.001 {
		return true, int64(m), fmt.Sprintf("%s of %s units failed at try %d and none went further (g%d = %s) while only %s of failed earlier tries were the last (%s): a configured cap of %d",
			count(pile), count(int64(len(units))), m, m, num(gm), pct(gBefore), rates, m)
	}
	if gBefore >= 0.5 {
		return false, 0, fmt.Sprintf("most units gave up after a failed try well before the maximum of %d (%s; %s of %s units reached it): no count limit is visible, something else stops the tries (a retry quota, a deadline or errors that are not retried)",
			m, rates, count(g.atK[m]), count(int64(len(units))))
	}
	return false, 0, fmt.Sprintf("give-up rate after a failed try stays near %s (%s) and only %s of %s units reached the maximum of %d: no cap was reached, tries grew until the work or the trace ran out",
		num(gBefore), rates, count(g.atK[m]), count(int64(len(units))), m)
}

// before is the pooled give-up rate over the tries before the largest count.
func (g giveUp) before() float64 {
	var stopped, failed int64
	for k := 1; k < len(g.failedKth)-1; k++ {
		stopped += g.stoppedAt[k]
		failed += g.failedKth[k]
	}
	return ratio(float64(stopped), float64(failed))
}

// earlyStops is the share of units that stopped on a failure before try k.
func earlyStops(g giveUp, k int) float64 {
	var early, all int64
	for i := 1; i < len(g.stoppedAt); i++ {
		all += g.stoppedAt[i]
		if i < k {
			early += g.stoppedAt[i]
		}
	}
	return ratio(float64(early), float64(all))
}

func atOrAbove(g giveUp, k int) int64 {
	var n int64
	for i := k; i < len(g.atK); i++ {
		n += g.atK[i]
	}
	return n
}

// describe lists g_k for the first limit try numbers, e.g.
// "g1=0.30 (91/300), g2=0.31 (...)".
func (g giveUp) describe(limit int) string {
	var parts []string
	for k := 1; k < len(g.failedKth) && k <= limit; k++ {
		if g.failedKth[k] == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("g%d=%s (%d/%d)", k, num(g.rate(k)), g.stoppedAt[k], g.failedKth[k]))
	}
	if len(g.failedKth)-1 > limit {
		parts = append(parts, "...")
	}
	if len(parts) == 0 {
		return "no failed tries"
	}
	return strings.Join(parts, ", ")
}
