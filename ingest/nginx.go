package ingest

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/stampede/stampede/timeline"
)

// nginxParser turns lines of one compiled log_format into attempt events.
// Values are matched on bytes: a variable's value runs up to the first
// occurrence of the literal that follows it. nginx escapes '"' inside
// values as \x22, so a quoted value never contains its closing quote.
type nginxParser struct {
	f        *logFormat
	strs     *interner
	outcomes outcomeCache

	// nginx writes $time_local once per second for many lines in a row;
	// remembering the last one makes the common case a 26-byte compare.
	lastTimeLocal    [26]byte
	lastTimeLocalSet bool
	lastTimeLocalNs  int64
}

func newNginxParser(f *logFormat, strs *interner) *nginxParser {
	return &nginxParser{f: f, strs: strs, outcomes: outcomeCache{}}
}

func (p *nginxParser) format() string { return "nginx:" + p.f.name }

// parse fills e from line and returns "" or the reason the line is unusable.
func (p *nginxParser) parse(line []byte, e *timeline.Event) string {
	f := p.f
	if !bytes.HasPrefix(line, f.lead) {
		return fmt.Sprintf("expected %s at column 1", quoteLit(f.lead))
	}
	pos := len(f.lead)

	var (
		status, upstreamStatus int32 = -1, -1
		timeNs, msecNs         int64
		haveTime, haveMsec     bool
		requestTime            int64 = -1
		retryAfter             []byte
		retryAfterMs           []byte
	)
	for i := range f.fields {
		fd := &f.fields[i]
		start := pos
		var val []byte
		if len(fd.next) == 0 {
			val = line[pos:]
			pos = len(line)
		} else {
			n := indexValueEnd(line[pos:], fd.next, fd.kind == varUpstreamList || fd.kind == varUpstreamStatus)
			if n < 0 {
				return fmt.Sprintf("expected %s after $%s at column %d", quoteLit(fd.next), fd.name, start+1)
			}
			val = line[pos : pos+n]
			pos += n + len(fd.next)
		}
		if fd.kind == varIgnored {
			continue
		}
		absent := len(val) == 1 && val[0] == '-'
		switch fd.kind {
		case varTimeLocal:
			ns, ok := p.timeLocal(val)
			if !ok {
				return badValue(fd, val)
			}
			timeNs, haveTime = ns, true
		case varTimeISO:
			ns, ok := parseISOTime(val)
			if !ok {
				return badValue(fd, val)
			}
			timeNs, haveTime = ns, true
		case varMsec:
			ns, ok := parseSeconds(val)
			if !ok {
				return badValue(fd, val)
			}
			msecNs, haveMsec = ns, true
		case varStatus:
			n, ok := digits(val)
			if !ok || n > 999 {
				return badValue(fd, val)
			}
			status = int32(n)
		case varUpstreamStatus:
			if n, ok := digits(lastListItem(val)); ok && n <= 999 {
				upstreamStatus = int32(n)
			}
		case varRequestTime:
			if absent {
				continue
			}
			ns, ok := parseSeconds(val)
			if !ok {
				return badValue(fd, val)
			}
			requestTime = ns
		case varRequest:
			if !absent {
				e.Route = p.strs.bytes(routeOfRequest(val))
			}
		case varURI:
			if !absent && e.Route == "" {
				e.Route = p.strs.bytes(pathOnly(val))
			}
		case varUserAgent:
			if !absent {
				e.Client = p.strs.bytes(val)
			}
		case varRetryCount:
			// x-stainless-retry-count counts retries before this attempt.
			if n, ok := digits(val); ok && n < 1<<20 {
				e.Attempt = int32(n) + 1
			}
		case varAmzSDKRequest:
			if a, m := parseAmzSDKRequest(val); a > 0 {
				e.Attempt, e.MaxAttempts = a, m
			}
		case varCallID:
			if !absent && len(val) > 0 {
				e.CallID = p.strs.bytes(val)
			}
		case varTaskID:
			if !absent && len(val) > 0 {
				e.TaskID = p.strs.bytes(val)
			}
		case varRequestID:
			if !absent && len(val) > 0 && e.RequestID == "" {
				e.RequestID = string(val)
			}
		case varRetryAfter:
			if !absent && len(val) > 0 {
				retryAfter = val
			}
		case varRetryAfterMs:
			if !absent && len(val) > 0 {
				retryAfterMs = val
			}
		case varErrorType:
			if !absent && len(val) > 0 {
				// x-amzn-errortype: "ThrottlingException:http://internal.amazon.com/..."
				if k := bytes.IndexByte(val, ':'); k >= 0 {
					val = val[:k]
				}
				e.ErrorCode = p.strs.bytes(val)
			}
		}
	}
	if pos != len(line) {
		return fmt.Sprintf("unexpected text at column %d after the end of the format", pos+1)
	}

	// nginx writes the line when the request ends. Without $msec the end
	// is $time_local truncated to the second, so Start may be up to 1 s
	// early; analyses that need better take it from a log with $msec.
	var end int64
	switch {
	case haveMsec:
		end = msecNs
	case haveTime:
		end = timeNs
	default:
		return "no time in line"
	}
	if requestTime >= 0 {
		e.Start, e.End = end-requestTime, end
	} else {
		e.Start, e.End = end, 0
	}
	e.RetryAfter = timeline.NoRetryAfter
	// retry-after-ms is the more precise of the two when a server sends both.
	if retryAfterMs != nil {
		if w, f, _, ok := parseDecimal(retryAfterMs); ok {
			e.RetryAfter = time.Duration(w*1e6 + f/1e3)
		}
	}
	if e.RetryAfter == timeline.NoRetryAfter && retryAfter != nil {
		e.RetryAfter = parseRetryAfter(retryAfter, end)
	}
	if status < 0 {
		status = upstreamStatus
	}
	if status < 0 {
		status = 0
	}
	e.Status = status
	e.Layer = timeline.LayerHTTP
	e.Outcome = p.outcomes.classify(status, e.ErrorCode)
	return ""
}

func (p *nginxParser) timeLocal(val []byte) (int64, bool) {
	if p.lastTimeLocalSet && len(val) == len(p.lastTimeLocal) && bytes.Equal(val, p.lastTimeLocal[:]) {
		return p.lastTimeLocalNs, true
	}
	ns, ok := parseTimeLocal(val)
	if ok {
		copy(p.lastTimeLocal[:], val)
		p.lastTimeLocalSet, p.lastTimeLocalNs = true, ns
	}
	return ns, ok
}

// indexValueEnd finds where a value ends: the first occurrence of lit. For
// nginx's upstream lists ("0.002, 0.001", "502 : 429") a separator that
// looks like the literal does not end the value.
func indexValueEnd(b, lit []byte, list bool) int {
	off := 0
	for {
		n := bytes.Index(b[off:], lit)
		if n < 0 {
			return -1
		}
		n += off
		if list && lit[0] == ' ' && isListSeparator(b, n) {
			off = n + 1
			continue
		}
		if lit[0] == '"' && escapedAt(b, n) {
			off = n + 1
			continue
		}
		return n
	}
}

// escapedAt reports whether b[i] is preceded by an odd run of backslashes:
// a quote that escape=json wrote as \" inside a value. (The default escape
// writes \x22 and \x5C, so there a quote is never preceded by one.)
func escapedAt(b []byte, i int) bool {
	k := i
	for k > 0 && b[k-1] == '\\' {
		k--
	}
	return (i-k)%2 == 1
}

// isListSeparator reports whether the space at b[i] is part of ", " or " : ".
func isListSeparator(b []byte, i int) bool {
	if i > 0 && (b[i-1] == ',' || b[i-1] == ':') {
		return true
	}
	return i+2 < len(b) && b[i+1] == ':' && b[i+2] == ' '
}

// lastListItem returns the last element of an upstream list: the final
// upstream's answer.
func lastListItem(b []byte) []byte {
	if k := bytes.LastIndexAny(b, ",:"); k >= 0 {
		b = b[k+1:]
	}
	return bytes.TrimSpace(b)
}

// routeOfRequest extracts the path of "METHOD /path?query HTTP/1.1".
func routeOfRequest(req []byte) []byte {
	if sp := bytes.IndexByte(req, ' '); sp >= 0 {
		req = req[sp+1:]
		if sp = bytes.LastIndexByte(req, ' '); sp >= 0 {
			req = req[:sp]
		}
	}
	return pathOnly(req)
}

// pathOnly drops a query string, and the scheme and host of an absolute URL.
func pathOnly(u []byte) []byte {
	if k := bytes.IndexByte(u, '?'); k >= 0 {
		u = u[:k]
	}
	if k := bytes.Index(u, []byte("://")); k >= 0 {
		rest := u[k+3:]
		if s := bytes.IndexByte(rest, '/'); s >= 0 {
			u = rest[s:]
		} else {
			u = []byte("/")
		}
	}
	return u
}

// parseAmzSDKRequest reads "attempt=2; max=3" (optionally with "ttl=...;").
func parseAmzSDKRequest(b []byte) (attempt, max int32) {
	for len(b) > 0 {
		var part []byte
		if k := bytes.IndexByte(b, ';'); k >= 0 {
			part, b = b[:k], b[k+1:]
		} else {
			part, b = b, nil
		}
		part = bytes.TrimSpace(part)
		if v, ok := bytes.CutPrefix(part, []byte("attempt=")); ok {
			if n, ok := digits(v); ok && n < 1<<20 {
				attempt = int32(n)
			}
		} else if v, ok := bytes.CutPrefix(part, []byte("max=")); ok {
			if n, ok := digits(v); ok && n < 1<<20 {
				max = int32(n)
			}
		}
	}
	return attempt, max
}

// parseRetryAfter reads Retry-After as delay-seconds or as an HTTP date,
// which is taken relative to the time the response was logged.
func parseRetryAfter(b []byte, logged int64) time.Duration {
	if w, f, _, ok := parseDecimal(b); ok {
		return time.Duration(w*1e9 + f)
	}
	if at, ok := parseHTTPDate(b); ok {
		if d := at - logged; d > 0 {
			return time.Duration(d)
		}
		return 0
	}
	return timeline.NoRetryAfter
}

func badValue(fd *field, val []byte) string {
	if len(val) > 40 {
		val = append(val[:37:37], "..."...)
	}
	return "bad $" + fd.name + " " + strconv.Quote(string(val))
}

// quoteLit renders a literal for messages: '" ' rather than "\" ".
func quoteLit(b []byte) string {
	s := strconv.Quote(string(b))
	s = s[1 : len(s)-1]
	return "'" + string(bytes.ReplaceAll([]byte(s), []byte(`\"`), []byte(`"`))) + "'"
}
