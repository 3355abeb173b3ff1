package stampede

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/stampede/stampede/spill"
	"github.com/stampede/stampede/timeline"
)

// maxDistanceFromMedian is how far an event may lie from the median time
// of all events before it is called out: a log of several months, or
// fixtures of several years put together, is still read whole, with a
// warning that the analyses span that long.
const maxDistanceFromMedian = 30 * 24 * time.Hour

// Events far from the median and outside these years are dropped: a
// damaged or hostile line stamped in the year 2200 (or at the epoch) would
// otherwise stretch the incident over centuries, and every analysis that
// bins time would bin all of them.
var (
	plausibleFrom  = time.Date(1995, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	plausibleUntil = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
)

// dropFarEvents settles events whose start lies more than
// maxDistanceFromMedian from the median start: kept, and counted in a
// warning of their Source, when their time is plausible for a log;
// removed otherwise, a line all of whose events go being counted as
// skipped instead of parsed. tl must be sorted.
func dropFarEvents(tl *timeline.Timeline) {
	n := len(tl.Events)
	if n == 0 {
		return
	}
	median := tl.Events[n/2].Start
	lo := median - int64(maxDistanceFromMedian)
	hi := median + int64(maxDistanceFromMedian)
	if median < 0 && lo > median {
		lo = -1 << 63 // overflowed: nothing is too early
	}
	if median > 0 && hi < median {
		hi = 1<<63 - 1
	}
	search := func(t int64) int {
		i, _ := slices.BinarySearchFunc(tl.Events, t, func(e timeline.Event, t int64) int { return cmp.Compare(e.Start, t) })
		return i
	}
	// far: [0, first) and [last, n); of those, [0, keepFrom) and
	// [keepUntil, n) are implausible as well.
	first, last := search(lo), search(hi+1)
	keepFrom, keepUntil := search(min(lo, plausibleFrom)), search(max(hi, plausibleUntil-1)+1)
	mt := time.Unix(0, median).UTC().Format(time.RFC3339)
	warnFar(tl, append(slices.Clone(tl.Events[keepFrom:first]), tl.Events[last:keepUntil]...), mt)
	if keepFrom == 0 && keepUntil == n {
		return
	}
	reason := func(start int64) string {
		return fmt.Sprintf("time %s is more than %d days from the median time of all inputs, %s, and outside the years 1995-2099",
			time.Unix(0, start).UTC().Format(time.RFC3339), int(maxDistanceFromMedian/(24*time.Hour)), mt)
	}
	// The lines dropped, each with its earliest time, which its reason
	// quotes: 24 bytes a line, and the reasons written only as they are
	// counted, since a hostile log can stamp millions of lines in 2200.
	dropped := make([]droppedLine, 0, keepFrom+n-keepUntil)
	for _, part := range [][]timeline.Event{tl.Events[:keepFrom], tl.Events[keepUntil:]} {
		for i := range part {
			dropped = append(dropped, droppedLine{dropKey{part[i].Source, part[i].Line}, part[i].Start})
		}
	}
	slices.SortStableFunc(dropped, func(a, b droppedLine) int { return compareDropKeys(a.key, b.key) })
	dropped = slices.CompactFunc(dropped, func(a, b droppedLine) bool { return a.key == b.key })
	// A reslice, not a copy: the events are sorted, so the kept ones are
	// contiguous.
	tl.Events = settleDropped(tl, tl.Events[keepFrom:keepUntil], dropped, reason)
}

// droppedLine is a line whose events were dropped, and the earliest of
// their times.
type droppedLine struct {
	key   dropKey
	start int64
}

func compareDropKeys(a, b dropKey) int {
	return cmp.Or(cmp.Compare(a.source, b.source), cmp.Compare(a.line, b.line))
}

// warnFar tells each Source how many of its events lie far from the median
// and were kept.
func warnFar(tl *timeline.Timeline, far []timeline.Event, median string) {
	type span struct {
		n        int64
		from, to int64
	}
	per := map[int32]*span{}
	for i := range far {
		e := &far[i]
		s := per[e.Source]
		if s == nil {
			s = &span{from: e.Start, to: e.Start}
			per[e.Source] = s
		}
		s.n++
		s.from, s.to = min(s.from, e.Start), max(s.to, e.Start)
	}
	for src, s := range per {
		if int(src) >= len(tl.Sources) {
			continue
		}
		stamp := func(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339) }
		w := fmt.Sprintf("%d events lie more than %d days from the median time of all inputs, %s (from %s to %s); they are kept, so the analyses span that long: analyse them apart if they belong to another incident",
			s.n, int(maxDistanceFromMedian/(24*time.Hour)), median, stamp(s.from), stamp(s.to))
		// A stored timeline read again already carries it.
		if ws := &tl.Sources[src].Warnings; !slices.Contains(*ws, w) {
			*ws = append(*ws, w)
		}
	}
}

type dropKey struct {
	source int32
	line   int64
}

// settleDropped accounts for the events of the dropped lines, which kept no
// longer holds: each such event leaves its Source's Events, and a line none
// of whose events is kept moves from Parsed to Skipped with its reason.
// dropped is sorted by key, one entry a line.
func settleDropped(tl *timeline.Timeline, kept []timeline.Event, dropped []droppedLine, reason func(start int64) string) []timeline.Event {
	survives := make([]bool, len(dropped))
	for i := range kept {
		k := dropKey{kept[i].Source, kept[i].Line}
		if at, ok := slices.BinarySearchFunc(dropped, k, func(d droppedLine, k dropKey) int { return compareDropKeys(d.key, k) }); ok {
			survives[at] = true
		}
	}
	for i, d := range dropped {
		if survives[i] || int(d.key.source) >= len(tl.Sources) {
			continue
		}
		s := &tl.Sources[d.key.source]
		s.Parsed--
		s.AddSkip(d.key.line, reason(d.start))
	}
	counts := make([]int64, len(tl.Sources))
	for i := range kept {
		if src := kept[i].Source; int(src) < len(counts) {
			counts[src]++
		}
	}
	for i := range tl.Sources {
		tl.Sources[i].Events = counts[i]
	}
	return kept
}

// minDuplicateShare is how much of a later file's overlap with an earlier
// one must repeat the earlier file's events for the repeats to be taken as
// copies. Rotated files that overlap, or a file given twice, repeat all of
// it; two servers' logs of the same format share an identical event now
// and then by chance, and are left alone.
const minDuplicateShare = 0.9

// dropDuplicates removes events that a later input repeats from an earlier
// input of the same format, counting them in the later input's Duplicates.
// Repeats are matched as a multiset: two identical events in the earlier
// file cancel at most two in the later one. tl must be sorted.
func dropDuplicates(tl *timeline.Timeline) {
	if !sharedFormat(tl) {
		return
	}
	// First pass: which pairs of inputs repeat each other.
	matches := map[[2]int32]int64{}
	matchRuns(tl, nil, func(earlier, later int32) { matches[[2]int32{earlier, later}]++ })
	if len(matches) == 0 {
		return
	}
	accepted := map[[2]int32]bool{}
	spans := sourceSpans(tl, func(*timeline.Event) bool { return true })
	for pair, m := range matches {
		if float64(m) >= minDuplicateShare*float64(eventsInRange(tl, pair[1], spans[pair[0]])) {
			accepted[pair] = true
		}
	}
	if len(accepted) == 0 {
		return
	}
	drop := spill.Make[bool](len(tl.Events), len(tl.Events))
	dups := make([]int64, len(tl.Sources))
	matchRunsMark(tl, accepted, drop, dups)
	// In place: the timeline is this stage's own, and a second slice of a
	// file given twice would double the largest allocation of the run.
	kept := tl.Events[:0]
	for i := range tl.Events {
		if !drop[i] {
			kept = append(kept, tl.Events[i])
		}
	}
	for i := range tl.Sources {
		tl.Sources[i].Duplicates += dups[i]
		tl.Sources[i].Events -= dups[i]
	}
	tl.Events = kept
}

// sharedFormat reports whether two inputs of the same format overlap in
// time: only then can one repeat the other. It costs one pass without
// hashing, so inputs that cannot repeat each other (an access log and a
// call log, rotated files that do not overlap) pay nothing more.
func sharedFormat(tl *timeline.Timeline) bool {
	byFormat := map[string][]int{}
	for i, s := range tl.Sources {
		byFormat[s.Format] = append(byFormat[s.Format], i)
	}
	candidates := false
	for _, idx := range byFormat {
		candidates = candidates || len(idx) > 1
	}
	if !candidates {
		return false
	}
	spans := sourceSpans(tl, func(*timeline.Event) bool { return true })
	// In start order, inputs of one format overlap somewhere exactly when
	// one starts before its predecessor ends: one sort, not a comparison
	// of every two inputs.
	for _, idx := range byFormat {
		idx = slices.DeleteFunc(idx, func(i int) bool { return !spans[i].seen })
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(spans[a].lo, spans[b].lo) })
		for k := 1; k < len(idx); k++ {
			if spans[idx[k]].lo <= spans[idx[k-1]].hi {
				return true
			}
		}
	}
	return false
}

// timeSpan is the range of start times of one input's events.
type timeSpan struct {
	lo, hi int64
	seen   bool
}

// overlaps reports whether two spans meet, allowing margin between them.
func (x timeSpan) overlaps(y timeSpan, margin int64) bool {
	return x.seen && y.seen && x.lo <= y.hi+margin && y.lo <= x.hi+margin
}

// sourceSpans is each input's span over the events keep accepts, in one
// pass. tl must be sorted.
func sourceSpans(tl *timeline.Timeline, keep func(*timeline.Event) bool) []timeSpan {
	spans := make([]timeSpan, len(tl.Sources))
	for i := range tl.Events {
		e := &tl.Events[i]
		if int(e.Source) >= len(spans) || !keep(e) {
			continue
		}
		sp := &spans[e.Source]
		if !sp.seen {
			sp.lo, sp.seen = e.Start, true
		}
		sp.hi = e.Start
	}
	return spans
}

// eventsInRange counts the events of source src that start within the
// span of another source. Only the events in that span are looked at, found
// by binary search: rotated logs have short, disjoint spans, and a scan of
// the whole timeline per pair of inputs would cost a directory of thousands
// of them more than reading it. tl must be sorted.
func eventsInRange(tl *timeline.Timeline, src int32, span timeSpan) int64 {
	if !span.seen {
		return 0
	}
	ev := tl.Events
	lo := sort.Search(len(ev), func(i int) bool { return ev[i].Start >= span.lo })
	hi := sort.Search(len(ev), func(i int) bool { return ev[i].Start > span.hi })
	var n int64
	for i := lo; i < hi; i++ {
		if ev[i].Source == src {
			n++
		}
	}
	return n
}

// dupKey is an event without its position: two events with the same key
// are the same request logged twice.
func dupKey(e *timeline.Event) timeline.Event {
	k := *e
	k.Source, k.Line = 0, 0
	return k
}

// matchRuns walks the runs of events with the same start and calls match
// for each event that repeats an unmatched event of an earlier input of the
// same format (restricted to the accepted pairs when accepted is not nil).
func matchRuns(tl *timeline.Timeline, accepted map[[2]int32]bool, match func(earlier, later int32)) {
	walkRuns(tl, accepted, func(i int, earlier int32) { match(earlier, tl.Events[i].Source) })
}

func matchRunsMark(tl *timeline.Timeline, accepted map[[2]int32]bool, drop []bool, dups []int64) {
	walkRuns(tl, accepted, func(i int, _ int32) {
		drop[i] = true
		dups[tl.Events[i].Source]++
	})
}

func walkRuns(tl *timeline.Timeline, accepted map[[2]int32]bool, match func(i int, earlier int32)) {
	ev := tl.Events
	// unmatched holds, per event key, the inputs holding it with how many
	// of their copies are still unmatched, earliest input first.
	type holder struct {
		source int32
		left   int
	}
	unmatched := map[timeline.Event][]holder{}
	for start := 0; start < len(ev); {
		end := start + 1
		mixed := false
		for end < len(ev) && ev[end].Start == ev[start].Start {
			mixed = mixed || ev[end].Source != ev[start].Source
			end++
		}
		if !mixed {
			start = end
			continue
		}
		clear(unmatched)
		// Within a run, events are in input order, so every earlier input's
		// copies are counted before a later input's are matched.
		for i := start; i < end; i++ {
			e := &ev[i]
			k := dupKey(e)
			hs := unmatched[k]
			for h := range hs {
				if hs[h].source == e.Source || hs[h].left == 0 || !sameFormat(tl, hs[h].source, e.Source) {
					continue
				}
				if accepted != nil && !accepted[[2]int32{hs[h].source, e.Source}] {
					continue
				}
				hs[h].left--
				match(i, hs[h].source)
				break
			}
			// A matched copy stays matchable too: a third copy of a file
			// repeats the second.
			if n := len(hs); n > 0 && hs[n-1].source == e.Source {
				hs[n-1].left++
			} else {
				hs = append(hs, holder{e.Source, 1})
			}
			unmatched[k] = hs
		}
		start = end
	}
}

func sameFormat(tl *timeline.Timeline, a, b int32) bool {
	n := int32(len(tl.Sources))
	return a < n && b < n && tl.Sources[a].Format == tl.Sources[b].Format
}
