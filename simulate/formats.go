package simulate

import (
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Names of the files WriteFormats writes besides WriteDir's.
const (
	EnvoyJSONFile = "envoy-access.jsonl"
	OTLPFile      = "otlp-traces.jsonl"
)

// outputFormats maps the names WriteFormats accepts (ingest's format names)
// to a file and its writer.
var outputFormats = []struct {
	name  string
	file  string
	write func(o *Output, w io.Writer) error
}{
	{"nginx", AccessLogFile, (*Output).WriteAccessLog},
	{"jsonl", CallsFile, (*Output).WriteCalls},
	{"envoy-json", EnvoyJSONFile, (*Output).WriteEnvoyJSON},
	{"otlp-json", OTLPFile, (*Output).WriteOTLP},
}

// OutputFormats lists the formats WriteFormats can write, by ingest's
// names for them.
func OutputFormats() []string {
	names := make([]string, len(outputFormats))
	for i, f := range outputFormats {
		names[i] = f.name
	}
	return names
}

// WriteFormats writes the incident in each named format (see
// OutputFormats) into dir, plus truth.json, creating dir if needed. It
// returns the paths written, in the order asked. The same Output always
// gives byte-identical files.
func (o *Output) WriteFormats(dir string, formats ...string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write simulation: %w", err)
	}
	var paths []string
	for _, name := range formats {
		i := -1
		for k, f := range outputFormats {
			if f.name == name {
				i = k
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("write simulation: unknown format %q: want %s", name, strings.Join(OutputFormats(), ", "))
		}
		f := outputFormats[i]
		path := filepath.Join(dir, f.file)
		if err := writeFile(path, func(w io.Writer) error { return f.write(o, w) }); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	if err := writeFile(filepath.Join(dir, TruthFile), o.WriteTruth); err != nil {
		return nil, err
	}
	return paths, nil
}

// attemptCallID names the call an attempt belongs to, as CallID does.
func (o *Output) attemptCallID(a *Attempt) string {
	if a.Kind == Interactive {
		return fmt.Sprintf("ui-%06d", a.Seq)
	}
	return o.TaskID(a.Task) + "/q" + strconv.Itoa(a.QueueAttempt)
}

// attemptHeaders are what the writers of every format need per attempt.
type attemptHeaders struct {
	route, agent [2]string
	taskIDs      []string
}

func (o *Output) headers() attemptHeaders {
	sc := &o.Scenario
	h := attemptHeaders{
		route: [2]string{Batch: sc.Batch.Route, Interactive: sc.Interactive.Route},
		agent: [2]string{Batch: sc.SDK.UserAgent, Interactive: sc.SDK.UserAgent},
	}
	if sc.InteractiveSDK != nil {
		h.agent[Interactive] = sc.InteractiveSDK.UserAgent
	}
	h.taskIDs = make([]string, sc.Batch.Tasks)
	for i := range h.taskIDs {
		h.taskIDs[i] = o.TaskID(i)
	}
	return h
}

// WriteEnvoyJSON writes one Envoy json_format access log line per attempt,
// in order of response time, with the keys Istio-style configurations
// give the operators: start_time (%START_TIME%, milliseconds), duration
// (%DURATION%, ms), response_code, response_flags, path, user_agent, and
// the SDK's request headers x_stainless_retry_count and x_task_id. Times
// are the access log's, truncated to milliseconds as Envoy logs them.
func (o *Output) WriteEnvoyJSON(w io.Writer) error {
	sc := &o.Scenario
	h := o.headers()
	var line []byte
	for i := range o.Attempts {
		a := &o.Attempts[i]
		loggedMs := sc.Start.Add(a.Logged).UnixMilli()
		arrivedMs := sc.Start.Add(a.Arrived).UnixMilli()
		line = append(line[:0], `{"start_time":"`...)
		line = time.UnixMilli(arrivedMs).UTC().AppendFormat(line, "2006-01-02T15:04:05.000Z")
		line = append(line, `","method":"POST","path":`...)
		line = append(line, quoteJSON(h.route[a.Kind])...)
		line = append(line, `,"protocol":"HTTP/1.1","response_code":`...)
		line = strconv.AppendInt(line, int64(a.Status), 10)
		line = append(line, `,"response_flags":"-","duration":`...)
		line = strconv.AppendInt(line, loggedMs-arrivedMs, 10)
		line = append(line, `,"user_agent":`...)
		line = append(line, quoteJSON(h.agent[a.Kind])...)
		line = append(line, `,"x_stainless_retry_count":"`...)
		line = strconv.AppendInt(line, int64(a.Retry), 10)
		line = append(line, `","x_task_id":`...)
		if a.Kind == Batch {
			line = append(line, '"')
			line = append(line, h.taskIDs[a.Task]...)
			line = append(line, '"')
		} else {
			line = append(line, `"-"`...)
		}
		line = append(line, `,"retry_after":`...)
		if a.RetryAfter >= 0 {
			line = append(line, '"')
			line = strconv.AppendInt(line, int64(a.RetryAfter), 10)
			line = append(line, '"')
		} else {
			line = append(line, `"-"`...)
		}
		line = append(line, "}\n"...)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// WriteOTLP writes the attempts as the OpenTelemetry collector's file
// exporter would: one ExportTraceServiceRequest in OTLP/JSON per line, here
// one CLIENT span per attempt, in order of response time, as HTTP client
// instrumentation under an SDK call span emits them. A call's attempts
// share its trace and hang off its span (ids derived from the call's
// name); http.request.resend_count is set on resent requests only, as the
// conventions say; batch attempts carry their task as a task.id span
// attribute. Times are the access log's milliseconds, so that every format
// describes the same instants.
func (o *Output) WriteOTLP(w io.Writer) error {
	sc := &o.Scenario
	h := o.headers()
	var line []byte
	for i := range o.Attempts {
		a := &o.Attempts[i]
		call := o.attemptCallID(a)
		loggedMs := sc.Start.Add(a.Logged).UnixMilli()
		arrivedMs := sc.Start.Add(a.Arrived).UnixMilli()
		line = append(line[:0], `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"`...)
		line = append(line, a.Kind.String()...)
		line = append(line, `-worker"}}]},"scopeSpans":[{"scope":{"name":"stampede-simulate"},"spans":[{"traceId":"`...)
		line = appendID(line, "trace:"+call)
		line = appendID(line, "trace2:"+call)
		line = append(line, `","spanId":"`...)
		line = appendID(line, "attempt:"+strconv.Itoa(i))
		line = append(line, `","parentSpanId":"`...)
		line = appendID(line, "call:"+call)
		line = append(line, `","name":"POST","kind":3,"startTimeUnixNano":"`...)
		line = strconv.AppendInt(line, arrivedMs*1e6, 10)
		line = append(line, `","endTimeUnixNano":"`...)
		line = strconv.AppendInt(line, loggedMs*1e6, 10)
		line = append(line, `","attributes":[{"key":"http.request.method","value":{"stringValue":"POST"}},{"key":"url.full","value":{"stringValue":`...)
		line = append(line, quoteJSON("https://api.example.com"+h.route[a.Kind])...)
		line = append(line, `}},{"key":"http.response.status_code","value":{"intValue":"`...)
		line = strconv.AppendInt(line, int64(a.Status), 10)
		line = append(line, `"}},{"key":"user_agent.original","value":{"stringValue":`...)
		line = append(line, quoteJSON(h.agent[a.Kind])...)
		line = append(line, `}}`...)
		if a.Retry > 0 {
			line = append(line, `,{"key":"http.request.resend_count","value":{"intValue":"`...)
			line = strconv.AppendInt(line, int64(a.Retry), 10)
			line = append(line, `"}}`...)
		}
		if a.RetryAfter >= 0 {
			line = append(line, `,{"key":"http.response.header.retry-after","value":{"arrayValue":{"values":[{"stringValue":"`...)
			line = strconv.AppendInt(line, int64(a.RetryAfter), 10)
			line = append(line, `"}]}}}`...)
		}
		if a.Kind == Batch {
			line = append(line, `,{"key":"task.id","value":{"stringValue":"`...)
			line = append(line, h.taskIDs[a.Task]...)
			line = append(line, `"}}`...)
		}
		line = append(line, `],"status":{`...)
		if a.Status >= 400 {
			line = append(line, `"code":2`...)
		}
		line = append(line, "}}]}]}]}\n"...)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// appendID appends 16 hex digits derived from s: span ids that are stable
// across runs and distinct per name.
func appendID(b []byte, s string) []byte {
	f := fnv.New64a()
	f.Write([]byte(s))
	v := f.Sum64()
	const hexDigits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[v>>uint(shift)&0xf])
	}
	return b
}
