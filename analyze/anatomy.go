package analyze

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/stampede/stampede/spill"
	"github.com/stampede/stampede/timeline"
)

// Wave anatomy: how each burst met the rate limit, and what it did to the
// interactive class sharing it. Everything here reads attempts on the wire;
// the log shows arrivals and verdicts, never the limiter's token count, so
// bucket times are the times at which the verdicts changed.

// impactMargin extends a wave's window past its last attempt to cover
// responses still in flight.
const impactMargin = 0.5

// recoveryWindow is the sliding window over which the interactive throttle
// rate is judged to have recovered, and recoveryTolerance how far above
// the pre-wave rate still counts as recovered.
const (
	recoveryWindow    = 10.0
	recoveryTolerance = 0.05
)

// waveSpan is one wave's attempts on the wire, Unix nanoseconds.
type waveSpan struct {
	first, last                 int64
	firstThrottle, lastThrottle int64 // 0 when none
	// okBefore counts the ok attempts before the first throttle (what the
	// limit held when the wave came), okWhile those from the first throttle
	// to the last (what it refilled while the wave kept it empty).
	okBefore, okWhile int
	pending           int // ok attempts since the last throttle so far
}

// waveSpans walks the batch attempts (all attempts when no class is
// known) of each wave's slot, from its start to the next wave's start, and
// ends the wave at the last attempt before a gap longer than maxGap, so
// stray background attempts later in the slot do not stretch it.
func waveSpans(j *joins, waves []Wave, maxGap, slack int64) []waveSpan {
	spans := make([]waveSpan, len(waves))
	if len(waves) == 0 {
		return spans
	}
	tl := j.tl
	batch := hasClass(j, timeline.ClassBatch)
	closed := make([]bool, len(waves))
	w := -1
	for _, i := range j.http {
		e := &tl.Events[i]
		if batch && e.Class != timeline.ClassBatch {
			continue
		}
		for w+1 < len(waves) && e.Start >= waves[w+1].Start.UnixNano()-slack {
			w++
		}
		if w < 0 || closed[w] {
			continue
		}
		s := &spans[w]
		if s.first != 0 && e.Start-s.last > maxGap {
			closed[w] = true
			continue
		}
		if s.first == 0 {
			s.first = e.Start
		}
		s.last = e.Start
		switch {
		case e.Outcome == timeline.OutcomeThrottled:
			if s.firstThrottle == 0 {
				s.firstThrottle = e.Start
			}
			s.lastThrottle = e.Start
			s.okWhile += s.pending
			s.pending = 0
		case e.Outcome == timeline.OutcomeOK && s.firstThrottle == 0:
			s.okBefore++
		case e.Outcome == timeline.OutcomeOK:
			s.pending++
		}
	}
	return spans
}

// afterThrottle finds, in j.http (in start order), what follows a wave's
// last throttle: the next ok attempt, and the last throttle before it. It
// searches the attempts in place: sorted copies of the ok and the
// throttled starts were 8 bytes an attempt, at the wave search's peak.
type afterThrottle struct {
	j *joins
	// from and ok remember the last search: j.http[from:ok] holds no ok
	// attempt, and j.http[ok] is one (or ok is len(j.http)). Waves come in
	// time order, so a search usually starts within the last one's
	// stretch, which is then not walked again.
	from, ok int
}

func newAfterThrottle(j *joins) *afterThrottle { return &afterThrottle{j: j, from: -1, ok: -1} }

func (a *afterThrottle) start(k int) int64 { return a.j.tl.Events[a.j.http[k]].Start }

// nextOK returns the start of the first ok attempt that starts after t;
// found is false when none does.
func (a *afterThrottle) nextOK(t int64) (at int64, found bool) {
	http, events := a.j.http, a.j.tl.Events
	p := sort.Search(len(http), func(k int) bool { return a.start(k) > t })
	if p < a.from || p > a.ok {
		q := p
		for q < len(http) && events[http[q]].Outcome != timeline.OutcomeOK {
			q++
		}
		a.from, a.ok = p, q
	}
	if a.ok == len(http) {
		return 0, false
	}
	return a.start(a.ok), true
}

// refusedFor is how long after from the limit went on refusing callers
// before it next admitted one at to: from to the last throttle before to,
// 0 when none came after from. Unlike to - from, it does not grow when
// callers were merely few.
func (a *afterThrottle) refusedFor(from, to int64) int64 {
	http, events := a.j.http, a.j.tl.Events
	k := sort.Search(len(http), func(k int) bool { return a.start(k) >= to })
	for k--; k >= 0; k-- {
		e := &events[http[k]]
		if e.Start <= from {
			return 0
		}
		if e.Outcome == timeline.OutcomeThrottled {
			return e.Start - from
		}
	}
	return 0
}

func hasClass(j *joins, c timeline.Class) bool {
	for _, i := range j.http {
		if j.tl.Events[i].Class == c {
			return true
		}
	}
	return false
}

// callsHaveClass is hasClass for the calls.
func callsHaveClass(j *joins, c timeline.Class) bool {
	for i := range j.calls {
		if j.calls[i].class == c {
			return true
		}
	}
	return false
}

// describeAnatomy fills the throttled shares, the bucket times, the
// interactive impact and the projection against the interactive rate.
func describeAnatomy(j *joins, w *Waves) {
	for i := range w.Waves {
		w.Waves[i].ThrottledShare = ratio(float64(w.Waves[i].Throttled), float64(w.Waves[i].Attempts))
	}
	if len(w.Waves) == 0 {
		return
	}
	// A wave's own retries follow within a fraction of the period; a
	// longer silence ends it. Attempts stamped to the second (while the
	// wave starts come from a finer log) can precede the start by up to a
	// second.
	maxGap, slack := int64(2e9), int64(0)
	if w.Periodic {
		maxGap = max(int64(1e9), int64(w.Period*1e9/4))
		slack = min(int64(w.Period*1e9/4), int64(1e9))
	}
	spans := waveSpans(j, w.Waves, maxGap, slack)
	// Each reads the attempts and the spans alone: one pass apiece, at
	// once.
	var wg sync.WaitGroup
	goOrNow(&wg, func() {
		w.BucketEmptyAfter, w.BucketEmptyFor, w.BucketRefill, w.BucketResolution = bucketTimes(j, spans)
	})
	w.Interactive = interactiveImpact(j, spans)
	wg.Wait()
	if w.Interactive != nil {
		projectBelowInteractive(w, w.Interactive.Rate)
	}
}

// bucketTimes returns the medians over waves of first attempt to first
// throttle (how fast the wave emptied the limit), of last throttle to the
// next ok attempt of any class (how long it stayed too empty for any
// request), and of the time the limit takes to refill what the wave found
// in it.
//
// The log shows no token counts, but a limit kept empty admits exactly
// what refills: the wave's ok attempts between its first and last throttle,
// per second, are the refill rate in the wave's own requests, and its ok
// attempts before the first throttle are what the limit held when the wave
// came plus what refilled until then. Held over rate is the refill time,
// in the same requests and from the same traffic as the emptying time
// beside it.
func bucketTimes(j *joins, spans []waveSpan) (emptyAfter, emptyFor, refill *float64, resolution float64) {
	tl := j.tl
	resolution = 1
	for _, i := range j.http {
		// A start derived as end minus duration is only as fine as the
		// end the log stamped.
		if e := &tl.Events[i]; cmp.Or(e.End, e.Start)%1e9 != 0 {
			resolution = 0
			break
		}
	}
	next := newAfterThrottle(j)
	var after, gap, back []float64
	for _, s := range spans {
		if s.firstThrottle == 0 {
			continue
		}
		after = append(after, seconds(s.firstThrottle-s.first))
		ok, found := next.nextOK(s.lastThrottle)
		if found {
			gap = append(gap, seconds(ok-s.lastThrottle))
		}
		// The refill rate needs successes over a throttled stretch longer
		// than the timestamps' resolution; before its first throttle the
		// wave took what the limit held and what refilled meanwhile, and an
		// estimate at or below zero says only that the two are not apart.
		//
		// A limit that refills under its rejected callers at one request
		// per interval admits a caller within an interval of the wave's
		// last throttle. One that goes on refusing callers for longer (a
		// limiter that charges rejections into a debt, or a window the wave
		// emptied) did not refill at that rate, so the wave gives no refill
		// time.
		if d := seconds(s.lastThrottle - s.firstThrottle); s.okWhile > 0 && s.okBefore > 0 && d > 2*resolution {
			interval := d / float64(s.okWhile)
			stalled := found && seconds(next.refusedFor(s.lastThrottle, ok)) > max(interval, 2*resolution)
			if v := float64(s.okBefore)*d/float64(s.okWhile) - seconds(s.firstThrottle-s.first); v > 0 && !stalled {
				back = append(back, v)
			}
		}
	}
	median := func(v []float64) *float64 {
		if len(v) == 0 {
			return nil
		}
		m := percentile(v, 0.5)
		return &m
	}
	return median(after), median(gap), median(back), resolution
}

// interactiveImpact splits interactive attempts by where they fell
// relative to the wave windows; nil without interactive attempts.
func interactiveImpact(j *joins, spans []waveSpan) *InteractiveImpact {
	tl := j.tl
	inter := spill.Make[int32](0, int(j.tally.byClass[timeline.ClassInteractive]))
	defer spill.Free(inter)
	var t0, t1 int64
	for k, i := range j.http {
		e := &tl.Events[i]
		if k == 0 || e.Start < t0 {
			t0 = e.Start
		}
		t1 = max(t1, e.Start)
		if e.Class == timeline.ClassInteractive {
			inter = append(inter, i)
		}
	}
	var windows [][2]int64
	for _, s := range spans {
		if s.first != 0 {
			windows = append(windows, [2]int64{s.first, s.last + int64(impactMargin*1e9)})
		}
	}
	if len(inter) == 0 || len(windows) == 0 {
		return nil
	}
	im := &InteractiveImpact{Margin: impactMargin}
	first, last := windows[0][0], windows[len(windows)-1][1]
	w := 0
	for _, i := range inter {
		e := &tl.Events[i]
		for w < len(windows) && e.Start >= windows[w][1] {
			w++
		}
		var span *ImpactSpan
		switch {
		case e.Start < first:
			span = &im.Before
		case e.Start >= last:
			span = &im.After
		case w < len(windows) && e.Start >= windows[w][0]:
			span = &im.InWaves
		default:
			span = &im.Between
		}
		span.Attempts++
		if e.Outcome == timeline.OutcomeThrottled {
			span.Throttled++
		}
	}
	for _, s := range []*ImpactSpan{&im.InWaves, &im.Between, &im.Before, &im.After} {
		s.ThrottleRate = ratio(float64(s.Throttled), float64(s.Attempts))
	}
	im.Rate = ratio(float64(len(inter)), seconds(t1-t0))

	// Per-second series from the first attempt of any class.
	span := uint64(t1-t0) / 1e9
	if span >= maxBins {
		// Attempts years apart (a timeline not read through Ingest, which
		// drops stray times): a series per second would not fit in memory.
		return im
	}
	n := int(span) + 1
	batch := make([]float64, n)
	throttles := make([]float64, n)
	attempts := make([]int, n)
	throttled := make([]int, n)
	batchOnly := hasClass(j, timeline.ClassBatch)
	for _, i := range j.http {
		e := &tl.Events[i]
		b := int((e.Start - t0) / 1e9)
		switch {
		case e.Class == timeline.ClassInteractive:
			attempts[b]++
			if e.Outcome == timeline.OutcomeThrottled {
				throttles[b]++
				throttled[b]++
			}
		case !batchOnly || e.Class == timeline.ClassBatch:
			batch[b]++
		}
	}
	w = 0
	for b := range attempts {
		if attempts[b] == 0 || throttled[b] != attempts[b] {
			continue
		}
		im.EmptySeconds++
		at := t0 + int64(b)*1e9
		for w < len(windows) && at >= windows[w][1] {
			w++
		}
		if at >= first && (w == len(windows) || at < windows[w][0]) {
			im.EmptyAfterLoad++
		}
	}
	for _, i := range inter {
		if e := &tl.Events[i]; e.Outcome == timeline.OutcomeThrottled && e.Start > first {
			im.ThrottledFor = max(im.ThrottledFor, seconds(e.Start-first))
		}
	}
	im.Correlation = pearson(batch, throttles)

	// A limiter that keeps a debt, or a window a wave emptied, starves
	// interactive requests after the wave's batch load has fallen back, so
	// the gaps between waves and the time after the last one count as much
	// as the waves themselves.
	limit := im.limit()
	im.Degraded = degradedSpan(im.InWaves, limit) || degradedSpan(im.Between, limit) || degradedSpan(im.After, limit)
	im.RecoveredAfter, im.Recovered = recovery(tl, inter, last, t1, limit)
	return im
}

// limit is the highest interactive throttle rate that still counts as
// undegraded: the rate before the first wave plus the tolerance, so that
// an endpoint that always throttled a little is not blamed on the waves.
func (im *InteractiveImpact) limit() float64 {
	if im.Before.Attempts == 0 {
		return recoveryTolerance
	}
	return im.Before.ThrottleRate + recoveryTolerance
}

// degradedSpan says whether a span's interactive throttle rate rose above
// limit; a span without interactive attempts shows nothing either way.
func degradedSpan(s ImpactSpan, limit float64) bool {
	return s.Attempts > 0 && s.ThrottleRate > limit
}

// recovery slides a recoveryWindow-second window forward one second at a
// time from end, the time the batch load fell back after the last wave, to
// the end of the log. The interactive class recovered at the first window
// holding interactive attempts throttled at no more than limit after the
// last window throttled above it: a clean window followed by more
// throttling is a lull, and calling it the recovery would cut the
// degradation short. Windows without interactive attempts show nothing,
// and no window starts later than one whose last second holds the log's
// last attempt: a window the log's end cuts short holds a handful of
// attempts, whose rate says nothing about whether the endpoint recovered.
func recovery(tl *timeline.Timeline, inter []int32, end, logEnd int64, limit float64) (float64, bool) {
	step, width := int64(1e9), int64(recoveryWindow*1e9)
	lastStart := max(end, logEnd-width+step)
	start := func(k int) int64 { return tl.Events[inter[k]].Start }
	throttled := func(k int) bool { return tl.Events[inter[k]].Outcome == timeline.OutcomeThrottled }
	// The window [t, t+width) holds inter[lo:hi], thr of them throttled;
	// both ends only move forward, so the scan is linear in the attempts
	// and the seconds.
	lo := sort.Search(len(inter), func(k int) bool { return start(k) >= end })
	hi, thr := lo, 0
	recoveredAt := int64(-1)
	for t := end; t <= lastStart; t += step {
		for ; hi < len(inter) && start(hi) < t+width; hi++ {
			if throttled(hi) {
				thr++
			}
		}
		for ; lo < hi && start(lo) < t; lo++ {
			if throttled(lo) {
				thr--
			}
		}
		n := hi - lo
		switch {
		case n == 0:
		case float64(thr)/float64(n) > limit:
			recoveredAt = -1
		case recoveredAt < 0:
			recoveredAt = t
		}
	}
	if recoveredAt < 0 {
		return seconds(max(0, logEnd-end)), false
	}
	return seconds(recoveredAt - end), true
}

// pearson is the correlation of x and y, 0 when either is constant (where
// the coefficient is undefined).
func pearson(x, y []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	r := stat.Correlation(x, y, nil)
	if math.IsNaN(r) {
		return 0
	}
	return r
}

// projectBelowInteractive finds the first wave whose arrival rate falls
// below the interactive rate: from then on the bursts no longer dominate
// the limit. With three waves or more the rates themselves are fitted (a
// Poisson fit of sizes with each wave's width as its exposure), since waves
// often narrow as they shrink and their rate then decays more slowly than
// their size; with fewer, the first wave's rate decays by DecayRatio. Only
// a periodic storm's waves are projected past the last one seen.
func projectBelowInteractive(w *Waves, interactiveRate float64) {
	if interactiveRate <= 0 || len(w.Waves) == 0 {
		return
	}
	floor := max(w.BinWidth, 1e-3)
	var rate0, ratio float64
	if len(w.Waves) >= 3 {
		sizes := make([]float64, len(w.Waves))
		widths := make([]float64, len(w.Waves))
		for i, wv := range w.Waves {
			sizes[i], widths[i] = float64(wv.Size), max(wv.Width, floor)
		}
		f := fitDecay(sizes, widths)
		if !f.ok {
			return
		}
		rate0, ratio = f.first, f.ratio
	} else {
		first := w.Waves[0]
		rate0, ratio = float64(first.Size)/max(first.Width, floor), w.DecayRatio
	}
	k := 0
	if rate0 >= interactiveRate {
		if ratio <= 0 || ratio >= 1 {
			return
		}
		// The first k with rate0·ratio^k < interactiveRate.
		k = int(math.Floor(math.Log(interactiveRate/rate0)/math.Log(ratio))) + 1
		if k >= 1000 {
			return
		}
	}
	// A wave the size fit puts below one call has no rate to compare.
	if w.ProjectedWaves > 0 {
		k = min(k, w.ProjectedWaves)
	}
	if (w.Ended || !w.Periodic) && k >= len(w.Waves) {
		// Every wave that came outran the interactive rate, and none
		// follows, or none is due: bursts without a period recur on no
		// schedule, so a later one is no more than the fit's invention.
		return
	}
	w.BelowInteractiveWave = k + 1
	if w.Periodic {
		at := w.Waves[0].Start.Add(time.Duration(float64(k) * w.Period * 1e9))
		w.BelowInteractiveAt = &at
	}
}

// attributeSDK names the synchronising client behind a suspect whose SDK
// retry delay honours retry-after exactly: the policy, not the code, sets
// the delay, so the client is where the knob is.
func attributeSDK(w *Waves, clients []Client) {
	var best *Client
	for i := range clients {
		c := &clients[i]
		if c.Synchronising && (best == nil || c.Throttled > best.Throttled) {
			best = c
		}
	}
	if best == nil {
		return
	}
	name := best.sdkName()
	// Only the SDK's name: its retry-after policy is the client finding's
	// and the Clients section's to state, and said here too it would read
	// "honoured exactly ... which honours retry-after exactly".
	repl := fmt.Sprintf("honoured exactly (SDK: %s)", name)
	for i := range w.Suspects {
		w.Suspects[i].Text = strings.ReplaceAll(w.Suspects[i].Text, "honoured exactly (SDK)", repl)
	}
}

// interactiveFinding is the headline sentence on interactive traffic.
func interactiveFinding(w *Waves) string {
	im := w.Interactive
	if im == nil {
		return ""
	}
	// The spans are the bursts the report lists; where they keep to no
	// period the report calls them bursts, and so does this.
	wave, waves := "wave", "waves"
	if !w.Periodic {
		wave, waves = "burst", "bursts"
	}
	s := fmt.Sprintf("Interactive requests were throttled %s of the time inside %s and %s between them",
		pct(im.InWaves.ThrottleRate), waves, pct(im.Between.ThrottleRate))
	var notes []string
	if im.Before.Attempts > 0 {
		notes = append(notes, pct(im.Before.ThrottleRate)+" before the first")
	}
	if w.BucketResolution >= 1 {
		// Stamps truncated to the second place an attempt anywhere in its
		// second: against waves a few seconds wide, that moves attempts
		// across a wave's edge (on real whole-second logs, 57% inside
		// waves where the endpoint's own log said 78%).
		notes = append(notes, fmt.Sprintf("inside and between told apart on timestamps to %s, so attempts within that of a %s's edge may be counted on the wrong side", secs(w.BucketResolution), wave))
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	s += fmt.Sprintf("; they found the bucket empty for %s %s", count(im.EmptySeconds), plural(im.EmptySeconds, "second", "seconds"))
	if im.EmptyAfterLoad > 0 {
		s += fmt.Sprintf(", %s of them after a %s's batch load had ended", count(im.EmptyAfterLoad), wave)
	}
	if im.Degraded && degradedSpan(im.Between, im.limit()) {
		// The between-waves span starts once a wave's last batch attempt
		// has been answered: throttling there outlasts the load.
		s += "; they stayed degraded between " + waves + ", after the batch load had fallen back"
		if im.ThrottledFor >= 60 {
			s += fmt.Sprintf(", and were refused for %s from the first %s", minutes(im.ThrottledFor), wave)
		}
	}
	switch {
	case !im.Degraded:
		s += "; the " + waves + " did not degrade them"
	case im.Recovered && im.RecoveredAfter == 0:
		s += "; no degradation remained after the last " + wave
	case im.Recovered:
		s += fmt.Sprintf("; they stayed degraded %s after the last %s", secs(im.RecoveredAfter), wave)
	case im.After.Attempts == 0:
		// "still degraded 0 s after the last wave" would claim a
		// measurement that no request was there to make.
		s += "; the log holds no interactive request after the last " + wave + " to tell whether they recovered"
	default:
		s += fmt.Sprintf("; they were still degraded %s after the last %s, when the log ends", secs(im.RecoveredAfter), wave)
	}
	if w.BucketEmptyAfter != nil && w.BucketEmptyFor != nil {
		s += fmt.Sprintf(". The limit ran out %s into each %s and stayed too empty for a request %s after its last throttle",
			secs(*w.BucketEmptyAfter), wave, secs(*w.BucketEmptyFor))
		if w.BucketRefill != nil {
			s += fmt.Sprintf("; refilling what a %s found in it took %s", wave, secs(*w.BucketRefill))
		}
		s += " (medians"
		if w.BucketResolution > 0 {
			s += fmt.Sprintf(", timestamps to %s", secs(w.BucketResolution))
		}
		s += ")"
	}
	return s + "."
}
