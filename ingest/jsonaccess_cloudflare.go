package ingest

import (
	"bytes"

	"github.com/stampede/stampede/timeline"
)

// CloudflareErrorCode opens the error code of a response Cloudflare's edge
// made itself (OriginResponseStatus 0: no origin answered), followed by
// what its security or rate-limiting rules did ("cloudflare:block"), so
// that the edge's own 429s are told apart from the origin's.
const CloudflareErrorCode = "cloudflare"

// cloudflareParser reads Cloudflare Logpush's http_requests dataset as
// JSON lines. EdgeStartTimestamp and EdgeEndTimestamp bound the request
// at the edge, in any of Logpush's timestamp formats (RFC 3339, Unix
// seconds, Unix nanoseconds). EdgeResponseStatus is what the client got;
// OriginResponseStatus what the origin sent, 0 when the edge answered
// alone. Request and response headers are read from the custom fields
// Logpush writes under RequestHeaders and ResponseHeaders (lower-case
// names). RayID is the request id.
type cloudflareParser struct {
	js       *jsonPaths
	strs     *interner
	outcomes outcomeCache
}

const (
	cfStart = iota
	cfEnd
	cfEdgeStatus
	cfOriginStatus
	cfPath
	cfURI
	cfUserAgent
	cfRayID
	cfSecurityAction
	cfSecuritySources
	cfRateLimitAction
	cfWAFAction
	cfTaskID
	cfInvocationID
	cfCallID
	cfSDKRequest
	cfStainlessRetry
	cfRetryAfter
	cfErrorType
)

func newCloudflareParser(strs *interner) *cloudflareParser {
	return &cloudflareParser{
		js: newJSONPaths("EdgeStartTimestamp", "EdgeEndTimestamp", "EdgeResponseStatus", "OriginResponseStatus",
			"ClientRequestPath", "ClientRequestURI", "ClientRequestUserAgent", "RayID",
			"SecurityAction", "SecuritySources", "EdgeRateLimitAction", "WAFAction",
			"RequestHeaders.x-task-id", "RequestHeaders.amz-sdk-invocation-id", "RequestHeaders.x-call-id",
			"RequestHeaders.amz-sdk-request", "RequestHeaders.x-stainless-retry-count",
			"ResponseHeaders.retry-after", "ResponseHeaders.x-amzn-errortype"),
		strs:     strs,
		outcomes: outcomeCache{},
	}
}

func (p *cloudflareParser) format() string { return "cloudflare" }

func (p *cloudflareParser) parse(line []byte, e *timeline.Event) string {
	js := p.js
	if reason := js.scan(line); reason != "" {
		return reason
	}
	start, reason := js.time(cfStart)
	if reason != "" {
		return reason
	}
	e.Start = start
	if js.get(cfEnd) != nil {
		end, reason := js.time(cfEnd)
		if reason != "" {
			return reason
		}
		if end >= start {
			e.End = end
		}
	}
	e.Layer = timeline.LayerHTTP
	if e.Status, reason = js.status(cfEdgeStatus); reason != "" {
		return reason
	}
	origin, reason := js.status(cfOriginStatus)
	if reason != "" {
		return reason
	}
	if b := firstNonNil(js.text(cfPath), js.text(cfURI)); b != nil {
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(b))
	}
	h := requestHeaders{
		userAgent: js.text(cfUserAgent), task: js.text(cfTaskID), requestID: js.text(cfRayID),
		call:       firstNonNil(js.text(cfInvocationID), js.text(cfCallID)),
		sdkRequest: js.text(cfSDKRequest), stainlessRetry: js.text(cfStainlessRetry),
		retryAfter: js.text(cfRetryAfter), errorType: js.text(cfErrorType),
	}
	if e.Status >= 400 && origin == 0 {
		// The edge answered without the origin: a rate-limiting rule, a WAF
		// block, or an error of Cloudflare's own.
		code := []byte(CloudflareErrorCode + ":")
		switch action := firstNonNil(js.text(cfRateLimitAction), js.text(cfSecurityAction), js.text(cfWAFAction)); {
		case bytes.Equal(js.text(cfSecuritySources), []byte("rateLimit")) || js.text(cfRateLimitAction) != nil:
			code = append(code, "ratelimit"...)
		case action != nil && string(action) != "unknown":
			code = append(code, action...)
		default:
			code = append(code, "edge"...)
		}
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, code)
		h.errorType = nil
	}
	h.apply(e, p.strs, max(e.End, e.Start))
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}

func sniffCloudflare(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	js := newJSONPaths("EdgeStartTimestamp", "EdgeResponseStatus", "RayID", "ClientRequestHost")
	ok, why := sampleShare("cloudflare", sample, jsonShare, func(line []byte) string {
		if reason := js.scan(line); reason != "" {
			return reason
		}
		if js.get(0) == nil || (js.get(1) == nil && js.get(2) == nil && js.get(3) == nil) {
			return "no EdgeStartTimestamp with EdgeResponseStatus, RayID or ClientRequestHost"
		}
		return ""
	})
	if !ok {
		return nil, why
	}
	return newCloudflareParser(strs), ""
}
