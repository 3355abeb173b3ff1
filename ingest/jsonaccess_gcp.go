package ingest

import (
	"bytes"
	"time"

	"github.com/stampede/stampede/timeline"
)

// GCPLBErrorCode opens the error code of a response a Google Cloud
// load balancer made itself rather than relayed from a backend
// (statusDetails other than response_sent_by_backend), followed by the
// statusDetails: "gclb:denied_by_security_policy" is Cloud Armor's
// rate limit or deny, not the backend's.
const GCPLBErrorCode = "gclb"

// gcpLBParser reads Google Cloud HTTP(S) load balancer request logs as
// Cloud Logging exports them: one LogEntry per line, with the request in
// httpRequest and the load balancer's own fields in jsonPayload.
// timestamp is when the load balancer received the request and
// httpRequest.latency ("0.004512s") runs from there to the response's
// last byte. The logs carry no request headers other than the
// User-Agent, so attempts join to calls only by time and count.
type gcpLBParser struct {
	js       *jsonPaths
	strs     *interner
	outcomes outcomeCache
}

const (
	gcTimestamp = iota
	gcLatency
	gcStatus
	gcURL
	gcUserAgent
	gcStatusDetails
	gcType
	gcTrace
	gcResourceType
)

func newGCPLBParser(strs *interner) *gcpLBParser {
	return &gcpLBParser{
		js: newJSONPaths("timestamp", "httpRequest.latency", "httpRequest.status", "httpRequest.requestUrl",
			"httpRequest.userAgent", "jsonPayload.statusDetails", "jsonPayload.@type", "trace", "resource.type"),
		strs:     strs,
		outcomes: outcomeCache{},
	}
}

func (p *gcpLBParser) format() string { return "gcp-lb" }

func (p *gcpLBParser) parse(line []byte, e *timeline.Event) string {
	js := p.js
	if reason := js.scan(line); reason != "" {
		return reason
	}
	if js.get(gcStatus) == nil && js.get(gcURL) == nil {
		return "no httpRequest: not a load balancer request log entry"
	}
	start, reason := js.time(gcTimestamp)
	if reason != "" {
		return reason
	}
	e.Start = start
	if b := js.text(gcLatency); b != nil {
		d, err := time.ParseDuration(string(b))
		if err != nil || d < 0 || d > maxRequestDuration {
			return js.bad(gcLatency, `a duration such as "0.004512s"`)
		}
		e.End = start + int64(d)
	}
	e.Layer = timeline.LayerHTTP
	if e.Status, reason = js.status(gcStatus); reason != "" {
		return reason
	}
	if b := js.text(gcURL); b != nil {
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(b))
	}
	if b := js.text(gcUserAgent); b != nil {
		e.Client = p.strs.label(timeline.LabelClient, b)
	}
	if b := js.text(gcTrace); b != nil {
		// projects/P/traces/ID: the trace is one request's.
		if k := bytes.LastIndexByte(b, '/'); k >= 0 {
			b = b[k+1:]
		}
		e.RequestID = timeline.InternBytes(b)
	}
	e.RetryAfter = timeline.NoRetryAfter
	if d := js.text(gcStatusDetails); d != nil && e.Status >= 400 && !bytes.HasPrefix(d, []byte("response_sent_by_backend")) {
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, append([]byte(GCPLBErrorCode+":"), d...))
	}
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}

// sniffGCPLB wants half of the lines to be LogEntries with an httpRequest
// and either the load balancer's payload type or its resource type.
func sniffGCPLB(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	p := newGCPLBParser(newInterner())
	ok, why := sampleShare("gcp-lb", sample, jsonShare, func(line []byte) string {
		if reason := parses(p)(line); reason != "" {
			return reason
		}
		typ, res := p.js.text(gcType), p.js.text(gcResourceType)
		if !bytes.HasSuffix(typ, []byte("LoadBalancerLogEntry")) && !bytes.Contains(res, []byte("load_balancer")) &&
			!bytes.HasSuffix(res, []byte("_lb_rule")) {
			return "no LoadBalancerLogEntry payload or load balancer resource"
		}
		return ""
	})
	if !ok {
		return nil, why
	}
	return newGCPLBParser(strs), ""
}
