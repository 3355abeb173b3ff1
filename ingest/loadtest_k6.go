package ingest

import (
	"github.com/stampede/stampede/timeline"
)

// k6Parser reads `k6 run --out json` output: one JSON object per line, a
// "Metric" definition or a "Point" sample of one metric. k6 writes several
// points per HTTP request (http_reqs, http_req_duration, http_req_blocked,
// ...), all with the same tags; each http_reqs point (value 1) is one
// attempt, and every other line is counted as skipped.
//
// k6 stamps a request's points when the response completed, so Start is
// late by the request's duration. The duration arrives on the following
// http_req_duration line, which one event per line cannot join back.
type k6Parser struct {
	js       *jsonPaths
	strs     *interner
	outcomes outcomeCache
}

const (
	k6Type = iota
	k6Metric
	k6Time
	k6Status
	k6Name
	k6URL
	k6Error
	k6ErrorCode
)

func newK6Parser(strs *interner) *k6Parser {
	return &k6Parser{
		js: newJSONPaths("type", "metric", "data.time", "data.tags.status", "data.tags.name",
			"data.tags.url", "data.tags.error", "data.tags.error_code"),
		strs:     strs,
		outcomes: outcomeCache{},
	}
}

func (p *k6Parser) format() string { return "k6" }

// k6NotRequest is the one reason for the lines that are not requests, so
// that the skip summary groups them.
const k6NotRequest = "not an http_reqs point"

func (p *k6Parser) parse(line []byte, e *timeline.Event) string {
	js := p.js
	if reason := js.scan(line); reason != "" {
		return reason
	}
	if string(js.text(k6Type)) != "Point" || string(js.text(k6Metric)) != "http_reqs" {
		return k6NotRequest
	}
	start, reason := js.time(k6Time)
	if reason != "" {
		return reason
	}
	e.Start = start
	e.Layer = timeline.LayerHTTP
	e.RetryAfter = timeline.NoRetryAfter
	if e.Status, reason = js.status(k6Status); reason != "" {
		return reason
	}
	// name is the URL unless the script grouped URLs under a name; either
	// way its path is the route.
	route := js.text(k6Name)
	if route == nil {
		route = js.text(k6URL)
	}
	if route != nil {
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(route))
	}
	if e.Status == 0 {
		// A request without a response: the error tag says why (k6
		// leaves it empty for HTTP error statuses, which the status says).
		if b := js.text(k6Error); b != nil {
			e.ErrorCode = p.strs.label(timeline.LabelErrorCode, b)
		} else if b := js.text(k6ErrorCode); b != nil {
			e.ErrorCode = p.strs.label(timeline.LabelErrorCode, b)
		}
	}
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}
