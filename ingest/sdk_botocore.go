package ingest

import (
	"bytes"
	"strconv"

	"github.com/stampede/stampede/timeline"
)

// botocoreParser reads botocore's DEBUG log (legacy, standard and adaptive
// retry modes) behind any logging prefix, e.g.
//
//	2026-11-30T02:47:30.997Z DEBUG botocore.retries.standard [task-0137] Retry needed, retrying request after delay of: 0.146
//	2026-08-21 10:15:02,123 - botocore.endpoint - DEBUG - Sending http request: <AWSPreparedRequest ...>
//
// botocore never logs an attempt's status. What it logs is one retry
// decision per attempt, after the response, and that line is the attempt
// event (LayerHTTP, Start = the attempt's "Sending http request" line, End =
// the decision line):
//
//	Retry needed, retrying request after delay of: X   (standard)  retryable error
//	Retry needed, action of: X                          (legacy)    retryable error
//	Retry needed but retry quota reached, not retrying request.     retryable error, call ends
//	Reached the maximum number of retry attempts: N     (legacy)    retryable error, call ends, MaxAttempts N
//	Not retrying request.                               (standard)  outcome unknown: success, or an error not retried
//	No retry needed.                                    (legacy)    outcome unknown, likewise
//
// Standard mode logs "Max attempts of N reached." before deciding, for a
// success as much as for a failure, so it only sets MaxAttempts on the
// decision that follows; legacy mode follows "Reached the maximum ..." with
// "No retry needed." for the same attempt, which is then skipped.
// "Response received to retry, sleeping for X seconds" repeats a retry
// decision and is the event only when no decision line was logged for the
// attempt (the retries loggers filtered out). The sleep is the SDK's own
// backoff, not a server retry-after, so RetryAfter stays unknown; the next
// attempt's Start shows it. Adaptive mode's "Throttling response received,
// new send rate" is a rate limiter update and is skipped.
//
// The application's final "An error occurred (Code) when calling the Op
// operation (reached max retries: N): ..." (ClientError) is a call event
// (LayerCall) with ErrorCode, Route = the operation and Attempts = N+1
// (else the attempts counted for the call). It joins the call last run in
// the last bracket group before the message, taking that call's id and
// first send time as Start; End is the line's time. Printed as the last
// line of a traceback it has no time of its own and takes the time of the
// line before it.
//
// Attempts are joined to their call by the bracket group just before the
// message ("[ui-0001]", "[task-0104/q1]", "[MainThread]"): the thread or
// context the application logs with. CallID is the amz-sdk-invocation-id
// when the request line shows it (it is often cut off), else that group;
// a group that hosts several calls in turn names the n-th one "group#n"
// (n ≥ 2), a call starting at each "Making request for" line or, without
// those, at the first request after a final decision. Attempt is
// amz-sdk-request's attempt=N when visible, else counted within the call.
// Without a bracket group all lines share one context, which is right only
// for a single-threaded client. A decision with no request line before it
// (the endpoint logger off, or the file starting mid-call) is still an
// attempt: the next of its call, or the first of a new call after a final
// decision; its Start is then the decision's time.
type botocoreParser struct {
	strs     *interner
	pre      logPrefix
	outcomes outcomeCache
	calls    map[string]*botoCall
	// last is the latest line time, for traceback lines that have none.
	last int64
}

// botoCall is the state of the call a logging context is running.
type botoCall struct {
	n         int32 // calls seen in this context
	id        string
	route     string
	operation string
	start     int64 // first attempt's send time
	sent      int64 // current attempt's send time
	attempt   int32
	max       int32
	decided   bool // the current attempt already has its event
	ended     bool // a final decision was logged
	// lastDecision tells legacy mode's echo of a final decision apart.
	lastDecision botoMessage
}

func newBotocoreParser(strs *interner) *botocoreParser {
	return &botocoreParser{strs: strs, pre: newLogPrefix(), outcomes: outcomeCache{}, calls: make(map[string]*botoCall, 256)}
}

func (p *botocoreParser) format() string { return "botocore" }

const (
	skipAttemptStart   = "attempt start (its retry decision is the event)"
	skipCallStart      = "call start (its retry decisions are the events)"
	skipRepeatDecision = "repeats the attempt's retry decision"
	skipMaxAttemptNote = "attempt limit note (kept on the next decision)"
	skipRateLimiter    = "client rate limiter update"
)

// botoMessage is a recognised botocore message.
type botoMessage uint8

const (
	botoNone botoMessage = iota
	botoMakingRequest
	botoSending
	botoRetryStandard
	botoRetryLegacy
	botoQuotaReached
	botoNotRetrying
	botoNoRetryNeeded
	botoMaxReachedLegacy
	botoMaxAttemptsNote
	botoSleeping
	botoThrottleRate
	botoClientError
)

var botoMarkers = []struct {
	text string
	msg  botoMessage
}{
	{"Sending http request: ", botoSending},
	{"Making request for ", botoMakingRequest},
	{"Retry needed, retrying request after delay of: ", botoRetryStandard},
	{"Retry needed, action of: ", botoRetryLegacy},
	{"Retry needed but retry quota reached", botoQuotaReached},
	{"Not retrying request.", botoNotRetrying},
	{"No retry needed.", botoNoRetryNeeded},
	{"Reached the maximum number of retry attempts: ", botoMaxReachedLegacy},
	{"Max attempts of ", botoMaxAttemptsNote},
	{"Response received to retry, sleeping for ", botoSleeping},
	{"Throttling response received, new send rate", botoThrottleRate},
	{"An error occurred (", botoClientError},
}

// findBotoMessage returns the message kind, where its marker starts and
// what follows the marker.
func findBotoMessage(b []byte) (botoMessage, int, []byte) {
	for _, m := range botoMarkers {
		if k := bytes.Index(b, []byte(m.text)); k >= 0 {
			return m.msg, k, b[k+len(m.text):]
		}
	}
	return botoNone, 0, nil
}

func (p *botocoreParser) parse(line []byte, e *timeline.Event) string {
	ts, rest, hasTime := p.pre.split(line)
	msg, at, arg := findBotoMessage(rest)
	switch msg {
	case botoNone:
		return skipNotRequestLine
	case botoThrottleRate:
		return skipRateLimiter
	}
	if !hasTime {
		if msg != botoClientError || p.last == 0 {
			return skipNoTimestamp
		}
		// The last line of a traceback: it belongs to the record above.
		ts = p.last
	}
	p.last = ts
	var ctx string
	if msg == botoClientError {
		// The application's own message may stand between its context
		// and botocore's text: "[task-1] InvokeModel failed: An error ...".
		ctx = p.strs.bytes(lastBracket(rest[:at]))
	} else {
		ctx = p.strs.bytes(bracketBefore(rest, at))
	}
	c := p.calls[ctx]
	if c == nil {
		if len(p.calls) >= maxChains {
			clear(p.calls)
		}
		c = &botoCall{ended: true}
		p.calls[ctx] = c
	}

	switch msg {
	case botoMakingRequest:
		p.newCall(c, ctx)
		if op, ok := cutAfter(arg, "(name="); ok {
			if k := bytes.IndexByte(op, ')'); k > 0 {
				c.operation = p.strs.bytes(op[:k])
			}
		}
		return skipCallStart
	case botoSending:
		attempt, max, invocation := p.requestHeaders(arg)
		// A call starts after a final decision, or where the wire says
		// attempt=1, unless "Making request for" has just opened one.
		opened := !c.ended && c.attempt == 0
		if !opened && (c.ended || attempt == 1) {
			p.newCall(c, ctx)
		}
		if c.attempt == 0 {
			c.start = ts
		}
		if invocation != "" {
			c.id = invocation
		}
		if u, ok := cutAfter(arg, "url="); ok {
			if k := bytes.IndexAny(u, ", >"); k >= 0 {
				u = u[:k]
			}
			c.route = p.strs.bytes(pathOnly(u))
		}
		c.attempt++
		if attempt > 0 {
			c.attempt = attempt
		}
		if max > 0 {
			c.max = max
		}
		c.sent, c.decided = ts, false
		return skipAttemptStart
	case botoMaxAttemptsNote:
		if n, ok := digits(bytes.TrimSuffix(arg, []byte(" reached."))); ok && n < 1<<20 {
			c.max = int32(n)
		}
		return skipMaxAttemptNote
	case botoClientError:
		return p.clientError(c, ts, arg, e)
	}

	// A retry decision: the current attempt's outcome.
	if c.decided {
		if msg == botoSleeping || msg == botoNoRetryNeeded && c.lastDecision == botoMaxReachedLegacy {
			return skipRepeatDecision
		}
	}
	outcome, final := timeline.OutcomeRetryable, false
	switch msg {
	case botoQuotaReached:
		final = true
	case botoNotRetrying, botoNoRetryNeeded:
		outcome, final = timeline.OutcomeUnknown, true
	case botoMaxReachedLegacy:
		if n, ok := digits(arg); ok && n < 1<<20 {
			c.max = int32(n)
		}
		final = true
	}
	if c.decided || c.attempt == 0 {
		// An attempt whose request line is not in the log (the endpoint
		// logger is off, or the file starts mid-call): count it all the
		// same, without a start of its own.
		if c.ended {
			p.newCall(c, ctx)
		}
		c.attempt++
		c.sent = 0
	}
	if c.start == 0 {
		c.start = ts
	}
	e.Layer = timeline.LayerHTTP
	e.Outcome = outcome
	e.Start, e.End = c.sent, ts
	if e.Start == 0 {
		e.Start = ts
	}
	e.Attempt, e.MaxAttempts = c.attempt, c.max
	e.RetryAfter = timeline.NoRetryAfter
	e.Route, e.CallID, e.Client = timeline.Intern(c.route), timeline.Intern(c.id), timeline.Intern("botocore")
	c.decided, c.ended, c.lastDecision = true, final, msg
	return ""
}

// lastBracket returns the contents of the last "[...]" group in b, or nil.
func lastBracket(b []byte) []byte {
	i := bytes.LastIndexByte(b, ']')
	if i < 0 {
		return nil
	}
	j := bytes.LastIndexByte(b[:i], '[')
	if j < 0 {
		return nil
	}
	return b[j+1 : i]
}

// newCall starts the next call in a logging context.
func (p *botocoreParser) newCall(c *botoCall, ctx string) {
	c.n++
	c.id = ctx
	if c.n > 1 && ctx != "" {
		c.id = ctx + "#" + strconv.Itoa(int(c.n))
	}
	c.attempt, c.max, c.start, c.sent = 0, 0, 0, 0
	c.operation, c.route = "", ""
	c.decided, c.ended = false, false
}

// requestHeaders reads amz-sdk-request and amz-sdk-invocation-id from a
// printed AWSPreparedRequest, when the line was not cut before them.
func (p *botocoreParser) requestHeaders(b []byte) (attempt, max int32, invocation string) {
	if v, ok := cutAfter(b, "'amz-sdk-request': b'"); ok {
		if k := bytes.IndexByte(v, '\''); k >= 0 {
			attempt, max = parseAmzSDKRequest(v[:k])
		}
	}
	if v, ok := cutAfter(b, "'amz-sdk-invocation-id': b'"); ok {
		if k := bytes.IndexByte(v, '\''); k > 0 {
			invocation = p.strs.bytes(v[:k])
		}
	}
	return attempt, max, invocation
}

// clientError reads "Code) when calling the Op operation (reached max
// retries: N): message" into a failed call event.
func (p *botocoreParser) clientError(c *botoCall, ts int64, arg []byte, e *timeline.Event) string {
	k := bytes.IndexByte(arg, ')')
	if k <= 0 {
		return "ClientError without an error code"
	}
	e.ErrorCode = p.strs.sym(arg[:k])
	r, ok := bytes.CutPrefix(arg[k+1:], []byte(" when calling the "))
	if !ok {
		return `ClientError without "when calling the <operation> operation"`
	}
	op := r
	if k := bytes.Index(r, []byte(" operation")); k > 0 {
		op, r = r[:k], r[k+len(" operation"):]
	} else {
		return `ClientError without "when calling the <operation> operation"`
	}
	e.Route = p.strs.sym(op)
	if v, ok := bytes.CutPrefix(r, []byte(" (reached max retries: ")); ok {
		n, _ := leadingDecimal(v)
		if m, ok := digits(n); ok && m < 1<<20 {
			e.Attempts = int32(m) + 1
		}
	}
	e.Layer = timeline.LayerCall
	e.Start, e.End = ts, ts
	if !c.ended || c.attempt > 0 {
		// The context's current (or just finished) call is this one.
		if c.start != 0 {
			e.Start = c.start
		}
		e.CallID = timeline.Intern(c.id)
		if e.Attempts == 0 {
			e.Attempts = c.attempt
		}
	}
	e.RetryAfter = timeline.NoRetryAfter
	e.Client = timeline.Intern("botocore")
	e.Outcome = p.outcomes.classify(0, e.ErrorCode)
	return ""
}

// sniffBotocore claims a sample with at least one timestamped botocore
// request or retry message.
func sniffBotocore(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	p := newBotocoreParser(strs)
	for _, l := range sample {
		_, rest, ok := p.pre.split(l.text)
		if !ok || !bytes.Contains(rest, []byte("botocore")) {
			continue
		}
		if msg, _, _ := findBotoMessage(rest); msg != botoNone {
			return p, ""
		}
	}
	return nil, "botocore (no timestamped botocore request or retry line)"
}
