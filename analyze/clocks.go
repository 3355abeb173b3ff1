package analyze

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/stampede/stampede/timeline"
)

// Clock-offset estimation. The access log and the SDK log are written by
// different machines, so their clocks can disagree by seconds, which would
// misplace every call against its attempts. Both logs record the same bursts
// of work (a call starts a few milliseconds before its first attempt), so
// the lag that best lines up their series of starts is the offset between
// the clocks.

const (
	// clockBin is fine enough for ±0.2 s accuracy with millisecond logs.
	clockBin = 50 * time.Millisecond
	// maxClockOffset bounds the search; clocks further apart than this are
	// not a skew but a wrong file.
	maxClockOffset = 60 * time.Second
	// minClockEvents is the fewest starts on each side worth correlating.
	minClockEvents = 20
	// clockWarnOffset is where a skew starts to mislead the joins.
	clockWarnOffset = 0.5
)

// EstimateClocks returns, for every source other than the reference (the
// first source of HTTP attempts, else the first source), the offset of its
// clock from the reference's. It is a pure function of the timeline.
func EstimateClocks(tl *timeline.Timeline) []ClockOffset {
	if len(tl.Sources) < 2 {
		// One log has no other clock to compare with; collecting its
		// millions of start times would be for nothing.
		return []ClockOffset{}
	}
	starts, whole := sourceStarts(tl)
	ref := referenceSource(tl, starts)
	out := []ClockOffset{}
	if ref < 0 {
		return out
	}
	gaps := keyedGaps(tl, ref, whole)
	for s := range tl.Sources {
		if s == ref || len(starts[s]) == 0 {
			continue
		}
		c := ClockOffset{Source: tl.Sources[s].Path, Reference: tl.Sources[ref].Path,
			Events: int64(len(starts[s])), ReferenceEvents: int64(len(starts[ref]))}
		if len(starts[s]) < minClockEvents || len(starts[ref]) < minClockEvents {
			c.Note = fmt.Sprintf("too few events to compare clocks (need %d on each side)", minClockEvents)
			out = append(out, c)
			continue
		}
		c.Uncertainty = clockBin.Seconds()
		if whole[ref] || whole[s] {
			c.Uncertainty = 0.5
		}
		if shareTime(starts[ref], starts[s]) {
			// A log stamped to the whole second (nginx $time_local)
			// truncates each time by up to a second, so its starts read
			// up to 1 s early: spread each of its events over the second
			// it may have started in.
			offset, corr, margin := crossCorrelate(starts[ref], starts[s], whole[ref], whole[s])
			c.Offset, c.Correlation, c.Margin = offset, corr, margin
			c.Method = ClockByBursts
			c.Reliable = corr >= 0.2 && margin >= 0.05
			if !c.Reliable {
				c.Note = "no clear alignment: the two logs share too little structure"
			}
		} else {
			c.Note = fmt.Sprintf("the two logs share no time: no events of theirs lie within %s of each other, so their bursts cannot be lined up", secs(maxClockOffset.Seconds()))
		}
		if keyed, pairs, ok := keyedOffset(gaps[s]); ok {
			// Calls and attempts that carry one call id say directly how
			// far apart each call's start and its first attempt's are.
			// Aligning bursts instead reads the queueing of a burst's
			// sends (an SDK holding requests for a free connection) as a
			// skew: a storm's first wave of 300 calls sent over 3 s put
			// one at -1.5 s between logs written on one clock.
			c.Offset, c.Reliable, c.Method, c.Note = keyed, true, ClockByCallIDs, ""
			c.Events = int64(pairs)
		}
		c.Offset = math.Round(c.Offset*1000) / 1000
		out = append(out, c)
	}
	return out
}

// keyedQuantile picks, among each call's start less its first send's,
// the calls sent soonest: a send never precedes its call, and a storm's
// calls can wait seconds for a free connection, so the gaps' upper tail
// (the least waiting) is the clocks' own difference.
const keyedQuantile = 0.9

// How a clock offset was measured (ClockOffset.Method).
const (
	ClockByCallIDs = "call ids"
	ClockByBursts  = "bursts"
)

// keyedOffset is the keyedQuantile of one source's keyedGaps: its clock
// against the reference's, less the short delay of the calls sent
// soonest. ok is false with fewer than minClockEvents gaps. It sorts gaps.
func keyedOffset(gaps []float64) (offset float64, pairs int, ok bool) {
	if len(gaps) < minClockEvents {
		return 0, 0, false
	}
	slices.Sort(gaps)
	return percentileSorted(gaps, keyedQuantile), len(gaps), true
}

// keyedGaps collects, per source, over its calls whose call id also marks
// attempts in source ref, the call's start less its first attempt's
// (seconds), in one pass over the events for every source: a pass per
// source made the clock estimate quadratic in the number of logs. A
// whole-second log's starts read half a second early on average, which
// is added back.
func keyedGaps(tl *timeline.Timeline, ref int, whole []bool) [][]float64 {
	gaps := make([][]float64, len(tl.Sources))
	firstSend := firstSends(tl, ref)
	if len(firstSend) < minClockEvents {
		return gaps
	}
	half := func(whole bool) float64 {
		if whole {
			return 0.5
		}
		return 0
	}
	for i := range tl.Events {
		e := &tl.Events[i]
		s := int(e.Source)
		if s == ref || s >= len(gaps) || e.Layer != timeline.LayerCall || e.CallID == timeline.NoSym {
			continue
		}
		if t, found := firstSend[e.CallID]; found {
			gaps[s] = append(gaps[s], float64(e.Start-t)/1e9+half(whole[s])-half(whole[ref]))
		}
	}
	return gaps
}

// firstSends maps each call id of source ref's HTTP attempts to its first
// attempt's start.
func firstSends(tl *timeline.Timeline, ref int) map[timeline.Sym]int64 {
	firstSend := map[timeline.Sym]int64{}
	for i := range tl.Events {
		e := &tl.Events[i]
		if int(e.Source) != ref || e.Layer != timeline.LayerHTTP || e.CallID == timeline.NoSym {
			continue
		}
		if t, seen := firstSend[e.CallID]; !seen || e.Start < t {
			firstSend[e.CallID] = e.Start
		}
	}
	return firstSend
}

// sourceStarts collects each source's unit starts in nanoseconds: first
// attempts and calls, which both logs see once per call; other attempts
// only when a source carries no attempt numbers.
func sourceStarts(tl *timeline.Timeline) (starts [][]int64, wholeSeconds []bool) {
	starts = make([][]int64, len(tl.Sources))
	hasNumbers := make([]bool, len(tl.Sources))
	for i := range tl.Events {
		e := &tl.Events[i]
		if int(e.Source) < len(hasNumbers) && e.Layer == timeline.LayerHTTP && e.Attempt > 0 {
			hasNumbers[e.Source] = true
		}
	}
	// Each source's starts are sized by a counting pass, so that millions
	// of them are not copied by doubling.
	sizes := make([]int, len(tl.Sources))
	for i := range tl.Events {
		e := &tl.Events[i]
		if s := int(e.Source); s < len(sizes) && !(e.Layer == timeline.LayerHTTP && hasNumbers[s] && e.Attempt != 1) {
			sizes[s]++
		}
	}
	for s, n := range sizes {
		starts[s] = make([]int64, 0, n)
	}
	wholeSeconds = make([]bool, len(tl.Sources))
	subSecond := make([]bool, len(tl.Sources))
	for i := range tl.Events {
		e := &tl.Events[i]
		s := int(e.Source)
		if s >= len(starts) {
			continue
		}
		if e.Layer == timeline.LayerHTTP && hasNumbers[s] && e.Attempt != 1 {
			continue
		}
		starts[s] = append(starts[s], e.Start)
		// The logged instant is End when there is one (access logs) and Start
		// otherwise; its fraction says the resolution.
		logged := e.Start
		if e.End != 0 {
			logged = e.End
		}
		if logged%int64(time.Second) != 0 {
			subSecond[s] = true
		}
	}
	for s := range wholeSeconds {
		wholeSeconds[s] = len(starts[s]) > 0 && !subSecond[s]
	}
	return starts, wholeSeconds
}

// referenceSource is the first source holding HTTP attempts: the proxy's
// clock is the one the endpoint's throttling decisions are stamped with.
func referenceSource(tl *timeline.Timeline, starts [][]int64) int {
	first := -1
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer == timeline.LayerHTTP {
			if first < 0 || int(e.Source) < first {
				first = int(e.Source)
			}
		}
	}
	if first >= 0 {
		return first
	}
	for s := range starts {
		if len(starts[s]) > 0 {
			return s
		}
	}
	return -1
}

// shareTime reports whether two sorted series of starts come within
// maxClockOffset (and a second, for whole-second stamps) of each other,
// the furthest apart two starts can be and still pair at a lag the search
// looks at. Rotated files of one log do not: correlating each with the
// reference would transform their whole joint span for nothing, which on a
// day of hourly files is most of the run's time.
func shareTime(ref, other []int64) bool {
	gap := max(ref[0], other[0]) - min(ref[len(ref)-1], other[len(other)-1])
	return gap <= int64(maxClockOffset+time.Second)
}

// crossCorrelate finds the lag d (seconds) maximising the correlation of
// ref(t) with other(t+d): other's clock reads d ahead of ref's. corr is the
// Pearson correlation of the two binned series at that lag, margin how far it
// beats the best lag more than a second away.
func crossCorrelate(ref, other []int64, refWhole, otherWhole bool) (offset, corr, margin float64) {
	lo := min(ref[0], other[0]) - int64(maxClockOffset)
	hi := max(ref[len(ref)-1], other[len(other)-1]) + int64(maxClockOffset)
	bin := int64(clockBin)
	var a, b []float64
	if span := uint64(hi-lo) / uint64(bin); span < maxClockBins {
		n := int(span) + 1
		at := func(t int64) int64 { return (t - lo) / bin }
		a, b = binStarts(ref, at, n, refWhole), binStarts(other, at, n, otherWhole)
	} else if a, b = busyStarts(ref, other, refWhole, otherWhole); a == nil {
		return 0, 0, 0
	}
	n := len(a)

	m := fftSize(2 * n)
	fft := fourier.NewFFT(m)
	pa, pb := make([]float64, m), make([]float64, m)
	copy(pa, a)
	copy(pb, b)
	ca := fft.Coefficients(nil, pa)
	cb := fft.Coefficients(nil, pb)
	for i := range ca {
		ca[i] = complex(real(ca[i]), -imag(ca[i])) * cb[i]
	}
	xc := fft.Sequence(nil, ca)
	// gonum's inverse transform is unnormalised.
	for i := range xc {
		xc[i] /= float64(m)
	}
	// xc[k] = sum_i a[i] b[i+k], with negative lags wrapped to the end.
	maxLag := int(int64(maxClockOffset) / bin)
	at := func(k int) float64 {
		if k < 0 {
			return xc[m+k]
		}
		return xc[k]
	}
	best := 0
	for k := -maxLag; k <= maxLag; k++ {
		if at(k) > at(best) {
			best = k
		}
	}
	norm := math.Sqrt(sumSquares(a) * sumSquares(b))
	if norm == 0 {
		return 0, 0, 0
	}
	corr = at(best) / norm
	far := int(time.Second / clockBin)
	var runnerUp float64
	for k := -maxLag; k <= maxLag; k++ {
		if (k < best-far || k > best+far) && at(k) > runnerUp {
			runnerUp = at(k)
		}
	}
	margin = corr - runnerUp/norm
	// Parabolic refinement between bins.
	shift := 0.0
	if best > -maxLag && best < maxLag {
		y0, y1, y2 := at(best-1), at(best), at(best+1)
		if d := y0 - 2*y1 + y2; d < 0 {
			shift = 0.5 * (y0 - y2) / d
		}
	}
	offset = (float64(best) + shift) * clockBin.Seconds()
	return offset, corr, margin
}

// maxClockBins bounds the series crossCorrelate transforms: 2^20 bins of
// 50 ms are 14.5 hours, and about 70 MB for the transform.
const maxClockBins = 1 << 20

// busyStarts bins two logs whose span is too long for one series of
// clockBin: only times within maxClockOffset of the other log's can pair
// at a lag the search looks at, so it keeps the stretches where both logs
// have events, each with maxClockOffset of empty bins on either side, and
// lays them end to end. Two logs a month apart (or of incidents weeks
// apart) thus cost their busy minutes, not a bin per 50 ms of the month. A
// clock offset holds for the whole log, so stretches past maxClockBins are
// left out. It returns nil when the logs share no time at all.
func busyStarts(ref, other []int64, refWhole, otherWhole bool) (a, b []float64) {
	pad, bin := int64(maxClockOffset), int64(clockBin)
	from := max(ref[0], other[0]) - pad
	to := min(ref[len(ref)-1], other[len(other)-1]) + pad
	if from > to {
		return nil, nil
	}
	in := func(ts []int64) []int64 {
		i, _ := slices.BinarySearch(ts, from)
		j, _ := slices.BinarySearch(ts, to+1)
		return ts[i:j]
	}
	ref, other = in(ref), in(other)
	// Stretches of either log's events with no gap over 2·pad, from which
	// a bin of each is laid out: starts[k] is stretch k's first time
	// less pad, first[k] its first bin.
	var starts, first []int64
	n := int64(0)
	var end int64
	add := func(t int64) {
		if len(starts) > 0 && t-end <= 2*pad {
			end = t
			return
		}
		if len(starts) > 0 {
			n += (end+pad+int64(time.Second)-starts[len(starts)-1])/bin + 1
		}
		starts, first, end = append(starts, t-pad), append(first, n), t
	}
	for i, j := 0, 0; i < len(ref) || j < len(other); {
		if j == len(other) || i < len(ref) && ref[i] <= other[j] {
			add(ref[i])
			i++
		} else {
			add(other[j])
			j++
		}
	}
	if len(starts) == 0 {
		return nil, nil
	}
	// The last stretch's end; a second more, for the spread of a start
	// stamped to the whole second.
	n += (end+pad+int64(time.Second)-starts[len(starts)-1])/bin + 1
	n = min(n, maxClockBins)
	at := func(t int64) int64 {
		k, found := slices.BinarySearch(starts, t)
		if !found {
			k--
		}
		return first[k] + (t-starts[k])/bin
	}
	return binStarts(ref, at, int(n), refWhole), binStarts(other, at, int(n), otherWhole)
}

// binStarts counts starts per bin, at(t) being a start's bin, and centres
// the series. Bins past n are left out. With wholeSeconds, each start is
// spread evenly over the second that follows it, where its true time lies.
func binStarts(ts []int64, at func(int64) int64, n int, wholeSeconds bool) []float64 {
	out := make([]float64, n)
	spread := int64(1)
	if wholeSeconds {
		spread = int64(time.Second / clockBin)
	}
	w := 1 / float64(spread)
	counted := 0
	for _, t := range ts {
		first := at(t)
		if first >= int64(n) {
			continue
		}
		counted++
		for k := first; k < first+spread && k < int64(n); k++ {
			out[k] += w
		}
	}
	mean := float64(counted) / float64(n)
	for i := range out {
		out[i] -= mean
	}
	return out
}

func sumSquares(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}

// alignClocks returns a copy of tl with each reliable offset removed from
// its source's events, re-sorted; tl itself is not touched.
func alignClocks(tl *timeline.Timeline, clocks []ClockOffset) *timeline.Timeline {
	shift := make([]int64, len(tl.Sources))
	any := false
	for i := range clocks {
		c := &clocks[i]
		if !c.Reliable || math.Abs(c.Offset) <= c.Uncertainty {
			// An offset inside its own uncertainty is resolution, not skew.
			continue
		}
		for s := range tl.Sources {
			if tl.Sources[s].Path == c.Source {
				shift[s] = int64(c.Offset * 1e9)
				c.Applied = true
				any = true
			}
		}
	}
	if !any {
		return tl
	}
	out := &timeline.Timeline{Sources: tl.Sources, Events: make([]timeline.Event, len(tl.Events))}
	copy(out.Events, tl.Events)
	for i := range out.Events {
		e := &out.Events[i]
		if d := shift[e.Source]; d != 0 {
			e.Start -= d
			if e.End != 0 {
				e.End -= d
			}
		}
	}
	out.Sort()
	return out
}

// clockWarnings tell the user about a skew large enough to matter.
func clockWarnings(clocks []ClockOffset) []string {
	var out []string
	more := 0
	for _, c := range clocks {
		if !c.Reliable || math.Abs(c.Offset) < max(clockWarnOffset, c.Uncertainty*2) {
			continue
		}
		if len(out) >= maxClockRows-1 {
			more++
			continue
		}
		if c.Applied {
			out = append(out, fmt.Sprintf("the clock of %s reads %s against %s; its events were shifted by %s before analysis",
				c.Source, signedSecs(c.Offset), c.Reference, signedSecs(-c.Offset)))
		} else {
			out = append(out, fmt.Sprintf("the clock of %s reads %s against %s: joins and delays across the two logs are off by that much; rerun with --align to correct it",
				c.Source, signedSecs(c.Offset), c.Reference))
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("the clocks of %s more logs read skewed as well; analyse them apart to see each", count(int64(more))))
	}
	return out
}

// maxClockRows bounds the clocks table; otherLogs names its last row.
const (
	maxClockRows = 20
	otherLogs    = "other logs"
)

// foldClocks keeps the first maxClockRows-1 clocks and stands for the rest
// with one row: their events, and in its note how many read a reliable
// offset and the largest.
func foldClocks(clocks []ClockOffset) ([]ClockOffset, TableBound) {
	bound := TableBound{Rows: maxClockRows}
	if len(clocks) <= maxClockRows {
		return clocks, bound
	}
	rest := clocks[maxClockRows-1:]
	other := ClockOffset{Source: otherLogs, Reference: rest[0].Reference}
	reliable, largest := 0, 0.0
	for _, c := range rest {
		other.Events += c.Events
		other.ReferenceEvents = c.ReferenceEvents
		if c.Reliable {
			reliable++
			largest = max(largest, math.Abs(c.Offset))
		}
	}
	bound.Folded = int64(len(rest))
	other.Note = fmt.Sprintf("%s more logs, %d with a reliable offset", count(bound.Folded), reliable)
	if reliable > 0 {
		other.Note += ", at most " + secs(largest) + " either way"
	}
	return append(clocks[:maxClockRows-1:maxClockRows-1], other), bound
}

func signedSecs(v float64) string {
	if v >= 0 {
		return "+" + secs(v)
	}
	return "-" + secs(-v)
}
