package ingest

import (
	"bytes"
	"fmt"

	"github.com/stampede/stampede/timeline"
)

// envoyJSONKeys are the keys Envoy json_format dictionaries commonly give
// the operators (the keys are the user's choice; these follow Envoy's and
// Istio's examples, lower_snake_case of the operator or header).
var envoyJSONKeys = [numJSONFields][]jsonKey{
	jfStart:      keys("start_time", "timestamp", "@timestamp"),
	jfDuration:   {{"duration", unitMillis}, {"duration_ms", unitMillis}},
	jfStatus:     keys("response_code", "status_code", "status"),
	jfRoute:      keys("x_envoy_original_path", "path", "request_path"),
	jfClient:     keys("user_agent"),
	jfRequest:    keys("x_request_id", "request_id"),
	jfTask:       keys("x_task_id", "task_id"),
	jfCall:       keys("amz_sdk_invocation_id", "x_call_id", "call_id"),
	jfRetryAfter: {{"retry_after", unitSeconds}},
	jfAttempt:    keys("x_envoy_attempt_count"),
}

// envoyJSONParser reads Envoy json_format / typed_json_format lines: the
// JSONL machinery with Envoy's key names, plus the response flags and the
// upstream attempt count, which make one line several attempts.
type envoyJSONParser struct {
	j            *jsonlParser
	flagsSlot    int
	attemptsSlot int
	// retrySlot is the SDK's retry count request header, which numbers the
	// attempt when Envoy's own attempt count header is not logged.
	retrySlot int
	attempts  int32
}

func newEnvoyJSONParser(strs *interner) *envoyJSONParser {
	j := newJSONSchemaParser(envoyJSONKeys, strs)
	return &envoyJSONParser{j: j, flagsSlot: j.want("response_flags"), attemptsSlot: j.want("upstream_request_attempt_count"),
		retrySlot: j.want("x_stainless_retry_count")}
}

func (p *envoyJSONParser) format() string { return "envoy-json" }

func (p *envoyJSONParser) parse(line []byte, e *timeline.Event) string {
	j := p.j
	j.gen++
	j.scratch = j.scratch[:0]
	p.attempts = 0
	if reason := j.scan(line); reason != "" {
		return reason
	}
	// json_format writes an unset operator as "-"; typed_json_format as
	// null. Both mean absent.
	for i := range j.slots {
		if v := &j.slots[i]; v.gen == j.gen && v.kind == jsonString && len(v.b) == 1 && v.b[0] == '-' {
			v.kind = jsonNull
		}
	}
	if reason := j.fill(e); reason != "" {
		return reason
	}
	e.Layer = timeline.LayerHTTP
	if v := j.value(p.flagsSlot); v != nil && v.kind == jsonString && len(v.b) > 0 &&
		e.ErrorCode == timeline.NoSym && (e.Status < 200 || e.Status >= 400) {
		e.ErrorCode = j.strs.label(timeline.LabelErrorCode, v.b)
		e.Outcome = j.outcomes.classify(e.Status, e.ErrorCode)
	}
	if v := j.value(p.retrySlot); v != nil && e.Attempt == 0 {
		n, ok := digits(v.b)
		if (v.kind != jsonNumber && v.kind != jsonString) || !ok || n >= 1<<20 {
			return badJSON("x_stainless_retry_count", v, "a whole number")
		}
		e.Attempt = timeline.Small(n + 1)
	}
	if v := j.value(p.attemptsSlot); v != nil {
		n, _, _, ok := parseDecimal(v.b)
		if (v.kind != jsonNumber && v.kind != jsonString) || !ok || n >= 1<<20 {
			return badJSON("upstream_request_attempt_count", v, "a whole number")
		}
		p.attempts = int32(n)
	}
	return ""
}

// parseMulti splits a request Envoy retried upstream, as the text format
// does.
func (p *envoyJSONParser) parseMulti(line []byte, emit func() *timeline.Event) string {
	var req timeline.Event
	if reason := p.parse(line, &req); reason != "" {
		return reason
	}
	if p.attempts > 1 {
		emitAttempts(&req, p.attempts, emit)
	} else {
		e := emit()
		fill(e, &req)
		if p.attempts == 1 && e.Attempt == 0 {
			e.Attempt = 1
		}
	}
	return ""
}

// sniffEnvoyJSON claims JSON lines that carry Envoy's keys, before the
// generic JSONL reader would take them as call records.
func sniffEnvoyJSON(sample []sampledLine, opt Options, strs *interner) (lineParser, string) {
	if len(opt.Fields) > 0 {
		return nil, "envoy-json (a JSONL field mapping was given)"
	}
	envoy := 0
	for _, l := range sample {
		t := bytes.TrimSpace(l.text)
		if len(t) == 0 || t[0] != '{' || !bytes.Contains(t, []byte(`"start_time"`)) {
			continue
		}
		if bytes.Contains(t, []byte(`"response_code"`)) || bytes.Contains(t, []byte(`"response_flags"`)) {
			envoy++
		}
	}
	if envoy*2 < len(sample) {
		return nil, fmt.Sprintf("envoy-json (%d of %d lines are JSON with start_time and response_code or response_flags)", envoy, len(sample))
	}
	return newEnvoyJSONParser(strs), ""
}
