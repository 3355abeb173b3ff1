package ingest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"time"

	"github.com/stampede/stampede/timeline"
)

// nginxParser turns lines of one compiled log_format into attempt events.
// Apache LogFormat and Envoy format strings compile to the same logFormat,
// so it reads those too; logFormat.family says whose the format is.
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

	// recent is the last value interned per variable: routes and user
	// agents repeat line after line, and comparing with the last one is
	// cheaper than hashing for the interner's table.
	recent [32]recentValue
	// lastRequest is the last $request whose route recent holds.
	lastRequest    []byte
	lastRequestID  timeline.Sym
	lastRequestSet bool

	// What parse saw of the line's upstream attempts, for parseMulti;
	// the slices alias the line.
	upstreamStatuses []byte
	upstreamTimes    []byte
	attemptCount     int32

	// alts are named formats whose fields the format begins with; a line
	// that does not match f is read by the first alt that matches it, as
	// lines written before a log_format gained fields at its end.
	alts      []*logFormat
	altTokens [][]bool
	// viaAlt says the last line parsed was read by one of alts.
	viaAlt bool
	// loose reads a line that holds more than the format, ignoring the
	// rest: detection's last resort, which it reports as a warning.
	loose bool
	// tails reads a line that has quoted values after the end of the
	// format (see quotedTail); detection sets it, a format the user gave
	// is matched exactly.
	tails bool
	// token marks, per field of f, a value that is one word: not quoted,
	// bracketed or a list.
	token []bool
	// misfit is, when scoring is set, how many bytes of the last line
	// parsed sit where the format wants one word (a space inside
	// $remote_addr) or after the end of the format.
	scoring  bool
	misfit   int
	misfitAt int // 0-based column of the first misfit byte
	// notes are detection's doubts about the format, for Source.Warnings.
	notes []string
}

func newNginxParser(f *logFormat, strs *interner) *nginxParser {
	return &nginxParser{f: f, strs: strs, outcomes: outcomeCache{}, token: tokenFields(f)}
}

// tokenFields marks the fields whose value is one word.
func tokenFields(f *logFormat) []bool {
	t := make([]bool, len(f.fields))
	prev := f.lead
	for i := range f.fields {
		fd := &f.fields[i]
		if n := len(prev); !isListKind(fd.kind) && (n == 0 || prev[n-1] != '"' && prev[n-1] != '[') {
			t[i] = true
		}
		prev = fd.next
	}
	return t
}

// withAlts returns p reading also the lines of the given formats.
func (p *nginxParser) withAlts(alts []*logFormat) *nginxParser {
	p.alts, p.altTokens = alts, nil
	for _, f := range alts {
		p.altTokens = append(p.altTokens, tokenFields(f))
	}
	return p
}

func (p *nginxParser) detectionNotes() []string { return p.notes }

// intern returns the Sym of val, comparing it first with the previous
// line's value of the same variable, which it usually is.
func (p *nginxParser) intern(k varKind, val []byte) timeline.Sym {
	if r := &p.recent[k&31]; r.s == string(val) {
		return r.id
	}
	id := p.strs.sym(val)
	p.recent[k&31] = recentValue{s: id.String(), id: id}
	return id
}

// label is intern for a route, User-Agent or error code (timeline.Labels).
func (p *nginxParser) label(k varKind, kind timeline.LabelKind, val []byte) timeline.Sym {
	if r := &p.recent[k&31]; r.s == string(val) {
		return r.id
	}
	id := p.strs.label(kind, val)
	// A shortened label is not remembered: its Sym does not read as val.
	if s := id.String(); s == string(val) {
		p.recent[k&31] = recentValue{s: s, id: id}
	}
	return id
}

// route is the label of the path in a request line. The whole line
// ("POST /v1/chat/completions HTTP/1.1") repeats as often as its path, so
// the last one is remembered with the Sym label gave it, whenever label
// remembers that path: a repeat then costs one compare.
func (p *nginxParser) route(req []byte) timeline.Sym {
	if p.lastRequestSet && string(req) == string(p.lastRequest) {
		return p.lastRequestID
	}
	path := routeOfRequest(req)
	id := p.label(varRequest, timeline.LabelRoute, path)
	if r := &p.recent[varRequest]; r.id == id && r.s == string(path) {
		p.lastRequest = append(p.lastRequest[:0], req...)
		p.lastRequestID, p.lastRequestSet = id, true
	}
	return id
}

// recentValue is a variable's value on the previous line.
type recentValue struct {
	s  string
	id timeline.Sym
}

func (p *nginxParser) format() string { return p.f.family + ":" + p.f.name }

// parse fills e from line and returns "" or the reason the line is unusable.
// It describes the request as one event; parseMulti splits it into the
// upstream attempts the line records.
func (p *nginxParser) parse(line []byte, e *timeline.Event) string {
	p.viaAlt = false
	reason := p.parseAs(p.f, p.token, line, e)
	if reason == "" || len(p.alts) == 0 {
		return reason
	}
	at := e.Line
	for i, f := range p.alts {
		*e = timeline.Event{Line: at}
		if p.parseAs(f, p.altTokens[i], line, e) == "" {
			p.viaAlt = true
			return ""
		}
	}
	return reason
}

// parseAs is parse under format f; token is f's tokenFields, needed only
// when scoring.
func (p *nginxParser) parseAs(f *logFormat, token []bool, line []byte, e *timeline.Event) string {
	p.upstreamStatuses, p.upstreamTimes, p.attemptCount = nil, nil, 0
	p.misfit, p.misfitAt = 0, -1
	if !bytes.HasPrefix(line, f.lead) {
		return fmt.Sprintf("expected %s at column 1", quoteLit(f.lead))
	}
	pos := len(f.lead)

	var (
		status, upstreamStatus int32 = -1, -1
		timeNs, msecNs         int64
		haveTime, haveMsec     bool
		duration               int64 = -1
		retryAfter             []byte
		retryAfterMs           []byte
		flags                  []byte
	)
	for i := range f.fields {
		fd := &f.fields[i]
		start := pos
		var val []byte
		if len(fd.next) == 0 {
			val = line[pos:]
			pos = len(line)
			// A last value that runs to the end of the line is one word
			// (a byte count, a duration): text after it is more fields
			// than the format has. Upstream lists hold ", " themselves.
			if !isListKind(fd.kind) {
				if k := bytes.IndexAny(bytes.TrimRight(val, " \t"), " \t"); k >= 0 {
					if !p.loose && !(p.tails && quotedTail(val[k:])) {
						return fmt.Sprintf("unexpected text at column %d after the end of the format", start+k+1)
					}
					p.addMisfit(start+k, len(val)-k)
					val = val[:k]
				}
			}
		} else {
			n := firstValueEnd(line[pos:], fd.next, isListKind(fd.kind))
			if n < 0 {
				n = indexValueEnd(line[pos:], fd.next, isListKind(fd.kind))
			}
			if n < 0 {
				return fmt.Sprintf("expected %s after %s at column %d", quoteLit(fd.next), fd.display(), start+1)
			}
			val = line[pos : pos+n]
			pos += n + len(fd.next)
		}
		if p.scoring && token != nil && token[i] {
			if k := misfitAt(val); k >= 0 {
				p.addMisfit(start+k, len(val)-k)
			}
		}
		if fd.kind == varIgnored {
			continue
		}
		absent := len(val) == 1 && val[0] == '-'
		switch fd.kind {
		case varTimeLocal:
			ns, ok := p.timeLocal(val)
			if !ok && len(val) > 4 && val[4] == '-' {
				// [$time_iso8601] in place of [$time_local], a common
				// edit of the named formats.
				ns, ok = parseISOTime(val)
			}
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
		case varTimeEpochMs, varTimeEpochUs:
			n, ok := digits(val)
			if !ok || n > 1<<53 {
				return badValue(fd, val)
			}
			if fd.kind == varTimeEpochMs {
				n *= 1e6
			} else {
				n *= 1e3
			}
			msecNs, haveMsec = n, true
		case varStatus:
			n, ok := digits(val)
			if !ok || n > 999 {
				if absent && f.family != "nginx" {
					// Envoy writes "-" (0) when no response was sent.
					status = 0
					continue
				}
				return badValue(fd, val)
			}
			status = int32(n)
		case varUpstreamStatus:
			if n, ok := digits(lastListItem(val)); ok && n <= 999 {
				upstreamStatus = int32(n)
			}
			p.upstreamStatuses = val
		case varUpstreamTimes:
			p.upstreamTimes = val
		case varRequestTime, varDurationMs, varDurationUs:
			if absent {
				continue
			}
			ns, ok := parseSeconds(val)
			if !ok {
				return badValue(fd, val)
			}
			// parseSeconds reads the number as seconds; rescale.
			switch fd.kind {
			case varDurationMs:
				ns /= 1e3
			case varDurationUs:
				ns /= 1e6
			}
			duration = ns
		case varRequest:
			if !absent {
				e.Route = p.route(val)
			}
		case varURI:
			if !absent && e.Route == timeline.NoSym {
				e.Route = p.label(varURI, timeline.LabelRoute, pathOnly(val))
			}
		case varUserAgent:
			if !absent {
				e.Client = p.label(varUserAgent, timeline.LabelClient, val)
			}
		case varRetryCount:
			// x-stainless-retry-count counts retries before this attempt.
			if n, ok := digits(val); ok && n < 1<<20 {
				e.Attempt = timeline.Small(n + 1)
			}
		case varAttemptNumber:
			if n, ok := digits(val); ok && n > 0 && n < 1<<20 {
				e.Attempt = timeline.Small(n)
			}
		case varAttemptCount:
			if n, ok := digits(val); ok && n < 1<<20 {
				p.attemptCount = int32(n)
			}
		case varAmzSDKRequest:
			if absent {
				continue
			}
			if a, m := parseAmzSDKRequest(val); a > 0 {
				e.Attempt, e.MaxAttempts = a, m
			}
		case varCallID:
			if !absent && len(val) > 0 {
				e.CallID = p.intern(varCallID, val)
			}
		case varTaskID:
			if !absent && len(val) > 0 {
				e.TaskID = p.intern(varTaskID, val)
			}
		case varRequestID:
			if !absent && len(val) > 0 && e.RequestID == timeline.NoSym {
				e.RequestID = timeline.InternBytes(val)
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
				e.ErrorCode = p.label(varErrorType, timeline.LabelErrorCode, val)
			}
		case varResponseFlags:
			if !absent && len(val) > 0 {
				flags = val
			}
		}
	}
	if pos != len(line) && len(bytes.TrimRight(line[pos:], " \t")) > 0 {
		if !p.loose && !(p.tails && quotedTail(line[pos:])) {
			return fmt.Sprintf("unexpected text at column %d after the end of the format", pos+1)
		}
		p.addMisfit(pos, len(line)-pos)
	}

	// nginx writes the line when the request ends. Without $msec the end
	// is $time_local truncated to the second, so Start may be up to 1 s
	// early; analyses that need better take it from a log with $msec.
	// Apache and Envoy log the time the request began instead.
	var at int64
	switch {
	case haveMsec:
		at = msecNs
	case haveTime:
		at = timeNs
	default:
		return "no time in line"
	}
	switch {
	case duration < 0:
		e.Start, e.End = at, 0
	case f.timeIsStart:
		e.Start, e.End = at, at+duration
	default:
		e.Start, e.End = at-duration, at
	}
	end := e.End
	if end == 0 {
		end = at
	}
	e.RetryAfter = timeline.NoRetryAfter
	// retry-after-ms is the more precise of the two when a server sends both.
	if retryAfterMs != nil {
		if w, f, _, ok := parseDecimal(retryAfterMs); ok {
			e.RetryAfter = timeline.MillisOf(time.Duration(w*1e6 + f/1e3))
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
	e.Status = timeline.Small(status)
	if flags != nil && e.ErrorCode == timeline.NoSym && (status < 200 || status >= 400) {
		// Envoy's response flags say why a request failed (RL: rate
		// limited locally, URX: upstream retry limit reached, UO: circuit
		// breaker overflow). On a success they only annotate.
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, flags)
	}
	e.Layer = timeline.LayerHTTP
	e.Outcome = p.outcomes.classify(timeline.Small(status), e.ErrorCode)
	return ""
}

// parseMulti emits one event per upstream attempt the line records: the
// elements of a $upstream_status list (nginx tried the next upstream, or
// redirected internally), or Envoy's upstream attempt count. A line without
// retries is the single event parse makes.
func (p *nginxParser) parseMulti(line []byte, emit func() *timeline.Event) string {
	// Most lines are one attempt: parse straight into its slot rather than
	// build the event aside and copy it in.
	first := emit()
	if reason := p.parse(line, first); reason != "" {
		return reason
	}
	n := countListItems(p.upstreamStatuses)
	if n <= 1 && p.attemptCount <= 1 {
		if p.attemptCount == 1 && first.Attempt == 0 {
			first.Attempt = 1
		}
		return ""
	}
	req := *first
	next := func() *timeline.Event {
		if e := first; e != nil {
			first = nil
			return e
		}
		return emit()
	}
	if n > 1 {
		p.emitUpstreamList(&req, n, next)
	} else {
		emitAttempts(&req, p.attemptCount, next)
	}
	return ""
}

// misfitAt returns where a one-word value holds a second word, or -1. A
// space after a comma is a list ("10.0.0.2, 10.0.0.1" in $remote_addr
// behind proxies that pass X-Forwarded-For), which is one value.
func misfitAt(val []byte) int {
	for k := 0; k < len(val); k++ {
		if (val[k] == ' ' || val[k] == '\t') && (k == 0 || val[k-1] != ',') {
			return k
		}
	}
	return -1
}

// addMisfit records n bytes at column at that the format does not explain.
func (p *nginxParser) addMisfit(at, n int) {
	if p.misfitAt < 0 {
		p.misfitAt = at
	}
	p.misfit += n
}

// quotedTail reports whether b is one or more quoted values, each after a
// space: the request headers a server was told to log after a named format
// ("$http_x_forwarded_for" after combined makes nginx's main). Such a line
// is read by the format it extends, as not fully explained.
func quotedTail(b []byte) bool {
	n := 0
	for {
		k := 0
		for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
			k++
		}
		if k == len(b) {
			return n > 0
		}
		if k == 0 || b[k] != '"' {
			return false
		}
		end := k + 1
		for end < len(b) && (b[end] != '"' || escapedAt(b, end)) {
			end++
		}
		if end == len(b) {
			return false
		}
		b, n = b[end+1:], n+1
	}
}

// fill copies req into the slot emit returned, keeping the slot's Line.
func fill(e, req *timeline.Event) {
	line := e.Line
	*e = *req
	e.Line = line
}

// emitUpstreamList splits a request nginx passed to n upstreams in turn.
// The attempts ran back to back and the last ended when the line was
// written, so walking $upstream_response_time backwards from the end
// places each one. Without usable times every attempt keeps the request's
// span. Each attempt gets its upstream status; only the last keeps the
// response headers (retry-after, error type), which the client got from
// it. Attempts are numbered 1..n unless the client numbered
// its own request (an SDK retry), whose number every attempt keeps.
func (p *nginxParser) emitUpstreamList(req *timeline.Event, n int, emit func() *timeline.Event) {
	statuses, times := p.upstreamStatuses, p.upstreamTimes
	timed := countListItems(times) == n && req.End != 0
	// Durations are read back to front, so compute each start first.
	var starts [maxUpstreamAttempts]int64
	if timed {
		at := req.End
		for i := n - 1; i >= 0; i-- {
			d, _ := parseSeconds(listItem(times, i))
			at -= d
			starts[i] = at
		}
	}
	for i := 0; i < n; i++ {
		e := emit()
		fill(e, req)
		if req.Attempt == 0 {
			e.Attempt = timeline.Small(i + 1)
		}
		if timed {
			e.Start = starts[i]
			if i+1 < n {
				e.End = starts[i+1]
			}
		}
		s, ok := digits(listItem(statuses, i))
		if i+1 == n {
			// The final response keeps its headers; "-" (no answer, the
			// client gave up) keeps the status the client was logged with.
			if ok && s <= 999 && int16(s) != e.Status {
				e.Status = int16(s)
				e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
			}
			continue
		}
		var status int32
		if ok && s <= 999 {
			status = int32(s)
		}
		e.Status, e.ErrorCode, e.RetryAfter = timeline.Small(status), timeline.NoSym, timeline.NoRetryAfter
		e.Outcome = p.outcomes.classify(timeline.Small(status), timeline.NoSym)
	}
}

// emitAttempts splits a request Envoy attempted upstream count times. The
// log says neither when each attempt began nor what it got, only that the
// router retried it, which it does on retryable failures: earlier attempts
// are placed at the request's start, with no end, as retryable errors.
func emitAttempts(req *timeline.Event, count int32, emit func() *timeline.Event) {
	n := min(int(count), maxUpstreamAttempts)
	for i := 0; i < n; i++ {
		e := emit()
		fill(e, req)
		e.Attempt = timeline.Small(i + 1)
		if i+1 == n {
			continue
		}
		e.End, e.Status, e.ErrorCode, e.RetryAfter = 0, 0, timeline.NoSym, timeline.NoRetryAfter
		e.Outcome = timeline.OutcomeRetryable
	}
}

// maxUpstreamAttempts bounds how many attempts one line may expand to;
// nginx's proxy_next_upstream_tries is rarely above a handful, and a longer
// list is more likely damage than a real retry storm.
const maxUpstreamAttempts = 64

// countListItems counts the elements of an upstream list ("502, 429 : 200"
// has 3), bounded by maxUpstreamAttempts; an absent list has 0.
func countListItems(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := 1
	for _, c := range b {
		if c == ',' || c == ':' {
			n++
		}
	}
	return min(n, maxUpstreamAttempts)
}

// listItem returns element i of an upstream list, trimmed.
func listItem(b []byte, i int) []byte {
	for ; i > 0; i-- {
		k := bytes.IndexAny(b, ",:")
		if k < 0 {
			return nil
		}
		b = b[k+1:]
	}
	if k := bytes.IndexAny(b, ",:"); k >= 0 {
		b = b[:k]
	}
	return bytes.TrimSpace(b)
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
//
// It looks for lit's first byte and then checks the rest in place, rather
// than calling bytes.Index: the literals are one to three bytes and most
// values a few bytes long, where bytes.Index's setup costs more than the
// search.
func indexValueEnd(b, lit []byte, list bool) int {
	c0, rest := lit[0], lit[1:]
	for n := 0; ; n++ {
		k := indexByteShort(b[n:], c0)
		if k < 0 {
			return -1
		}
		n += k
		if len(b)-n-1 < len(rest) {
			// lit does not fit after this byte, nor after any later one.
			return -1
		}
		if !hasLit(b[n+1:], rest) {
			continue
		}
		if list && c0 == ' ' && isListSeparator(b, n) {
			continue
		}
		if c0 == '"' && escapedAt(b, n) {
			continue
		}
		return n
	}
}

// firstValueEnd is indexValueEnd for the common case, small enough to be
// inlined into the field loop: a value shorter than eight bytes, ended by
// the first occurrence of lit's first byte, which no list separator or
// backslash makes doubtful. It returns -1 when it cannot tell, for
// indexValueEnd to decide.
func firstValueEnd(b, lit []byte, list bool) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	if len(b) < 8 || len(lit) > 3 || list {
		return -1
	}
	x := binary.LittleEndian.Uint64(b) ^ uint64(lit[0])*ones
	m := (x - ones) &^ x & highs
	k := bits.TrailingZeros64(m) / 8 // 8 when m is 0
	if k == 8 || k+3 > len(b) || k > 0 && b[k-1] == '\\' ||
		len(lit) > 1 && b[k+1] != lit[1] || len(lit) > 2 && b[k+2] != lit[2] {
		return -1
	}
	return k
}

// indexByteShort is bytes.IndexByte for values that are mostly a few bytes
// long: it tests eight bytes at a time in a register, so that a short value
// costs one test and no call, and hands a long one to the vectorised search.
func indexByteShort(b []byte, c byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	pat := uint64(c) * ones
	i := 0
	for ; i+8 <= len(b) && i < 32; i += 8 {
		// A byte of x is zero where b has c; the lowest set high bit of
		// m marks the first (a borrow only sets bits above a zero byte).
		x := binary.LittleEndian.Uint64(b[i:]) ^ pat
		if m := (x - ones) &^ x & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	if i < 32 {
		for ; i < len(b); i++ {
			if b[i] == c {
				return i
			}
		}
		return -1
	}
	if k := bytes.IndexByte(b[i:], c); k >= 0 {
		return i + k
	}
	return -1
}

// hasLit reports whether b begins with lit, which is at most a few bytes.
func hasLit(b, lit []byte) bool {
	if len(b) < len(lit) {
		return false
	}
	for i, c := range lit {
		if b[i] != c {
			return false
		}
	}
	return true
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
func parseAmzSDKRequest(b []byte) (attempt, max int16) {
	for len(b) > 0 {
		var part []byte
		if k := bytes.IndexByte(b, ';'); k >= 0 {
			part, b = b[:k], b[k+1:]
		} else {
			part, b = b, nil
		}
		part = bytes.TrimSpace(part)
		if v, ok := bytes.CutPrefix(part, []byte("attempt=")); ok {
			if n, ok := digits(v); ok && n <= math.MaxInt16 {
				attempt = int16(n)
			}
		} else if v, ok := bytes.CutPrefix(part, []byte("max=")); ok {
			if n, ok := digits(v); ok && n <= math.MaxInt16 {
				max = int16(n)
			}
		}
	}
	return attempt, max
}

// parseRetryAfter reads Retry-After as delay-seconds or as an HTTP date,
// which is taken relative to the time the response was logged.
func parseRetryAfter(b []byte, logged int64) timeline.Millis {
	if w, f, _, ok := parseDecimal(b); ok {
		return timeline.MillisOf(time.Duration(w*1e9 + f))
	}
	if at, ok := parseHTTPDate(b); ok {
		if d := at - logged; d > 0 {
			return timeline.MillisOf(time.Duration(d))
		}
		return 0
	}
	return timeline.NoRetryAfter
}

func badValue(fd *field, val []byte) string {
	if len(val) > 40 {
		val = append(val[:37:37], "..."...)
	}
	return "bad " + fd.display() + " " + strconv.Quote(string(val))
}

// quoteLit renders a literal for messages: '" ' rather than "\" ".
func quoteLit(b []byte) string {
	s := strconv.Quote(string(b))
	s = s[1 : len(s)-1]
	return "'" + string(bytes.ReplaceAll([]byte(s), []byte(`\"`), []byte(`"`))) + "'"
}
