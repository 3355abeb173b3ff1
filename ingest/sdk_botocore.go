package ingest

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/stampede/stampede/timeline"
)

// botocoreParser reads botocore's DEBUG log (legacy, standard and adaptive
// retry modes) behind any logging prefix, e.g.
//
//	2026-11-30T02:47:30.997Z DEBUG botocore.retries.standard [task-0137] Retry needed, retrying request after delay of: 0.146
//	2026-08-21 10:15:02,123 - botocore.endpoint - DEBUG - Sending http request: <AWSPreparedRequest ...>
//
// botocore logs one retry decision per attempt, after the response, and
// that line is the attempt event (LayerHTTP, Start = the attempt's "Sending
// http request" line, End = the decision line):
//
//	Retry needed, retrying request after delay of: X   (standard)  the response was retryable
//	Retry needed, action of: X                          (legacy)    likewise
//	Retry needed but retry quota reached, not retrying request.     retryable, call ends
//	Reached the maximum number of retry attempts: N     (legacy)    retryable, call ends, MaxAttempts N
//	Not retrying request.                               (standard)  not retryable: a success, or an error botocore does not retry
//	No retry needed.                                    (legacy)    likewise
//
// The status comes from, in this order: urllib3's line for the attempt
// (`"POST /model/x/invoke HTTP/1.1" 429 205`, logger urllib3.connectionpool),
// legacy mode's checker line before the decision ("retry needed: retryable
// HTTP status code received: 429", "retry needed: matching HTTP status and
// error code seen: 400, ThrottlingException"), and adaptive mode's
// "Throttling response received" after it. botocore.parsers' "Response
// headers: {...}" line, when that logger is on, gives the error code
// (x-amzn-ErrorType) and the server's retry-after (Retry-After, seconds or
// an HTTP date), which botocore ignores but the server sent. Standard mode
// logs no status: a
// retryable response there is a throttle (error codes such as
// ThrottlingException, whatever their status, and any 429) or a transient
// error (500, 502, 503, 504, a timeout). With no line that says which, a
// retryable attempt counts as throttled, since in a log read for a
// throttling incident that is what the retries are; urllib3's status line
// (logger urllib3 at DEBUG) removes the doubt. A "not retryable" decision
// counts as a success, except on an attempt that reached the attempt limit
// ("Max attempts of N reached.", which standard mode logs before deciding,
// for a success as much as for a failure): its outcome stays unknown until
// the application's ClientError says the call failed.
//
// Legacy mode follows "Reached the maximum ..." with "No retry needed." for
// the same attempt, which is then skipped. "Response received to retry,
// sleeping for X seconds" repeats a retry decision and is the event only
// when no decision line was logged for the attempt (the retries loggers
// filtered out). The sleep is the SDK's own backoff, not a server
// retry-after, so RetryAfter stays unknown; the next attempt's Start shows
// it.
//
// The application's final "An error occurred (Code) when calling the Op
// operation (reached max retries: N): ..." (ClientError) is a call event
// (LayerCall) with ErrorCode, Route = the operation and Attempts = N+1
// (else the attempts counted for the call); a numeric Code ("(429)", which
// botocore writes when the error body does not parse) is the status. It
// joins the call last run in the last bracket group before the message,
// taking that call's id and first send time as Start, and the outcome of
// that call's last attempt when the decision left it unknown; End is the
// line's time. Printed as the last line of a traceback it has no time of
// its own and takes the time of the line before it.
//
// Client is the User-Agent the request lines show ('User-Agent':
// b'Boto3/1.28.79 ... Botocore/1.31.79'), else "botocore". When the
// User-Agent does not name the retry mode (botocore before 1.31 writes no
// cfg/retry-mode#), the logger that logs the decisions does:
// botocore.retryhandler is legacy mode, botocore.retries.standard standard
// mode, and botocore.retries.adaptive adaptive mode; Client then gets
// " cfg/retry-mode#<mode>" appended, as newer versions write it.
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
	earlier
	calls map[string]*botoCall
	// last is the latest line time, for traceback lines that have none.
	last int64
	// mode is the retry mode the decision loggers name, "" until one has.
	mode string
	// clients interns the Client of each User-Agent and mode.
	clients map[botoClientKey]timeline.Sym
}

type botoClientKey struct{ ua, mode string }

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
	// ua is the User-Agent the call's request lines show.
	ua string
	// status and code are what the log said of the current attempt's
	// response before its decision; maxNoted is standard mode's attempt
	// limit note for it.
	status   int32
	code     string
	maxNoted bool
	// retryAfter is the response's retry-after when hasRetryAfter.
	retryAfter    timeline.Millis
	hasRetryAfter bool
	// eventLine is the line of the current attempt's event, for what later
	// lines say of it.
	eventLine int64
}

func newBotocoreParser(strs *interner) *botocoreParser {
	return &botocoreParser{strs: strs, pre: newLogPrefix(), outcomes: outcomeCache{},
		calls: map[string]*botoCall{}, clients: map[botoClientKey]timeline.Sym{}}
}

func (p *botocoreParser) format() string { return "botocore" }

const (
	skipAttemptStart   = "attempt start (its retry decision is the event)"
	skipCallStart      = "call start (its retry decisions are the events)"
	skipRepeatDecision = "repeats the attempt's retry decision"
	skipMaxAttemptNote = "attempt limit note (kept on the next decision)"
	skipThrottleNote   = "throttle note (kept on the attempt's event)"

	warnBotoAssumedThrottle = "botocore logs no status here: its retryable responses are counted as throttled, " +
		"though a 5xx or a timeout reads the same; urllib3's DEBUG lines (logger urllib3) would show each status"
	warnBotoLimitUnknown = "botocore's last attempts at the attempt limit are a success or a failure that the log " +
		"does not tell apart (standard mode logs the limit either way); they are counted as unknown unless a ClientError follows"
	skipStatusNote = "response status (kept on the next decision)"
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
	botoLegacyStatus
	botoLegacyCode
	botoLegacyException
	botoURLLib3
	botoResponseHeaders
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
	{"retry needed: retryable HTTP status code received: ", botoLegacyStatus},
	{"retry needed: matching HTTP status and error code seen: ", botoLegacyCode},
	{"retry needed, retryable exception caught: ", botoLegacyException},
	{"urllib3.connectionpool", botoURLLib3},
	{"Response headers: {", botoResponseHeaders},
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
		p.noteMode(rest[:at])
	case botoURLLib3:
		// The message follows the logger name and any context group.
		k := bytes.Index(arg, []byte("://"))
		if k < 0 || !bytes.Contains(arg, []byte(" HTTP/")) {
			return skipNotRequestLine
		}
		at += len("urllib3.connectionpool") + bytes.LastIndexByte(arg[:k], ' ') + 1
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
		if ua := userAgent(arg, "'User-Agent': '"); ua != nil {
			c.ua = p.strs.bytes(ua)
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
		if ua := userAgent(arg, "'User-Agent': b'"); ua != nil {
			c.ua = p.strs.bytes(ua)
		}
		if u, ok := cutAfter(arg, "url="); ok {
			if k := bytes.IndexAny(u, ", >"); k >= 0 {
				u = u[:k]
			}
			c.route = p.strs.bytes(pathOnly(u))
		}
		c.attempt++
		if attempt > 0 {
			c.attempt = int32(attempt)
		}
		if max > 0 {
			c.max = int32(max)
		}
		c.sent, c.decided = ts, false
		c.status, c.code, c.hasRetryAfter, c.maxNoted = 0, "", false, false
		return skipAttemptStart
	case botoMaxAttemptsNote:
		if n, ok := digits(bytes.TrimSuffix(arg, []byte(" reached."))); ok && n < 1<<20 {
			c.max = int32(n)
		}
		c.maxNoted = true
		return skipMaxAttemptNote
	case botoURLLib3:
		if n := urllib3Status(arg); n > 0 && !c.decided {
			c.status = n
		}
		return skipStatusNote
	case botoResponseHeaders:
		// botocore.parsers prints the response headers as a Python dict.
		if v := pyDictValue(arg, "Retry-After", "retry-after"); v != nil && len(v) <= 64 {
			if d := parseRetryAfter(v, ts); d != timeline.NoRetryAfter {
				c.retryAfter, c.hasRetryAfter = d, true
			}
		}
		if v := pyDictValue(arg, "x-amzn-ErrorType", "x-amzn-errortype"); v != nil && c.code == "" {
			code, _, _ := bytes.Cut(v, []byte(":"))
			c.code = p.strs.bytes(code)
		}
		return skipStatusNote
	case botoLegacyStatus:
		p.noteMode(rest[:at])
		if n, ok := digits(bytes.TrimSpace(arg)); ok && n <= 999 && c.status == 0 {
			c.status = int32(n)
		}
		return skipStatusNote
	case botoLegacyCode:
		p.noteMode(rest[:at])
		// "400, ThrottlingException"
		st, code, _ := bytes.Cut(arg, []byte(", "))
		if n, ok := digits(st); ok && n <= 999 && c.status == 0 {
			c.status = int32(n)
		}
		c.code = p.strs.bytes(bytes.TrimSpace(code))
		return skipStatusNote
	case botoLegacyException:
		p.noteMode(rest[:at])
		if c.status == 0 {
			c.code = "exception"
		}
		return skipStatusNote
	case botoThrottleRate:
		// Adaptive mode logs this after the decision on a throttling
		// response: the attempt just decided was throttled.
		if c.decided {
			if ev := p.at(c.eventLine); ev != nil && ev.Outcome != timeline.OutcomeThrottled {
				ev.Outcome = timeline.OutcomeThrottled
			}
		}
		return skipThrottleNote
	case botoClientError:
		return p.clientError(c, ts, arg, e)
	}

	// A retry decision: the current attempt's outcome.
	if c.decided {
		if msg == botoSleeping || msg == botoNoRetryNeeded && c.lastDecision == botoMaxReachedLegacy {
			return skipRepeatDecision
		}
	}
	p.noteMode(rest[:at])
	retryable, final := true, false
	switch msg {
	case botoQuotaReached:
		final = true
	case botoNotRetrying, botoNoRetryNeeded:
		retryable, final = false, true
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
	e.Status = timeline.Small(c.status)
	e.ErrorCode = p.strs.label(timeline.LabelErrorCode, []byte(c.code))
	switch {
	case c.status != 0 || c.code != "":
		e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
		if retryable && !e.Outcome.Failed() {
			e.Outcome = timeline.OutcomeRetryable
		}
	case retryable:
		e.Outcome = timeline.OutcomeThrottled
		p.warn(warnBotoAssumedThrottle)
	case c.maxNoted:
		e.Outcome = timeline.OutcomeUnknown
		p.warn(warnBotoLimitUnknown)
	default:
		e.Outcome = timeline.OutcomeOK
	}
	e.Start, e.End = c.sent, ts
	if e.Start == 0 {
		e.Start = ts
	}
	e.Attempt, e.MaxAttempts = timeline.Small(c.attempt), timeline.Small(c.max)
	e.RetryAfter = timeline.NoRetryAfter
	if c.hasRetryAfter {
		e.RetryAfter = c.retryAfter
	}
	e.Route, e.CallID, e.Client = p.strs.label(timeline.LabelRoute, []byte(c.route)), timeline.Intern(c.id), p.client(c.ua)
	c.decided, c.ended, c.lastDecision = true, final, msg
	c.eventLine = e.Line
	c.status, c.code, c.hasRetryAfter, c.maxNoted = 0, "", false, false
	return ""
}

// noteMode reads the retry mode from the logger name before a decision.
func (p *botocoreParser) noteMode(b []byte) {
	switch {
	case bytes.Contains(b, []byte("botocore.retries.adaptive")):
		p.mode = "adaptive"
	case p.mode == "adaptive":
		// Adaptive mode decides through standard mode's logger.
	case bytes.Contains(b, []byte("botocore.retries.standard")):
		p.mode = "standard"
	case bytes.Contains(b, []byte("botocore.retryhandler")):
		p.mode = "legacy"
	}
}

// client is the Client of an attempt: the User-Agent, with the retry mode
// the loggers name when it does not say it.
func (p *botocoreParser) client(ua string) timeline.Sym {
	k := botoClientKey{ua, p.mode}
	if s, ok := p.clients[k]; ok {
		return s
	}
	c := ua
	if c == "" {
		c = "botocore"
	}
	if p.mode != "" && !strings.Contains(c, "cfg/retry-mode#") {
		c += " cfg/retry-mode#" + p.mode
	}
	s := p.strs.label(timeline.LabelClient, []byte(c))
	if len(p.clients) < 1<<10 {
		p.clients[k] = s
	}
	return s
}

// userAgent returns the quoted User-Agent after marker in a printed
// request, or nil when the line was cut before its end.
func userAgent(b []byte, marker string) []byte {
	v, ok := cutAfter(b, marker)
	if !ok {
		return nil
	}
	k := bytes.IndexByte(v, '\'')
	if k <= 0 || k > 512 {
		return nil
	}
	return v[:k]
}

// pyDictValue returns the string value of key (either spelling) in a
// printed Python dict, or nil.
func pyDictValue(b []byte, key, alt string) []byte {
	v, ok := cutAfter(b, "'"+key+"': '")
	if !ok {
		if v, ok = cutAfter(b, "'"+alt+"': '"); !ok {
			return nil
		}
	}
	k := bytes.IndexByte(v, '\'')
	if k < 0 {
		return nil
	}
	return v[:k]
}

// urllib3Status reads the status of urllib3's `"GET /x HTTP/1.1" 429 6`.
func urllib3Status(b []byte) int32 {
	k := bytes.LastIndex(b, []byte(" HTTP/"))
	if k < 0 {
		return 0
	}
	q := bytes.Index(b[k:], []byte(`" `))
	if q < 0 {
		return 0
	}
	st, _ := leadingDecimal(b[k+q+2:])
	n, ok := digits(st)
	if !ok || n < 100 || n > 999 {
		return 0
	}
	return int32(n)
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
func (p *botocoreParser) requestHeaders(b []byte) (attempt, max int16, invocation string) {
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
	if n, ok := digits(arg[:k]); ok && n >= 100 && n <= 999 {
		// botocore names the error by its status when the body does not
		// parse: "An error occurred (429)".
		e.Status = timeline.Small(n)
	} else {
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, arg[:k])
	}
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
	e.Route = p.strs.label(timeline.LabelRoute, op)
	if v, ok := bytes.CutPrefix(r, []byte(" (reached max retries: ")); ok {
		n, _ := leadingDecimal(v)
		if m, ok := digits(n); ok && m < 1<<20 {
			e.Attempts = timeline.Small(m + 1)
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
			e.Attempts = timeline.Small(c.attempt)
		}
	}
	e.RetryAfter = timeline.NoRetryAfter
	e.Client = p.client(c.ua)
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	if !e.Outcome.Failed() {
		e.Outcome = timeline.OutcomeRetryable
	}
	if c.decided {
		// The call failed with this error: its last attempt did, when
		// its decision could not tell.
		if ev := p.at(c.eventLine); ev != nil && !ev.Outcome.Failed() {
			ev.Outcome = e.Outcome
			if ev.Status == 0 {
				ev.Status = e.Status
			}
			if ev.ErrorCode == timeline.NoSym {
				ev.ErrorCode = e.ErrorCode
			}
		}
	}
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
