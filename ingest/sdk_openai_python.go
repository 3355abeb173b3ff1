package ingest

import (
	"bytes"

	"github.com/stampede/stampede/timeline"
)

// openaiPythonParser reads the Python logs of the Stainless SDKs
// (openai-python, anthropic-sdk-python), whose attempts httpx logs at INFO:
//
//	2026-08-21 10:15:02,123 - httpx - INFO - HTTP Request: POST https://api.openai.com/v1/chat/completions "HTTP/1.1 429 Too Many Requests"
//	2026-08-21 10:15:02,125 - openai._base_client - INFO - Retrying request to /chat/completions in 0.383596 seconds
//
// behind any prefix logPrefix knows, e.g. "[2026-08-21 10:15:02 -
// httpx:1025 - INFO] ..." (the SDK's own OPENAI_LOG setup).
//
// Each "HTTP Request:" line is one attempt (LayerHTTP) with its status,
// route and outcome. httpx writes it when the response headers arrive and
// gives no duration, so Start is that time and End is unknown. The lines
// carry no request or call id, so Attempt and CallID stay unknown.
//
// The SDK's DEBUG "Request options: ..." and "HTTP Response: ..." lines
// repeat the request and httpx's line, and are skipped so that an attempt
// is never counted twice.
//
// "Retrying request [to <path>] in X seconds" is skipped: it adds no attempt
// (the retry's own "HTTP Request:" line follows), and X is the SDK's chosen
// delay, which is the server's retry-after only when the SDK honoured one
// exactly; storing it as RetryAfter would be a guess. Lines with no time
// (logging.basicConfig's default "INFO:httpx:...") are skipped with a
// reason, since an attempt without a time cannot be placed in a wave.
type openaiPythonParser struct {
	strs     *interner
	pre      logPrefix
	outcomes outcomeCache
}

func newOpenAIPythonParser(strs *interner) *openaiPythonParser {
	return &openaiPythonParser{strs: strs, pre: newLogPrefix(), outcomes: outcomeCache{}}
}

func (p *openaiPythonParser) format() string { return "openai-python" }

const (
	skipRetryDelay = "SDK retry delay (the retry's own request line follows)"
	httpxMarker    = "HTTP Request: "
)

func (p *openaiPythonParser) parse(line []byte, e *timeline.Event) string {
	ts, rest, hasTime := p.pre.split(line)
	req, ok := cutAfter(rest, httpxMarker)
	if !ok {
		switch {
		case isRetryDelay(rest):
			return skipRetryDelay
		case bytes.Contains(rest, []byte("HTTP Response: ")) || bytes.Contains(rest, []byte("Request options: ")):
			// The SDK's DEBUG echo of the request and of httpx's line.
			return skipRequestDetail
		}
		return skipNotRequestLine
	}
	// METHOD URL "HTTP/1.1 429 Too Many Requests"
	sp := bytes.IndexByte(req, ' ')
	if sp <= 0 {
		return "HTTP Request line without a method and URL"
	}
	url := req[sp+1:]
	q := bytes.Index(url, []byte(` "HTTP/`))
	if q < 0 {
		return `HTTP Request line without "HTTP/<version> <status>"`
	}
	statusLine := url[q+len(` "HTTP/`):]
	url = url[:q]
	k := bytes.IndexByte(statusLine, ' ')
	if k < 0 {
		return `HTTP Request line without "HTTP/<version> <status>"`
	}
	s, _ := leadingDecimal(statusLine[k+1:])
	status, ok := digits(s)
	if !ok || status > 999 {
		return "HTTP Request status is not a number"
	}
	if !hasTime {
		return skipNoTimestamp
	}
	e.Layer = timeline.LayerHTTP
	e.Start = ts
	e.Status = int32(status)
	e.Outcome = p.outcomes.classify(e.Status, timeline.NoSym)
	e.Route = p.strs.sym(pathOnly(url))
	e.RetryAfter = timeline.NoRetryAfter
	return ""
}

// isRetryDelay reports the SDK's "Retrying request to /x in 0.38 seconds"
// and its newer "Retrying request in 0.38 seconds".
func isRetryDelay(b []byte) bool {
	r, ok := cutAfter(b, "Retrying request ")
	return ok && bytes.Contains(r, []byte("in ")) && bytes.HasSuffix(bytes.TrimRight(r, " "), []byte(" seconds"))
}

// sniffOpenAIPython claims a sample with at least one httpx "HTTP Request:"
// line or SDK retry line.
func sniffOpenAIPython(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	p := newOpenAIPythonParser(strs)
	var e timeline.Event
	for _, l := range sample {
		if bytes.Contains(l.text, []byte(httpxMarker)) {
			e = timeline.Event{}
			if r := p.parse(l.text, &e); r == "" || r == skipNoTimestamp {
				return p, ""
			}
		}
		if isRetryDelay(l.text) {
			return p, ""
		}
	}
	return nil, `openai-python (no httpx "HTTP Request:" or "Retrying request" line)`
}
