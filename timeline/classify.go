package timeline

import (
	"fmt"
	"strings"

	"github.com/dustin/go-humanize"
)

// throttleCodes are platform error codes that mean "rate limited", whatever
// HTTP status carried them (botocore's legacy mode sees ThrottlingException on
// a 400, for instance).
var throttleCodes = map[string]bool{
	"throttling": true, "throttlingexception": true, "throttledexception": true,
	"requestthrottledexception": true, "toomanyrequestsexception": true,
	"provisionedthroughputexceededexception": true, "requestlimitexceeded": true,
	"bandwidthlimitexceeded": true, "limitexceededexception": true, "requestthrottled": true,
	"slowdown": true, "ec2throttledexception": true, "ratelimiterror": true,
	"rate_limit_error": true, "rate_limit_exceeded": true, "resource_exhausted": true,
	"too_many_requests": true, "toomanyrequests": true,
}

// nonRetryableCodes fail the same way on every attempt; retrying them only
// wastes requests.
var nonRetryableCodes = map[string]bool{
	"servicequotaexceededexception": true, "validationexception": true,
	"accessdeniedexception": true, "resourcenotfoundexception": true,
	"badrequesterror": true, "authenticationerror": true, "permissiondeniederror": true,
	"notfounderror": true, "invalid_request_error": true, "insufficient_quota": true,
}

// proxyCodes open the error codes ingest gives a response that a proxy,
// load balancer or CDN in front of the endpoint generated itself: an ALB's
// "elb", HAProxy's "haproxy:PR--", Cloudflare's "cloudflare:...", a Google
// Cloud load balancer's "gclb:...", Kong's "kong", CloudFront's
// "cloudfront:...".
var proxyCodes = [...]string{"elb", "haproxy", "cloudflare", "gclb", "kong", "cloudfront"}

// IsProxyCode reports whether an error code says the proxy in front of
// the endpoint answered by itself, so that a throttle carrying it is the
// proxy's own limit and not the endpoint's.
func IsProxyCode(code string) bool {
	for _, p := range proxyCodes {
		if rest, ok := strings.CutPrefix(code, p); ok && (rest == "" || rest[0] == ':') {
			return true
		}
	}
	return false
}

// IsThrottleCode reports whether a platform error code means throttled.
func IsThrottleCode(code string) bool {
	return code != "" && throttleCodes[strings.ToLower(code)]
}

// Classify derives an outcome from an HTTP status and a platform error code.
// The code wins over the status because platforms map throttles onto
// several statuses.
func Classify(status int16, code string) Outcome {
	if code != "" {
		lc := strings.ToLower(code)
		switch {
		case throttleCodes[lc]:
			return OutcomeThrottled
		case nonRetryableCodes[lc]:
			return OutcomeNonRetryable
		}
	}
	switch {
	case status == 429:
		return OutcomeThrottled
	case status >= 200 && status < 400:
		if code != "" {
			return OutcomeRetryable
		}
		return OutcomeOK
	case status == 408 || status == 409 || status >= 500:
		return OutcomeRetryable
	case status >= 400:
		return OutcomeNonRetryable
	case code != "":
		// An error with no status is usually a connection failure or timeout.
		return OutcomeRetryable
	}
	return OutcomeUnknown
}

// ClassRule assigns a traffic class to events whose Field contains Substr.
// Written as CLASS=FIELD:SUBSTR, e.g. "batch=route:/batch/" or
// "interactive=client:OpenAI/JS". FIELD "task" with no substring matches any
// event that carries a task id.
type ClassRule struct {
	Class  Class
	Field  string
	Substr string
}

var ruleFields = []string{"route", "client", "task", "call", "code"}

// ParseClassRule parses CLASS=FIELD:SUBSTR.
func ParseClassRule(s string) (ClassRule, error) {
	cls, rest, ok := strings.Cut(s, "=")
	if !ok {
		return ClassRule{}, fmt.Errorf("class rule %q: want CLASS=FIELD:SUBSTR, e.g. batch=route:/batch/", s)
	}
	c := ParseClass(cls)
	if c == ClassUnknown {
		return ClassRule{}, fmt.Errorf("class rule %q: class must be batch or interactive", s)
	}
	field, substr, _ := strings.Cut(rest, ":")
	for _, f := range ruleFields {
		if f == field {
			return ClassRule{Class: c, Field: field, Substr: substr}, nil
		}
	}
	return ClassRule{}, fmt.Errorf("class rule %q: field must be one of %s", s, strings.Join(ruleFields, ", "))
}

func (r ClassRule) String() string {
	return r.Class.String() + "=" + r.Field + ":" + r.Substr
}

// field returns the Sym the rule looks in; ok is false for a "task" rule
// with no substring, which asks only whether there is a task id.
func (r ClassRule) field(e *Event) (v Sym, ok bool) {
	switch r.Field {
	case "route":
		return e.Route, true
	case "client":
		return e.Client, true
	case "task":
		return e.TaskID, r.Substr != ""
	case "call":
		return e.CallID, true
	case "code":
		return e.ErrorCode, true
	}
	return NoSym, true
}

// ruleMatcher applies one rule, remembering its answer per Sym: the answer
// depends on one Sym only, and logs repeat a few routes and clients
// millions of times.
type ruleMatcher struct {
	ClassRule
	memo map[Sym]bool
}

func (m *ruleMatcher) matches(e *Event) bool {
	v, ok := m.field(e)
	if !ok {
		return e.TaskID != NoSym
	}
	if v == NoSym {
		return false
	}
	hit, known := m.memo[v]
	if !known {
		hit = strings.Contains(v.String(), m.Substr)
		if len(m.memo) < 1<<16 {
			m.memo[v] = hit
		}
	}
	return hit
}

// DefaultClassRules are used when the user gives none: routes that name their
// class, then "has a task id" for batch work. Events no rule matches keep
// ClassUnknown; ResolveClasses decides what the rest of the timeline says
// of them.
var DefaultClassRules = []ClassRule{
	{Class: ClassBatch, Field: "route", Substr: "batch"},
	{Class: ClassInteractive, Field: "route", Substr: "interactive"},
	{Class: ClassBatch, Field: "task"},
}

// ApplyClassRules sets Class on every event the log did not already classify
// (explicit classes from an SDK log's own field are kept). The first matching
// rule wins; unmatched events stay ClassUnknown.
func ApplyClassRules(t *Timeline, rules []ClassRule, override bool) {
	matchers := make([]ruleMatcher, len(rules))
	for k, r := range rules {
		matchers[k] = ruleMatcher{ClassRule: r, memo: map[Sym]bool{}}
	}
	for i := range t.Events {
		e := &t.Events[i]
		if e.Class != ClassUnknown && !override {
			continue
		}
		e.Class = ClassUnknown
		for k := range matchers {
			if matchers[k].matches(e) {
				e.Class = matchers[k].Class
				break
			}
		}
	}
}

// ResolveClasses decides the class of the events no rule matched, from what
// the rest of the timeline shows, and says so in a warning on each source
// whose events it classed:
//   - beside batch work that carries task ids or batch routes, an event with
//     neither is taken as interactive: user-facing callers rarely send job
//     metadata;
//   - beside routes named interactive and no batch evidence, the other
//     routes are taken as batch;
//   - with no evidence either way the class stays unknown, and the analyses
//     report no per-class figures rather than a default.
func ResolveClasses(t *Timeline) {
	var batch, interactive int64
	unknown := map[int32]int64{}
	for i := range t.Events {
		e := &t.Events[i]
		if e.Layer == LayerQueue {
			continue
		}
		switch e.Class {
		case ClassBatch:
			batch++
		case ClassInteractive:
			interactive++
		default:
			unknown[e.Source]++
		}
	}
	if len(unknown) == 0 {
		return
	}
	to := ClassUnknown
	var why string
	switch {
	case batch > 0:
		to = ClassInteractive
		why = fmt.Sprintf("taken as interactive because they carry no task id or batch route while %s other events do (inferred, not logged; --class settles it)", humanize.Comma(int64(batch)))
	case interactive > 0:
		to = ClassBatch
		why = fmt.Sprintf("taken as batch because their routes are not the interactive ones %s other events use (inferred, not logged; --class settles it)", humanize.Comma(int64(interactive)))
	}
	if to != ClassUnknown {
		for i := range t.Events {
			if e := &t.Events[i]; e.Class == ClassUnknown && e.Layer != LayerQueue {
				e.Class = to
			}
		}
	}
	for src, n := range unknown {
		if int(src) >= len(t.Sources) {
			continue
		}
		s := &t.Sources[src]
		if to == ClassUnknown {
			s.Warnings = append(s.Warnings, fmt.Sprintf("class unknown for %s events: no task id, route or class field tells batch from interactive, so no per-class figures are given; --class batch=route:... settles it", humanize.Comma(int64(n))))
			continue
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s events %s", humanize.Comma(int64(n)), why))
	}
}
