package analyze

import "github.com/stampede/stampede/timeline"

// attemptTally is what the reconciliation and the amplification take from
// the counted HTTP attempts once they are joined into calls: counts per
// fate of each attempt's call, so that neither walks the attempts again.
// It is an accumulator over stretches of joins.http (add, merge), read
// after the joins are final.
type attemptTally struct {
	// The throttled attempts, split by the fate of the call holding them:
	// recovered (the call ended ok), in calls that failed, in calls whose
	// end was not logged, or in no call at all (by class).
	throttledRecovered, throttledInFailed, throttledInUnknown int64
	throttledUnjoined                                         map[timeline.Class]int64
	// throttledByCode counts throttled attempts by error code, for the
	// codes a proxy answers with.
	throttledByCode map[timeline.Sym]int64

	// Attempts and the ok ones among them: all, and those sent for a task
	// (their own task id, or their call's).
	attempts, ok, taskAttempts, taskOK int64
	// groupsRecovered are the attempt groups that ended ok after more
	// than one attempt.
	groupsRecovered int64
	// firstAttempts are the attempts numbered 1; taskFirstAttempts those
	// of them that carry a task id of their own.
	firstAttempts, taskFirstAttempts int64
	// maxAttempts and taskMaxAttempts count the attempt limits announced
	// on the wire (amz-sdk-request max=M), of all attempts and of those
	// sent for a task.
	maxAttempts, taskMaxAttempts map[int32]int64
	// byClass and firstByClass count the attempts, and those numbered 1,
	// by class; retryAfters those answered with a retry-after. The wave
	// search sizes its slices by them instead of counting them again.
	byClass, firstByClass [classes]int64
	retryAfters           int64
}

func newAttemptTally() *attemptTally {
	return &attemptTally{throttledUnjoined: map[timeline.Class]int64{}, throttledByCode: map[timeline.Sym]int64{},
		maxAttempts: map[int32]int64{}, taskMaxAttempts: map[int32]int64{}}
}

// add takes in the attempts j.http[lo:hi]. lastOutcome holds each group's
// final attempt's outcome.
func (t *attemptTally) add(j *joins, lastOutcome []timeline.Outcome, lo, hi int) {
	events := j.tl.Events
	for _, i := range j.http[lo:hi] {
		e := &events[i]
		g := j.groupOf[i]
		forTask := e.TaskID != timeline.NoSym || (g >= 0 && j.groups[g].task != timeline.NoSym)
		ok := e.Outcome == timeline.OutcomeOK
		t.attempts++
		if ok {
			t.ok++
		}
		if forTask {
			t.taskAttempts++
			if ok {
				t.taskOK++
			}
		}
		if e.Attempt == 1 {
			t.firstAttempts++
			if e.TaskID != timeline.NoSym {
				t.taskFirstAttempts++
			}
		}
		if int(e.Class) < classes {
			t.byClass[e.Class]++
			if e.Attempt == 1 {
				t.firstByClass[e.Class]++
			}
		}
		if e.RetryAfter > 0 {
			t.retryAfters++
		}
		if e.MaxAttempts > 0 {
			t.maxAttempts[int32(e.MaxAttempts)]++
			if forTask {
				t.taskMaxAttempts[int32(e.MaxAttempts)]++
			}
		}
		if e.Outcome != timeline.OutcomeThrottled {
			continue
		}
		if e.ErrorCode != timeline.NoSym {
			t.throttledByCode[e.ErrorCode]++
		}
		switch {
		case g < 0:
			t.throttledUnjoined[e.Class]++
		case lastOutcome[g] == timeline.OutcomeOK:
			// A throttled attempt is never the end of a call that ended ok.
			t.throttledRecovered++
		case lastOutcome[g] == timeline.OutcomeUnknown:
			// Recovered or not, as the unlogged last outcome was.
			t.throttledInUnknown++
		default:
			t.throttledInFailed++
		}
	}
}

// merge takes in another stretch's tally.
func (t *attemptTally) merge(o *attemptTally) {
	t.throttledRecovered += o.throttledRecovered
	t.throttledInFailed += o.throttledInFailed
	t.throttledInUnknown += o.throttledInUnknown
	t.attempts += o.attempts
	t.ok += o.ok
	t.taskAttempts += o.taskAttempts
	t.taskOK += o.taskOK
	t.firstAttempts += o.firstAttempts
	t.taskFirstAttempts += o.taskFirstAttempts
	for c := range t.byClass {
		t.byClass[c] += o.byClass[c]
		t.firstByClass[c] += o.firstByClass[c]
	}
	t.retryAfters += o.retryAfters
	addCounts(t.throttledUnjoined, o.throttledUnjoined)
	addCounts(t.throttledByCode, o.throttledByCode)
	addCounts(t.maxAttempts, o.maxAttempts)
	addCounts(t.taskMaxAttempts, o.taskMaxAttempts)
}

func addCounts[K comparable](to, from map[K]int64) {
	for k, n := range from {
		to[k] += n
	}
}

// tallyAttempts tallies j.http once the joins are final, a stretch of the
// attempts per core.
func tallyAttempts(j *joins) *attemptTally {
	return tallyAttemptsIn(j, max(1, min(cores(), len(j.http)/minStretch)))
}

// tallyAttemptsIn is tallyAttempts over the given number of stretches.
func tallyAttemptsIn(j *joins, stretches int) *attemptTally {
	lastOutcome := make([]timeline.Outcome, len(j.groups))
	var recovered int64
	for g := range j.groups {
		gr := &j.groups[g]
		lastOutcome[g] = j.tl.Events[gr.last].Outcome
		if gr.n > 1 && lastOutcome[g] == timeline.OutcomeOK {
			recovered++
		}
	}
	t := mergeStretches(len(j.http), stretches, func(lo, hi int) *attemptTally {
		s := newAttemptTally()
		s.add(j, lastOutcome, lo, hi)
		return s
	})
	t.groupsRecovered = recovered
	return t
}
