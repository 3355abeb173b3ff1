package ingest

import (
	"time"

	"github.com/stampede/stampede/timeline"
)

// traefikJSONParser reads Traefik's access log in JSON format. Request
// headers appear as request_<Name> keys and response headers as
// downstream_<Name> when the headers' mode is "keep". StartUTC is when the
// request arrived and Duration (nanoseconds) runs to the response.
// DownstreamStatus is what the client saw; an OriginStatus of 0 with it
// means Traefik answered itself (a rate-limit middleware, no backend).
//
// RetryAttempts is how often Traefik's retry middleware re-sent the
// request to a backend. One line is one event, so the line's event carries
// Attempt = RetryAttempts+1 (the attempt that produced the logged answer);
// when the SDK's amz-sdk-request header is logged, its attempt number wins,
// since the event is the client's attempt.
type traefikJSONParser struct {
	js       *jsonPaths
	strs     *interner
	outcomes outcomeCache
}

const (
	tfStart = iota
	tfDuration
	tfPath
	tfStatus
	tfRetryAttempts
	tfUserAgent
	tfTaskID
	tfRequestID
	tfInvocationID
	tfSDKRequest
	tfStainlessRetry
	tfRetryAfter
	tfErrorType
)

func newTraefikJSONParser(strs *interner) *traefikJSONParser {
	return &traefikJSONParser{
		js: newJSONPaths("StartUTC", "Duration", "RequestPath", "DownstreamStatus", "RetryAttempts",
			"request_User-Agent", "request_X-Task-Id", "request_X-Request-Id", "request_Amz-Sdk-Invocation-Id",
			"request_Amz-Sdk-Request", "request_X-Stainless-Retry-Count",
			"downstream_Retry-After", "downstream_X-Amzn-Errortype"),
		strs:     strs,
		outcomes: outcomeCache{},
	}
}

func (p *traefikJSONParser) format() string { return "traefik-json" }

func (p *traefikJSONParser) parse(line []byte, e *timeline.Event) string {
	js := p.js
	if reason := js.scan(line); reason != "" {
		return reason
	}
	start, reason := js.time(tfStart)
	if reason != "" {
		return reason
	}
	d, reason := js.duration(tfDuration, time.Nanosecond)
	if reason != "" {
		return reason
	}
	e.Start = start
	if d >= 0 {
		e.End = start + int64(d)
	}
	e.Layer = timeline.LayerHTTP
	if e.Status, reason = js.status(tfStatus); reason != "" {
		return reason
	}
	if b := js.text(tfPath); b != nil {
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(b))
	}
	h := requestHeaders{
		userAgent: js.text(tfUserAgent), task: js.text(tfTaskID), requestID: js.text(tfRequestID),
		call: js.text(tfInvocationID), sdkRequest: js.text(tfSDKRequest), stainlessRetry: js.text(tfStainlessRetry),
		retryAfter: js.text(tfRetryAfter), errorType: js.text(tfErrorType),
	}
	h.apply(e, p.strs, max(e.End, e.Start))
	retries, reason := js.count(tfRetryAttempts, 1<<20)
	if reason != "" {
		return reason
	}
	if retries >= 0 && h.sdkRequest == nil {
		e.Attempt = timeline.Small(retries + 1)
	}
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}

// traefikCLFParser reads Traefik's default "common" access log format:
//
//	IP - USER [TIME] "METHOD PATH PROTO" STATUS SIZE "REFERER" "USER-AGENT" COUNT "ROUTER" "SERVER-URL" DURATIONms
//
// TIME is the request's start (StartLocal) and DURATION is milliseconds.
// This format does not log RetryAttempts; use the JSON format for that.
type traefikCLFParser struct {
	clf      clfSplitter
	strs     *interner
	outcomes outcomeCache
}

func newTraefikCLFParser(strs *interner) *traefikCLFParser {
	return &traefikCLFParser{strs: strs, outcomes: outcomeCache{}}
}

func (p *traefikCLFParser) format() string { return "traefik-clf" }

// traefikCLFShape is the token pattern of a common-format line.
const traefikCLFShape = `   ["  "" "" `

func (p *traefikCLFParser) parse(line []byte, e *timeline.Event) string {
	t, reason := p.clf.split(line)
	if reason != "" {
		return reason
	}
	if reason := clfShape(t, traefikCLFShape); reason != "" {
		return reason
	}
	start, ok := parseTimeLocal(t[3].b)
	if !ok || start <= 0 {
		return "bad time " + quoteField(t[3].b) + ": want 02/Jan/2006:15:04:05 -0700"
	}
	status, ok := digits(t[5].b)
	if !ok || status > 999 {
		return "bad status " + quoteField(t[5].b)
	}
	ms, ok := cutSuffixDigits(t[12].b, "ms")
	if !ok {
		return "bad duration " + quoteField(t[12].b) + ": want milliseconds, e.g. 12ms"
	}
	e.Start, e.End = start, start+ms*1e6
	e.Layer = timeline.LayerHTTP
	e.Status = timeline.Small(status)
	e.RetryAfter = timeline.NoRetryAfter
	if r := routeOfRequest(t[4].b); len(r) > 0 {
		e.Route = p.strs.label(timeline.LabelRoute, r)
	}
	if ua := clfDash(t[8].b); ua != nil {
		e.Client = p.strs.label(timeline.LabelClient, ua)
	}
	e.Outcome = p.outcomes.classify(e.Status, timeline.NoSym)
	return ""
}

// cutSuffixDigits parses "123ms"-style values.
func cutSuffixDigits(b []byte, suffix string) (int64, bool) {
	if len(b) <= len(suffix) || string(b[len(b)-len(suffix):]) != suffix {
		return 0, false
	}
	n, ok := digits(b[:len(b)-len(suffix)])
	return n, ok && n <= maxRequestDuration.Milliseconds()
}
