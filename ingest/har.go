package ingest

import (
	"bytes"

	"fmt"
	"time"

	"github.com/stampede/stampede/timeline"
)

// documentParser is a format whose file is one document rather than a
// record per line, such as a HAR archive. read gives it the whole input
// and it does its own line accounting: every physical line must end up
// either parsed or skipped, and every event carries the line its record
// starts on.
type documentParser interface {
	lineParser
	parseDocument(doc []byte, s *timeline.Source, emit func(line int64) *timeline.Event) error
}

// maxDocumentBytes bounds what a document format reads into memory.
const maxDocumentBytes = 1 << 30

// harParser reads an HTTP Archive (HAR 1.2), as browsers' developer tools
// and HTTP proxies export it: one JSON object, usually pretty-printed,
// whose log.entries each record one request. Each entry is one attempt:
//
//	Start        startedDateTime
//	End          Start + time (milliseconds)
//	Status       response.status (0: the request got no response)
//	Route        the path of request.url
//	Client       request header User-Agent
//	Attempt      x-stainless-retry-count + 1, or amz-sdk-request attempt=N
//	MaxAttempts  amz-sdk-request max=N
//	CallID       amz-sdk-invocation-id;  TaskID  x-task-id
//	RetryAfter   response header retry-after-ms, else retry-after
//	RequestID    response header x-request-id, request-id or x-amzn-requestid
//	ErrorCode    response header x-amzn-errortype, up to its ':'; for
//	             status 0, response._error (Chrome's reason), else
//	             "no_response": a retryable error, as a failed connection
//
// Accounting: the lines an entry's JSON text spans (from its '{' to its
// '}') are parsed when the entry is usable and skipped, each with the
// entry's reason, when it is not; a line shared with an unusable entry is
// skipped even if a usable entry on it gave an attempt, so that no bad
// entry goes unreported. Every other line (the document's structure,
// creator, pages) counts as parsed. Damage that hides where an entry ends
// skips every line from that entry's start to the end of the file.
// Damage outside the entries is an error naming the line.
// harNoResponse is the error code of an entry that got no response and
// says no reason.
const harNoResponse = "no_response"

type harParser struct {
	w        jsonWalk
	strs     *interner
	outcomes outcomeCache
	doc      []byte
	e        harEntry
	lines    lineIndex
	bad      []badSpan
	emit     func(line int64) *timeline.Event
	cut      bool
}

// harEntry is one entry's wanted values while its object is walked.
type harEntry struct {
	started, took, status jsonValue
	url                   []byte
	client, task, call    []byte
	retryCount, sdkReq    []byte
	retryAfter, retryMs   []byte
	requestID, errorType  []byte
	failure               []byte
	hname, hval           []byte
	response              bool
}

// badSpan is a run of lines an unusable entry covers.
type badSpan struct {
	from, to int64
	reason   string
}

// errEntryCut stops the walk at an entry whose end cannot be found.
var errEntryCut = "entry cut"

func newHARParser(strs *interner) *harParser {
	return &harParser{strs: strs, outcomes: outcomeCache{}}
}

func (p *harParser) format() string { return "har" }

// parse serves detection and single-line tests: a line that is a whole
// one-line HAR document gives its first entry.
func (p *harParser) parse(line []byte, e *timeline.Event) string {
	var s timeline.Source
	got := false
	err := p.parseDocument(line, &s, func(int64) *timeline.Event {
		if got {
			return &timeline.Event{}
		}
		got = true
		return e
	})
	switch {
	case err != nil:
		return err.Error()
	case len(s.Samples) > 0:
		return s.Samples[0].Reason
	case !got:
		return "no HAR entry"
	}
	return ""
}

// lineIndex maps byte offsets to 1-based line numbers, for offsets that
// mostly increase.
type lineIndex struct {
	doc  []byte
	pos  int
	line int64
}

func (x *lineIndex) at(off int) int64 {
	if off < x.pos {
		x.pos, x.line = 0, 1
	}
	x.line += int64(bytes.Count(x.doc[x.pos:off], []byte{'\n'}))
	x.pos = off
	return x.line
}

func (p *harParser) parseDocument(doc []byte, s *timeline.Source, emit func(line int64) *timeline.Event) error {
	doc = bytes.TrimPrefix(doc, utf8BOM)
	p.doc, p.emit, p.bad, p.cut = doc, emit, p.bad[:0], false
	p.lines = lineIndex{doc: doc, line: 1}
	defer func() { p.doc, p.emit = nil, nil }()
	total := int64(bytes.Count(doc, []byte{'\n'}))
	if len(doc) > 0 && doc[len(doc)-1] != '\n' {
		total++
	}
	if len(bytes.TrimSpace(doc)) == 0 {
		// Empty input reads as no records, as in the line formats.
		for line := int64(1); line <= total; line++ {
			s.Lines++
			s.AddSkip(line, "blank line")
		}
		return nil
	}
	fail := func(off int, reason string) error {
		return fmt.Errorf("%d: not a HAR document: %s", p.lines.at(min(off, len(doc))), reason)
	}
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return fail(i, "expected '{'")
	}
	sawLog, sawEntries := false, false
	end, reason := p.w.members(doc, i, func(key []byte, v int) (int, string) {
		if string(key) != "log" {
			return 0, ""
		}
		sawLog = true
		return p.w.members(doc, v, func(key []byte, v int) (int, string) {
			if string(key) != "entries" {
				return 0, ""
			}
			sawEntries = true
			return p.w.elements(doc, v, p.entry)
		})
	})
	switch {
	case p.cut:
		// The entry that hid the rest of the file is accounted for.
	case reason != "":
		return fail(errOffset(reason, len(doc)), reason)
	case !sawLog:
		return fail(i, "no \"log\" object")
	case !sawEntries:
		return fail(i, "no \"log\".\"entries\" array")
	default:
		if k := skipSpace(doc, end); k != len(doc) {
			return fail(k, "unexpected text after the document")
		}
	}
	// Lines in order; bad spans come sorted by their start.
	next := 0
	for line := int64(1); line <= total; line++ {
		for next < len(p.bad) && p.bad[next].to < line {
			next++
		}
		if next < len(p.bad) && p.bad[next].from <= line {
			s.Lines++
			s.AddSkip(line, p.bad[next].reason)
			continue
		}
		s.Lines++
		s.Parsed++
	}
	return nil
}

// errOffset recovers the byte offset from a scanner reason ("invalid JSON
// at byte N: …"), for the line number of an error.
func errOffset(reason string, fallback int) int {
	var n int
	if _, err := fmt.Sscanf(reason, "invalid JSON at byte %d", &n); err == nil && n > 0 {
		return n - 1
	}
	return fallback
}

// entry reads the entry at doc[v] and returns the offset after it.
func (p *harParser) entry(v int) (int, string) {
	doc := p.doc
	from := p.lines.at(v)
	end, reason := skipValue(doc, v)
	if reason != "" {
		// Where this entry ends is unknown, and so is where the next one
		// starts: the rest of the file is lost.
		p.bad = append(p.bad, badSpan{from, 1 << 62, fmt.Sprintf("entry at line %d: %s (the rest of the file cannot be read)", from, reason)})
		p.cut = true
		return 0, errEntryCut
	}
	to := p.lines.at(end - 1)
	if reason := p.readEntry(doc[:end], v, from); reason != "" {
		p.bad = append(p.bad, badSpan{from, to, fmt.Sprintf("entry at line %d: %s", from, reason)})
	}
	return end, ""
}

func (p *harParser) readEntry(doc []byte, v int, line int64) string {
	p.w.reset()
	p.e = harEntry{}
	x := &p.e
	if doc[v] != '{' {
		return "not an object"
	}
	_, reason := p.w.members(doc, v, func(key []byte, v int) (int, string) {
		var out *jsonValue
		switch string(key) {
		case "startedDateTime":
			out = &x.started
		case "time":
			out = &x.took
		case "request":
			x.response = false
			return p.w.members(doc, v, p.message)
		case "response":
			x.response = true
			return p.w.members(doc, v, p.message)
		default:
			return 0, ""
		}
		val, end, reason := p.w.value(doc, v)
		*out = val
		return end, reason
	})
	if reason != "" {
		return reason
	}
	if x.started.kind == jsonAbsent {
		return "no startedDateTime"
	}
	start, ok := int64(0), false
	if x.started.kind == jsonString {
		start, ok = parseISOTime(x.started.b)
	}
	if !ok || start <= 0 {
		return badJSON("startedDateTime", &x.started, "an ISO 8601 time")
	}
	var end int64
	if x.took.kind != jsonAbsent && x.took.kind != jsonNull {
		d, ok := jsonDuration(&x.took, unitMillis)
		if !ok || x.took.kind != jsonNumber || d > maxRequestDuration {
			return badJSON("time", &x.took, "milliseconds")
		}
		end = start + int64(d)
	}
	if x.status.kind == jsonAbsent {
		return "no response.status"
	}
	n, ok := digits(x.status.b)
	if x.status.kind != jsonNumber || !ok || n > 999 {
		return badJSON("response.status", &x.status, "an HTTP status")
	}

	e := p.emit(line)
	e.Layer = timeline.LayerHTTP
	e.Start, e.End, e.Status = start, end, timeline.Small(n)
	e.RetryAfter = timeline.NoRetryAfter
	logged := end
	if logged == 0 {
		logged = start
	}
	switch {
	case x.retryMs != nil:
		if w, f, _, ok := parseDecimal(x.retryMs); ok {
			e.RetryAfter = timeline.MillisOf(time.Duration(w*1e6 + f/1e3))
		}
	case x.retryAfter != nil:
		e.RetryAfter = parseRetryAfter(x.retryAfter, logged)
	}
	if x.errorType != nil {
		code, _, _ := bytes.Cut(x.errorType, []byte{':'})
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, code)
	} else if e.Status == 0 {
		// No response: the connection failed, was refused or was cut
		// (mitmproxy writes such flows with status 0 and no reason), an
		// error like a timeout rather than an attempt of no outcome.
		if x.failure != nil {
			e.ErrorCode = p.strs.label(timeline.LabelErrorCode, x.failure)
		} else {
			e.ErrorCode = p.strs.label(timeline.LabelErrorCode, []byte(harNoResponse))
		}
	}
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	if x.url != nil {
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(x.url))
	}
	if x.client != nil {
		e.Client = p.strs.label(timeline.LabelClient, x.client)
	}
	if x.task != nil {
		e.TaskID = p.strs.sym(x.task)
	}
	if x.call != nil {
		e.CallID = p.strs.sym(x.call)
	}
	if x.requestID != nil {
		e.RequestID = p.strs.sym(x.requestID)
	}
	if x.sdkReq != nil {
		e.Attempt, e.MaxAttempts = parseAmzSDKRequest(x.sdkReq)
	}
	if n, ok := digits(x.retryCount); ok && n < 1<<20 && e.Attempt == 0 {
		e.Attempt = timeline.Small(n + 1)
	}
	return ""
}

// message walks a request or response object.
func (p *harParser) message(key []byte, v int) (int, string) {
	x := &p.e
	switch string(key) {
	case "url":
		if x.response {
			return 0, ""
		}
		val, end, reason := p.w.value(p.doc, v)
		if val.kind == jsonString {
			x.url = val.b
		}
		return end, reason
	case "status":
		if !x.response {
			return 0, ""
		}
		val, end, reason := p.w.value(p.doc, v)
		x.status = val
		return end, reason
	case "headers":
		return p.w.elements(p.doc, v, p.header)
	case "_error":
		// Chrome's note on a request that got no response.
		val, end, reason := p.w.value(p.doc, v)
		if x.response && val.kind == jsonString && len(val.b) > 0 {
			x.failure = val.b
		}
		return end, reason
	}
	return 0, ""
}

// header reads one {"name": …, "value": …} and keeps the wanted ones.
func (p *harParser) header(v int) (int, string) {
	x := &p.e
	x.hname, x.hval = nil, nil
	end, reason := p.w.members(p.doc, v, func(key []byte, v int) (int, string) {
		var dst *[]byte
		switch string(key) {
		case "name":
			dst = &x.hname
		case "value":
			dst = &x.hval
		default:
			return 0, ""
		}
		val, end, reason := p.w.value(p.doc, v)
		if val.kind == jsonString {
			*dst = val.b
		}
		return end, reason
	})
	if reason != "" || x.hname == nil || x.hval == nil {
		return end, reason
	}
	var dst *[]byte
	if x.response {
		switch {
		case bytes.EqualFold(x.hname, []byte("retry-after")):
			dst = &x.retryAfter
		case bytes.EqualFold(x.hname, []byte("retry-after-ms")):
			dst = &x.retryMs
		case bytes.EqualFold(x.hname, []byte("x-request-id")), bytes.EqualFold(x.hname, []byte("request-id")),
			bytes.EqualFold(x.hname, []byte("x-amzn-requestid")):
			dst = &x.requestID
		case bytes.EqualFold(x.hname, []byte("x-amzn-errortype")):
			dst = &x.errorType
		}
	} else {
		switch {
		case bytes.EqualFold(x.hname, []byte("user-agent")):
			dst = &x.client
		case bytes.EqualFold(x.hname, []byte("x-stainless-retry-count")):
			dst = &x.retryCount
		case bytes.EqualFold(x.hname, []byte("amz-sdk-request")):
			dst = &x.sdkReq
		case bytes.EqualFold(x.hname, []byte("amz-sdk-invocation-id")):
			dst = &x.call
		case bytes.EqualFold(x.hname, []byte("x-task-id")):
			dst = &x.task
		}
	}
	if dst != nil && *dst == nil {
		*dst = x.hval
	}
	return end, ""
}

// sniffHAR claims a JSON document that opens a HAR log: its first
// non-blank byte is '{' and its first lines name "log" and "entries".
func sniffHAR(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	if t := bytes.TrimLeft(sample[0].text, " \t"); len(t) == 0 || t[0] != '{' {
		return nil, "har (the input does not start with '{')"
	}
	var sawLog, sawEntries bool
	for _, l := range sample {
		sawLog = sawLog || bytes.Contains(l.text, []byte(`"log"`))
		sawEntries = sawEntries || bytes.Contains(l.text, []byte(`"entries"`))
	}
	if !sawLog || !sawEntries {
		return nil, "har (no \"log\" with \"entries\" in the first lines)"
	}
	return newHARParser(strs), ""
}
