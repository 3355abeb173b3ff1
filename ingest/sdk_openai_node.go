package ingest

import (
	"bytes"
	"time"

	"github.com/stampede/stampede/timeline"
)

// openaiNodeParser reads the request log of the Stainless-generated
// TypeScript SDKs (openai-node, anthropic-sdk-typescript) at level info or
// debug:
//
//	<time> INFO [app] [log_5a1f2e, retryOf: log_44681e, x-request-id: "req_1"] POST <url> failed with status 429 in 123ms - retrying, 1 attempts remaining
//
// Each "succeeded/failed with status" line, and each "connection timed
// out/failed" line, is one attempt (LayerHTTP). The line also ends the call
// when it does not say "retrying", but the attempt is what the line
// observed, so calls are left for the analyses to rebuild from CallID and
// Attempt. The call is named by the first log id of its chain: "retryOf"
// always names the first attempt's id, and the attempt number is the
// position in that chain, counted as the lines arrive (attempts of one call
// are sequential, so completion order is attempt order). A chain whose
// first line is missing from the file is numbered from where it starts.
//
// The reported duration is time to response headers, and the line is
// written when they arrive: End is the line's time, Start is End minus the
// duration. Connection errors carry no duration; their Start is the line's
// time and End is unknown. "N attempts remaining" gives MaxAttempts =
// Attempt + N; "no more retries left" gives MaxAttempts = Attempt.
//
// A bracket group just before the "[log_" group that names a traffic class
// ("[batch]", "[interactive]", see timeline.ParseClass) sets Class: it is
// the logger's own label. "sending request", "response start" and
// "response parsed" debug lines repeat what the outcome line says and are
// skipped, as are lines that are not about a request. The debug lines
// "response error (...)" and "response start", which follow the outcome
// line of the same log id, print the response headers: their retry-after-ms
// (which the SDK reads first) or retry-after (seconds, or an HTTP date
// taken relative to the line's time) becomes the attempt's RetryAfter.
type openaiNodeParser struct {
	strs     *interner
	pre      logPrefix
	outcomes outcomeCache
	earlier
	// chains counts the attempts seen per first log id.
	chains map[string]int32
	// outcomeLine is the line of each log id's outcome event, until its
	// detail line has been read.
	outcomeLine map[string]int64
}

// maxChains bounds the chain table; past it the table restarts, which only
// renumbers calls that are still retrying at that moment.
const maxChains = 1 << 20

// maxPendingDetails bounds the outcome lines kept for a detail line.
const maxPendingDetails = 1 << 14

func newOpenAINodeParser(strs *interner) *openaiNodeParser {
	return &openaiNodeParser{strs: strs, pre: newLogPrefix(), outcomes: outcomeCache{},
		chains: map[string]int32{}, outcomeLine: map[string]int64{}}
}

func (p *openaiNodeParser) format() string { return "openai-node" }

const (
	skipNotRequestLine = "not a retry or request line"
	skipRequestDetail  = "request or response detail"
	skipRetryAfterKept = "response headers (their retry-after is kept on the attempt)"
	skipNoTimestamp    = "no timestamp at the start of the line"
	// The SDK's default logger is console, which stamps nothing.
	skipNodeNoTimestamp = "openai-node log lines have no timestamps (the SDK's default console logger writes none); " +
		"pass a logger that stamps each line (the client's logger option: pino, winston)"
)

// nodeLogGroup finds the "[log_xxxxxx...]" group: its start in b, its
// contents and what follows it.
func nodeLogGroup(b []byte) (start int, group, after []byte, ok bool) {
	off := 0
	for {
		k := bytes.Index(b[off:], []byte("[log_"))
		if k < 0 {
			return 0, nil, nil, false
		}
		k += off
		end := bytes.IndexByte(b[k:], ']')
		if end > 0 && isLogID(b[k+1:k+end]) {
			return k, b[k+1 : k+end], bytes.TrimPrefix(b[k+end+1:], []byte(" ")), true
		}
		off = k + 5
	}
}

// isLogID reports whether g starts with "log_" and an id up to ',' or the end.
func isLogID(g []byte) bool {
	id := g
	if k := bytes.IndexByte(g, ','); k >= 0 {
		id = g[:k]
	}
	if len(id) <= 4 || len(id) > 40 {
		return false
	}
	for _, c := range id[4:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func (p *openaiNodeParser) parse(line []byte, e *timeline.Event) string {
	ts, rest, hasTime := p.pre.split(line)
	at, group, msg, ok := nodeLogGroup(rest)
	if !ok {
		return skipNotRequestLine
	}
	var status int64
	var durationMS int64
	var tail []byte
	connErr := ""
	switch {
	case bytes.HasPrefix(msg, []byte("connection timed out")):
		connErr, tail = "connection_timed_out", msg[len("connection timed out"):]
	case bytes.HasPrefix(msg, []byte("connection failed")):
		connErr, tail = "connection_failed", msg[len("connection failed"):]
	default:
		sp := bytes.IndexByte(msg, ' ')
		if sp <= 0 {
			return skipNotRequestLine
		}
		after := msg[sp+1:]
		k := bytes.Index(after, []byte(" with status "))
		if k < 0 {
			if isNodeDetail(msg) {
				if p.amendDetail(group, msg, ts) {
					return skipRetryAfterKept
				}
				return skipRequestDetail
			}
			return skipNotRequestLine
		}
		url := after[:k]
		if sk := bytes.LastIndexByte(url, ' '); sk >= 0 && (bytes.HasSuffix(url, []byte(" succeeded")) || bytes.HasSuffix(url, []byte(" failed"))) {
			url = url[:sk]
		} else {
			return skipNotRequestLine
		}
		s, r := leadingDecimal(after[k+len(" with status "):])
		n, ok := digits(s)
		if !ok || n > 999 || (len(r) > 0 && r[0] != ' ') {
			return "status is not a number"
		}
		status = n
		if r, ok = bytes.CutPrefix(r, []byte(" in ")); !ok {
			return `no " in <n>ms" after the status`
		}
		d, r := leadingDecimal(r)
		w, f, _, ok := parseDecimal(d)
		if !ok || !bytes.HasPrefix(r, []byte("ms")) || w > 1<<40 {
			return `duration is not "<n>ms"`
		}
		durationMS = w*1e6 + f/1e3
		tail = r[2:]
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(url))
	}
	if !hasTime {
		return skipNodeNoTimestamp
	}

	// The group: "log_x[, retryOf: log_y][, x-request-id: \"...\"]".
	id := group
	if k := bytes.IndexByte(group, ','); k >= 0 {
		id = group[:k]
	}
	if len(p.outcomeLine) >= maxPendingDetails {
		// Detail lines follow their outcome line closely; ids left over
		// are outcome lines logged without one (level info).
		clear(p.outcomeLine)
	}
	p.outcomeLine[string(id)] = e.Line
	var first []byte
	for len(group) > 0 {
		var item []byte
		if k := bytes.Index(group, []byte(", ")); k >= 0 {
			item, group = group[:k], group[k+2:]
		} else {
			item, group = group, nil
		}
		switch {
		case bytes.HasPrefix(item, []byte("log_")):
			id = item
		case bytes.HasPrefix(item, []byte("retryOf: ")):
			first = item[len("retryOf: "):]
		case bytes.HasPrefix(item, []byte("x-request-id: ")) || bytes.HasPrefix(item, []byte("request-id: ")):
			// Anthropic's SDK names its header request-id.
			_, v, _ := bytes.Cut(item, []byte(": "))
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			e.RequestID = timeline.InternBytes(v)
		}
	}
	if first == nil {
		first = id
	}
	e.CallID = p.strs.sym(first)
	if len(p.chains) >= maxChains {
		clear(p.chains)
	}
	n := p.chains[e.CallID.String()] + 1
	p.chains[e.CallID.String()] = n
	e.Attempt = timeline.Small(n)

	if cls := bracketBefore(rest, at); cls != nil {
		e.Class = timeline.ParseClass(p.strs.bytes(cls))
	}

	e.Layer = timeline.LayerHTTP
	e.RetryAfter = timeline.NoRetryAfter
	e.Status = timeline.Small(status)
	e.ErrorCode = timeline.Intern(connErr)
	if connErr != "" {
		e.Start = ts
		e.Outcome = timeline.OutcomeRetryable
	} else {
		e.Start, e.End = ts-durationMS, ts
		e.Outcome = p.outcomes.classify(e.Status, timeline.NoSym)
	}
	if r, ok := cutAfter(tail, "retrying, "); ok {
		if left, ok := digits(bytes.TrimSuffix(r, []byte(" attempts remaining"))); ok && left < 1<<20 {
			e.MaxAttempts = timeline.Small(n + int32(left))
		}
	} else if bytes.Contains(tail, []byte("no more retries left")) {
		e.MaxAttempts = timeline.Small(n)
	}
	return ""
}

// amendDetail reads the retry-after from a "response ..." debug line into
// the outcome event its log id emitted.
func (p *openaiNodeParser) amendDetail(group, msg []byte, ts int64) bool {
	if !bytes.HasPrefix(msg, []byte("response ")) {
		return false
	}
	if k := bytes.IndexByte(group, ','); k >= 0 {
		group = group[:k]
	}
	line, ok := p.outcomeLine[string(group)]
	if !ok {
		return false
	}
	delete(p.outcomeLine, string(group))
	e := p.at(line)
	if e == nil {
		return false
	}
	d := headerRetryAfter(msg, ts)
	if d == timeline.NoRetryAfter {
		return false
	}
	e.RetryAfter = d
	return true
}

// headerRetryAfter finds retry-after-ms, else retry-after, among response
// headers printed as JSON ("retry-after":"2"), or NoRetryAfter.
func headerRetryAfter(b []byte, logged int64) timeline.Millis {
	if v := jsonHeaderValue(b, `"retry-after-ms":`); v != nil {
		if w, f, _, ok := parseDecimal(v); ok && w < 1<<40 {
			return timeline.MillisOf(time.Duration(w*1e6 + f/1e3))
		}
	}
	if v := jsonHeaderValue(b, `"retry-after":`); v != nil && len(v) <= 64 {
		return parseRetryAfter(v, logged)
	}
	return timeline.NoRetryAfter
}

// jsonHeaderValue returns the string or number value after key in b.
func jsonHeaderValue(b []byte, key string) []byte {
	v, ok := cutAfter(b, key)
	if !ok {
		return nil
	}
	v = bytes.TrimLeft(v, " ")
	if len(v) > 0 && v[0] == '"' {
		end := bytes.IndexByte(v[1:], '"')
		if end < 0 {
			return nil
		}
		return v[1 : 1+end]
	}
	n, _ := leadingDecimal(v)
	return n
}

// isNodeDetail reports the SDK's debug lines around a request, which the
// outcome line already summarises.
func isNodeDetail(msg []byte) bool {
	return bytes.HasPrefix(msg, []byte("sending request")) || bytes.HasPrefix(msg, []byte("response "))
}

// sniffOpenAINode claims a sample with at least one "[log_xxxxxx]" request
// line of a Stainless TypeScript SDK.
//
// The SDK's default logger (console) writes the same lines with no time;
// they are claimed too, so that the report says what they lack.
func sniffOpenAINode(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	p := newOpenAINodeParser(strs)
	for _, l := range sample {
		_, rest, hasTime := p.pre.split(l.text)
		if at, _, msg, ok := nodeLogGroup(rest); ok && isNodeMessage(msg) && (hasTime || at == 0) {
			return p, ""
		}
	}
	return nil, `openai-node (no timestamped "[log_…]" request line)`
}

// isNodeMessage reports whether msg, after the log group, is one of the
// SDK's request messages.
func isNodeMessage(msg []byte) bool {
	if bytes.HasPrefix(msg, []byte("connection ")) || bytes.HasPrefix(msg, []byte("sending request")) {
		return true
	}
	return bytes.Contains(msg, []byte(" with status ")) &&
		(bytes.Contains(msg, []byte(" succeeded ")) || bytes.Contains(msg, []byte(" failed ")))
}
