package analyze

import (
	"cmp"
	"fmt"
	"iter"
	"slices"

	"github.com/stampede/stampede/spill"
	"github.com/stampede/stampede/timeline"
)

// attemptGroup is one call as seen on the wire: the HTTP attempts that the
// join keys tie together, in time order.
type attemptGroup struct {
	// first and last index Timeline.Events; joins.nextAttempt chains the
	// rest, which spares a slice per call on large logs.
	// Indexes are int32, as in joins.groupOf, so that millions of groups
	// take 20 bytes each.
	first, last int32
	n           int32
	task        timeline.Sym
	class       timeline.Class
}

// groupHead is what the analyses read of an attempt group once the joins
// are made: where its chain of attempts starts, and its class. 8 bytes
// instead of attemptGroup's 20, for as many groups as calls.
type groupHead struct {
	first int32
	class timeline.Class
}

// callUnit is one call, from the SDK log when there is one, else from an
// attempt group. Every analysis reads calls through this one shape.
//
// Fields are no wider than their values and ordered largest first, so
// that a call takes 32 bytes: a log where every attempt is a call of its
// own holds millions.
type callUnit struct {
	start, end int64
	attempts   int32 // 0 when unknown
	task       timeline.Sym
	// group is the attempt group holding this call's HTTP attempts, or -1.
	group        int32
	queueAttempt int16 // as the event holds it
	outcome      timeline.Outcome
	class        timeline.Class
}

func (c *callUnit) failed() bool { return c.outcome.Failed() }

// queueAttemptUnit is one try at a task by the job runner.
type queueAttemptUnit struct {
	start, end int64
	calls      int32 // how many calls it made
	failed     bool  // its last call failed
}

// add takes call c into the queue attempt.
func (qa *queueAttemptUnit) add(c *callUnit) {
	qa.calls++
	qa.start = min(qa.start, c.start)
	if c.end >= qa.end {
		qa.end = c.end
		qa.failed = c.failed()
	}
}

// taskUnit is one unit of work. Its queue attempts, in order, are
// joins.taskQueueAttempts[first : first+n]: one shared slice instead of a
// slice apiece keeps the units pointer-free, so that millions of them can
// live in the spill file.
type taskUnit struct {
	id       timeline.Sym
	first, n int32
}

// joins ties the layers together once; reconcile, amplification and waves
// all read it. It only refers to the timeline, which stays immutable.
type joins struct {
	tl *timeline.Timeline
	// counts are the timeline's event counts; counted marks the sources
	// whose HTTP attempts count (eventCounts.observers).
	counts  *eventCounts
	counted []bool

	// http and callEvents index Timeline.Events by layer. Queue-layer
	// events are not read: queue attempts come from the calls' numbers.
	http, callEvents []int32

	// groups are the attempt groups while the joins are made; heads is
	// what buildJoinsWith keeps of them (keepHeads). With the heads, the
	// wave search drops nextAttempt once the SDK's delays are measured.
	groups []attemptGroup
	heads  []groupHead
	// groupOf maps an event index to its attempt group, -1 when unjoined or
	// not an attempt. Only the joins read it: buildJoinsWith drops it.
	groupOf []int32
	// nextAttempt is, for an attempt in a group, the index of the group's
	// next attempt, or -1.
	nextAttempt []int32
	// groupByCallID finds the group of a call id seen on the wire; only
	// buildCalls reads it, and drops it.
	groupByCallID symIndex

	// wholeSeconds: every counted attempt was logged at a whole second.
	wholeSeconds bool

	joinedByCallID, joinedByTaskAttempt int64
	attemptMethod                       string

	calls        []callUnit
	callsFromLog bool
	// sdkAttempts says that the SDK log counts each call's attempts.
	sdkAttempts bool
	// callMaxAttempts counts the attempt limits the call events announce,
	// of all calls and of those with a task id.
	callMaxAttempts struct{ all, task map[int32]int64 }
	// queueAttempts are read through queueAttempt: with queue attempt
	// numbers (queueExact) they are held here, and without, each call
	// with a task is one, made from the call queueCalls names when read,
	// which holds 4 bytes a call instead of 24.
	queueAttempts []queueAttemptUnit
	queueCalls    []int32
	tasks         []taskUnit
	// taskQueueAttempts lists each task's queue attempts (indexes for
	// queueAttempt), task after task.
	taskQueueAttempts []int32
	// queueExact is false when each call had to be taken for one queue
	// attempt.
	queueExact  bool
	queueMethod string

	// tally counts the attempts by the fate of their calls.
	tally *attemptTally

	warnings []string
}

func (j *joins) warnf(format string, a ...any) {
	j.warnings = append(j.warnings, fmt.Sprintf(format, a...))
}

// drop lets go of the slices j shares with the other copies of the joins,
// keeping its warnings: Run gives each analysis a copy, and a slice's
// memory goes back once every copy that held it has dropped it.
func (j *joins) drop() { *j = joins{warnings: j.warnings} }

func (j *joins) joinedAttempts() int64 { return j.joinedByCallID + j.joinedByTaskAttempt }

// queueAttempt returns queue attempt qi.
func (j *joins) queueAttempt(qi int32) queueAttemptUnit {
	if j.queueExact {
		return j.queueAttempts[qi]
	}
	c := &j.calls[j.queueCalls[qi]]
	qa := queueAttemptUnit{start: c.start}
	qa.add(c)
	return qa
}

// queueAttemptCount is how many queue attempts there are.
func (j *joins) queueAttemptCount() int {
	if j.queueExact {
		return len(j.queueAttempts)
	}
	return len(j.queueCalls)
}

// queueAttemptsOf returns task t's queue attempts in time order, as
// indexes for j.queueAttempt.
func (j *joins) queueAttemptsOf(t *taskUnit) []int32 {
	return j.taskQueueAttempts[t.first : t.first+t.n]
}

func buildJoins(tl *timeline.Timeline) *joins {
	return buildJoinsWith(tl, countEvents(tl))
}

// buildJoinsWith is buildJoins given the timeline's event counts.
func buildJoinsWith(tl *timeline.Timeline, counts *eventCounts) *joins {
	j := joinAll(tl, counts)
	j.keepHeads()
	return j
}

// keepHeads replaces the attempt groups by their heads: past the joins,
// the analyses read only where each group's attempts start, and its class.
func (j *joins) keepHeads() {
	j.heads = spill.Make[groupHead](len(j.groups), len(j.groups))
	for g := range j.groups {
		j.heads[g] = groupHead{first: j.groups[g].first, class: j.groups[g].class}
	}
	spill.Free(j.groups)
	j.groups = nil
}

// joinAll is buildJoinsWith keeping the attempt groups whole.
func joinAll(tl *timeline.Timeline, counts *eventCounts) *joins {
	n := len(tl.Events)
	j := &joins{tl: tl, counts: counts, groupOf: spill.Make[int32](n, n), nextAttempt: spill.Make[int32](n, n)}
	// Room for every event, fitted once filled: growing by doubling would
	// copy the slice each time.
	j.http = spill.Make[int32](0, n)
	j.counted = counts.observers(tl)
	// The attempts that usually open a group, those numbered 1 or with a
	// call id and no later number, size the groups.
	opening := 0
	for i := range tl.Events {
		e := &tl.Events[i]
		j.groupOf[i] = -1
		j.nextAttempt[i] = -1
		switch e.Layer {
		case timeline.LayerHTTP:
			if j.counted[e.Source] {
				j.http = append(j.http, int32(i))
				if (e.CallID != timeline.NoSym && e.Attempt <= 1) || (e.TaskID != timeline.NoSym && e.Attempt == 1) {
					opening++
				}
			}
		case timeline.LayerCall:
			j.callEvents = append(j.callEvents, int32(i))
		}
	}
	j.http = fitted(j.http)
	j.wholeSeconds = loggedWholeSeconds(j)
	j.joinAttempts(opening)
	j.buildCalls()
	// After buildCalls, which gives groups the task of their call.
	j.tally = tallyAttempts(j)
	// Nothing after the tally reads an event's group: an int32 per event
	// less through the analyses.
	spill.Free(j.groupOf)
	j.groupOf = nil
	j.warnJoinCoverage()
	j.buildQueue()
	return j
}

// joinAttempts groups HTTP attempts into calls: by call id when the wire has
// one (amz-sdk-invocation-id), else per task where attempt 1 opens a new call
// (x-stainless-retry-count 0). Events are sorted by Start, so appending keeps
// each group in time order. opening is how many attempts usually open a
// group.
func (j *joins) joinAttempts(opening int) {
	byID := newSymIndex()
	j.groupByCallID = byID
	// current is each task's latest group, previous the one before it:
	// stamps to the whole second can put a call's first attempt after
	// the next call's, or after its own retry (flippedGroup).
	current, previous := newSymIndex(), symIndex(nil)
	defer spill.Free(current)
	margin := wholeSecondMargin(j)
	if margin > 0 {
		previous = newSymIndex()
		defer spill.Free(previous)
	}
	// Sized for the attempts that usually open a group, grown if more do,
	// and fitted once known. Sized for a group per attempt, it was a few
	// times too large on an incident log, and the collector counted all of
	// it into the heap it lets grow (see httpWhere).
	j.groups = spill.Make[attemptGroup](0, opening)
	defer func() { j.groups = fitted(j.groups) }()
	for _, i := range j.http {
		e := &j.tl.Events[i]
		switch {
		case e.CallID != timeline.NoSym:
			g, ok := byID.get(e.CallID)
			if !ok {
				g = j.newGroup(e)
				byID.set(e.CallID, g)
			}
			j.addToGroup(g, i)
			j.joinedByCallID++
		case e.TaskID != timeline.NoSym && e.Attempt > 0:
			g, ok := current.get(e.TaskID)
			if margin > 0 && ok {
				if f, found := j.flippedGroup(e, g, previous, margin); found {
					j.addToGroup(f, i)
					j.joinedByTaskAttempt++
					continue
				}
			}
			if !ok || e.Attempt == 1 || e.Attempt <= j.tl.Events[j.groups[g].last].Attempt {
				if ok && previous != nil {
					previous.set(e.TaskID, g)
				}
				g = j.newGroup(e)
				current.set(e.TaskID, g)
			}
			j.addToGroup(g, i)
			j.joinedByTaskAttempt++
		}
	}
	total := int64(len(j.http))
	switch {
	case total == 0:
		j.attemptMethod = "no HTTP attempts"
	case j.joinedByCallID == total:
		j.attemptMethod = "exact: call id (amz-sdk-invocation-id)"
	case j.joinedByTaskAttempt == total:
		j.attemptMethod = "exact: attempt numbers per task (x-stainless-retry-count)"
	case j.joinedAttempts() == 0:
		j.attemptMethod = "estimated from counts: no call id or attempt number on the wire"
	default:
		j.attemptMethod = fmt.Sprintf("partial: %s of attempts by call id, %s by attempt numbers per task, %s unjoined",
			pct(float64(j.joinedByCallID)/float64(total)), pct(float64(j.joinedByTaskAttempt)/float64(total)),
			pct(float64(total-j.joinedAttempts())/float64(total)))
	}
}

// flippedGroup finds the group of a task's attempt e that whole-second
// stamps put out of order. A call's attempts are numbered 1, 2, 3 in
// order, and its stamps less the requests' own times can swap two that
// end within one second: a fast success retried after a throttle read
// before it, or a call's last retry read after the next call's first
// attempt. So e goes to the task's latest group, cur, or the one before
// it, when that group lacks e's number and e continues it (its last
// number is one less), fills a gap in its numbers, or precedes it (its
// first number is larger), starting within margin of that neighbour. ok is false when no group
// fits, and the usual rules apply.
func (j *joins) flippedGroup(e *timeline.Event, cur int, previous symIndex, margin int64) (int, bool) {
	fits := func(g int) bool {
		gr := &j.groups[g]
		first, last := &j.tl.Events[gr.first], &j.tl.Events[gr.last]
		switch {
		case last.Attempt == e.Attempt-1:
			return g != cur && e.Start-last.Start <= margin
		case first.Attempt < e.Attempt && last.Attempt > e.Attempt:
			// A retry read after its own call's next retry: both stamped
			// in one second, the later one's request a millisecond
			// longer (openai-nora-fixed5-short, whose rejections took
			// 0 to 2 ms).
			return e.Start-last.Start <= margin && j.groupHasAttempt(gr, e.Attempt-1) && !j.groupHasAttempt(gr, e.Attempt)
		case first.Attempt > e.Attempt:
			return abs64(first.Start-e.Start) <= margin && !j.groupHasAttempt(gr, e.Attempt)
		}
		return false
	}
	if fits(cur) {
		return cur, true
	}
	if p, ok := previous.get(e.TaskID); ok && fits(p) {
		return p, true
	}
	return 0, false
}

// groupHasAttempt reports whether the group holds an attempt numbered n.
func (j *joins) groupHasAttempt(gr *attemptGroup, n int16) bool {
	for k := gr.first; k >= 0; k = j.nextAttempt[k] {
		if j.tl.Events[k].Attempt == n {
			return true
		}
	}
	return false
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// warnJoinCoverage flags a join that left more than a tenth of the attempts
// without a call.
func (j *joins) warnJoinCoverage() {
	total := int64(len(j.http))
	if total == 0 || float64(j.joinedAttempts()) >= 0.9*float64(total) {
		return
	}
	where := fmt.Sprintf("per-call figures rest on the other %s", pct(float64(j.joinedAttempts())/float64(total)))
	if j.callsFromLog {
		where = "per-call figures come from the SDK log"
	}
	j.warnf("%s of %s HTTP attempts had no call id or attempt number: they count in the HTTP totals; %s",
		pct(float64(total-j.joinedAttempts())/float64(total)), count(total), where)
}

func (j *joins) newGroup(e *timeline.Event) int {
	if len(j.groups) == cap(j.groups) {
		// By a quarter, as append grows a large slice, but in the spill
		// when it is on.
		grown := spill.Make[attemptGroup](len(j.groups), len(j.groups)+len(j.groups)/4+1024)
		copy(grown, j.groups)
		spill.Free(j.groups)
		j.groups = grown
	}
	j.groups = append(j.groups, attemptGroup{task: e.TaskID, class: e.Class})
	return len(j.groups) - 1
}

func (j *joins) addToGroup(g int, i int32) {
	gr := &j.groups[g]
	switch {
	case gr.n == 0:
		gr.first = i
		gr.last = i
	case j.attemptBefore(i, gr.last):
		// Whole-second log times can put a fast retry's start ahead of the
		// throttled attempt it retried; the wire's attempt number is the
		// truth, so link the attempt in by it.
		prev := int32(-1)
		for k := gr.first; k >= 0 && !j.attemptBefore(i, k); k = j.nextAttempt[k] {
			prev = k
		}
		if prev < 0 {
			j.nextAttempt[i] = gr.first
			gr.first = i
		} else {
			j.nextAttempt[i] = j.nextAttempt[prev]
			j.nextAttempt[prev] = i
		}
	default:
		j.nextAttempt[gr.last] = i
		gr.last = i
	}
	gr.n++
	j.groupOf[i] = int32(g)
	if gr.task == timeline.NoSym {
		gr.task = j.tl.Events[i].TaskID
	}
}

// attemptBefore reports whether attempt a carries a smaller attempt number
// than attempt b; without numbers on both, time order stands.
func (j *joins) attemptBefore(a, b int32) bool {
	ea, eb := &j.tl.Events[a], &j.tl.Events[b]
	return ea.Attempt > 0 && eb.Attempt > 0 && ea.Attempt < eb.Attempt
}

// chain yields the event indexes of the attempts of the group whose first
// attempt is first, in time order.
func (j *joins) chain(first int32) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := first; i >= 0; i = j.nextAttempt[i] {
			if !yield(int(i)) {
				return
			}
		}
	}
}

// buildCalls takes calls from the SDK log when there is one, matching them to
// attempt groups by call id; otherwise each attempt group is a call whose
// outcome is its final attempt's.
// groupsByRequestID maps the request id of every joined attempt to its
// group, for call logs that carry the request id rather than a call id.
func (j *joins) groupsByRequestID() symIndex {
	m := newSymIndex()
	for _, i := range j.http {
		if g := j.groupOf[i]; g >= 0 {
			if id := j.tl.Events[i].RequestID; id != timeline.NoSym {
				m.set(id, int(g))
			}
		}
	}
	return m
}

// symIndex maps Syms to indexes, one slot per interned string: Syms are
// dense, so a slice is a fraction of a map's memory for millions of task
// ids, holds no pointers, and can live in the spill file. A slot holds the
// index plus one, so that zero, which fresh memory reads as, is absent.
type symIndex []int32

// newSymIndex covers every Sym interned so far; the analyses intern none.
func newSymIndex() symIndex {
	n := timeline.SymCount()
	return spill.Make[int32](n, n)
}

func (x symIndex) get(s timeline.Sym) (int, bool) {
	if int(s) >= len(x) || x[s] == 0 {
		return 0, false
	}
	return int(x[s]) - 1, true
}

func (x symIndex) set(s timeline.Sym, i int) { x[s] = int32(i + 1) }

func (j *joins) buildCalls() {
	defer func() {
		spill.Free(j.groupByCallID)
		j.groupByCallID = nil
	}()
	if len(j.callEvents) > 0 {
		j.callsFromLog = true
		j.calls = spill.Make[callUnit](0, len(j.callEvents))
		byRequest := j.groupsByRequestID()
		defer spill.Free(byRequest)
		j.callMaxAttempts.all, j.callMaxAttempts.task = map[int32]int64{}, map[int32]int64{}
		for _, i := range j.callEvents {
			e := &j.tl.Events[i]
			j.sdkAttempts = j.sdkAttempts || e.Attempts > 0
			if e.MaxAttempts > 0 {
				j.callMaxAttempts.all[int32(e.MaxAttempts)]++
				if e.TaskID != timeline.NoSym {
					j.callMaxAttempts.task[int32(e.MaxAttempts)]++
				}
			}
			c := callUnit{start: e.Start, end: eventEnd(e), attempts: int32(e.Attempts), outcome: e.Outcome,
				class: e.Class, task: e.TaskID, queueAttempt: e.QueueAttempt, group: -1}
			g, ok := j.groupByCallID.get(e.CallID)
			if !ok || e.CallID == timeline.NoSym {
				// An SDK log that names the call's last request id (x-request-id)
				// joins to the attempt group holding that request.
				g, ok = byRequest.get(e.RequestID)
				ok = ok && e.RequestID != timeline.NoSym
			}
			if ok {
				c.group = int32(g)
				if j.groups[g].task == timeline.NoSym {
					j.groups[g].task = e.TaskID
				}
				if c.attempts == 0 {
					c.attempts = j.groups[g].n
				}
			}
			j.calls = append(j.calls, c)
		}
		j.warnMissingTasks()
		return
	}
	j.calls = spill.Make[callUnit](0, len(j.groups))
	for g := range j.groups {
		gr := &j.groups[g]
		first, last := &j.tl.Events[gr.first], &j.tl.Events[gr.last]
		j.calls = append(j.calls, callUnit{start: first.Start, end: eventEnd(last), attempts: gr.n,
			outcome: last.Outcome, class: gr.class, task: gr.task, group: int32(g)})
	}
	// Groups were opened in time order of their first attempt, so calls are
	// sorted by start, unless a flipped attempt (flippedGroup) moved a
	// group's first attempt up to a second later.
	if !slices.IsSortedFunc(j.calls, func(a, b callUnit) int { return cmp.Compare(a.start, b.start) }) {
		slices.SortStableFunc(j.calls, func(a, b callUnit) int { return cmp.Compare(a.start, b.start) })
	}
	j.warnMissingTasks()
}

// warnMissingTasks says how many batch calls cannot be tied to a task: they
// drop out of the queue layers of the amplification.
func (j *joins) warnMissingTasks() {
	var batch, noTask int64
	for i := range j.calls {
		if c := &j.calls[i]; c.class == timeline.ClassBatch {
			batch++
			if c.task == timeline.NoSym {
				noTask++
			}
		}
	}
	if noTask > 0 {
		j.warnf("%s of %s batch calls had no task id: they are left out of the queue attempt layers",
			pct(float64(noTask)/float64(batch)), count(batch))
	}
}

// eventEnd is End, or Start when the log had one timestamp.
func eventEnd(e *timeline.Event) int64 {
	if e.End > e.Start {
		return e.End
	}
	return e.Start
}

// buildQueue groups calls into queue attempts and tasks. With queue attempt
// numbers on the calls the grouping is exact; without them each call is
// taken for one queue attempt.
func (j *joins) buildQueue() {
	haveNumbers := false
	for i := range j.calls {
		if j.calls[i].task != timeline.NoSym && j.calls[i].queueAttempt > 0 {
			haveNumbers = true
			break
		}
	}
	j.queueExact = haveNumbers
	switch {
	case haveNumbers:
		j.queueMethod = "exact: queue attempt numbers on SDK calls"
	case j.callsFromLog:
		j.queueMethod = "each SDK call with a task id taken as one queue attempt (no queue attempt numbers)"
	default:
		j.queueMethod = "each HTTP call group with a task id taken as one queue attempt (no SDK call log)"
	}
	// Tasks and queue attempts are numbered as first seen; the calls of
	// each queue attempt and the queue attempts of each task are then laid
	// out in one shared slice apiece (counted first, filled in order), so
	// that millions of calls cost no allocation of their own.
	taskIndex := newSymIndex()
	defer spill.Free(taskIndex)
	var byNumber map[uint64]int32
	// At most one queue attempt per call, fitted once they are known.
	if haveNumbers {
		byNumber = make(map[uint64]int32, 1024)
		j.queueAttempts = spill.Make[queueAttemptUnit](0, len(j.calls))
		defer func() { j.queueAttempts = fitted(j.queueAttempts) }()
	} else {
		j.queueCalls = spill.Make[int32](0, len(j.calls))
		defer func() { j.queueCalls = fitted(j.queueCalls) }()
	}
	qaTask := spill.Make[int32](0, len(j.calls))
	defer spill.Free(qaTask)
	// Fitted once the tasks are known, as the groups are: calls are often
	// several times as many.
	j.tasks = spill.Make[taskUnit](0, len(j.calls))
	defer func() { j.tasks = fitted(j.tasks) }()
	for ci := range j.calls {
		c := &j.calls[ci]
		if c.task == timeline.NoSym {
			continue
		}
		t, ok := taskIndex.get(c.task)
		ti := int32(t)
		if !ok {
			ti = int32(len(j.tasks))
			taskIndex.set(c.task, int(ti))
			j.tasks = append(j.tasks, taskUnit{id: c.task})
		}
		// A call without a number is a queue attempt of its own.
		numbered := haveNumbers && c.queueAttempt > 0
		qi := int32(-1)
		k := uint64(uint32(ti))<<32 | uint64(uint32(c.queueAttempt))
		if numbered {
			if q, ok := byNumber[k]; ok {
				qi = q
			}
		}
		if qi < 0 {
			qi = int32(j.queueAttemptCount())
			if numbered {
				byNumber[k] = qi
			}
			if haveNumbers {
				j.queueAttempts = append(j.queueAttempts, queueAttemptUnit{start: c.start})
			} else {
				j.queueCalls = append(j.queueCalls, int32(ci))
			}
			qaTask = append(qaTask, ti)
			j.tasks[ti].n++
		}
		if haveNumbers {
			j.queueAttempts[qi].add(c)
		}
	}
	// Each task's run of taskQueueAttempts starts where the previous
	// task's ends; n counts the run back up as it is filled.
	j.taskQueueAttempts = spill.Make[int32](len(qaTask), len(qaTask))
	next := int32(0)
	for ti := range j.tasks {
		t := &j.tasks[ti]
		t.first, next, t.n = next, next+t.n, 0
	}
	for qi, ti := range qaTask {
		t := &j.tasks[ti]
		j.taskQueueAttempts[t.first+t.n] = int32(qi)
		t.n++
	}
	if len(j.tasks) > 0 && !haveNumbers {
		unit := "HTTP call"
		if j.callsFromLog {
			unit = "SDK call"
		}
		j.warnf("no queue attempt numbers: each %s with a task id taken as one queue attempt (calls per queue attempt assumed 1)", unit)
	}
	byStart := func(a, b int32) int { return cmp.Compare(j.queueAttempt(a).start, j.queueAttempt(b).start) }
	for ti := range j.tasks {
		// Calls come in time order, so a task's queue attempts usually do.
		if qas := j.queueAttemptsOf(&j.tasks[ti]); !slices.IsSortedFunc(qas, byStart) {
			slices.SortStableFunc(qas, byStart)
		}
	}
}

// httpWhere returns f's values for the counted HTTP attempts it keeps, in
// start order, in a slice of n, how many it keeps as the tally counted
// them: capacity that is never written costs no memory at first, but the
// collector counts it into the live heap, and lets the heap grow a
// quarter past that (GOGC 25) before it collects again: room that the
// next passes fill with memory that is written. Counted by the tally, the
// attempts are not read once more to size it.
func httpWhere[T any](j *joins, n int64, f func(e *timeline.Event) (T, bool)) []T {
	out := spill.Make[T](0, int(n))
	for _, i := range j.http {
		if v, ok := f(&j.tl.Events[i]); ok {
			out = append(out, v)
		}
	}
	return out
}

// fitted returns s in a slice of its own length, and frees s: a slice
// sized for its worst case and then held through the analyses would keep
// its unused capacity too, which the garbage collector counts into the
// heap it lets grow before collecting, and which, when it is taken from
// memory freed earlier, is cleared and so resident.
func fitted[T any](s []T) []T {
	if cap(s)-len(s) <= cap(s)/8 {
		return s
	}
	out := spill.Make[T](len(s), len(s))
	copy(out, s)
	spill.Free(s)
	return out
}
