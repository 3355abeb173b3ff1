package ingest

import (
	"bytes"
	"strconv"
	"time"

	"github.com/stampede/stampede/timeline"
)

// caddyParser reads Caddy's JSON access log (logger "http.log.access",
// or "http.log.access.NAME" for a named log). Lines from other loggers in
// the same file are counted as skipped. ts is when the entry was written,
// after the response, so End = ts and Start = ts - duration. resp_headers
// carries the Retry-After the client was sent.
type caddyParser struct {
	js       *jsonPaths
	strs     *interner
	outcomes outcomeCache
}

const (
	cdLogger = iota
	cdTS
	cdDuration
	cdStatus
	cdURI
	cdUserAgent
	cdTaskID
	cdJobID
	cdRequestID
	cdInvocationID
	cdCallID
	cdSDKRequest
	cdStainlessRetry
	cdRetryAfter
	cdErrorType
	cdRespRequestID
)

func newCaddyParser(strs *interner) *caddyParser {
	// Caddy logs Go's http.Header: canonical names, a list of values each.
	return &caddyParser{
		js: newJSONPaths("logger", "ts", "duration", "status", "request.uri",
			"request.headers.User-Agent", "request.headers.X-Task-Id", "request.headers.X-Job-Id",
			"request.headers.X-Request-Id", "request.headers.Amz-Sdk-Invocation-Id", "request.headers.X-Call-Id",
			"request.headers.Amz-Sdk-Request", "request.headers.X-Stainless-Retry-Count",
			"resp_headers.Retry-After", "resp_headers.X-Amzn-Errortype", "resp_headers.X-Request-Id"),
		strs:     strs,
		outcomes: outcomeCache{},
	}
}

func (p *caddyParser) format() string { return "caddy" }

var caddyAccessLogger = []byte("http.log.access")

// isCaddyAccessLogger accepts "http.log.access" and "http.log.access.NAME".
func isCaddyAccessLogger(b []byte) bool {
	rest, ok := bytes.CutPrefix(b, caddyAccessLogger)
	return ok && (len(rest) == 0 || rest[0] == '.')
}

func (p *caddyParser) parse(line []byte, e *timeline.Event) string {
	js := p.js
	if reason := js.scan(line); reason != "" {
		return reason
	}
	logger := js.text(cdLogger)
	if logger == nil {
		return "no logger: not a Caddy log entry"
	}
	if !isCaddyAccessLogger(logger) {
		return "not an access log entry (logger " + strconv.Quote(p.strs.bytes(logger)) + ")"
	}
	logged, reason := js.time(cdTS)
	if reason != "" {
		return reason
	}
	d, reason := p.duration()
	if reason != "" {
		return reason
	}
	e.Layer = timeline.LayerHTTP
	e.Start, e.End = logged, logged
	if d > 0 && int64(d) < logged {
		e.Start = logged - int64(d)
	}
	if e.Status, reason = js.status(cdStatus); reason != "" {
		return reason
	}
	if b := js.text(cdURI); b != nil {
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(b))
	}
	h := requestHeaders{
		userAgent: js.text(cdUserAgent), task: firstNonNil(js.text(cdTaskID), js.text(cdJobID)),
		requestID:  firstNonNil(js.text(cdRequestID), js.text(cdRespRequestID)),
		call:       firstNonNil(js.text(cdInvocationID), js.text(cdCallID)),
		sdkRequest: js.text(cdSDKRequest), stainlessRetry: js.text(cdStainlessRetry),
		retryAfter: js.text(cdRetryAfter), errorType: js.text(cdErrorType),
	}
	h.apply(e, p.strs, logged)
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}

// duration reads Caddy's duration: float seconds by default, or a Go
// duration string ("12.3ms") with duration_format string.
func (p *caddyParser) duration() (time.Duration, string) {
	v := p.js.get(cdDuration)
	if v != nil && v.kind == jsonString && len(v.b) > 0 && (v.b[len(v.b)-1] == 's') {
		d, err := time.ParseDuration(string(v.b))
		if err != nil || d < 0 || d > maxRequestDuration {
			return 0, p.js.bad(cdDuration, "a duration")
		}
		return d, ""
	}
	return p.js.duration(cdDuration, time.Second)
}

// requestHeaders are the headers, logged by a proxy, that identify an
// attempt and what the server said about retrying. nil means absent.
type requestHeaders struct {
	userAgent, task, requestID, call []byte
	// sdkRequest is amz-sdk-request ("attempt=2; max=3"); stainlessRetry
	// is x-stainless-retry-count, the retries made so far.
	sdkRequest, stainlessRetry []byte
	retryAfter, errorType      []byte
}

// apply fills the event fields the headers carry; logged is when the
// response was sent, for a Retry-After given as a date.
func (h *requestHeaders) apply(e *timeline.Event, strs *interner, logged int64) {
	if h.userAgent != nil {
		e.Client = strs.label(timeline.LabelClient, h.userAgent)
	}
	if h.task != nil {
		e.TaskID = strs.sym(h.task)
	}
	if h.call != nil {
		e.CallID = strs.sym(h.call)
	}
	if h.requestID != nil {
		e.RequestID = timeline.InternBytes(h.requestID)
	}
	if h.sdkRequest != nil {
		e.Attempt, e.MaxAttempts = parseAmzSDKRequest(h.sdkRequest)
	} else if n, ok := digits(h.stainlessRetry); ok && n < 1<<20 {
		e.Attempt = timeline.Small(n + 1)
	}
	e.RetryAfter = timeline.NoRetryAfter
	if h.retryAfter != nil {
		e.RetryAfter = parseRetryAfter(h.retryAfter, logged)
	}
	if b := h.errorType; b != nil {
		// x-amzn-ErrorType is "Code:docs-url"; the code is before ':'.
		if k := bytes.IndexByte(b, ':'); k >= 0 {
			b = b[:k]
		}
		e.ErrorCode = strs.label(timeline.LabelErrorCode, b)
	}
}
