package simulate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Names of the files WriteDir writes.
const (
	AccessLogFile = "access.log"
	CallsFile     = "calls.jsonl"
	TruthFile     = "truth.json"
)

// WriteDir writes access.log, calls.jsonl and truth.json into dir, creating
// it if needed. The same Output always gives byte-identical files.
func (o *Output) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write simulation: %w", err)
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{AccessLogFile, o.WriteAccessLog},
		{CallsFile, o.WriteCalls},
		{TruthFile, o.WriteTruth},
	} {
		if err := writeFile(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write simulation: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// TaskID names task i (0-based) as "task-0001", widening for large backlogs.
func (o *Output) TaskID(i int) string {
	width := max(4, len(strconv.Itoa(o.Scenario.Batch.Tasks)))
	return fmt.Sprintf("task-%0*d", width, i+1)
}

// CallID names a call: "task-0001/q2" for batch, "ui-000123" for
// interactive; a queue attempt's later SDK calls, made by Scenario.Layers,
// add "/c2", "/c3", ...
func (o *Output) CallID(c *Call) string {
	if c.Kind == Interactive {
		return fmt.Sprintf("ui-%06d", c.Seq)
	}
	id := o.TaskID(c.Task) + "/q" + strconv.Itoa(c.QueueAttempt)
	if c.Try > 1 {
		id += "/c" + strconv.Itoa(c.Try)
	}
	return id
}

// Body sizes are fixed per status: the simulated endpoint's replies do not vary.
const (
	bodyBytesOK       = 412
	bodyBytesThrottle = 97
)

// WriteAccessLog writes one nginx line per attempt, in order of response
// time, in the stampede log format (ingest.StampedeLogFormat):
//
//	$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent
//	"$http_referer" "$http_user_agent" $request_time $upstream_response_time
//	"$http_x_stainless_retry_count" "$http_amz_sdk_request"
//	"$http_amz_sdk_invocation_id" "$http_x_task_id" $msec "$sent_http_retry_after"
//
// nginx takes times at millisecond resolution, so $request_time is the
// difference of the truncated milliseconds of arrival and response.
func (o *Output) WriteAccessLog(w io.Writer) error {
	sc := &o.Scenario
	routes := [2][]byte{
		Batch:       []byte("\"POST " + sc.Batch.Route + " HTTP/1.1\" "),
		Interactive: []byte("\"POST " + sc.Interactive.Route + " HTTP/1.1\" "),
	}
	agents := [2]string{Batch: sc.SDK.UserAgent, Interactive: sc.SDK.UserAgent}
	if sc.InteractiveSDK != nil {
		agents[Interactive] = sc.InteractiveSDK.UserAgent
	}
	taskIDs := make([]string, sc.Batch.Tasks)
	for i := range taskIDs {
		taskIDs[i] = o.TaskID(i)
	}
	var line []byte
	for i := range o.Attempts {
		a := &o.Attempts[i]
		loggedMs := sc.Start.Add(a.Logged).UnixMilli()
		arrivedMs := sc.Start.Add(a.Arrived).UnixMilli()
		line = append(line[:0], "127.0.0.1 - - ["...)
		line = time.UnixMilli(loggedMs).UTC().AppendFormat(line, "02/Jan/2006:15:04:05 -0700")
		line = append(line, "] "...)
		line = append(line, routes[a.Kind]...)
		line = strconv.AppendInt(line, int64(a.Status), 10)
		body := bodyBytesOK
		if a.Status == 429 {
			body = bodyBytesThrottle
		}
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(body), 10)
		line = append(line, ` "-" "`...)
		line = append(line, agents[a.Kind]...)
		line = append(line, `" `...)
		line = appendMillis(line, loggedMs-arrivedMs)
		line = append(line, ' ')
		line = appendMillis(line, loggedMs-arrivedMs)
		line = append(line, ` "`...)
		line = strconv.AppendInt(line, int64(a.Retry), 10)
		line = append(line, `" "-" "-" "`...)
		if a.Kind == Batch {
			line = append(line, taskIDs[a.Task]...)
		} else {
			line = append(line, '-')
		}
		line = append(line, `" `...)
		line = appendMillis(line, loggedMs)
		line = append(line, ` "`...)
		if a.RetryAfter >= 0 {
			line = strconv.AppendInt(line, int64(a.RetryAfter), 10)
		} else {
			line = append(line, '-')
		}
		line = append(line, "\"\n"...)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// appendMillis appends ms as seconds with three decimals.
func appendMillis(b []byte, ms int64) []byte {
	if ms < 0 {
		b = append(b, '-')
		ms = -ms
	}
	b = strconv.AppendInt(b, ms/1000, 10)
	frac := ms % 1000
	b = append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	return b
}

// appendMicros appends µs as seconds with six decimals.
func appendMicros(b []byte, us int64) []byte {
	b = strconv.AppendInt(b, us/1_000_000, 10)
	b = append(b, '.')
	frac := strconv.FormatInt(us%1_000_000+1_000_000, 10)
	return append(b, frac[1:]...)
}

// WriteCalls writes calls.jsonl: one line per SDK call, in order of call end,
// with the application log's keys (ts_start, ts_end, kind, task_id,
// queue_attempt, call_id, outcome, error_code, http_status, http_attempts,
// retry_after, duration_ms, ...).
func (o *Output) WriteCalls(w io.Writer) error {
	sc := &o.Scenario
	codes := [2][]byte{Batch: quoteJSON(sc.SDK.ErrorCode), Interactive: quoteJSON(sc.SDK.ErrorCode)}
	if sc.InteractiveSDK != nil {
		codes[Interactive] = quoteJSON(sc.InteractiveSDK.ErrorCode)
	}
	start := sc.Start.Add(time.Duration(sc.SDKClockOffsetS * float64(time.Second)))
	var line []byte
	for i := range o.Calls {
		c := &o.Calls[i]
		startMs := start.Add(c.Start).UnixMilli()
		endMs := start.Add(c.End).UnixMilli()
		line = append(line[:0], `{"ts_start":"`...)
		line = time.UnixMilli(startMs).UTC().AppendFormat(line, "2006-01-02T15:04:05.000Z")
		line = append(line, `","ts_end":"`...)
		line = time.UnixMilli(endMs).UTC().AppendFormat(line, "2006-01-02T15:04:05.000Z")
		line = append(line, `","t_start":`...)
		line = appendMicros(line, start.Add(c.Start).UnixMicro())
		line = append(line, `,"t_end":`...)
		line = appendMicros(line, start.Add(c.End).UnixMicro())
		line = append(line, `,"kind":"`...)
		line = append(line, c.Kind.String()...)
		if c.Kind == Batch {
			line = append(line, `","task_id":"`...)
			line = append(line, o.TaskID(c.Task)...)
			line = append(line, `","queue_attempt":`...)
			line = strconv.AppendInt(line, int64(c.QueueAttempt), 10)
		} else {
			line = append(line, `","task_id":null,"queue_attempt":null`...)
		}
		line = append(line, `,"call_id":"`...)
		line = append(line, o.CallID(c)...)
		if c.OK {
			line = append(line, `","outcome":"ok","error_type":null,"error_code":null`...)
		} else {
			line = append(line, `","outcome":"error","error_type":`...)
			line = append(line, codes[c.Kind]...)
			line = append(line, `,"error_code":`...)
			line = append(line, codes[c.Kind]...)
		}
		line = append(line, `,"http_status":`...)
		line = strconv.AppendInt(line, int64(c.Status), 10)
		line = append(line, `,"sdk_retry_count":`...)
		line = strconv.AppendInt(line, int64(c.Attempts-1), 10)
		line = append(line, `,"http_attempts":`...)
		line = strconv.AppendInt(line, int64(c.Attempts), 10)
		line = append(line, `,"retry_after":`...)
		if c.RetryAfter >= 0 {
			line = strconv.AppendInt(line, int64(c.RetryAfter), 10)
		} else {
			line = append(line, "null"...)
		}
		line = append(line, `,"duration_ms":`...)
		line = strconv.AppendInt(line, endMs-startMs, 10)
		if c.Kind == Interactive {
			line = append(line, `,"interactive_seq":`...)
			line = strconv.AppendInt(line, int64(c.Seq), 10)
		} else {
			line = append(line, `,"next":"`...)
			line = append(line, c.Next...)
			line = append(line, '"')
			if c.Next == "requeue" || c.Next == "end" {
				line = append(line, `,"requeue_delay_ms":`...)
				line = strconv.AppendInt(line, c.RequeueDelay.Milliseconds(), 10)
			}
		}
		line = append(line, "}\n"...)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

func quoteJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// WriteTruth writes truth.json, indented, keys in a fixed order.
func (o *Output) WriteTruth(w io.Writer) error {
	b, err := json.MarshalIndent(o.Truth, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// RunFile simulates the scenario file at path and writes its files into dir.
func RunFile(path, dir string) (*Output, error) {
	sc, err := LoadScenario(path)
	if err != nil {
		return nil, err
	}
	out, err := Run(sc)
	if err != nil {
		return nil, err
	}
	return out, out.WriteDir(dir)
}
