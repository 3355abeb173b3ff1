package ingest

import (
	"bytes"

	"github.com/stampede/stampede/timeline"
)

// awsJSParser reads the records @aws-sdk/middleware-logger writes, one per
// call, through a JSON logger (pino, winston, bunyan ...):
//
//	{"level":50,"time":1796006851489,"clientName":"BedrockRuntimeClient","commandName":"InvokeModelCommand",
//	 "input":{...},"error":{"name":"ThrottlingException","$fault":"client","$metadata":{...}},
//	 "metadata":{"httpStatusCode":429,"requestId":"...","attempts":3,"totalRetryDelay":1187}}
//
// Each record is one call (LayerCall): Attempts = metadata.attempts,
// Status = metadata.httpStatusCode (the last attempt's), RequestID =
// metadata.requestId, Client = clientName, Route = commandName without its
// "Command" suffix (the operation, as botocore names it), and ErrorCode =
// the error's name (else Code, code, __type or type). The metadata is read
// from "metadata" (what the middleware logs), "$metadata", or the error's
// "$metadata". The record is written when the call returns, so the logger's
// time ("time", "timestamp", "@timestamp" or "ts"; epoch or RFC 3339) is
// Start and End is unknown. totalRetryDelay has no Event field and is not
// kept. A record with an error is a failure whatever its status.
//
// A logger that prints its own prefix before the object ("<time> <LEVEL>
// [batch] {...}", as a custom logger object passed to the client does) is
// read too: the prefix's time is Start when the record has none, and a
// bracket group just before the object that names a traffic class sets
// Class. The middleware logs no response headers, so RetryAfter stays
// unknown.
type awsJSParser struct {
	strs     *interner
	pre      logPrefix
	outcomes outcomeCache
	// dec decodes strings with the JSONL scanner's escape handling.
	dec jsonlParser

	// Per record.
	start                        int64
	client, command, code, reqID []byte
	status, attempts             int64
	hasError, hasMetadata        bool
	badValue                     string
}

func newAWSJSParser(strs *interner) *awsJSParser {
	return &awsJSParser{strs: strs, pre: newLogPrefix(), outcomes: outcomeCache{}}
}

func (p *awsJSParser) format() string { return "aws-js-v3" }

const skipNotCallRecord = "not an SDK call record (no clientName and commandName)"

func (p *awsJSParser) parse(line []byte, e *timeline.Event) string {
	p.dec.scratch = p.dec.scratch[:0]
	p.start, p.status, p.attempts = 0, 0, 0
	p.client, p.command, p.code, p.reqID = nil, nil, nil, nil
	p.hasError, p.hasMetadata, p.badValue = false, false, ""
	i := skipSpace(line, 0)
	var prefixTime int64
	var label []byte
	if i >= len(line) || line[i] != '{' {
		ts, rest, ok := p.pre.split(line)
		k := bytes.IndexByte(rest, '{')
		if !ok || k < 0 {
			return "not a JSON object"
		}
		prefixTime, label, line, i = ts, bracketBefore(rest, k), rest, k
	}
	j, reason := p.object(line, i, p.topKey)
	if reason != "" {
		return reason
	}
	if j = skipSpace(line, j); j != len(line) {
		return jsonErr(j, "trailing data after the object")
	}
	if p.badValue != "" {
		return p.badValue
	}
	if p.client == nil || p.command == nil {
		return skipNotCallRecord
	}
	if p.start == 0 {
		p.start = prefixTime
	}
	if p.start == 0 {
		return "no time (looked for time, timestamp, @timestamp, ts)"
	}
	if label != nil {
		e.Class = timeline.ParseClass(p.strs.bytes(label))
	}
	e.Layer = timeline.LayerCall
	e.Start = p.start
	e.Client = p.strs.label(timeline.LabelClient, p.client)
	e.Route = p.strs.label(timeline.LabelRoute, bytes.TrimSuffix(p.command, []byte("Command")))
	e.Status = timeline.Small(p.status)
	e.Attempts = timeline.Small(p.attempts)
	if p.reqID != nil {
		e.RequestID = timeline.InternBytes(p.reqID)
	}
	if p.code != nil {
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, p.code)
	}
	e.RetryAfter = timeline.NoRetryAfter
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	if p.hasError && !e.Outcome.Failed() {
		// An error with a 2xx or no status: a client-side failure.
		e.Outcome = timeline.OutcomeRetryable
	}
	return ""
}

// object walks the object at b[i] == '{', calling visit for each key with
// the index of its value; visit returns the index after the value.
func (p *awsJSParser) object(b []byte, i int, visit func(key []byte, b []byte, i int) (int, string)) (int, string) {
	return p.dec.members(b, i, func(key []byte, v int) (int, string) { return visit(key, b, v) })
}

func (p *awsJSParser) topKey(key, b []byte, i int) (int, string) {
	switch string(key) {
	case "clientName":
		return p.str(b, i, &p.client)
	case "commandName":
		return p.str(b, i, &p.command)
	case "time", "timestamp", "@timestamp", "ts":
		v, j, reason := p.dec.readValue(b, i)
		if reason != "" || p.start != 0 {
			return j, reason
		}
		if ts, ok := jsonTime(&v); ok {
			p.start = ts
		} else if p.badValue == "" {
			p.badValue = badJSON(string(key), &v, "a time")
		}
		return j, ""
	case "metadata", "$metadata":
		if i < len(b) && b[i] == '{' {
			p.hasMetadata = true
			return p.object(b, i, p.metadataKey)
		}
	case "error", "err":
		if i < len(b) && b[i] == '{' {
			p.hasError = true
			return p.object(b, i, p.errorKey)
		}
		if i < len(b) && b[i] != 'n' { // anything but null
			p.hasError = true
		}
	}
	return skipValue(b, i)
}

func (p *awsJSParser) metadataKey(key, b []byte, i int) (int, string) {
	switch string(key) {
	case "httpStatusCode":
		return p.count(b, i, "httpStatusCode", 999, &p.status)
	case "attempts":
		return p.count(b, i, "attempts", 1<<20, &p.attempts)
	case "requestId":
		return p.str(b, i, &p.reqID)
	}
	return skipValue(b, i)
}

func (p *awsJSParser) errorKey(key, b []byte, i int) (int, string) {
	switch string(key) {
	case "name", "Code", "code", "__type", "type":
		// The first of these wins, except the generic "Error".
		var v []byte
		j, reason := p.str(b, i, &v)
		if reason == "" && p.code == nil && len(v) > 0 && string(v) != "Error" {
			p.code = v
		}
		return j, reason
	case "$metadata":
		if !p.hasMetadata && i < len(b) && b[i] == '{' {
			return p.object(b, i, p.metadataKey)
		}
	}
	return skipValue(b, i)
}

// str reads a string value into *dst; other kinds are skipped.
func (p *awsJSParser) str(b []byte, i int, dst *[]byte) (int, string) {
	v, j, reason := p.dec.readValue(b, i)
	if reason == "" && v.kind == jsonString {
		*dst = v.b
	}
	return j, reason
}

// count reads a non-negative integer (number or numeric string) into *dst.
func (p *awsJSParser) count(b []byte, i int, key string, max int64, dst *int64) (int, string) {
	v, j, reason := p.dec.readValue(b, i)
	if reason != "" || v.kind == jsonNull {
		return j, reason
	}
	n, ok := digits(v.b)
	if (v.kind != jsonNumber && v.kind != jsonString) || !ok || n > max {
		if p.badValue == "" {
			p.badValue = badJSON(key, &v, "a count")
		}
		return j, ""
	}
	*dst = n
	return j, ""
}

// sniffAWSJS claims a sample where a JSON line has both clientName and
// commandName: middleware-logger's keys. It must run before the generic
// JSONL sniffer, which would claim the same lines.
//
// Records Node printed with util.inspect (`logger: console`) are claimed too,
// by a parser that says they have no time.
func sniffAWSJS(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	inspect := 0
	for _, l := range sample {
		t := bytes.TrimLeft(l.text, " \t")
		if len(t) > 0 && t[0] != '{' {
			// A logger's "<time> <LEVEL> [label] " before the object.
			if _, rest, ok := newLogPrefix().split(t); ok {
				if k := bytes.IndexByte(rest, '{'); k >= 0 {
					t = rest[k:]
				}
			}
		}
		if len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"clientName"`)) && bytes.Contains(t, []byte(`"commandName"`)) {
			return newAWSJSParser(strs), ""
		}
		if isInspectRecord(l.text) {
			// Both keys, on one line or on two.
			inspect += bytes.Count(l.text, []byte("Name: '"))
		}
	}
	if inspect >= 2 {
		return awsJSConsoleParser{}, ""
	}
	return nil, `aws-js-v3 (no JSON line with "clientName" and "commandName")`
}
