package whatif

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/timeline"
)

// RetriedNonRetryable finds attempts that ended in an error no retry can
// fix (a service quota, a validation error: timeline.OutcomeNonRetryable)
// and were followed by more attempts of the same task, or of the same call
// when the log has no task ids. Every attempt after the first such error of
// a task or call is counted as wasted: it was bound to fail the same way.
// Codes are listed most wasted first.
func RetriedNonRetryable(tl *timeline.Timeline) []analyze.RetriedError {
	groups := map[string][]*timeline.Event{}
	var keys []string
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP {
			continue
		}
		key := "task " + e.TaskID.String()
		if e.TaskID == timeline.NoSym {
			if e.CallID == timeline.NoSym {
				continue
			}
			key = "call " + e.CallID.String()
		}
		if _, ok := groups[key]; !ok {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], e)
	}
	type tally struct {
		status                  int32
		errors, retried, wasted int64
	}
	byCode := map[string]*tally{}
	for _, k := range keys {
		g := groups[k]
		slices.SortStableFunc(g, func(a, b *timeline.Event) int { return cmpInt(a.Start, b.Start) })
		firstCode := ""
		for i, e := range g {
			if e.Outcome == timeline.OutcomeNonRetryable {
				code := codeOf(e)
				t := byCode[code]
				if t == nil {
					t = &tally{status: e.Status}
					byCode[code] = t
				}
				t.errors++
				if i+1 < len(g) {
					t.retried++
				}
				if firstCode == "" {
					firstCode = code
					continue
				}
			}
			if firstCode != "" {
				byCode[firstCode].wasted++
			}
		}
	}
	out := []analyze.RetriedError{}
	for code, t := range byCode {
		if t.retried == 0 {
			continue
		}
		out = append(out, analyze.RetriedError{
			Code: code, Status: t.status, Errors: t.errors, Retried: t.retried, Wasted: t.wasted,
			Text: fmt.Sprintf("%s (HTTP %d) cannot succeed on a retry, yet %s of %s were retried: %s attempts wasted after the first; classify it as non-retryable and fail the task at once",
				code, t.status, thousands(float64(t.retried)), thousands(float64(t.errors)), thousands(float64(t.wasted))),
		})
	}
	slices.SortFunc(out, func(a, b analyze.RetriedError) int {
		if a.Wasted != b.Wasted {
			return cmpInt(b.Wasted, a.Wasted)
		}
		return strings.Compare(a.Code, b.Code)
	})
	return out
}

func codeOf(e *timeline.Event) string {
	if e.ErrorCode != timeline.NoSym {
		return e.ErrorCode.String()
	}
	return fmt.Sprintf("HTTP %d", e.Status)
}
