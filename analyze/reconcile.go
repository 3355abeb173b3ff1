package analyze

import (
	"fmt"
	"sort"
	"strings"

	"github.com/stampede/stampede/timeline"
)

// Reconcile explains why the HTTP throttle rate and the application's error
// rate differ. Its caveats are in Run's Warnings.
func Reconcile(tl *timeline.Timeline) Reconciliation {
	return reconcile(buildJoins(tl))
}

func appSide(j *joins, keep func(*callUnit) bool) AppSide {
	var a AppSide
	for i := range j.calls {
		c := &j.calls[i]
		if keep != nil && !keep(c) {
			continue
		}
		a.Calls++
		switch {
		case c.failed():
			a.Failed++
			if c.outcome == timeline.OutcomeThrottled {
				a.FailedThrottle++
			}
		case c.outcome == timeline.OutcomeUnknown:
			a.Unknown++
		}
	}
	a.ErrorRate = ratio(float64(a.Failed), float64(a.Calls))
	if a.Unknown > 0 {
		a.ErrorRateMax = ratio(float64(a.Failed+a.Unknown), float64(a.Calls))
	}
	if j.callsFromLog {
		a.Source = "sdk log"
	} else {
		a.Source = inferredCallsSource + j.attemptMethod
	}
	return a
}

// inferredCallsSource opens AppSide.Source when calls were rebuilt from the
// access log rather than read from an SDK log.
const inferredCallsSource = "inferred: final attempt of each HTTP call joined by "

// attemptsPerCall prefers the SDK's own attempt count; without it, the
// joined attempt groups; without those, HTTP attempts over logged calls.
func attemptsPerCall(j *joins, keep func(*callUnit) bool, httpAttempts int64) (float64, bool) {
	var att, n int64
	for i := range j.calls {
		c := &j.calls[i]
		if (keep == nil || keep(c)) && c.attempts > 0 {
			att += int64(c.attempts)
			n++
		}
	}
	if n > 0 {
		return float64(att) / float64(n), true
	}
	calls := int64(0)
	for i := range j.calls {
		if keep == nil || keep(&j.calls[i]) {
			calls++
		}
	}
	return ratio(float64(httpAttempts), float64(calls)), false
}

// inferredHTTPSide counts the attempts of calls whose SDK log says how many
// attempts each made, where no attempt is logged (an SDK logger that writes
// one record per call). A call that ended ok after n attempts had n-1
// failed ones, and a call that failed on a throttle had n throttled ones.
// The failed attempts before a success are taken as throttles only where
// every failed call failed on a throttle; otherwise there is no telling.
func inferredHTTPSide(j *joins, keep func(*callUnit) bool) (HTTPSide, bool) {
	var h HTTPSide
	for i := range j.calls {
		c := &j.calls[i]
		if keep != nil && !keep(c) {
			continue
		}
		if c.attempts <= 0 {
			return HTTPSide{}, false
		}
		switch {
		case c.outcome == timeline.OutcomeOK:
			h.OK++
			h.Throttled += int64(c.attempts - 1)
		case c.outcome == timeline.OutcomeThrottled:
			h.Throttled += int64(c.attempts)
		default:
			return HTTPSide{}, false
		}
		h.Attempts += int64(c.attempts)
	}
	h.setRates()
	h.Inferred = inferredHTTPNote
	return h, h.Attempts > 0
}

const inferredHTTPNote = "from the SDK's attempt count per call: no attempt is logged, and every failed call failed on a throttle, so the attempts before each last one are taken as throttles"

func reconcile(j *joins) Reconciliation {
	tl := j.tl
	r := Reconciliation{HTTP: j.counts.httpSide(tl, timeline.ClassUnknown, true), App: appSide(j, nil), Method: j.attemptMethod,
		AttemptsJoined: j.joinedAttempts(), ByClass: []ClassReconciliation{}}
	inferHTTP := len(j.http) == 0 && j.callsFromLog
	if inferHTTP {
		if h, ok := inferredHTTPSide(j, nil); ok {
			r.HTTP = h
			// Each attempt is tied to its call by construction.
			r.ThrottledRecovered = h.Throttled
			for i := range j.calls {
				if c := &j.calls[i]; c.outcome == timeline.OutcomeThrottled {
					r.ThrottledRecovered -= int64(c.attempts)
					r.ThrottledInFailedCalls += int64(c.attempts)
				}
			}
		} else {
			inferHTTP = false
		}
	}
	r.AttemptsPerCall, _ = attemptsPerCall(j, nil, r.HTTP.Attempts)

	// Every throttled attempt split by the fate of its call, as seen on the
	// wire: a later ok attempt in the same group recovered it.
	t := j.tally
	r.ThrottledRecovered += t.throttledRecovered
	r.ThrottledInFailedCalls += t.throttledInFailed
	r.ThrottledInUnknownCalls += t.throttledInUnknown
	for _, n := range t.throttledUnjoined {
		r.ThrottledUnjoined += n
	}
	proxyCodes := map[string]int64{}
	for code, n := range t.throttledByCode {
		if c := code.String(); timeline.IsProxyCode(c) {
			r.ThrottledByProxy += n
			proxyCodes[c] += n
		}
	}
	r.ProxyCodes = byCount(proxyCodes)
	if r.ThrottledUnjoined > 0 && j.callsFromLog && j.sdkAttempts {
		splitUnjoinedByCallCounts(j, &r, t.throttledUnjoined)
	}
	// A call recovered by retry: ok in the end after at least one failed
	// attempt.
	if j.callsFromLog && j.sdkAttempts {
		for i := range j.calls {
			c := &j.calls[i]
			if c.outcome == timeline.OutcomeOK && c.attempts > 1 {
				r.CallsRecoveredByRetry++
			}
		}
	} else {
		r.CallsRecoveredByRetry = t.groupsRecovered
	}

	for _, cl := range []timeline.Class{timeline.ClassBatch, timeline.ClassInteractive} {
		cl := cl
		h := j.counts.httpSide(tl, cl, false)
		keep := func(c *callUnit) bool { return c.class == cl }
		if inferHTTP {
			h, _ = inferredHTTPSide(j, keep)
		}
		a := appSide(j, keep)
		if h.Attempts == 0 && a.Calls == 0 {
			continue
		}
		apc, _ := attemptsPerCall(j, keep, h.Attempts)
		r.ByClass = append(r.ByClass, ClassReconciliation{Class: cl.String(), HTTP: h, App: a, AttemptsPerCall: apc})
	}
	if !j.callsFromLog && len(j.http) > 0 {
		j.warnf("no SDK call log: application error rate inferred from HTTP join keys")
		if strings.HasPrefix(r.App.Source, inferredCallsSource) && r.App.Calls > 0 && r.AttemptsJoined < r.HTTP.Attempts {
			// The "all" row puts every attempt beside only the calls the
			// join keys found: say which population each side counts.
			j.warnf("the reconciliation's \"all\" row counts all %s attempts on the HTTP side but only the %s calls of the %s attempts with join keys on the application side; no call was identified for the other %s",
				count(r.HTTP.Attempts), count(r.App.Calls), count(r.AttemptsJoined), plural(r.HTTP.Attempts-r.AttemptsJoined, count(1)+" attempt", count(r.HTTP.Attempts-r.AttemptsJoined)+" attempts"))
		}
	}
	r.Explanation = explainReconcile(&r)
	if r.Explanation == nil {
		r.Explanation = []string{}
	}
	return r
}

// splitUnjoinedByCallCounts splits the throttled attempts that no join key
// tied to a call by the SDK's own attempt counts on the calls that no
// attempt group holds. Interactive callers rarely send a task id, so the
// wire cannot say which call an attempt belonged to, but the call log says
// how many attempts each call made and how it ended: a call that ended ok
// after n attempts had n-1 attempts retried into its success. That holds
// for throttles only when throttles were the class's only failed attempts,
// so a class with other failures keeps its attempts unjoined.
func splitUnjoinedByCallCounts(j *joins, r *Reconciliation, unjoined map[timeline.Class]int64) {
	recoveredBy := map[timeline.Class]int64{}
	failedBy := map[timeline.Class]int64{}
	for i := range j.calls {
		c := &j.calls[i]
		if c.group >= 0 || c.attempts <= 0 {
			continue
		}
		switch {
		case c.outcome == timeline.OutcomeOK:
			recoveredBy[c.class] += int64(c.attempts - 1)
		case c.outcome == timeline.OutcomeThrottled:
			failedBy[c.class] += int64(c.attempts)
		}
	}
	var moved int64
	for cl, n := range unjoined {
		h := j.counts.httpSide(j.tl, cl, false)
		if h.Retryable+h.NonRetryable > 0 {
			continue
		}
		// Counts that disagree with the wire say the logs do not cover the
		// same calls: leave the attempts unjoined rather than guess.
		if recoveredBy[cl]+failedBy[cl] != n {
			continue
		}
		r.ThrottledRecovered += recoveredBy[cl]
		r.ThrottledInFailedCalls += failedBy[cl]
		moved += n
	}
	if moved > 0 {
		r.ThrottledUnjoined -= moved
		r.Method += fmt.Sprintf("; %s throttled attempts without join keys split by the SDK's attempt counts per call", count(moved))
	}
}

// explainReconcile puts numerators and denominators side by side. Every
// number in it is a field of r.
func explainReconcile(r *Reconciliation) []string {
	var out []string
	h, a := r.HTTP, r.App
	if h.Attempts > 0 && a.Calls > 0 {
		// Compared as printed: rates that print alike are not said to differ.
		link := "and"
		// Where outcomes are unknown, the rates are ranges, and only ranges
		// apart differ.
		errMax, throttleMax := max(a.ErrorRate, a.ErrorRateMax), max(h.ThrottleRate, h.ThrottleRateMax)
		switch {
		case pct(a.ErrorRate) == pct(h.ThrottleRate) || pct(errMax) == pct(h.ThrottleRate) || pct(a.ErrorRate) == pct(throttleMax):
		case errMax < h.ThrottleRate:
			link = "but only"
		case a.ErrorRate > throttleMax:
			link = "while"
		}
		calls := plural(a.Calls, "call", "calls")
		if strings.HasPrefix(a.Source, inferredCallsSource) && r.AttemptsJoined < h.Attempts {
			// Inferred calls cover only the attempts that carry join keys, so
			// say which population the second rate is over.
			calls += fmt.Sprintf(" (inferred from the %s attempts that carry join keys)", count(r.AttemptsJoined))
		}
		s := fmt.Sprintf("%s of %s HTTP %s %s throttled (%s), %s %s of %s %s failed (%s)",
			pctRange(h.ThrottleRate, h.ThrottleRateMax), count(h.Attempts), plural(h.Attempts, "attempt", "attempts"), plural(h.Attempts, "was", "were"),
			countUnknown(h.Throttled, h.Unknown, "attempt"), link, pctRange(a.ErrorRate, a.ErrorRateMax), count(a.Calls), calls, countUnknown(a.Failed, a.Unknown, "call"))
		if r.AttemptsPerCall > 0 {
			s += fmt.Sprintf(": each call made %s attempts on average", num(r.AttemptsPerCall))
		}
		s += fmt.Sprintf(", and %s throttled %s retried into a success", count(r.ThrottledRecovered),
			plural(r.ThrottledRecovered, "attempt was", "attempts were"))
		if r.ThrottledInUnknownCalls > 0 {
			s += fmt.Sprintf(" (up to %s more in the calls of unknown outcome)", count(r.ThrottledInUnknownCalls))
		}
		s += "."
		out = append(out, s)
	} else if a.Calls > 0 {
		s := fmt.Sprintf("%s of %s %s failed (%s)", pctRange(a.ErrorRate, a.ErrorRateMax), count(a.Calls), plural(a.Calls, "call", "calls"), countUnknown(a.Failed, a.Unknown, "call"))
		if r.AttemptsPerCall > 0 {
			s += fmt.Sprintf(" after %s attempts per call as the SDK reports them", num(r.AttemptsPerCall))
		}
		out = append(out, s+"; there is no HTTP access log to compare with.")
	} else if h.Attempts > 0 {
		out = append(out, fmt.Sprintf("%s of %s HTTP %s throttled (%s); no calls could be identified.",
			pctRange(h.ThrottleRate, h.ThrottleRateMax), count(h.Attempts), plural(h.Attempts, "attempt was", "attempts were"), countUnknown(h.Throttled, h.Unknown, "attempt")))
	}
	if h.Inferred != "" {
		out = append(out, "The HTTP counts are inferred "+h.Inferred+".")
	}
	if h.Throttled > 0 {
		parts := []string{
			fmt.Sprintf("%s %s followed by a successful retry of the same call", count(r.ThrottledRecovered), plural(r.ThrottledRecovered, "was", "were")),
			fmt.Sprintf("%s belonged to calls that failed", count(r.ThrottledInFailedCalls)),
		}
		if r.ThrottledInUnknownCalls > 0 {
			parts = append(parts, fmt.Sprintf("%s belonged to calls whose outcome the log does not show", count(r.ThrottledInUnknownCalls)))
		}
		if r.ThrottledUnjoined > 0 {
			parts = append(parts, fmt.Sprintf("%s could not be tied to a call", count(r.ThrottledUnjoined)))
		}
		out = append(out, fmt.Sprintf("Of the %s throttled %s, %s.", count(h.Throttled), plural(h.Throttled, "attempt", "attempts"),
			joinWords(parts, "and")))
	}
	if r.ThrottledByProxy > 0 {
		out = append(out, fmt.Sprintf("%s of the %s throttled %s %s refused by the proxy's own limit (%s), not by the endpoint's.",
			count(r.ThrottledByProxy), count(h.Throttled), plural(h.Throttled, "attempt", "attempts"), plural(r.ThrottledByProxy, "was", "were"),
			strings.Join(r.ProxyCodes, ", ")))
	}
	for _, c := range r.ByClass {
		if c.HTTP.Attempts == 0 || c.App.Calls == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s of %s %s throttled (%s), %s of %s %s failed (%s), %s attempts per call.",
			upperFirst(c.Class), pctRange(c.HTTP.ThrottleRate, c.HTTP.ThrottleRateMax), count(c.HTTP.Attempts), plural(c.HTTP.Attempts, "attempt", "attempts"),
			countUnknown(c.HTTP.Throttled, c.HTTP.Unknown, "attempt"), pctRange(c.App.ErrorRate, c.App.ErrorRateMax), count(c.App.Calls), plural(c.App.Calls, "call", "calls"),
			countUnknown(c.App.Failed, c.App.Unknown, "call"), num(c.AttemptsPerCall)))
	}
	return out
}

// pctRange is a rate, or the range it lies in when some outcomes are
// unknown (max is then above 0).
func pctRange(lo, max float64) string {
	if max <= 0 || pct(max) == pct(lo) {
		return pct(lo)
	}
	return pct(lo) + " to " + pct(max)
}

// countUnknown is a count, with the units of unknown outcome that might
// also belong to it.
func countUnknown(n, unknown int64, unit string) string {
	if unknown == 0 {
		return count(n)
	}
	return fmt.Sprintf("%s, and up to %s more %s of unknown outcome", count(n), count(unknown), plural(unknown, unit, unit+"s"))
}

// byCount lists the keys of m, the most counted first.
func byCount(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if m[keys[a]] != m[keys[b]] {
			return m[keys[a]] > m[keys[b]]
		}
		return keys[a] < keys[b]
	})
	return keys
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
