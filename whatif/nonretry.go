package whatif

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/spill"
	"github.com/stampede/stampede/timeline"
)

// RetriedNonRetryable finds attempts that ended in an error no retry can
// fix (a service quota, a validation error: timeline.OutcomeNonRetryable)
// and were followed by more attempts of the same task, or of the same call
// when the log has no task ids. Every attempt after the first such error of
// a task or call is counted as wasted: it was bound to fail the same way.
// Codes are listed most wasted first, at most maxCodeRows rows; the rest
// are added up in one last row, which the bound accounts for.
func RetriedNonRetryable(tl *timeline.Timeline) ([]analyze.RetriedError, analyze.TableBound) {
	// The attempts with a task or call id, grouped by it: a stable sort of
	// their indexes keeps each group in time order. 4 bytes an attempt,
	// where a map of per-group slices took tens, for millions of tasks.
	idx := spill.Make[int32](0, len(tl.Events))
	defer spill.Free(idx)
	for i := range tl.Events {
		if e := &tl.Events[i]; e.Layer == timeline.LayerHTTP && (e.TaskID != timeline.NoSym || e.CallID != timeline.NoSym) {
			idx = append(idx, int32(i))
		}
	}
	group := func(e *timeline.Event) (byCall bool, id timeline.Sym) {
		if e.TaskID != timeline.NoSym {
			return false, e.TaskID
		}
		return true, e.CallID
	}
	slices.SortStableFunc(idx, func(a, b int32) int {
		ca, ia := group(&tl.Events[a])
		cb, ib := group(&tl.Events[b])
		return cmp.Or(cmp.Compare(boolInt(ca), boolInt(cb)), cmp.Compare(ia, ib))
	})

	// A code is its error code, or its status when the log names none.
	type codeKey struct {
		code   timeline.Sym
		status int32
	}
	type tally struct {
		// status is that of the earliest attempt ending in the code, and
		// first that attempt's index: the order the groups are walked in
		// (by Sym) is not the log's.
		status, first           int32
		errors, retried, wasted int64
	}
	// Codes are labels (timeline.Labels), bounded per ingest, so the map
	// is too.
	byCode := map[codeKey]*tally{}
	for lo := 0; lo < len(idx); {
		bc, id := group(&tl.Events[idx[lo]])
		hi := lo + 1
		for hi < len(idx) {
			if c, i := group(&tl.Events[idx[hi]]); c != bc || i != id {
				break
			}
			hi++
		}
		var firstCode *tally
		for k := lo; k < hi; k++ {
			e := &tl.Events[idx[k]]
			if e.Outcome == timeline.OutcomeNonRetryable {
				key := codeKey{e.ErrorCode, 0}
				if e.ErrorCode == timeline.NoSym {
					key.status = int32(e.Status)
				}
				t := byCode[key]
				if t == nil {
					t = &tally{status: int32(e.Status), first: idx[k]}
					byCode[key] = t
				} else if idx[k] < t.first {
					t.status, t.first = int32(e.Status), idx[k]
				}
				t.errors++
				if k+1 < hi {
					t.retried++
				}
				if firstCode == nil {
					firstCode = t
					continue
				}
			}
			if firstCode != nil {
				firstCode.wasted++
			}
		}
		lo = hi
	}
	out := []analyze.RetriedError{}
	for key, t := range byCode {
		if t.retried == 0 {
			continue
		}
		code := key.code.String()
		if key.code == timeline.NoSym {
			code = fmt.Sprintf("HTTP %d", key.status)
		}
		out = append(out, analyze.RetriedError{
			Code: code, Status: t.status, Errors: t.errors, Retried: t.retried, Wasted: t.wasted,
			Text: fmt.Sprintf("%s (HTTP %d) cannot succeed on a retry, yet %s of %s were retried: %s attempts wasted after the first; classify it as non-retryable and fail the task at once",
				code, t.status, thousands(float64(t.retried)), thousands(float64(t.errors)), thousands(float64(t.wasted))),
		})
	}
	slices.SortFunc(out, func(a, b analyze.RetriedError) int {
		return cmp.Or(cmpInt(b.Wasted, a.Wasted), strings.Compare(a.Code, b.Code))
	})
	bound := analyze.TableBound{Rows: maxCodeRows}
	if len(out) <= maxCodeRows {
		return out, bound
	}
	other := analyze.RetriedError{Code: otherCodes}
	for _, r := range out[maxCodeRows-1:] {
		other.Errors += r.Errors
		other.Retried += r.Retried
		other.Wasted += r.Wasted
	}
	bound.Folded = int64(len(out) - maxCodeRows + 1)
	other.Text = fmt.Sprintf("%s more non-retryable error codes, each with no more wasted attempts than those above, were retried: %s of %s attempts ending in them, %s attempts wasted after the first",
		thousands(float64(bound.Folded)), thousands(float64(other.Retried)), thousands(float64(other.Errors)), thousands(float64(other.Wasted)))
	return append(out[:maxCodeRows-1:maxCodeRows-1], other), bound
}

// maxCodeRows bounds the non-retryable error codes listed, and
// recommended against one by one.
const (
	maxCodeRows = 20
	otherCodes  = "other error codes"
)

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
