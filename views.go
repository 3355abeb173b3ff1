package stampede

import (
	"cmp"
	"slices"
	"time"

	"github.com/stampede/stampede/spill"
	"github.com/stampede/stampede/timeline"
)

// viewTolerance is how far apart two formats' stamps of one request may be:
// one log may have whole seconds where the other has milliseconds, and one
// may stamp the request's start where the other stamps its end.
const viewTolerance = time.Second + time.Millisecond

// dropRedundantViews finds pairs of inputs from the same observer that log
// the same requests in different formats (a server with two access_log
// lines, one with retry headers and one plain combined) and keeps each
// request once: the events of the input with fewer fields filled are dropped
// where the other holds a match, and counted in its Duplicates. Without
// this, a directory holding both doubles every attempt. Pairs whose matches
// fall short of minDuplicateShare of the smaller overlap are two observers'
// own traffic and are left alone. tl must be sorted.
func dropRedundantViews(tl *timeline.Timeline) {
	pairs := viewCandidates(tl)
	if len(pairs) == 0 {
		return
	}
	drop := spill.Make[bool](len(tl.Events), len(tl.Events))
	dups := make([]int64, len(tl.Sources))
	for _, p := range pairs {
		a, b := p[0], p[1]
		idxA, idxB := httpEventsInOverlap(tl, a, b, drop)
		matchedA, matchedB := matchViews(tl.Events, idxA, idxB)
		if len(matchedA) == 0 || float64(len(matchedA)) < minDuplicateShare*float64(min(len(idxA), len(idxB))) {
			continue
		}
		poorer, matched := b, matchedB
		if detail(tl, b) > detail(tl, a) {
			poorer, matched = a, matchedA
		}
		for _, i := range matched {
			drop[i] = true
		}
		dups[poorer] += int64(len(matched))
	}
	if slices.Index(drop, true) < 0 {
		return
	}
	kept := tl.Events[:0]
	for i := range tl.Events {
		if !drop[i] {
			kept = append(kept, tl.Events[i])
		}
	}
	tl.Events = kept
	for i := range tl.Sources {
		tl.Sources[i].Duplicates += dups[i]
		tl.Sources[i].Events -= dups[i]
	}
}

// viewCandidates lists the pairs of inputs, earlier first, that share an
// observer, differ in format and overlap in time. A sweep over the spans
// in start order finds them without comparing every two inputs, which on a
// directory of thousands of rotated logs would cost more than the reading.
func viewCandidates(tl *timeline.Timeline) [][2]int32 {
	spans := sourceSpans(tl, func(e *timeline.Event) bool { return e.Layer == timeline.LayerHTTP })
	var order []int32
	for i := range tl.Sources {
		if spans[i].seen && tl.Sources[i].Observer != "" {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(tl.Sources[a].Observer, tl.Sources[b].Observer), cmp.Compare(spans[a].lo, spans[b].lo), cmp.Compare(a, b))
	})
	margin := int64(viewTolerance)
	var pairs [][2]int32
	// open holds, by format, the observer's inputs seen so far that may
	// still meet a later one. Only other formats' lists are walked (and
	// pruned of spans that ended before this one starts, which then end
	// before every later one too), so inputs of one format cost nothing.
	open := map[string][]int32{}
	for k, y := range order {
		sy := &tl.Sources[y]
		if k > 0 && tl.Sources[order[k-1]].Observer != sy.Observer {
			clear(open)
		}
		for format, xs := range open {
			if format == sy.Format {
				continue
			}
			kept := xs[:0]
			for _, x := range xs {
				if spans[x].hi+margin < spans[y].lo {
					continue
				}
				kept = append(kept, x)
				pairs = append(pairs, [2]int32{min(x, y), max(x, y)})
			}
			open[format] = kept
		}
		open[sy.Format] = append(open[sy.Format], y)
	}
	// In input order, as the pairs are settled one after the other.
	slices.SortFunc(pairs, func(p, q [2]int32) int { return cmp.Or(cmp.Compare(p[0], q[0]), cmp.Compare(p[1], q[1])) })
	return pairs
}

// httpEventsInOverlap returns the indexes of a's and b's attempts, not
// already dropped, that start within the other's time range.
func httpEventsInOverlap(tl *timeline.Timeline, a, b int32, drop []bool) (idxA, idxB []int) {
	lo := [2]int64{1<<63 - 1, 1<<63 - 1}
	hi := [2]int64{-1 << 63, -1 << 63}
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP || drop[i] || (e.Source != a && e.Source != b) {
			continue
		}
		s := 0
		if e.Source == b {
			s = 1
		}
		lo[s], hi[s] = min(lo[s], e.Start), max(hi[s], e.Start)
	}
	margin := int64(viewTolerance)
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP || drop[i] {
			continue
		}
		switch {
		case e.Source == a && e.Start >= lo[1]-margin && e.Start <= hi[1]+margin:
			idxA = append(idxA, i)
		case e.Source == b && e.Start >= lo[0]-margin && e.Start <= hi[0]+margin:
			idxB = append(idxB, i)
		}
	}
	return idxA, idxB
}

// requestKey is what two formats of one access log agree on about a request.
type requestKey struct {
	status        int32
	route, client timeline.Sym
}

// loggedAt is the moment a log line stands for: the end when the format
// gives a duration (the line is written then), else the one stamp it has.
func loggedAt(e *timeline.Event) int64 {
	if e.End != 0 {
		return e.End
	}
	return e.Start
}

// matchViews pairs a's and b's events that agree on status, route and
// client and were logged within viewTolerance of each other. Per key, both
// sides are walked in time order and the earliest compatible pair is taken,
// which finds the most pairs for a fixed tolerance.
func matchViews(ev []timeline.Event, idxA, idxB []int) (matchedA, matchedB []int) {
	groups := map[requestKey][2][]int{}
	for s, idx := range [2][]int{idxA, idxB} {
		for _, i := range idx {
			k := requestKey{int32(ev[i].Status), ev[i].Route, ev[i].Client}
			g := groups[k]
			g[s] = append(g[s], i)
			groups[k] = g
		}
	}
	byTime := func(x, y int) int { return cmp.Or(cmp.Compare(loggedAt(&ev[x]), loggedAt(&ev[y])), cmp.Compare(x, y)) }
	tol := int64(viewTolerance)
	for _, g := range groups {
		as, bs := g[0], g[1]
		if len(as) == 0 || len(bs) == 0 {
			continue
		}
		slices.SortFunc(as, byTime)
		slices.SortFunc(bs, byTime)
		for i, j := 0, 0; i < len(as) && j < len(bs); {
			ta, tb := loggedAt(&ev[as[i]]), loggedAt(&ev[bs[j]])
			switch {
			case ta < tb-tol:
				i++
			case tb < ta-tol:
				j++
			default:
				matchedA = append(matchedA, as[i])
				matchedB = append(matchedB, bs[j])
				i++
				j++
			}
		}
	}
	slices.Sort(matchedA)
	slices.Sort(matchedB)
	return matchedA, matchedB
}

// detail scores how much an input says about each attempt: the fields that
// join attempts to calls and tasks, and timing. Of two views of the same
// requests the richer one is kept.
func detail(tl *timeline.Timeline, src int32) int64 {
	var n int64
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Source != src {
			continue
		}
		for _, filled := range []bool{
			e.RequestID != timeline.NoSym, e.CallID != timeline.NoSym, e.TaskID != timeline.NoSym, e.End != 0,
			e.Attempt > 0, e.MaxAttempts > 0, e.QueueAttempt > 0,
			e.RetryAfter > 0, e.ErrorCode != timeline.NoSym, e.Start%int64(time.Second) != 0,
		} {
			if filled {
				n++
			}
		}
	}
	return n
}

// dropRedundantCalls keeps each SDK call once when two inputs log the same
// calls (the application's call log and the SDK's own logger, both writing
// one record per call): a call event whose request id an earlier-kept
// event of another input carries is dropped from the input that says less
// about its calls, and counted in that input's Duplicates. Request ids are
// the server's, so two records with one id are one call, whatever their
// clocks say. tl must be sorted.
func dropRedundantCalls(tl *timeline.Timeline) {
	// Which inputs log calls with request ids, and how much they say.
	richness := make([]int64, len(tl.Sources))
	withIDs := make([]int64, len(tl.Sources))
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerCall || e.RequestID == timeline.NoSym {
			continue
		}
		withIDs[e.Source]++
		if e.TaskID != timeline.NoSym {
			richness[e.Source] += 2
		}
		if e.Attempts > 0 {
			richness[e.Source]++
		}
	}
	var sources int
	for _, n := range withIDs {
		if n > 0 {
			sources++
		}
	}
	if sources < 2 {
		return
	}
	// The richest input's record of each request id wins.
	best := map[timeline.Sym]int{}
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerCall || e.RequestID == timeline.NoSym {
			continue
		}
		if k, seen := best[e.RequestID]; !seen || richness[e.Source] > richness[tl.Events[k].Source] {
			best[e.RequestID] = i
		}
	}
	dups := make([]int64, len(tl.Sources))
	kept := tl.Events[:0]
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer == timeline.LayerCall && e.RequestID != timeline.NoSym {
			if k := best[e.RequestID]; k != i && tl.Events[k].Source != e.Source {
				dups[e.Source]++
				continue
			}
		}
		kept = append(kept, *e)
	}
	tl.Events = kept
	for i := range tl.Sources {
		tl.Sources[i].Duplicates += dups[i]
		tl.Sources[i].Events -= dups[i]
	}
}
