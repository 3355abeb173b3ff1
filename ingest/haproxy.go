package ingest

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/stampede/stampede/timeline"
)

// HAProxyErrorCode opens the error code of a response HAProxy generated
// itself (a deny, a stick-table rate limit, a queue or connect timeout)
// rather than relayed from a server; the termination state follows it
// ("haproxy:PR--"). Like ALBErrorCode, it tells the proxy's own 429s
// apart from the endpoint's.
const HAProxyErrorCode = "haproxy"

// haproxyParser reads HAProxy HTTP logs written by a compiled log-format.
type haproxyParser struct {
	f        *haproxyFormat
	strs     *interner
	outcomes outcomeCache
	captures []string
	// reqCaps and resCaps are what each captured header is, in the order
	// the capture lines declare them: the nginx variable kinds of
	// $http_NAME and $sent_http_NAME.
	reqCaps, resCaps []varKind
	notes            []string
	vals             [hapResHeader + 1][]byte
	reqVals, resVals [][]byte
	headers          []hdrVal
}

// hdrVal is the value of a header a sample expression logged.
type hdrVal struct {
	el  *hapElem
	val []byte
}

func newHAProxyParser(f *haproxyFormat, captures []string, strs *interner) *haproxyParser {
	p := &haproxyParser{f: f, strs: strs, outcomes: outcomeCache{}, captures: captures}
	for _, c := range captures {
		name := strings.ToLower(strings.TrimSpace(c))
		if rest, ok := strings.CutPrefix(name, "res:"); ok {
			p.resCaps = append(p.resCaps, knownVars["sent_http_"+strings.ReplaceAll(rest, "-", "_")])
			continue
		}
		p.reqCaps = append(p.reqCaps, knownVars["http_"+strings.ReplaceAll(name, "-", "_")])
	}
	return p
}

func (p *haproxyParser) format() string { return "haproxy:" + p.f.name }

func (p *haproxyParser) clone(strs *interner) lineParser {
	q := newHAProxyParser(p.f, p.captures, strs)
	q.notes = p.notes
	return q
}

func (p *haproxyParser) detectionNotes() []string { return p.notes }

// nextLit returns the literal after element k, or nil.
func (f *haproxyFormat) nextLit(k int) []byte {
	if k+1 < len(f.elems) && f.elems[k+1].name == "" {
		return f.elems[k+1].lit
	}
	return nil
}

// scan matches line against the format and fills p.vals; it returns ""
// or why the line does not match.
func (p *haproxyParser) scan(line []byte) string {
	clear(p.vals[:])
	p.reqVals, p.resVals, p.headers = p.reqVals[:0], p.resVals[:0], p.headers[:0]
	i := 0
	absent := false // the previous variable was a capture block left out
	for k := range p.f.elems {
		el := &p.f.elems[k]
		if el.name == "" {
			lit := el.lit
			if absent {
				// HAProxy leaves out an empty %hr or %hs with the space
				// after it.
				lit = bytes.TrimPrefix(lit, []byte{' '})
			}
			absent = false
			if i == len(line) && len(bytes.Trim(lit, " ")) == 0 {
				// Trailing empty captures (%hsl) leave the line early.
				continue
			}
			if !bytes.HasPrefix(line[i:], lit) {
				return fmt.Sprintf("expected %s at column %d", quoteLit(lit), i+1)
			}
			i += len(lit)
			continue
		}
		absent = false
		next := p.f.nextLit(k)
		switch el.kind {
		case hapReqCaptures, hapResCaptures:
			j, reason := p.captureBlock(line, i, el, next)
			if reason != "" {
				return reason
			}
			absent, i = j == i, j
			continue
		case hapReqCapturesCLF, hapResCapturesCLF:
			j, reason := p.captureList(line, i, el)
			if reason != "" {
				return reason
			}
			absent, i = j == i, j
			continue
		}
		if next == nil {
			next = []byte{'\n'} // the last value runs to the end of the line
		}
		v, j, reason := hapToken(line, i, next)
		if reason != "" {
			return el.name + ": " + reason
		}
		i = j
		switch el.kind {
		case hapIgnored:
		case hapReqHeader, hapResHeader:
			p.headers = append(p.headers, hdrVal{el, v})
		default:
			p.vals[el.kind] = v
		}
	}
	if rest := bytes.TrimSpace(line[i:]); len(rest) > 0 {
		return fmt.Sprintf("unexpected text %q after the end of the format", truncated(rest))
	}
	return ""
}

// captureBlock reads %hr or %hs at line[i], "{a|b}", up to the '}' before
// the literal next; it returns i unchanged when HAProxy left the block out.
func (p *haproxyParser) captureBlock(line []byte, i int, el *hapElem, next []byte) (int, string) {
	if i >= len(line) || line[i] != '{' {
		return i, ""
	}
	end := bytes.Index(line[i:], append([]byte{'}'}, next...))
	if len(next) == 0 {
		end = bytes.LastIndexByte(line[i:], '}')
	}
	if end < 0 {
		return 0, fmt.Sprintf("unterminated %s at column %d", el.name, i+1)
	}
	p.splitCaptures(el.kind == hapReqCaptures, line[i+1:i+end], '|')
	return i + end + 1, ""
}

// captureList reads %hrl or %hsl at line[i]: one value per named capture,
// space-separated, or every value left on the line when none is named.
func (p *haproxyParser) captureList(line []byte, i int, el *hapElem) (int, string) {
	req := el.kind == hapReqCapturesCLF
	want := len(p.resCaps)
	if req {
		want = len(p.reqCaps)
	}
	if len(p.captures) == 0 {
		want = -1
	}
	for n := 0; (want < 0 || n < want) && i < len(line); n++ {
		if n > 0 {
			if line[i] != ' ' {
				break
			}
			i++
		}
		v, j, reason := hapToken(line, i, nil)
		if reason != "" {
			return 0, reason
		}
		p.appendCapture(req, v)
		i = j
	}
	return i, ""
}

// hapToken reads one value at line[i]: a quoted string (HAProxy's +Q), or
// the text up to the literal next (to the end of line when next is nil,
// to the next space for a capture in a CLF list).
func hapToken(line []byte, i int, next []byte) (val []byte, j int, reason string) {
	if i < len(line) && line[i] == '"' {
		k := i + 1
		for {
			q := bytes.IndexByte(line[k:], '"')
			if q < 0 {
				return nil, 0, fmt.Sprintf("unterminated quote at column %d", i+1)
			}
			k += q
			if !escapedAt(line, k) {
				break
			}
			k++
		}
		return line[i+1 : k], k + 1, ""
	}
	if next == nil {
		if k := bytes.IndexByte(line[i:], ' '); k >= 0 {
			return line[i : i+k], i + k, ""
		}
		return line[i:], len(line), ""
	}
	k := bytes.Index(line[i:], next)
	if next[0] == '\n' {
		k = len(line) - i
	}
	if k < 0 {
		return nil, 0, fmt.Sprintf("no %s after column %d", quoteLit(next), i+1)
	}
	return line[i : i+k], i + k, ""
}

func (p *haproxyParser) splitCaptures(req bool, b []byte, sep byte) {
	for {
		k := bytes.IndexByte(b, sep)
		if k < 0 {
			p.appendCapture(req, b)
			return
		}
		p.appendCapture(req, b[:k])
		b = b[k+1:]
	}
}

func (p *haproxyParser) appendCapture(req bool, v []byte) {
	if req {
		p.reqVals = append(p.reqVals, v)
	} else {
		p.resVals = append(p.resVals, v)
	}
}

// hapTimer reads a timer in milliseconds: -1 (not reached) and absent are
// -1; logasap's "+" prefix is dropped.
func hapTimer(b []byte) (int64, bool) {
	if b == nil || string(b) == "-1" {
		return -1, true
	}
	b = bytes.TrimPrefix(b, []byte{'+'})
	n, ok := digits(b)
	return n, ok && n < int64(maxRequestDuration/1e6)
}

// parseHAProxyDate reads %tr and %t, "01/Dec/2026:12:00:18.025". HAProxy
// writes it in its local time without a zone; it is read as UTC.
func parseHAProxyDate(b []byte) (int64, bool) {
	if len(b) != 24 || b[20] != '.' {
		return 0, false
	}
	ns, ok := parseTimeLocal(append(append(make([]byte, 0, 26), b[:20]...), " +0000"...))
	ms, ok2 := digits(b[21:])
	return ns + ms*1e6, ok && ok2
}

func (p *haproxyParser) parse(line []byte, e *timeline.Event) string {
	if reason := p.scan(line); reason != "" {
		return reason
	}
	tr, reason := p.times(e)
	if reason != "" {
		return reason
	}
	v := &p.vals
	if b := v[hapStatus]; b != nil && string(b) != "-1" {
		s, ok := digits(b)
		if !ok || s > 999 {
			return p.bad("%ST", b)
		}
		e.Status = timeline.Small(s)
	}
	tsc := v[hapTermState]
	if e.Status >= 400 && p.generated(tsc, tr) {
		code := HAProxyErrorCode
		if len(tsc) > 0 {
			code += ":" + string(tsc)
		}
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, []byte(code))
	} else if e.Status == 0 && len(tsc) > 0 && tsc[0] != '-' {
		// No response: the termination state says who gave up.
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, tsc)
	}
	if r := v[hapRequest]; r != nil && string(r) != "<BADREQ>" {
		e.Route = p.strs.label(timeline.LabelRoute, routeOfRequest(r))
	} else if r := v[hapPath]; len(r) > 0 {
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(r))
	}
	h := p.requestHeaders(e.ErrorCode != timeline.NoSym)
	if id := v[hapUniqueID]; h.requestID == nil && len(id) > 0 && string(id) != "-" {
		h.requestID = id
	}
	h.apply(e, p.strs, max(e.End, e.Start))
	e.Layer = timeline.LayerHTTP
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}

// times places the event from the line's date and timers, and returns
// %Tr (-1 when the server sent no headers, or not logged).
func (p *haproxyParser) times(e *timeline.Event) (tr int64, reason string) {
	v := &p.vals
	var start, accept int64
	var ok bool
	switch {
	case v[hapDateRequest] != nil:
		if start, ok = parseHAProxyDate(v[hapDateRequest]); !ok {
			return 0, p.bad("%tr", v[hapDateRequest])
		}
	case v[hapDateRequestCLF] != nil:
		if start, ok = parseTimeLocal(v[hapDateRequestCLF]); !ok {
			return 0, p.bad("%trg", v[hapDateRequestCLF])
		}
	case v[hapDateAccept] != nil:
		if accept, ok = parseHAProxyDate(v[hapDateAccept]); !ok {
			return 0, p.bad("%t", v[hapDateAccept])
		}
	case v[hapDateAcceptCLF] != nil:
		if accept, ok = parseTimeLocal(v[hapDateAcceptCLF]); !ok {
			return 0, p.bad("%T", v[hapDateAcceptCLF])
		}
	case v[hapAcceptEpoch] != nil:
		s, ok := digits(v[hapAcceptEpoch])
		if !ok || s > 9e9 {
			return 0, p.bad("%Ts", v[hapAcceptEpoch])
		}
		accept = s * 1e9
	}
	if accept != 0 && v[hapAcceptMs] != nil {
		if ms, ok := digits(v[hapAcceptMs]); ok && ms < 1000 && accept%1e9 == 0 {
			accept += ms * 1e6
		}
	}
	var timers [hapTi + 1]int64
	for k := hapTR; k <= hapTi; k++ {
		t, ok := hapTimer(v[k])
		if !ok {
			return 0, p.bad(timerName[k-hapTR], v[k])
		}
		timers[k] = t
	}
	if start == 0 {
		// The request's first byte came after the handshake and the idle
		// time of a kept-alive connection.
		start = accept + max(timers[hapTh], 0)*1e6 + max(timers[hapTi], 0)*1e6
	}
	if start <= 0 {
		return 0, "no date before 1970"
	}
	e.Start = start
	switch {
	case timers[hapTa] >= 0:
		e.End = start + timers[hapTa]*1e6
	case timers[hapTt] >= 0 && accept != 0:
		e.End = accept + timers[hapTt]*1e6
	}
	return timers[hapTr], ""
}

// requestHeaders gathers the headers the line logged, by name or by
// capture; hasCode keeps HAProxy's own error code over the server's.
func (p *haproxyParser) requestHeaders(hasCode bool) requestHeaders {
	var h requestHeaders
	for _, hv := range p.headers {
		// A header logged by name is read like nginx's $http_NAME; one
		// logged by capture slot joins the captures.
		switch {
		case hv.el.header == "" && hv.el.kind == hapReqHeader:
			p.setCapture(true, hv.el.capture, hv.val)
		case hv.el.header == "":
			p.setCapture(false, hv.el.capture, hv.val)
		case hv.el.kind == hapReqHeader:
			h.request(knownVars["http_"+strings.ReplaceAll(hv.el.header, "-", "_")], hv.val)
		default:
			h.response(knownVars["sent_http_"+strings.ReplaceAll(hv.el.header, "-", "_")], hv.val, hasCode)
		}
	}
	for k, val := range p.reqVals {
		if k < len(p.reqCaps) {
			h.request(p.reqCaps[k], val)
		}
	}
	for k, val := range p.resVals {
		if k < len(p.resCaps) {
			h.response(p.resCaps[k], val, hasCode)
		}
	}
	return h
}

// setCapture puts a header logged by its capture slot among the captures.
func (p *haproxyParser) setCapture(req bool, slot int, val []byte) {
	vals := &p.resVals
	if req {
		vals = &p.reqVals
	}
	for len(*vals) <= slot {
		*vals = append(*vals, nil)
	}
	(*vals)[slot] = val
}

// request sets the request header a variable kind names; "" and "-" are
// absent.
func (h *requestHeaders) request(k varKind, val []byte) {
	if len(val) == 0 || string(val) == "-" {
		return
	}
	switch k {
	case varUserAgent:
		h.userAgent = val
	case varTaskID:
		h.task = val
	case varCallID:
		h.call = val
	case varRequestID:
		h.requestID = val
	case varAmzSDKRequest:
		h.sdkRequest = val
	case varRetryCount:
		h.stainlessRetry = val
	}
}

// response sets the response header a variable kind names; hasCode keeps
// an error code already set (HAProxy's own) over the server's error type.
func (h *requestHeaders) response(k varKind, val []byte, hasCode bool) {
	if len(val) == 0 || string(val) == "-" {
		return
	}
	switch k {
	case varRetryAfter:
		h.retryAfter = val
	case varErrorType:
		if !hasCode {
			h.errorType = val
		}
	case varRequestID:
		h.requestID = val
	}
}

var timerName = [...]string{"%TR", "%Tw", "%Tc", "%Tr", "%Ta", "%Tt", "%Th", "%Ti"}

// generated reports whether HAProxy made an error response itself: no
// server was chosen (<NOSRV>), the session ended on the proxy's side (P
// a deny or tarpit, R a resource limit, I an internal error, D a server
// gone down, L a local answer), or the server never sent headers (a
// queue, connect or header timeout: Tr is -1).
func (p *haproxyParser) generated(tsc []byte, tr int64) bool {
	if string(p.vals[hapServer]) == "<NOSRV>" {
		return true
	}
	if len(tsc) >= 2 {
		switch tsc[0] {
		case 'P', 'R', 'I', 'D', 'L':
			return true
		case 's', 'S':
			return tsc[1] == 'Q' || tsc[1] == 'C' || tsc[1] == 'H'
		}
	}
	return p.vals[hapTr] != nil && tr < 0
}

func (p *haproxyParser) bad(name string, b []byte) string {
	return "bad " + name + " " + strconv.Quote(truncated(b))
}

// openHAProxy builds the parser for Options.Format "haproxy": the
// LogFormat given, or the named format that reads the sample best.
func openHAProxy(sample []sampledLine, whole bool, opt Options, strs *interner) (lineParser, error) {
	if opt.LogFormat != "" {
		f, err := compileHAProxyNamedOrCustom(opt.LogFormat)
		if err != nil {
			return nil, err
		}
		p := newHAProxyParser(f, opt.HAProxyCaptures, strs)
		p.notes = haproxyCaptureNotes(p, sample)
		return p, nil
	}
	if len(sample) == 0 {
		return nil, noSample(whole)
	}
	p, why := sniffHAProxyShare(sample, opt, strs, 1)
	if p == nil {
		return nil, fmt.Errorf("not haproxy: %s", why)
	}
	return p, nil
}

// sniffHAProxy claims a sample half of whose lines a named HAProxy format
// reads (after any syslog prefix, which the prefix detection strips): no
// other format's line has the timers and termination state of a HAProxy
// line, so a short log with a few damaged lines is still HAProxy's.
func sniffHAProxy(sample []sampledLine, opt Options, strs *interner) (lineParser, string) {
	if opt.LogFormat != "" {
		return nil, "haproxy (--log-format is not HAProxy's)"
	}
	return sniffHAProxyShare(sample, opt, strs, jsonShare)
}

func sniffHAProxyShare(sample []sampledLine, opt Options, strs *interner, need int) (lineParser, string) {
	var whys []string
	for _, name := range []string{"httplog", "clf"} {
		f, _ := compileHAProxyFormat(name, haproxyNamedFormats[name])
		trial := newHAProxyParser(f, opt.HAProxyCaptures, newInterner())
		ok, why := sampleShare("haproxy:"+name, sample, need, parses(trial))
		if ok {
			p := newHAProxyParser(f, opt.HAProxyCaptures, strs)
			p.notes = haproxyCaptureNotes(p, sample)
			return p, ""
		}
		whys = append(whys, why)
	}
	return nil, strings.Join(whys, "; ")
}

// haproxyCaptureNotes warns when the sample has captured headers that no
// --haproxy-captures name says what they are.
func haproxyCaptureNotes(p *haproxyParser, sample []sampledLine) []string {
	most := 0
	for _, l := range sample {
		var e timeline.Event
		if p.parse(l.text, &e) == "" {
			most = max(most, len(p.reqVals))
		}
	}
	if most > len(p.reqCaps) {
		return []string{fmt.Sprintf("%d captured request headers are not read: name them in the order of the capture lines with --haproxy-captures (e.g. x-task-id,x-stainless-retry-count)", most-len(p.reqCaps))}
	}
	return nil
}
