package ingest

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/stampede/stampede/timeline"
)

// CloudFrontErrorCode opens the error code of a response CloudFront made
// itself, followed by x-edge-detailed-result-type: "cloudfront:LimitExceeded"
// is a CloudFront quota refusing the request, not the origin.
const CloudFrontErrorCode = "cloudfront"

// cloudfrontStandardFields is the field order of CloudFront's standard
// (access) logs, which its #Fields header names.
const cloudfrontStandardFields = "date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) " +
	"cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes " +
	"time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status " +
	"fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len " +
	"sc-range-start sc-range-end"

// cloudfrontRealtimeFields is the order of every field of CloudFront's
// real-time logs, which write no header: a configuration that selects
// fewer writes them in this order, and is given with --log-format.
const cloudfrontRealtimeFields = "timestamp c-ip s-ip time-to-first-byte sc-status sc-bytes cs-method cs-protocol cs-host " +
	"cs-uri-stem cs-bytes x-edge-location x-edge-request-id x-host-header time-taken cs-protocol-version c-ip-version " +
	"cs-user-agent cs-referer cs-cookie cs-uri-query x-edge-response-result-type x-forwarded-for ssl-protocol ssl-cipher " +
	"x-edge-result-type fle-encrypted-fields fle-status sc-content-type sc-content-len sc-range-start sc-range-end c-port " +
	"x-edge-detailed-result-type c-country cs-accept-encoding cs-accept cache-behavior-path-pattern cs-headers " +
	"cs-header-names cs-headers-count primary-distribution-id primary-distribution-dns-name origin-fbl origin-lbl asn"

const (
	cfrDate = iota
	cfrTime
	cfrTimestamp
	cfrStatus
	cfrTaken
	cfrURI
	cfrUserAgent
	cfrRequestID
	cfrDetailed
	cfrHeaders
	cfrCols
)

var cloudfrontFieldKinds = map[string]int{
	"date": cfrDate, "time": cfrTime, "timestamp": cfrTimestamp, "sc-status": cfrStatus, "time-taken": cfrTaken,
	"cs-uri-stem": cfrURI, "cs(user-agent)": cfrUserAgent, "cs-user-agent": cfrUserAgent,
	"x-edge-request-id": cfrRequestID, "x-edge-detailed-result-type": cfrDetailed, "cs-headers": cfrHeaders,
}

// cloudfrontParser reads CloudFront standard logs (W3C extended format,
// tab-separated, the fields named by a #Fields header) and real-time logs
// (tab-separated, no header, the fields in the documented order). The
// time (date and time, or the real-time timestamp) is when the edge
// finished responding; time-taken (seconds) runs back to when it received
// the request. The User-Agent is URL-encoded, as CloudFront writes it.
// Real-time logs can carry the request headers (cs-headers), which give
// the task and retry headers; standard logs do not.
type cloudfrontParser struct {
	strs     *interner
	outcomes outcomeCache
	name     string
	col      [cfrCols]int
	columns  int
	// fixed: the fields were given, so a #Fields header does not change them.
	fixed  bool
	fields [][]byte
}

func newCloudFrontParser(strs *interner) *cloudfrontParser {
	p := &cloudfrontParser{strs: strs, outcomes: outcomeCache{}, name: "cloudfront"}
	p.setColumns(strings.Fields(cloudfrontStandardFields))
	return p
}

// newCloudFrontFieldsParser reads lines whose fields def names: "standard",
// "realtime", or a list of field names (spaces, tabs or commas between).
func newCloudFrontFieldsParser(def string, strs *interner) *cloudfrontParser {
	p := newCloudFrontParser(strs)
	switch strings.TrimSpace(def) {
	case "", "standard":
	case "realtime":
		p.name = "cloudfront:realtime"
		p.setColumns(strings.Fields(cloudfrontRealtimeFields))
		p.fixed = true
	default:
		p.name = "cloudfront:custom"
		p.setColumns(strings.FieldsFunc(def, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == '\n' }))
		p.fixed = true
	}
	return p
}

func (p *cloudfrontParser) format() string { return p.name }

func (p *cloudfrontParser) setColumns(names []string) {
	for i := range p.col {
		p.col[i] = -1
	}
	for i, n := range names {
		if k, ok := cloudfrontFieldKinds[strings.ToLower(n)]; ok {
			p.col[k] = i
		}
	}
	p.columns = len(names)
}

func (p *cloudfrontParser) get(k int) []byte {
	if i := p.col[k]; i >= 0 && i < len(p.fields) {
		if v := p.fields[i]; len(v) > 0 && string(v) != "-" {
			return v
		}
	}
	return nil
}

func (p *cloudfrontParser) parse(line []byte, e *timeline.Event) string {
	if len(line) > 0 && line[0] == '#' {
		if rest, ok := bytes.CutPrefix(line, []byte("#Fields:")); ok && !p.fixed {
			p.setColumns(strings.Fields(string(rest)))
		}
		return "header"
	}
	p.fields = p.fields[:0]
	for f := range bytes.SplitSeq(line, []byte{'\t'}) {
		p.fields = append(p.fields, f)
	}
	if len(p.fields) < p.columns {
		return strconv.Itoa(len(p.fields)) + " tab-separated fields where the log has " + strconv.Itoa(p.columns)
	}
	var end int64
	switch {
	case p.col[cfrTimestamp] >= 0:
		b := p.get(cfrTimestamp)
		ns, ok := parseEpoch(b)
		if !ok || ns <= 0 {
			return "bad timestamp " + quoteField(b)
		}
		end = ns
	case p.col[cfrDate] >= 0 && p.col[cfrTime] >= 0:
		d, t := p.get(cfrDate), p.get(cfrTime)
		ns, ok := parseISOTime(append(append(append(make([]byte, 0, 20), d...), 'T'), t...))
		if !ok || ns <= 0 {
			return "bad date and time " + quoteField(d) + " " + quoteField(t)
		}
		end = ns
	default:
		return "no date and time or timestamp field"
	}
	e.Start, e.End = end, end
	if b := p.get(cfrTaken); b != nil {
		d, ok := parseSeconds(b)
		if !ok || d > int64(maxRequestDuration) || d >= end {
			return "bad time-taken " + quoteField(b)
		}
		e.Start = end - d
	}
	b := p.get(cfrStatus)
	s, ok := digits(b)
	if b != nil && (!ok || s > 999) {
		return "bad sc-status " + quoteField(b)
	}
	e.Status = timeline.Small(s) // "000": the viewer went away first
	e.Layer = timeline.LayerHTTP
	if b := p.get(cfrURI); b != nil {
		e.Route = p.strs.label(timeline.LabelRoute, pathOnly(b))
	}
	h := requestHeaders{userAgent: urlDecoded(p.get(cfrUserAgent)), requestID: p.get(cfrRequestID)}
	if b := p.get(cfrHeaders); b != nil {
		cloudfrontHeaders(urlDecoded(b), &h)
	}
	if d := p.get(cfrDetailed); e.Status >= 400 && cloudfrontOwnResult[string(d)] {
		e.ErrorCode = p.strs.label(timeline.LabelErrorCode, append([]byte(CloudFrontErrorCode+":"), d...))
	}
	h.apply(e, p.strs, end)
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}

// cloudfrontOwnResult are the x-edge-detailed-result-type values of
// responses CloudFront made without the origin.
var cloudfrontOwnResult = map[string]bool{
	"LimitExceeded": true, "ClientGeoBlocked": true, "InvalidRequest": true, "InvalidRequestBlocked": true,
	"InvalidRequestCertificate": true, "InvalidRequestHeader": true, "InvalidRequestMethod": true,
}

// cloudfrontHeaders reads the task and retry headers out of cs-headers,
// "Name:value" lines once URL-decoded.
func cloudfrontHeaders(b []byte, h *requestHeaders) {
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		name, val, ok := bytes.Cut(bytes.TrimSpace(line), []byte{':'})
		if !ok {
			continue
		}
		val = bytes.TrimSpace(val)
		k := knownVars["http_"+strings.ReplaceAll(strings.ToLower(string(name)), "-", "_")]
		h.request(k, val)
	}
}

// urlDecoded undoes CloudFront's %XX escapes; nil stays nil.
func urlDecoded(b []byte) []byte {
	if bytes.IndexByte(b, '%') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+2 < len(b) && isHex(b[i+1]) && isHex(b[i+2]) {
			out = append(out, unhex(b[i+1])<<4|unhex(b[i+2]))
			i += 2
			continue
		}
		out = append(out, b[i])
	}
	return out
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// sniffCloudFront claims a sample with a W3C #Fields header naming
// CloudFront's x-edge-request-id, or whose lines are 90% real-time log
// lines (tab-separated, an epoch timestamp first, a status fifth).
func sniffCloudFront(sample []sampledLine, opt Options, strs *interner) (lineParser, string) {
	for _, l := range sample {
		if bytes.HasPrefix(l.text, []byte("#Fields:")) && bytes.Contains(l.text, []byte("x-edge-request-id")) {
			return newCloudFrontParser(strs), ""
		}
	}
	rt := newCloudFrontFieldsParser("realtime", newInterner())
	ok, why := sampleShare("cloudfront:realtime", sample, textShare, func(line []byte) string {
		if bytes.Count(line, []byte{'\t'}) < 10 {
			return "fewer than 11 tab-separated fields"
		}
		return parses(rt)(line)
	})
	if !ok {
		return nil, "cloudfront (no #Fields header with x-edge-request-id); " + why
	}
	return newCloudFrontFieldsParser("realtime", strs), ""
}

// isCloudFrontFields reports whether a --log-format definition is a list
// of CloudFront log fields.
func isCloudFrontFields(def string) bool {
	d := strings.TrimSpace(def)
	return d == "realtime" || !strings.ContainsAny(d, "$%") &&
		(strings.Contains(d, "x-edge-") || strings.Contains(d, "sc-status") || strings.Contains(d, "cs-uri-stem"))
}

// openCloudFront builds the parser for Options.Format "cloudfront": the
// fields --log-format lists, else those of the #Fields header.
func openCloudFront(_ []sampledLine, _ bool, opt Options, strs *interner) (lineParser, error) {
	return newCloudFrontFieldsParser(opt.LogFormat, strs), nil
}
