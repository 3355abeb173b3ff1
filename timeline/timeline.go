// Package timeline holds the one data model that crosses the pipeline:
// ingesters append Events to a Timeline, analyses read it, and nothing else
// (Arrow, parsers, renderers) leaks across. A Timeline is built once and then
// treated as immutable by every analysis.
package timeline

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Layer says which retry layer observed an event.
type Layer uint8

const (
	LayerUnknown Layer = iota
	// LayerHTTP is one attempt: one HTTP request on the wire.
	LayerHTTP
	// LayerCall is one SDK invocation, which may span several attempts.
	LayerCall
	// LayerQueue is one try at a task by the job runner.
	LayerQueue
)

var layerNames = [...]string{"unknown", "attempt", "call", "queue_attempt"}

func (l Layer) String() string {
	if int(l) < len(layerNames) {
		return layerNames[l]
	}
	return "unknown"
}

// ParseLayer is the inverse of Layer.String; it also accepts common synonyms.
func ParseLayer(s string) Layer {
	switch strings.ToLower(s) {
	case "attempt", "http", "request":
		return LayerHTTP
	case "call", "sdk", "sdk_call":
		return LayerCall
	case "queue_attempt", "queue", "job":
		return LayerQueue
	}
	return LayerUnknown
}

// Outcome classes an event's result the way a retry policy sees it.
type Outcome uint8

const (
	OutcomeUnknown Outcome = iota
	OutcomeOK
	OutcomeThrottled
	OutcomeRetryable
	OutcomeNonRetryable
)

var outcomeNames = [...]string{"unknown", "ok", "throttled", "retryable_error", "non_retryable_error"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// Failed reports whether the outcome is any kind of error.
func (o Outcome) Failed() bool {
	return o == OutcomeThrottled || o == OutcomeRetryable || o == OutcomeNonRetryable
}

// ParseOutcome is the inverse of Outcome.String.
func ParseOutcome(s string) Outcome {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i)
		}
	}
	return OutcomeUnknown
}

// Class is the traffic class an event belongs to.
type Class uint8

const (
	ClassUnknown Class = iota
	ClassBatch
	ClassInteractive
)

var classNames = [...]string{"unknown", "batch", "interactive"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "unknown"
}

// ParseClass is the inverse of Class.String.
func ParseClass(s string) Class {
	switch strings.ToLower(s) {
	case "batch", "background", "bulk":
		return ClassBatch
	case "interactive", "online", "ui", "user":
		return ClassInteractive
	}
	return ClassUnknown
}

// NoRetryAfter marks an event whose response carried no retry-after.
const NoRetryAfter time.Duration = -1

// Event is one observation: an attempt, a call or a queue attempt.
// Zero values mean "the log did not say".
type Event struct {
	// Start is when the observed unit began (request arrival, call start), in
	// Unix nanoseconds UTC.
	Start int64
	// End is when it finished, or 0 when the log has only one timestamp.
	End int64

	Layer   Layer
	Outcome Outcome
	Class   Class
	// Status is the HTTP status, 0 when unknown.
	Status int32
	// Attempt is the 1-based attempt number within its call.
	Attempt int32
	// MaxAttempts is the SDK's attempt limit when the wire says it
	// (amz-sdk-request max=M).
	MaxAttempts int32
	// QueueAttempt is the 1-based queue attempt number within its task.
	QueueAttempt int32
	// Attempts is, on a call event, how many attempts the SDK reported making.
	Attempts int32
	// RetryAfter is the server's retry-after, or NoRetryAfter.
	RetryAfter time.Duration

	ErrorCode string
	Route     string
	// Client is the User-Agent or SDK name.
	Client    string
	TaskID    string
	CallID    string
	RequestID string

	// Source indexes Timeline.Sources; Line is 1-based within that file.
	Source int32
	Line   int64
}

// Time returns Start as a time.Time in UTC.
func (e *Event) Time() time.Time { return time.Unix(0, e.Start).UTC() }

// Duration is End-Start, or 0 when End is unknown.
func (e *Event) Duration() time.Duration {
	if e.End == 0 || e.End < e.Start {
		return 0
	}
	return time.Duration(e.End - e.Start)
}

// Skip records one line an ingester could not use.
type Skip struct {
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
}

// MaxSkipSamples bounds how many skipped lines are kept verbatim per file;
// the rest are still counted.
const MaxSkipSamples = 20

// Observer says where on the request path a log was written. The same
// attempt can be in several logs (the proxy's, the load generator's, the
// SDK's debug log); analyses count attempts from the best observer present
// so that none is counted twice.
type Observer string

const (
	// ObserverProxy is a proxy, gateway or load balancer in front of the
	// endpoint: it sees every attempt from every client.
	ObserverProxy Observer = "proxy"
	// ObserverClient is a load generator recording its own requests.
	ObserverClient Observer = "client"
	// ObserverSDK is the application: SDK debug lines and call logs.
	ObserverSDK Observer = "sdk"
)

// Rank orders observers by how completely they see attempts; higher wins.
func (o Observer) Rank() int {
	switch o {
	case ObserverProxy:
		return 3
	case ObserverClient:
		return 2
	case ObserverSDK:
		return 1
	}
	return 0
}

// Source accounts for every line of one input file: Parsed + Skipped == Lines.
type Source struct {
	Path     string   `json:"path"`
	Format   string   `json:"format"`
	Observer Observer `json:"observer,omitempty"`
	Lines    int64    `json:"lines"`
	Parsed   int64    `json:"parsed"`
	Skipped  int64    `json:"skipped"`
	// Events can exceed Parsed when one line yields several attempts.
	Events  int64  `json:"events"`
	Samples []Skip `json:"skip_samples,omitempty"`
}

// AddSkip counts a skipped line and keeps a bounded sample of them.
func (s *Source) AddSkip(line int64, reason string) {
	s.Skipped++
	if len(s.Samples) < MaxSkipSamples {
		s.Samples = append(s.Samples, Skip{Line: line, Reason: reason})
	}
}

// Timeline is the merged, time-ordered record of an incident.
type Timeline struct {
	Events  []Event
	Sources []Source
}

// Sort orders events by Start, then by source position, so that output is
// deterministic whatever order the files were read in.
func (t *Timeline) Sort() {
	less := func(a, b *Event) int {
		switch {
		case a.Start != b.Start:
			return cmp.Compare(a.Start, b.Start)
		case a.Source != b.Source:
			return cmp.Compare(a.Source, b.Source)
		}
		return cmp.Compare(a.Line, b.Line)
	}
	if slices.IsSortedFunc(t.Events, func(a, b Event) int { return less(&a, &b) }) {
		return
	}
	// Events are large, so sort a permutation and move each event once
	// instead of swapping structs inside the sort.
	order := make([]int32, len(t.Events))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(i, j int32) int { return less(&t.Events[i], &t.Events[j]) })
	sorted := make([]Event, len(t.Events))
	for i, j := range order {
		sorted[i] = t.Events[j]
	}
	t.Events = sorted
}

// Append merges another timeline's events and sources into t, rebasing
// source indexes. The result needs Sort.
func (t *Timeline) Append(o *Timeline) {
	base := int32(len(t.Sources))
	t.Sources = append(t.Sources, o.Sources...)
	if len(t.Events) == 0 && base == 0 {
		// The common single-file case: take the slice rather than copy
		// hundreds of megabytes of events.
		t.Events = o.Events
		return
	}
	n := len(t.Events)
	t.Events = slices.Grow(t.Events, len(o.Events))[:n+len(o.Events)]
	copy(t.Events[n:], o.Events)
	if base != 0 {
		for i := n; i < len(t.Events); i++ {
			t.Events[i].Source += base
		}
	}
}

// Position renders an event's origin as file:line.
func (t *Timeline) Position(e *Event) string {
	if int(e.Source) < len(t.Sources) {
		return t.Sources[e.Source].Path + ":" + strconv.FormatInt(e.Line, 10)
	}
	return "?:" + strconv.FormatInt(e.Line, 10)
}
