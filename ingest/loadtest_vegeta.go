package ingest

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"time"

	"github.com/stampede/stampede/timeline"
)

// Vegeta results, as `vegeta encode` writes them. Each result is one
// attempt: Vegeta sends at a constant rate and never retries, so a
// throttled load test shows the server's answers without a client's
// retries mixed in. timestamp is when the request was sent and latency
// runs to the end of the response.

// vegetaJSONParser reads `vegeta encode --to json` lines.
type vegetaJSONParser struct {
	js       *jsonPaths
	strs     *interner
	outcomes outcomeCache
}

const (
	vjTimestamp = iota
	vjCode
	vjLatency
	vjError
	vjURL
	vjRetryAfter
	vjErrorType
	vjRequestID
	vjAmznRequestID
)

func newVegetaJSONParser(strs *interner) *vegetaJSONParser {
	// Header names are Go's canonical form: Vegeta logs an http.Header.
	return &vegetaJSONParser{
		js: newJSONPaths("timestamp", "code", "latency", "error", "url", "headers.Retry-After",
			"headers.X-Amzn-Errortype", "headers.X-Request-Id", "headers.X-Amzn-Requestid"),
		strs:     strs,
		outcomes: outcomeCache{},
	}
}

func (p *vegetaJSONParser) format() string { return "vegeta-json" }

func (p *vegetaJSONParser) parse(line []byte, e *timeline.Event) string {
	js := p.js
	if reason := js.scan(line); reason != "" {
		return reason
	}
	start, reason := js.time(vjTimestamp)
	if reason != "" {
		return reason
	}
	if js.get(vjCode) == nil {
		return "no code"
	}
	if e.Status, reason = js.status(vjCode); reason != "" {
		return reason
	}
	latency, reason := js.duration(vjLatency, time.Nanosecond)
	if reason != "" {
		return reason
	}
	e.Start = start
	if latency >= 0 {
		e.End = start + int64(latency)
	}
	e.Layer = timeline.LayerHTTP
	if b := js.text(vjURL); b != nil {
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(b))
	}
	e.RequestID = timeline.InternBytes(firstNonNil(js.text(vjRequestID), js.text(vjAmznRequestID)))
	e.ErrorCode = vegetaErrorCode(p.strs, e.Status, js.text(vjErrorType), js.text(vjError))
	e.RetryAfter = timeline.NoRetryAfter
	if b := js.text(vjRetryAfter); b != nil {
		e.RetryAfter = parseRetryAfter(b, max(e.End, e.Start))
	}
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}

// vegetaErrorCode prefers the platform's error type header. Vegeta's error
// text for a response is just the status line ("429 Too Many Requests"),
// which Status already says; without a response (code 0) the text is the
// only clue (a timeout, a refused connection).
func vegetaErrorCode(strs *interner, status int16, errorType, errText []byte) timeline.Sym {
	if errorType != nil {
		if k := bytes.IndexByte(errorType, ':'); k >= 0 {
			errorType = errorType[:k]
		}
		return strs.label(timeline.LabelErrorCode, errorType)
	}
	if status == 0 && errText != nil {
		return strs.label(timeline.LabelErrorCode, errText)
	}
	return timeline.NoSym
}

func firstNonNil(bs ...[]byte) []byte {
	for _, b := range bs {
		if b != nil {
			return b
		}
	}
	return nil
}

// vegetaCSVParser reads `vegeta encode --to csv` records. Vegeta releases
// wrote 6 columns (timestamp, code, latency, bytes out, bytes in, error),
// then 9 (+ base64 body, attack name, seq), then 12 (+ method, url,
// base64 response headers); the leading columns never moved, so all three
// are read.
type vegetaCSVParser struct {
	csv      csvSplitter
	strs     *interner
	outcomes outcomeCache
	headers  []byte
}

func newVegetaCSVParser(strs *interner) *vegetaCSVParser {
	return &vegetaCSVParser{strs: strs, outcomes: outcomeCache{}}
}

func (p *vegetaCSVParser) format() string { return "vegeta-csv" }

const (
	vcTimestamp = 0
	vcCode      = 1
	vcLatency   = 2
	vcError     = 5
	vcURL       = 10
	vcHeaders   = 11
)

func (p *vegetaCSVParser) parse(line []byte, e *timeline.Event) string {
	f, reason := p.csv.split(line)
	if reason != "" {
		return reason
	}
	if n := len(f); n != 6 && n != 9 && n != 12 {
		return strconv.Itoa(n) + " columns: want 6, 9 or 12"
	}
	ts, ok := digits(f[vcTimestamp])
	if !ok || ts < 1e17 {
		return "bad timestamp " + quoteField(f[vcTimestamp]) + ": want Unix nanoseconds"
	}
	code, ok := digits(f[vcCode])
	if !ok || code > 999 {
		return "bad code " + quoteField(f[vcCode]) + ": want an HTTP status"
	}
	latency, ok := digits(f[vcLatency])
	if !ok || latency > int64(maxRequestDuration) {
		return "bad latency " + quoteField(f[vcLatency]) + ": want nanoseconds"
	}
	e.Start, e.End = ts, ts+latency
	e.Status = timeline.Small(code)
	e.Layer = timeline.LayerHTTP
	e.RetryAfter = timeline.NoRetryAfter
	var errorType []byte
	if len(f) == 12 {
		if len(f[vcURL]) > 0 {
			e.Route = p.strs.label(timeline.LabelRoute, pathOnly(f[vcURL]))
		}
		var retryAfter, requestID []byte
		retryAfter, errorType, requestID = p.wireHeaders(f[vcHeaders])
		if retryAfter != nil {
			e.RetryAfter = parseRetryAfter(retryAfter, e.End)
		}
		e.RequestID = timeline.InternBytes(requestID)
	}
	var errText []byte
	if len(f[vcError]) > 0 {
		errText = f[vcError]
	}
	e.ErrorCode = vegetaErrorCode(p.strs, e.Status, errorType, errText)
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}

// wireHeaders decodes the base64 header column, which holds the response
// headers in HTTP/1 wire form ("Name: value\r\n"), and picks the ones
// stampede reads. Undecodable headers are ignored rather than losing the
// attempt: they are a detail, the status is what counts.
func (p *vegetaCSVParser) wireHeaders(b64 []byte) (retryAfter, errorType, requestID []byte) {
	if len(b64) == 0 {
		return nil, nil, nil
	}
	if need := base64.StdEncoding.DecodedLen(len(b64)); cap(p.headers) < need {
		p.headers = make([]byte, need)
	}
	p.headers = p.headers[:cap(p.headers)]
	n, err := base64.StdEncoding.Decode(p.headers, b64)
	if err != nil {
		return nil, nil, nil
	}
	h := p.headers[:n]
	for len(h) > 0 {
		var l []byte
		if k := bytes.IndexByte(h, '\n'); k >= 0 {
			l, h = h[:k], h[k+1:]
		} else {
			l, h = h, nil
		}
		name, val, ok := bytes.Cut(bytes.TrimRight(l, "\r"), []byte(":"))
		if !ok {
			continue
		}
		val = bytes.TrimSpace(val)
		switch {
		case bytes.EqualFold(name, []byte("Retry-After")):
			retryAfter = val
		case bytes.EqualFold(name, []byte("X-Amzn-Errortype")):
			errorType = val
		case bytes.EqualFold(name, []byte("X-Request-Id")), bytes.EqualFold(name, []byte("X-Amzn-Requestid")):
			requestID = val
		}
	}
	return retryAfter, errorType, requestID
}

// quoteField renders a CSV value for a message, shortened.
func quoteField(b []byte) string {
	if len(b) > 40 {
		b = append(b[:37:37], "..."...)
	}
	return strconv.Quote(string(b))
}
