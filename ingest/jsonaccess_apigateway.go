package ingest

import (
	"time"

	"github.com/stampede/stampede/timeline"
)

// Amazon API Gateway access logs. The log format is user-defined from
// $context variables; the console offers a CLF and a JSON template, read
// here. requestTime is when the request arrived. A throttle the gateway
// itself answered (stage or usage-plan limits) carries
// $context.error.responseType THROTTLED or QUOTA_EXCEEDED, which becomes the
// event's ErrorCode; a 429 passed through from the backend has none, so the
// two kinds of throttle are told apart.

// apiGatewayCLFParser reads the console's CLF template:
//
//	$context.identity.sourceIp $context.identity.caller $context.identity.user [$context.requestTime] "$context.httpMethod $context.resourcePath $context.protocol" $context.status $context.responseLength $context.requestId
type apiGatewayCLFParser struct {
	clf      clfSplitter
	strs     *interner
	outcomes outcomeCache
}

func newAPIGatewayCLFParser(strs *interner) *apiGatewayCLFParser {
	return &apiGatewayCLFParser{strs: strs, outcomes: outcomeCache{}}
}

func (p *apiGatewayCLFParser) format() string { return "apigateway-clf" }

const apiGatewayCLFShape = `   ["   `

func (p *apiGatewayCLFParser) parse(line []byte, e *timeline.Event) string {
	t, reason := p.clf.split(line)
	if reason != "" {
		return reason
	}
	if reason := clfShape(t, apiGatewayCLFShape); reason != "" {
		return reason
	}
	start, ok := parseTimeLocal(t[3].b)
	if !ok || start <= 0 {
		return "bad requestTime " + quoteField(t[3].b) + ": want 02/Jan/2006:15:04:05 -0700"
	}
	status, ok := digits(t[5].b)
	if !ok || status > 999 {
		return "bad status " + quoteField(t[5].b)
	}
	if clfDash(t[7].b) == nil {
		return "no requestId"
	}
	e.Start = start
	e.Layer = timeline.LayerHTTP
	e.Status = timeline.Small(status)
	e.RetryAfter = timeline.NoRetryAfter
	if r := routeOfRequest(t[4].b); len(r) > 0 {
		e.Route = p.strs.label(timeline.LabelRoute, r)
	}
	e.RequestID = timeline.InternBytes(t[7].b)
	e.Outcome = p.outcomes.classify(e.Status, timeline.NoSym)
	return ""
}

// apiGatewayJSONParser reads the console's JSON template (requestId, ip,
// caller, user, requestTime, httpMethod, resourcePath, status, protocol,
// responseLength) and the extras worth adding: requestTimeEpoch (ms),
// responseLatency (ms), integrationStatus, userAgent, and the error
// response type as "error": {"responseType": ...} or a flat
// errorResponseType / responseType key.
type apiGatewayJSONParser struct {
	js       *jsonPaths
	strs     *interner
	outcomes outcomeCache
}

const (
	agRequestID = iota
	agRequestTime
	agRequestTimeEpoch
	agResourcePath
	agPath
	agStatus
	agResponseLatency
	agUserAgent
	agErrorType
	agErrorTypeFlat
	agResponseType
)

func newAPIGatewayJSONParser(strs *interner) *apiGatewayJSONParser {
	return &apiGatewayJSONParser{
		js: newJSONPaths("requestId", "requestTime", "requestTimeEpoch", "resourcePath", "path", "status",
			"responseLatency", "userAgent", "error.responseType", "errorResponseType", "responseType"),
		strs:     strs,
		outcomes: outcomeCache{},
	}
}

func (p *apiGatewayJSONParser) format() string { return "apigateway-json" }

func (p *apiGatewayJSONParser) parse(line []byte, e *timeline.Event) string {
	js := p.js
	if reason := js.scan(line); reason != "" {
		return reason
	}
	if js.text(agRequestID) == nil {
		return "no requestId"
	}
	switch {
	case js.text(agRequestTimeEpoch) != nil:
		ms, ok := digits(js.text(agRequestTimeEpoch))
		if !ok || ms < 1e11 || ms >= 1e14 {
			return js.bad(agRequestTimeEpoch, "epoch milliseconds")
		}
		e.Start = ms * 1e6
	case js.text(agRequestTime) != nil:
		b := js.text(agRequestTime)
		start, ok := parseTimeLocal(b)
		if !ok {
			// A template may use $context.requestTimeEpoch under the
			// requestTime key, or an ISO time.
			v := js.get(agRequestTime)
			if start, ok = jsonTime(v); !ok || start <= 0 {
				return js.bad(agRequestTime, "a time like 02/Jan/2006:15:04:05 -0700")
			}
		}
		e.Start = start
	default:
		return "no requestTime or requestTimeEpoch"
	}
	latency, reason := js.duration(agResponseLatency, time.Millisecond)
	if reason != "" {
		return reason
	}
	if latency >= 0 {
		e.End = e.Start + int64(latency)
	}
	e.Layer = timeline.LayerHTTP
	e.RetryAfter = timeline.NoRetryAfter
	if e.Status, reason = js.status(agStatus); reason != "" {
		return reason
	}
	// resourcePath is the route template (/items/{id}): the better key
	// for grouping than the concrete path.
	if b := firstNonNil(js.text(agResourcePath), js.text(agPath)); b != nil {
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(b))
	}
	if b := js.text(agUserAgent); b != nil {
		e.Client = p.strs.label(timeline.LabelClient, b)
	}
	if b := firstNonNil(js.text(agErrorType), js.text(agErrorTypeFlat), js.text(agResponseType)); b != nil {
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, b)
	}
	e.RequestID = timeline.InternBytes(js.text(agRequestID))
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}
