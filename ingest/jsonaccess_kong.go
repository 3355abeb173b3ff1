package ingest

import (
	"time"

	"github.com/stampede/stampede/timeline"
)

// KongErrorCode marks a response Kong made itself: a plugin (rate-limiting,
// auth, request-termination) answered before any upstream was tried, so
// latencies.proxy is -1. Its 429s are Kong's limit, not the upstream's.
const KongErrorCode = "kong"

// kongParser reads the JSON Kong's file-log (and http-log, tcp-log)
// plugins write, one request per line. started_at (Unix milliseconds) is
// when Kong received the request and latencies.request (ms) runs to the
// response. Request and response headers are logged with lower-case names
// under request.headers and response.headers, a list where a header was
// sent more than once.
type kongParser struct {
	js       *jsonPaths
	strs     *interner
	outcomes outcomeCache
}

const (
	kgStarted = iota
	kgRequestLatency
	kgProxyLatency
	kgStatus
	kgURI
	kgUserAgent
	kgTaskID
	kgRequestID
	kgInvocationID
	kgCallID
	kgSDKRequest
	kgStainlessRetry
	kgRetryAfter
	kgErrorType
	kgKongRequestID
)

func newKongParser(strs *interner) *kongParser {
	return &kongParser{
		js: newJSONPaths("started_at", "latencies.request", "latencies.proxy", "response.status", "request.uri",
			"request.headers.user-agent", "request.headers.x-task-id", "request.headers.x-request-id",
			"request.headers.amz-sdk-invocation-id", "request.headers.x-call-id", "request.headers.amz-sdk-request",
			"request.headers.x-stainless-retry-count", "response.headers.retry-after", "response.headers.x-amzn-errortype",
			"response.headers.x-kong-request-id"),
		strs:     strs,
		outcomes: outcomeCache{},
	}
}

func (p *kongParser) format() string { return "kong" }

func (p *kongParser) parse(line []byte, e *timeline.Event) string {
	js := p.js
	if reason := js.scan(line); reason != "" {
		return reason
	}
	start, reason := js.time(kgStarted)
	if reason != "" {
		return reason
	}
	e.Start = start
	d, reason := js.duration(kgRequestLatency, time.Millisecond)
	if reason != "" {
		return reason
	}
	if d >= 0 {
		e.End = start + int64(d)
	}
	e.Layer = timeline.LayerHTTP
	if e.Status, reason = js.status(kgStatus); reason != "" {
		return reason
	}
	if b := js.text(kgURI); b != nil {
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(b))
	}
	h := requestHeaders{
		userAgent: js.text(kgUserAgent), task: js.text(kgTaskID),
		requestID:  firstNonNil(js.text(kgRequestID), js.text(kgKongRequestID)),
		call:       firstNonNil(js.text(kgInvocationID), js.text(kgCallID)),
		sdkRequest: js.text(kgSDKRequest), stainlessRetry: js.text(kgStainlessRetry),
		retryAfter: js.text(kgRetryAfter), errorType: js.text(kgErrorType),
	}
	if v := js.get(kgProxyLatency); e.Status >= 400 && v != nil && string(v.b) == "-1" {
		// No upstream was tried: a plugin answered.
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, []byte(KongErrorCode))
		h.errorType = nil
	}
	h.apply(e, p.strs, max(e.End, e.Start))
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}

// sniffKong wants half of the lines to be Kong log records: started_at,
// latencies and a response status.
func sniffKong(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	p := newKongParser(newInterner())
	ok, why := sampleShare("kong", sample, jsonShare, func(line []byte) string {
		if reason := parses(p)(line); reason != "" {
			return reason
		}
		if p.js.get(kgRequestLatency) == nil || p.js.get(kgStatus) == nil {
			return "no latencies.request and response.status"
		}
		return ""
	})
	if !ok {
		return nil, why
	}
	return newKongParser(strs), ""
}
