package ingest

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stampede/stampede/timeline"
)

// The JSONL schema is documented in the package comment (doc.go).

// jsonField indexes the timeline fields a JSONL record can fill.
type jsonField uint8

const (
	jfStart jsonField = iota
	jfEnd
	jfDuration
	jfLayer
	jfClass
	jfTask
	jfQueueAttempt
	jfCall
	jfRequest
	jfStatus
	jfCode
	jfOutcome
	jfRetryAfter
	jfAttempts
	jfAttempt
	jfRoute
	jfClient
	numJSONFields
)

// jsonFieldNames are the names ParseFieldMapping accepts, by jsonField.
var jsonFieldNames = [numJSONFields]string{
	"start", "end", "duration_ms", "layer", "class", "task", "queue_attempt", "call",
	"request", "status", "code", "outcome", "retry_after", "attempts", "attempt", "route", "client",
}

// jsonUnit says how a key's number converts to the field's value.
type jsonUnit uint8

const (
	unitNone    jsonUnit = iota
	unitPlusOne          // a retry count: attempts = retries + 1
	unitSeconds
	unitMillis
)

type jsonKey struct {
	key  string
	unit jsonUnit
}

var defaultJSONKeys = [numJSONFields][]jsonKey{
	jfStart:        keys("ts_start", "start_time", "start", "timestamp", "ts", "time", "@timestamp", "t_start"),
	jfEnd:          keys("ts_end", "end_time", "end", "t_end"),
	jfDuration:     {{"duration_ms", unitMillis}, {"duration_s", unitSeconds}, {"latency_ms", unitMillis}},
	jfLayer:        keys("layer"),
	jfClass:        keys("class", "kind", "traffic_class"),
	jfTask:         keys("task_id", "task", "job_id"),
	jfQueueAttempt: keys("queue_attempt", "delivery_count", "receive_count"),
	jfCall:         keys("amz_sdk_invocation_id", "invocation_id", "call_id"),
	jfRequest:      keys("request_id", "x_request_id"),
	jfStatus:       keys("http_status", "status_code", "status"),
	jfCode:         keys("error_code", "error_type", "code"),
	jfOutcome:      keys("outcome", "result"),
	jfRetryAfter:   {{"retry_after", unitSeconds}, {"retry_after_s", unitSeconds}, {"retry_after_ms", unitMillis}},
	jfAttempts:     {{"http_attempts", unitNone}, {"attempts", unitNone}, {"sdk_retry_count", unitPlusOne}, {"retries", unitPlusOne}},
	jfAttempt:      {{"attempt", unitNone}, {"attempt_number", unitNone}, {"retry_count", unitPlusOne}},
	jfRoute:        keys("route", "path", "operation", "url"),
	jfClient:       keys("client", "user_agent", "sdk"),
}

// mappedUnit is the unit of a key the user maps a field to.
var mappedUnit = [numJSONFields]jsonUnit{jfDuration: unitMillis, jfRetryAfter: unitSeconds}

func keys(ks ...string) []jsonKey {
	out := make([]jsonKey, len(ks))
	for i, k := range ks {
		out[i] = jsonKey{key: k}
	}
	return out
}

// ParseFieldMapping parses FIELD=KEY specs ("start=start_time",
// "task=job_id") into Options.Fields. KEY is a top-level JSON key, matched
// exactly (a dot is part of the key). "ts" is accepted for "start".
func ParseFieldMapping(specs []string) (map[string]string, error) {
	m := make(map[string]string, len(specs))
	for _, spec := range specs {
		name, key, ok := strings.Cut(spec, "=")
		name, key = strings.TrimSpace(name), strings.TrimSpace(key)
		if !ok || name == "" || key == "" {
			return nil, fmt.Errorf("field mapping %q: want FIELD=KEY, e.g. start=start_time", spec)
		}
		if _, err := jsonFieldByName(name); err != nil {
			return nil, fmt.Errorf("field mapping %q: %w", spec, err)
		}
		if name == "ts" {
			name = "start"
		}
		m[name] = key
	}
	return m, nil
}

func jsonFieldByName(name string) (jsonField, error) {
	if name == "ts" {
		return jfStart, nil
	}
	for i, n := range jsonFieldNames {
		if n == name {
			return jsonField(i), nil
		}
	}
	return 0, fmt.Errorf("unknown field %q; fields are %s", name, strings.Join(jsonFieldNames[:], ", "))
}

// jsonKind is the type of a scanned JSON value.
type jsonKind uint8

const (
	jsonAbsent jsonKind = iota
	jsonString
	jsonNumber
	jsonTrue
	jsonFalse
	jsonNull
	jsonComposite // object or array, not decoded
)

// jsonValue is one wanted key's value in the current line. b aliases the
// line or the parser's scratch buffer; gen tells whether it is from the
// current line, so slots need no clearing between lines.
type jsonValue struct {
	gen  uint32
	kind jsonKind
	b    []byte
}

type slotRef struct {
	slot int
	unit jsonUnit
	key  string
}

// jsonlParser decodes one JSON object per line into an event without
// building maps: a byte scanner walks the top-level object and keeps the
// values of the wanted keys only.
type jsonlParser struct {
	strs     *interner
	outcomes outcomeCache
	keySlot  map[string]int
	slots    []jsonValue
	fields   [numJSONFields][]slotRef
	gen      uint32
	scratch  []byte
	// recent is each field's value on the previous line: routes, clients
	// and codes repeat from line to line, and comparing with the last
	// value spares a table lookup.
	recent [numJSONFields]recentValue
	// keyAt is, for each position among a line's keys, the key found there
	// on an earlier line and its slot: a producer writes its keys in one
	// order, so a compare stands in for a lookup in keySlot on most keys.
	keyAt []positionKey
	// startKeys is the list of start keys, for the "no start time" message.
	startKeys string
	// layer is the records' layer when they do not say (zero: call).
	layer timeline.Layer
	notes []string
}

func newJSONLParser(mapping map[string]string, strs *interner) (*jsonlParser, error) {
	schema := defaultJSONKeys
	for name, key := range mapping {
		f, err := jsonFieldByName(name)
		if err != nil {
			return nil, err
		}
		if key == "" {
			return nil, fmt.Errorf("field %s mapped to an empty key", name)
		}
		schema[f] = []jsonKey{{key: key, unit: mappedUnit[f]}}
	}
	return newJSONSchemaParser(schema, strs), nil
}

// newJSONSchemaParser reads the keys of schema, for JSON formats whose
// keys differ from the JSONL defaults.
func newJSONSchemaParser(schema [numJSONFields][]jsonKey, strs *interner) *jsonlParser {
	p := &jsonlParser{strs: strs, outcomes: outcomeCache{}, keySlot: map[string]int{}}
	for f := range schema {
		for _, k := range schema[f] {
			slot, ok := p.keySlot[k.key]
			if !ok {
				slot = len(p.slots)
				p.keySlot[k.key] = slot
				p.slots = append(p.slots, jsonValue{})
			}
			p.fields[f] = append(p.fields[f], slotRef{slot: slot, unit: k.unit, key: k.key})
		}
	}
	var names []string
	for _, k := range schema[jfStart] {
		names = append(names, k.key)
	}
	p.startKeys = strings.Join(names, ", ")
	return p
}

// want adds a key outside the schema to what scan records and returns its
// slot.
func (p *jsonlParser) want(key string) int {
	if slot, ok := p.keySlot[key]; ok {
		return slot
	}
	// A key remembered as unwanted is wanted now.
	p.keyAt = p.keyAt[:0]
	p.keySlot[key] = len(p.slots)
	p.slots = append(p.slots, jsonValue{})
	return len(p.slots) - 1
}

// value returns a slot's value in the current line, or nil.
func (p *jsonlParser) value(slot int) *jsonValue {
	if v := &p.slots[slot]; v.gen == p.gen && v.kind != jsonNull {
		return v
	}
	return nil
}

func (p *jsonlParser) format() string { return "jsonl" }

// first returns the first present, non-null value of a field.
func (p *jsonlParser) first(f jsonField) (*jsonValue, slotRef) {
	for _, r := range p.fields[f] {
		v := &p.slots[r.slot]
		if v.gen == p.gen && v.kind != jsonNull && !unsetString(v) {
			return v, r
		}
	}
	return nil, slotRef{}
}

// unsetString reports "" and "-", which loggers write for a value they do
// not have (nginx's escape=json writes "" for an unset variable): absent,
// not malformed.
func unsetString(v *jsonValue) bool {
	return v.kind == jsonString && (len(v.b) == 0 || len(v.b) == 1 && v.b[0] == '-')
}

func (p *jsonlParser) parse(line []byte, e *timeline.Event) string {
	p.gen++
	p.scratch = p.scratch[:0]
	if reason := p.scan(line); reason != "" {
		return reason
	}
	return p.fill(e)
}

// fill sets e from the values scan recorded.
func (p *jsonlParser) fill(e *timeline.Event) string {
	v, r := p.first(jfStart)
	if v == nil {
		return "no start time (looked for " + p.startKeys + ")"
	}
	start, ok := jsonTime(v)
	if !ok {
		return badJSON(r.key, v, "a time")
	}
	e.Start = start
	if v, r := p.first(jfEnd); v != nil {
		end, ok := jsonTime(v)
		if !ok {
			return badJSON(r.key, v, "a time")
		}
		e.End = end
	} else if v, r := p.first(jfDuration); v != nil {
		d, ok := jsonDuration(v, r.unit)
		if !ok {
			return badJSON(r.key, v, "a duration")
		}
		e.End = start + int64(d)
	}

	e.Layer = timeline.LayerCall
	if p.layer != timeline.LayerUnknown {
		e.Layer = p.layer
	}
	if v, _ := p.first(jfLayer); v != nil && v.kind == jsonString {
		if l := timeline.ParseLayer(p.strs.bytes(v.b)); l != timeline.LayerUnknown {
			e.Layer = l
		}
	}
	if v, _ := p.first(jfClass); v != nil && v.kind == jsonString {
		e.Class = timeline.ParseClass(p.strs.bytes(v.b))
	}

	var reason string
	e.TaskID, reason = p.str(jfTask)
	if reason != "" {
		return reason
	}
	if e.CallID, reason = p.str(jfCall); reason != "" {
		return reason
	}
	if e.ErrorCode, reason = p.str(jfCode); reason != "" {
		return reason
	}
	if v, r := p.first(jfRoute); v != nil {
		if v.kind != jsonString {
			return badJSON(r.key, v, "a string")
		}
		e.Route = p.sym(jfRoute, pathOnly(v.b))
	}
	if e.Client, reason = p.str(jfClient); reason != "" {
		return reason
	}
	if v, r := p.first(jfRequest); v != nil {
		if v.kind != jsonString && v.kind != jsonNumber {
			return badJSON(r.key, v, "a string")
		}
		e.RequestID = timeline.InternBytes(v.b)
	}

	var n int64
	if n, reason = p.count(jfStatus, 999); reason != "" {
		return reason
	}
	e.Status = timeline.Small(n)
	if n, reason = p.count(jfQueueAttempt, 1<<30); reason != "" {
		return reason
	}
	e.QueueAttempt = timeline.Small(n)
	if n, reason = p.count(jfAttempts, 1<<30); reason != "" {
		return reason
	}
	e.Attempts = timeline.Small(n)
	if n, reason = p.count(jfAttempt, 1<<30); reason != "" {
		return reason
	}
	e.Attempt = timeline.Small(n)

	e.RetryAfter = timeline.NoRetryAfter
	if v, r := p.first(jfRetryAfter); v != nil && !(v.kind == jsonNumber && v.b[0] == '-') {
		d, ok := jsonDuration(v, r.unit)
		if !ok {
			return badJSON(r.key, v, "a number of seconds")
		}
		e.RetryAfter = timeline.MillisOf(d)
	}

	said := outcomeUnsaid
	if v, r := p.first(jfOutcome); v != nil {
		if said = saidOutcome(v, p.strs); said == outcomeUnknownWord {
			return badJSON(r.key, v, "ok, success, error, failed or throttled")
		}
	}
	e.Outcome = jsonOutcome(said, e.Status, e.ErrorCode.String(), p.outcomes)
	return ""
}

// str returns a string field, interned. Numbers are taken as their text.
// sym returns the Sym of field f's value b.
func (p *jsonlParser) sym(f jsonField, b []byte) timeline.Sym {
	if r := &p.recent[f]; r.s == string(b) {
		return r.id
	}
	var id timeline.Sym
	switch f {
	case jfRoute:
		id = p.strs.label(timeline.LabelRoute, b)
	case jfClient:
		id = p.strs.label(timeline.LabelClient, b)
	case jfCode:
		id = p.strs.label(timeline.LabelErrorCode, b)
	default:
		id = p.strs.sym(b)
	}
	// A shortened label is not remembered: its Sym does not read as b.
	if s := id.String(); s == string(b) {
		p.recent[f] = recentValue{s: s, id: id}
	}
	return id
}

func (p *jsonlParser) str(f jsonField) (timeline.Sym, string) {
	v, r := p.first(f)
	if v == nil {
		return timeline.NoSym, ""
	}
	if v.kind != jsonString && v.kind != jsonNumber {
		return timeline.NoSym, badJSON(r.key, v, "a string")
	}
	return p.sym(f, v.b), ""
}

// count returns a non-negative integer field (number or numeric string),
// applying the key's unit; 0 when absent.
func (p *jsonlParser) count(f jsonField, max int64) (int64, string) {
	v, r := p.first(f)
	if v == nil || (v.kind == jsonString && len(v.b) == 0) || (v.kind == jsonNumber && v.b[0] == '-') {
		// Empty strings and negative numbers (-1 for "not applicable")
		// say nothing.
		return 0, ""
	}
	var n int64
	ok := false
	if v.kind == jsonString || v.kind == jsonNumber {
		var frac int64
		n, frac, _, ok = parseDecimal(v.b)
		ok = ok && frac == 0 && n <= max
	}
	if !ok {
		return 0, badJSON(r.key, v, "a whole number")
	}
	if r.unit == unitPlusOne {
		n++
	}
	return n, ""
}

func jsonTime(v *jsonValue) (int64, bool) {
	switch v.kind {
	case jsonNumber:
		if ns, ok := parseEpoch(v.b); ok {
			return ns, true
		}
		// Exponent notation: rare enough for strconv.
		f, err := strconv.ParseFloat(string(v.b), 64)
		if err != nil || f <= 0 || f >= 1e19 {
			return 0, false
		}
		return parseEpoch([]byte(strconv.FormatFloat(f, 'f', -1, 64)))
	case jsonString:
		if len(v.b) > 0 && v.b[0] >= '0' && v.b[0] <= '9' {
			if ns, ok := parseISOTime(v.b); ok {
				return ns, true
			}
			return parseEpoch(v.b)
		}
	}
	return 0, false
}

func jsonDuration(v *jsonValue, unit jsonUnit) (time.Duration, bool) {
	if v.kind != jsonNumber && v.kind != jsonString {
		return 0, false
	}
	w, f, _, ok := parseDecimal(v.b)
	if !ok {
		return 0, false
	}
	if unit == unitMillis {
		return time.Duration(w*1e6 + f/1e3), true
	}
	return time.Duration(w*1e9 + f), true
}

type outcomeWord uint8

const (
	outcomeUnsaid outcomeWord = iota
	outcomeSaidOK
	outcomeSaidError
	outcomeSaidThrottled
	outcomeUnknownWord
)

func saidOutcome(v *jsonValue, strs *interner) outcomeWord {
	switch v.kind {
	case jsonTrue:
		return outcomeSaidOK
	case jsonFalse:
		return outcomeSaidError
	case jsonString:
	default:
		return outcomeUnknownWord
	}
	switch strings.ToLower(strs.bytes(v.b)) {
	case "ok", "success", "succeeded", "successful", "done":
		return outcomeSaidOK
	case "error", "failed", "failure", "fail", "err":
		return outcomeSaidError
	case "throttled", "throttle", "rate_limited", "ratelimited":
		return outcomeSaidThrottled
	case "":
		return outcomeUnsaid
	}
	return outcomeUnknownWord
}

func jsonOutcome(said outcomeWord, status int16, code string, outcomes outcomeCache) timeline.Outcome {
	if said == outcomeSaidOK && (status == 0 || status >= 200 && status < 300) {
		return timeline.OutcomeOK
	}
	o := outcomes.classify(status, timeline.Intern(code))
	if said == outcomeSaidError || said == outcomeSaidThrottled {
		if o == timeline.OutcomeOK || o == timeline.OutcomeUnknown {
			if said == outcomeSaidThrottled {
				return timeline.OutcomeThrottled
			}
			return timeline.OutcomeRetryable
		}
	}
	return o
}

func badJSON(key string, v *jsonValue, want string) string {
	var got string
	switch v.kind {
	case jsonString:
		b := v.b
		if len(b) > 40 {
			b = append(b[:37:37], "..."...)
		}
		got = strconv.Quote(string(b))
	case jsonNumber:
		got = string(v.b)
	case jsonTrue:
		got = "true"
	case jsonFalse:
		got = "false"
	case jsonComposite:
		got = "an object or array"
	}
	return fmt.Sprintf("bad %s %s: want %s", key, got, want)
}

// scan walks the top-level object of line and records the wanted keys'
// values. It returns "" or why the line is not a JSON object.
func (p *jsonlParser) scan(b []byte) string {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "not a JSON object"
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return p.trailing(b, i+1)
	}
	for pos := 0; ; pos++ {
		if i >= len(b) {
			return jsonErr(i, "unterminated object")
		}
		if b[i] != '"' {
			return jsonErr(i, "expected a key")
		}
		key, j, reason := p.readString(b, i)
		if reason != "" {
			return reason
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return jsonErr(i, "expected ':' after key")
		}
		i = skipSpace(b, i+1)
		if slot, wanted := p.slotAt(pos, key); wanted {
			var v jsonValue
			v, j, reason = p.readValue(b, i)
			v.gen = p.gen
			p.slots[slot] = v
		} else {
			j, reason = skipValue(b, i)
		}
		if reason != "" {
			return reason
		}
		i = skipSpace(b, j)
		if i >= len(b) {
			return jsonErr(i, "unterminated object")
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return p.trailing(b, i+1)
		default:
			return jsonErr(i, "expected ',' or '}'")
		}
	}
}

// positionKey is a key seen at one position of a line, and its slot, or
// -1 when the key is not wanted.
type positionKey struct {
	key  []byte
	slot int
}

// maxKeyPositions bounds keyAt: past it, a key is looked up in keySlot.
const maxKeyPositions = 64

// slotAt returns the slot of key, the pos-th key of the line, and whether
// it is wanted.
func (p *jsonlParser) slotAt(pos int, key []byte) (int, bool) {
	if pos < len(p.keyAt) {
		if k := &p.keyAt[pos]; string(k.key) == string(key) {
			return k.slot, k.slot >= 0
		}
	}
	slot, wanted := p.keySlot[string(key)]
	if !wanted {
		slot = -1
	}
	switch {
	case pos < len(p.keyAt):
		// Copied: key may alias the line or the scratch buffer.
		p.keyAt[pos] = positionKey{key: append(p.keyAt[pos].key[:0], key...), slot: slot}
	case pos == len(p.keyAt) && pos < maxKeyPositions:
		p.keyAt = append(p.keyAt, positionKey{key: bytes.Clone(key), slot: slot})
	}
	return slot, wanted
}

func (p *jsonlParser) trailing(b []byte, i int) string {
	if i = skipSpace(b, i); i != len(b) {
		return jsonErr(i, "unexpected text after the object")
	}
	return ""
}

// jsonErr formats a scan error at byte offset i (shown 1-based).
func jsonErr(i int, msg string) string {
	return "invalid JSON at byte " + strconv.Itoa(i+1) + ": " + msg
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// readString reads the string starting at b[i] == '"'. Without escapes the
// result aliases b; with escapes it is decoded into p.scratch.
func (p *jsonlParser) readString(b []byte, i int) ([]byte, int, string) {
	j := i + 1
	for j < len(b) && b[j] != '"' && b[j] != '\\' {
		j++
	}
	if j >= len(b) {
		return nil, 0, jsonErr(i, "unterminated string")
	}
	if b[j] == '"' {
		return b[i+1 : j], j + 1, ""
	}
	start := len(p.scratch)
	p.scratch = append(p.scratch, b[i+1:j]...)
	for j < len(b) {
		c := b[j]
		switch {
		case c == '"':
			return p.scratch[start:len(p.scratch):len(p.scratch)], j + 1, ""
		case c != '\\':
			p.scratch = append(p.scratch, c)
			j++
			continue
		}
		if j+1 >= len(b) {
			break
		}
		switch e := b[j+1]; e {
		case '"', '\\', '/':
			p.scratch = append(p.scratch, e)
		case 'b':
			p.scratch = append(p.scratch, '\b')
		case 'f':
			p.scratch = append(p.scratch, '\f')
		case 'n':
			p.scratch = append(p.scratch, '\n')
		case 'r':
			p.scratch = append(p.scratch, '\r')
		case 't':
			p.scratch = append(p.scratch, '\t')
		case 'u':
			r, ok := hex4(b, j+2)
			if !ok {
				return nil, 0, jsonErr(j, "invalid \\u escape")
			}
			j += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(b, j+2); ok && j+1 < len(b) && b[j] == '\\' && b[j+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						j += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			p.scratch = utf8.AppendRune(p.scratch, r)
			continue
		default:
			return nil, 0, jsonErr(j, "invalid escape")
		}
		j += 2
	}
	return nil, 0, jsonErr(i, "unterminated string")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// readValue reads a scalar value, or skips a composite one.
func (p *jsonlParser) readValue(b []byte, i int) (jsonValue, int, string) {
	if i >= len(b) {
		return jsonValue{}, 0, jsonErr(i, "expected a value")
	}
	switch c := b[i]; {
	case c == '"':
		s, j, reason := p.readString(b, i)
		return jsonValue{kind: jsonString, b: s}, j, reason
	case c == '{' || c == '[':
		j, reason := skipValue(b, i)
		return jsonValue{kind: jsonComposite}, j, reason
	case c == '-' || c >= '0' && c <= '9':
		j := scanNumber(b, i)
		if j == i {
			return jsonValue{}, 0, jsonErr(i, "invalid number")
		}
		return jsonValue{kind: jsonNumber, b: b[i:j]}, j, ""
	}
	j, k, reason := scanLiteral(b, i)
	return jsonValue{kind: k}, j, reason
}

func scanNumber(b []byte, i int) int {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	digits := 0
	for j < len(b) {
		c := b[j]
		if c >= '0' && c <= '9' {
			digits++
		} else if c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-' {
			break
		}
		j++
	}
	if digits == 0 {
		return i
	}
	return j
}

var (
	litTrue  = []byte("true")
	litFalse = []byte("false")
	litNull  = []byte("null")
)

func scanLiteral(b []byte, i int) (int, jsonKind, string) {
	for _, l := range [...]struct {
		text []byte
		kind jsonKind
	}{{litTrue, jsonTrue}, {litFalse, jsonFalse}, {litNull, jsonNull}} {
		if len(b)-i >= len(l.text) && string(b[i:i+len(l.text)]) == string(l.text) {
			return i + len(l.text), l.kind, ""
		}
	}
	if i < len(b) {
		return 0, 0, jsonErr(i, fmt.Sprintf("unexpected %q", b[i]))
	}
	return 0, 0, jsonErr(i, "expected a value")
}

// skipValue skips any value, including nested objects and arrays of any
// depth, without recursion.
func skipValue(b []byte, i int) (int, string) {
	if i >= len(b) {
		return 0, jsonErr(i, "expected a value")
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '-' || c >= '0' && c <= '9':
		j := scanNumber(b, i)
		if j == i {
			return 0, jsonErr(i, "invalid number")
		}
		return j, ""
	case c == '{' || c == '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, ""
				}
			case '"':
				end, reason := skipString(b, j)
				if reason != "" {
					return 0, reason
				}
				j = end - 1
			}
		}
		if c == '{' {
			return 0, jsonErr(i, "unterminated object")
		}
		return 0, jsonErr(i, "unterminated array")
	}
	j, _, reason := scanLiteral(b, i)
	return j, reason
}

func skipString(b []byte, i int) (int, string) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, ""
		}
	}
	return 0, jsonErr(i, "unterminated string")
}
