package ingest

import (
	"bytes"
	"time"

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
// is never counted twice; the headers "HTTP Response:" prints give the
// attempt before it its retry-after (retry-after-ms first, as the SDK reads
// them).
//
// "Retrying request [to <path>] in X seconds" follows the failed attempt
// it retries. When httpx logs the attempts, it adds none (the attempt's own
// "HTTP Request:" line came before it) and is skipped; a file that has shown
// no httpx line yet has only these lines, and each is then an attempt event
// of its own: LayerHTTP, Start = the line's time (when the SDK saw the
// failure), Route = the path when given, and a retryable error, or the
// status of the SDK's DEBUG "Retrying due to status code N" line just
// before it. X is the SDK's chosen delay, which is the server's retry-after
// only when the SDK honoured one exactly, so RetryAfter stays unknown.
// Lines with no time (logging.basicConfig's default "INFO:httpx:...") are
// skipped with a reason, since an attempt without a time cannot be placed
// in a wave.
type openaiPythonParser struct {
	strs     *interner
	pre      logPrefix
	outcomes outcomeCache
	// httpx is set once an httpx line has been read: the attempts are
	// then its lines, not the SDK's retry lines.
	httpx bool
	// retryStatus is the status of the last "Retrying due to status code"
	// line, for the retry line that follows it.
	retryStatus int32
	earlier
	// lastAttempt is the line of the last httpx attempt, whose headers the
	// SDK's DEBUG "HTTP Response:" line may print next.
	lastAttempt int64
}

func newOpenAIPythonParser(strs *interner) *openaiPythonParser {
	return &openaiPythonParser{strs: strs, pre: newLogPrefix(), outcomes: outcomeCache{}}
}

func (p *openaiPythonParser) format() string { return "openai-python" }

const (
	skipRetryDelay  = "SDK retry delay (the retry's own request line follows)"
	skipRetryStatus = "retry status (kept on the SDK's retry line)"
	httpxMarker     = "HTTP Request: "
)

func (p *openaiPythonParser) parse(line []byte, e *timeline.Event) string {
	ts, rest, hasTime := p.pre.split(line)
	req, ok := cutAfter(rest, httpxMarker)
	if !ok {
		switch {
		case isRetryDelay(rest):
			if p.httpx {
				return skipRetryDelay
			}
			return p.retryAttempt(rest, ts, hasTime, e)
		case bytes.Contains(rest, []byte("HTTP Response: ")):
			// The SDK's DEBUG echo of httpx's line, with the headers.
			if p.amendHeaders(rest, ts) {
				return skipRetryAfterKept
			}
			return skipRequestDetail
		case bytes.Contains(rest, []byte("Request options: ")):
			return skipRequestDetail
		}
		if r, ok := cutAfter(rest, "Retrying due to status code "); ok {
			if p.httpx {
				// httpx's line of the attempt has the status.
				return skipRequestDetail
			}
			if n, ok := digits(bytes.TrimSpace(r)); ok && n <= 999 {
				p.retryStatus = int32(n)
				return skipRetryStatus
			}
		}
		return skipNotRequestLine
	}
	p.httpx, p.lastAttempt = true, 0
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
	e.Status = timeline.Small(status)
	e.Outcome = p.outcomes.classify(e.Status, timeline.NoSym)
	e.Route = p.strs.label(timeline.LabelRoute, pathOnly(url))
	e.RetryAfter = timeline.NoRetryAfter
	p.lastAttempt = e.Line
	return ""
}

// amendHeaders reads retry-after-ms, else retry-after, from the headers of
// an "HTTP Response: ... Headers({...})" line into the httpx attempt just
// before it.
func (p *openaiPythonParser) amendHeaders(rest []byte, ts int64) bool {
	e := p.at(p.lastAttempt)
	p.lastAttempt = 0
	if e == nil {
		return false
	}
	d := timeline.NoRetryAfter
	if v := pyDictValue(rest, "retry-after-ms", "Retry-After-Ms"); v != nil {
		if w, f, _, ok := parseDecimal(v); ok && w < 1<<40 {
			d = timeline.MillisOf(time.Duration(w*1e6 + f/1e3))
		}
	} else if v := pyDictValue(rest, "retry-after", "Retry-After"); v != nil && len(v) <= 64 {
		d = parseRetryAfter(v, ts)
	}
	if d == timeline.NoRetryAfter {
		return false
	}
	e.RetryAfter = d
	return true
}

// retryAttempt reads "Retrying request [to /path] in X seconds" as the
// failed attempt it retries.
func (p *openaiPythonParser) retryAttempt(rest []byte, ts int64, hasTime bool, e *timeline.Event) string {
	status := p.retryStatus
	p.retryStatus = 0
	if !hasTime {
		return skipNoTimestamp
	}
	e.Layer = timeline.LayerHTTP
	e.Start = ts
	e.Status = timeline.Small(status)
	e.Outcome = timeline.OutcomeRetryable
	if status != 0 {
		e.Outcome = p.outcomes.classify(timeline.Small(status), timeline.NoSym)
	}
	if r, ok := cutAfter(rest, "Retrying request to "); ok {
		if k := bytes.Index(r, []byte(" in ")); k > 0 {
			e.Route = p.strs.label(timeline.LabelRoute, pathOnly(r[:k]))
		}
	}
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
