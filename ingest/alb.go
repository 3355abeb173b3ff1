package ingest

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/stampede/stampede/timeline"
)

// AWS Application Load Balancer access log fields, by position. Entries
// are space-separated; fields that may hold spaces are quoted. AWS appends
// fields over time, so a line may be longer than stampede knows.
const (
	albType = iota
	albTime
	albELB
	albClient
	albTarget
	albRequestProcessingTime
	albTargetProcessingTime
	albResponseProcessingTime
	albELBStatus
	albTargetStatus
	albReceivedBytes
	albSentBytes
	albRequest
	albUserAgent
	albSSLCipher
	albSSLProtocol
	albTargetGroup
	albTraceID
	albDomain
	albCert
	albRulePriority
	albRequestCreationTime
	albFieldsRead // fields past this are not read

	// albMinFields: through user_agent; the oldest logs end there or
	// shortly after.
	albMinFields = albUserAgent + 1
)

var albFieldNames = [albFieldsRead]string{
	"type", "time", "elb", "client:port", "target:port", "request_processing_time", "target_processing_time",
	"response_processing_time", "elb_status_code", "target_status_code", "received_bytes", "sent_bytes",
	"request", "user_agent", "ssl_cipher", "ssl_protocol", "target_group_arn", "trace_id", "domain_name",
	"chosen_cert_arn", "matched_rule_priority", "request_creation_time",
}

// ALBErrorCode marks a response the load balancer generated itself (no
// target answered: target_status_code "-"), so that a 429 or 503 from the
// ALB is told apart from one the backend sent.
const ALBErrorCode = "elb"

// albParser reads ALB access log entries into attempt events.
type albParser struct {
	strs     *interner
	outcomes outcomeCache
	fields   [albFieldsRead][]byte
}

func newALBParser(strs *interner) *albParser {
	return &albParser{strs: strs, outcomes: outcomeCache{}}
}

func (p *albParser) format() string { return "alb" }

// split fills p.fields with the line's first fields, unquoted, and returns
// how many there were (at most albFieldsRead) or a reason.
func (p *albParser) split(line []byte) (int, string) {
	n, i := 0, 0
	for n < albFieldsRead && i < len(line) {
		if line[i] == '"' {
			// A quoted field; ALB escapes a quote inside it as \".
			j := i + 1
			for {
				k := bytes.IndexByte(line[j:], '"')
				if k < 0 {
					return n, fmt.Sprintf("unterminated quote in %s at column %d", albFieldNames[n], i+1)
				}
				j += k
				if !escapedAt(line, j) {
					break
				}
				j++
			}
			p.fields[n] = line[i+1 : j]
			i = j + 1
		} else {
			j := bytes.IndexByte(line[i:], ' ')
			if j < 0 {
				j = len(line) - i
			}
			p.fields[n] = line[i : i+j]
			i += j
		}
		n++
		if i < len(line) {
			if line[i] != ' ' {
				return n, fmt.Sprintf("expected a space after %s at column %d", albFieldNames[n-1], i+1)
			}
			i++
		}
	}
	return n, ""
}

func (p *albParser) parse(line []byte, e *timeline.Event) string {
	n, reason := p.split(line)
	if reason != "" {
		return reason
	}
	if n < albMinFields {
		return fmt.Sprintf("%d fields, an ALB entry has at least %d", n, albMinFields)
	}
	if !isALBType(p.fields[albType]) {
		return fmt.Sprintf("type %q is not http, https, h2, grpcs, ws or wss", truncated(p.fields[albType]))
	}
	end, ok := parseISOTime(p.fields[albTime])
	if !ok {
		return p.bad(albTime)
	}
	var spent int64 // the ALB's and the target's processing times
	for _, k := range []int{albRequestProcessingTime, albTargetProcessingTime, albResponseProcessingTime} {
		v := p.fields[k]
		if string(v) == "-1" {
			// -1: the ALB could not dispatch the request or the target
			// never answered.
			continue
		}
		d, ok := parseSeconds(v)
		if !ok {
			return p.bad(k)
		}
		spent += d
	}
	elbStatus, ok := digits(p.fields[albELBStatus])
	if !ok || elbStatus > 999 {
		if string(p.fields[albELBStatus]) != "-" {
			return p.bad(albELBStatus)
		}
		elbStatus = 0 // no response: the client went away first
	}
	targetAnswered := string(p.fields[albTargetStatus]) != "-"
	if targetAnswered {
		if s, ok := digits(p.fields[albTargetStatus]); !ok || s > 999 {
			return p.bad(albTargetStatus)
		}
	}

	// time is when the ALB sent the response's last byte;
	// request_creation_time (logs since 2018) when it received the
	// request. Older entries start the processing times earlier.
	e.Start, e.End = end-spent, end
	if n > albRequestCreationTime && string(p.fields[albRequestCreationTime]) != "-" {
		start, ok := parseISOTime(p.fields[albRequestCreationTime])
		if !ok {
			return p.bad(albRequestCreationTime)
		}
		e.Start = start
	}
	e.Status = timeline.Small(elbStatus)
	if !targetAnswered && elbStatus >= 400 {
		e.ErrorCode = timeline.Intern(ALBErrorCode)
	}
	if r := p.fields[albRequest]; string(r) != "- - - " && string(r) != "-" {
		e.Route = p.strs.label(timeline.LabelRoute, routeOfRequest(r))
	}
	if ua := p.fields[albUserAgent]; string(ua) != "-" && len(ua) > 0 {
		e.Client = p.strs.label(timeline.LabelClient, ua)
	}
	if n > albTraceID {
		if id := p.fields[albTraceID]; string(id) != "-" && len(id) > 0 {
			e.RequestID = timeline.InternBytes(id)
		}
	}
	e.Layer = timeline.LayerHTTP
	e.RetryAfter = timeline.NoRetryAfter
	e.Outcome = p.outcomes.classify(e.Status, e.ErrorCode)
	return ""
}

func (p *albParser) bad(k int) string {
	return "bad " + albFieldNames[k] + " " + strconv.Quote(truncated(p.fields[k]))
}

func truncated(b []byte) string {
	if len(b) > 40 {
		return string(b[:37]) + "..."
	}
	return string(b)
}

func isALBType(b []byte) bool {
	switch string(b) {
	case "http", "https", "h2", "grpcs", "ws", "wss":
		return true
	}
	return false
}

// sniffALB claims a sample whose lines are nearly all ALB entries.
func sniffALB(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	p := newALBParser(strs)
	ok, firstBad := 0, ""
	for _, l := range sample {
		var e timeline.Event
		if reason := p.parse(l.text, &e); reason == "" {
			ok++
		} else if firstBad == "" {
			firstBad = fmt.Sprintf("line %d: %s", l.n, reason)
		}
	}
	// An entry's opening (a request type, then an ISO time) is distinctive
	// enough that a short log with a few damaged entries is still ALB's.
	shaped := 0
	for _, l := range sample {
		typ, rest, _ := bytes.Cut(l.text, []byte{' '})
		at, _, _ := bytes.Cut(rest, []byte{' '})
		if albTypes[string(typ)] {
			if _, ok := parseISOTime(at); ok {
				shaped++
			}
		}
	}
	if ok*10 < len(sample)*9 && (shaped*10 < len(sample)*9 || ok*2 <= len(sample)) {
		return nil, fmt.Sprintf("alb (%d of %d lines parse; %s)", ok, len(sample), firstBad)
	}
	return newALBParser(strs), ""
}

// albTypes are the request types an ALB entry starts with.
var albTypes = map[string]bool{"http": true, "https": true, "h2": true, "grpcs": true, "ws": true, "wss": true}
