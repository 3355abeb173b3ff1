package ingest

import (
	"bytes"
	"fmt"

	"github.com/stampede/stampede/timeline"
)

// otlpParser reads the OpenTelemetry collector's file exporter output for
// traces: one ExportTraceServiceRequest in OTLP/JSON per line. HTTP
// semantic conventions make each attempt a CLIENT span of its own, so one
// line holds many attempts.
//
// An attempt is a span of kind CLIENT (3) with an HTTP response status, or
// with a request method and an error.type (the request got no response).
// Its fields:
//
//	Start, End   startTimeUnixNano, endTimeUnixNano
//	Status       http.response.status_code (old: http.status_code)
//	Attempt      http.request.resend_count + 1; 1 when absent, since the
//	             conventions record the count only on resent requests
//	CallID       parentSpanId: the span of the SDK call the attempts hang
//	             off; the traceId when the span has no parent
//	TaskID       a task.id attribute of the span, else of its resource, else
//	             the http.request.header.x-task-id attribute
//	RequestID    http.response.header.x-request-id (or request-id,
//	             x-amzn-requestid)
//	RetryAfter   http.response.header.retry-after
//	ErrorCode    http.response.header.x-amzn-errortype up to its ':', else error.type
//	             unless it is only the status code
//	Route        the path of url.full (old: http.url), else url.path or
//	             http.target
//	Client       user_agent.original (old: http.user_agent)
//
// Header attributes are string arrays by the conventions; the first value
// counts. Plain strings are accepted too.
type otlpParser struct {
	w        jsonWalk
	strs     *interner
	outcomes outcomeCache
	span     otlpSpan
	resTask  []byte
	emitted  int
	line     []byte
	emit     func() *timeline.Event
	// spanAt is the offset of the span being walked, which places the
	// attempts of a pretty-printed document on their lines.
	spanAt int
	// The walk's callbacks, built once: closures made per line would
	// allocate on every line.
	onRequest, onResourceSpans, onResource, onResAttr, onScopeSpans, onSpan, onSpanAttr func(key []byte, v int) (int, string)
}

// otlpSpan holds one span's wanted values while its object is walked.
type otlpSpan struct {
	traceID, spanID, parentID []byte
	kind                      int64
	start, end                jsonValue
	status, resend            jsonValue
	url, path, client         []byte
	requestID, retryAfter     []byte
	task, headerTask          []byte
	errorType, amznError      []byte
	method                    []byte
	// attribute key and value, as the attribute object is walked in
	// either order.
	attrKey []byte
	attrVal jsonValue
}

func newOTLPParser(strs *interner) *otlpParser {
	p := &otlpParser{strs: strs, outcomes: outcomeCache{}}
	p.onRequest = func(key []byte, v int) (int, string) {
		if string(key) != "resourceSpans" {
			return 0, ""
		}
		return p.w.elements(p.line, v, func(v int) (int, string) {
			return p.resourceSpans(v)
		})
	}
	p.onResource = func(key []byte, v int) (int, string) {
		if string(key) != "attributes" {
			return 0, ""
		}
		return p.attributes(v, p.onResAttr)
	}
	p.onResAttr = func(key []byte, v int) (int, string) {
		return p.attribute(key, v, func(k []byte, val []byte) {
			if string(k) == "task.id" {
				p.resTask = val
			}
		})
	}
	p.onScopeSpans = func(key []byte, v int) (int, string) {
		if string(key) != "spans" {
			return 0, ""
		}
		return p.w.elements(p.line, v, func(v int) (int, string) {
			p.span = otlpSpan{}
			p.spanAt = v
			end, reason := p.w.members(p.line, v, p.onSpan)
			if reason != "" {
				return 0, reason
			}
			return end, p.emitSpan()
		})
	}
	p.onSpan = p.spanMember
	p.onSpanAttr = func(key []byte, v int) (int, string) {
		return p.attribute(key, v, p.spanAttribute)
	}
	return p
}

func (p *otlpParser) format() string { return "otlp-json" }

func (p *otlpParser) parse(line []byte, e *timeline.Event) string {
	first := true
	var spare timeline.Event
	return p.parseMulti(line, func() *timeline.Event {
		if first {
			first = false
			return e
		}
		spare = timeline.Event{}
		return &spare
	})
}

func (p *otlpParser) parseMulti(line []byte, emit func() *timeline.Event) string {
	p.w.reset()
	p.line, p.emit, p.emitted = line, emit, 0
	defer func() { p.line, p.emit = nil, nil }()
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return "not a JSON object"
	}
	end, reason := p.w.members(line, i, p.onRequest)
	if reason != "" {
		return reason
	}
	if reason := p.w.dec.trailing(line, end); reason != "" {
		return reason
	}
	if p.emitted == 0 {
		return noClientSpan
	}
	return ""
}

// noClientSpan is why a well-formed request yields nothing: only client
// spans of HTTP calls are attempts.
const noClientSpan = "no HTTP client span (kind 3 with a status code)"

// resourceSpans walks one resourceSpans element. Its resource may follow
// its spans in the text, so the spans are walked after the whole element.
func (p *otlpParser) resourceSpans(v int) (int, string) {
	p.resTask = nil
	scopes := -1
	end, reason := p.w.members(p.line, v, func(key []byte, v int) (int, string) {
		switch string(key) {
		case "resource":
			return p.w.members(p.line, v, p.onResource)
		case "scopeSpans", "instrumentationLibrarySpans":
			scopes = v
		}
		return 0, ""
	})
	if reason != "" || scopes < 0 {
		return end, reason
	}
	_, reason = p.w.elements(p.line, scopes, func(v int) (int, string) {
		return p.w.members(p.line, v, p.onScopeSpans)
	})
	return end, reason
}

func (p *otlpParser) spanMember(key []byte, v int) (int, string) {
	s := &p.span
	var dst *[]byte
	switch string(key) {
	case "traceId":
		dst = &s.traceID
	case "spanId":
		dst = &s.spanID
	case "parentSpanId":
		dst = &s.parentID
	case "kind":
		val, end, reason := p.w.value(p.line, v)
		if reason != "" {
			return 0, reason
		}
		switch {
		case val.kind == jsonNumber:
			n, ok := digits(val.b)
			if !ok || n > 5 {
				return 0, badJSON("kind", &val, "a span kind")
			}
			s.kind = n
		case val.kind == jsonString && string(val.b) == "SPAN_KIND_CLIENT":
			s.kind = 3
		case val.kind == jsonString:
			s.kind = 0
		default:
			return 0, badJSON("kind", &val, "a span kind")
		}
		return end, ""
	case "startTimeUnixNano":
		val, end, reason := p.w.value(p.line, v)
		s.start = val
		return end, reason
	case "endTimeUnixNano":
		val, end, reason := p.w.value(p.line, v)
		s.end = val
		return end, reason
	case "attributes":
		return p.attributes(v, p.onSpanAttr)
	default:
		return 0, ""
	}
	val, end, reason := p.w.value(p.line, v)
	if reason != "" {
		return 0, reason
	}
	if val.kind == jsonString {
		*dst = val.b
	}
	return end, ""
}

// attributes walks a KeyValue list.
func (p *otlpParser) attributes(v int, onMember func(key []byte, v int) (int, string)) (int, string) {
	return p.w.elements(p.line, v, func(v int) (int, string) {
		p.span.attrKey, p.span.attrVal = nil, jsonValue{}
		end, reason := p.w.members(p.line, v, onMember)
		if reason != "" {
			return 0, reason
		}
		return end, ""
	})
}

// attribute reads one member of a KeyValue; when both are known it hands
// the key and the value's text to use. Values other than strings and
// numbers are ignored.
func (p *otlpParser) attribute(key []byte, v int, use func(k, val []byte)) (int, string) {
	s := &p.span
	var end int
	var reason string
	switch string(key) {
	case "key":
		var val jsonValue
		val, end, reason = p.w.value(p.line, v)
		if reason != "" {
			return 0, reason
		}
		if val.kind != jsonString {
			return 0, badJSON("attribute key", &val, "a string")
		}
		s.attrKey = val.b
	case "value":
		s.attrVal, end, reason = p.anyValue(v, 0)
		if reason != "" {
			return 0, reason
		}
	default:
		return 0, ""
	}
	if s.attrKey != nil && s.attrVal.gen == 1 {
		use(s.attrKey, s.attrVal.b)
		s.attrVal.gen = 0
	}
	return end, ""
}

// anyValue reads an AnyValue: {"stringValue": …}, {"intValue": …} (a
// decimal string or a number), {"doubleValue": …}, or the first element of
// {"arrayValue": {"values": [...]}}. gen is 1 when a usable value was found.
func (p *otlpParser) anyValue(v int, depth int) (jsonValue, int, string) {
	var out jsonValue
	end, reason := p.w.members(p.line, v, func(key []byte, v int) (int, string) {
		switch string(key) {
		case "stringValue", "intValue", "doubleValue":
			val, end, reason := p.w.value(p.line, v)
			if reason == "" && (val.kind == jsonString || val.kind == jsonNumber) {
				out = val
				out.gen = 1
			}
			return end, reason
		case "arrayValue":
			if depth > 0 {
				return 0, ""
			}
			return p.w.members(p.line, v, func(key []byte, v int) (int, string) {
				if string(key) != "values" {
					return 0, ""
				}
				first := true
				return p.w.elements(p.line, v, func(v int) (int, string) {
					if !first {
						return 0, ""
					}
					first = false
					val, end, reason := p.anyValue(v, depth+1)
					if reason == "" && val.gen == 1 {
						out = val
					}
					return end, reason
				})
			})
		}
		return 0, ""
	})
	return out, end, reason
}

func (p *otlpParser) spanAttribute(k, val []byte) {
	s := &p.span
	switch string(k) {
	case "http.response.status_code", "http.status_code":
		s.status = jsonValue{gen: 1, kind: jsonString, b: val}
	case "http.request.resend_count":
		s.resend = jsonValue{gen: 1, kind: jsonString, b: val}
	case "url.full", "http.url":
		s.url = val
	case "url.path", "http.target":
		s.path = val
	case "user_agent.original", "http.user_agent":
		s.client = val
	case "http.response.header.x-request-id", "http.response.header.request-id", "http.response.header.x-amzn-requestid":
		s.requestID = val
	case "http.response.header.retry-after":
		s.retryAfter = val
	case "http.response.header.x-amzn-errortype":
		s.amznError = val
	case "task.id":
		s.task = val
	case "http.request.header.x-task-id":
		s.headerTask = val
	case "error.type":
		s.errorType = val
	case "http.request.method", "http.method":
		s.method = val
	}
}

// emitSpan turns the span just walked into an attempt, when it is one.
func (p *otlpParser) emitSpan() string {
	s := &p.span
	if s.kind != 3 || (s.status.gen == 0 && (s.method == nil || s.errorType == nil)) {
		return ""
	}
	name := "span " + string(s.spanID)
	var status int32
	if s.status.gen == 1 {
		n, ok := digits(s.status.b)
		if !ok || n > 999 {
			return name + ": " + badJSON("http.response.status_code", &s.status, "an HTTP status")
		}
		status = int32(n)
	}
	if s.start.kind == jsonAbsent || s.start.kind == jsonNull {
		return name + ": no startTimeUnixNano"
	}
	start, ok := digits(s.start.b)
	if !ok || start <= 0 || (s.start.kind != jsonString && s.start.kind != jsonNumber) {
		return name + ": " + badJSON("startTimeUnixNano", &s.start, "nanoseconds since the epoch")
	}
	var end int64
	if s.end.kind == jsonString || s.end.kind == jsonNumber {
		if end, ok = digits(s.end.b); !ok || (end != 0 && end < start) || end-start > int64(maxRequestDuration) {
			return name + ": " + badJSON("endTimeUnixNano", &s.end, "nanoseconds since the epoch, after the start")
		}
	}
	attempt := int32(1)
	if s.resend.gen == 1 {
		n, ok := digits(s.resend.b)
		if !ok || n >= 1<<20 {
			return name + ": " + badJSON("http.request.resend_count", &s.resend, "a whole number")
		}
		attempt = int32(n) + 1
	}

	e := p.emit()
	p.emitted++
	e.Layer = timeline.LayerHTTP
	e.Start, e.End, e.Status, e.Attempt = start, end, timeline.Small(status), timeline.Small(attempt)
	e.RetryAfter = timeline.NoRetryAfter
	if s.retryAfter != nil {
		logged := end
		if logged == 0 {
			logged = start
		}
		e.RetryAfter = parseRetryAfter(s.retryAfter, logged)
	}
	switch {
	case s.amznError != nil:
		code, _, _ := bytes.Cut(s.amznError, []byte{':'})
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, code)
	case s.errorType != nil:
		if _, numeric := digits(s.errorType); !numeric {
			e.ErrorCode = p.strs.label(timeline.LabelErrorCode, s.errorType)
		}
	}
	e.Outcome = p.outcomes.classify(timeline.Small(status), e.ErrorCode)
	switch {
	case s.url != nil:
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(s.url))
	case s.path != nil:
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(s.path))
	}
	if s.client != nil {
		e.Client = p.strs.label(timeline.LabelClient, s.client)
	}
	if s.requestID != nil {
		e.RequestID = p.strs.sym(s.requestID)
	}
	switch {
	case s.task != nil:
		e.TaskID = p.strs.sym(s.task)
	case p.resTask != nil:
		e.TaskID = p.strs.sym(p.resTask)
	case s.headerTask != nil:
		e.TaskID = p.strs.sym(s.headerTask)
	}
	switch {
	case len(s.parentID) > 0:
		e.CallID = p.strs.sym(s.parentID)
	case len(s.traceID) > 0:
		e.CallID = p.strs.sym(s.traceID)
	}
	return ""
}

// otlpDocument reads a file that is one pretty-printed OTLP/JSON request,
// as saved from an OTLP/HTTP exchange or by hand, rather than the file
// exporter's line per request. Every line of a usable document counts as
// parsed, and each attempt carries the line its span starts on; an
// unusable document is an error naming the line.
type otlpDocument struct{ *otlpParser }

func (d otlpDocument) parseDocument(doc []byte, s *timeline.Source, emit func(line int64) *timeline.Event) error {
	doc = bytes.TrimPrefix(doc, utf8BOM)
	lines := lineIndex{doc: doc, line: 1}
	reason := d.parseMulti(doc, func() *timeline.Event { return emit(lines.at(d.spanAt)) })
	if reason == noClientSpan {
		// The document is fine; it just records no HTTP attempt.
		return fmt.Errorf("1: an OTLP/JSON document with %s, so it holds no HTTP attempt to read", reason)
	}
	if reason != "" {
		return fmt.Errorf("%d: not an OTLP/JSON document: %s", lines.at(min(errOffset(reason, 0), len(doc))), reason)
	}
	s.Lines = int64(bytes.Count(doc, []byte{'\n'}))
	if len(doc) > 0 && doc[len(doc)-1] != '\n' {
		s.Lines++
	}
	s.Parsed = s.Lines
	return nil
}

// openOTLP reads a pretty-printed document when the input opens with a
// line that is only '{', and the exporter's lines otherwise.
func openOTLP(sample []sampledLine, _ bool, _ Options, strs *interner) (lineParser, error) {
	if len(sample) > 0 && string(bytes.TrimSpace(sample[0].text)) == "{" {
		return otlpDocument{newOTLPParser(strs)}, nil
	}
	return newOTLPParser(strs), nil
}

// sniffOTLP claims lines that are OTLP/JSON trace requests, or one
// pretty-printed request.
func sniffOTLP(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	if string(bytes.TrimSpace(sample[0].text)) == "{" {
		for _, l := range sample {
			if bytes.HasPrefix(bytes.TrimLeft(l.text, " \t"), []byte(`"resourceSpans"`)) {
				return otlpDocument{newOTLPParser(strs)}, ""
			}
		}
	}
	n := 0
	for _, l := range sample {
		t := bytes.TrimLeft(l.text, " \t")
		if len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"resourceSpans"`)) {
			n++
		}
	}
	if n*2 < len(sample) || n == 0 {
		return nil, fmt.Sprintf("otlp-json (%d of %d lines are JSON with resourceSpans)", n, len(sample))
	}
	return newOTLPParser(strs), ""
}
