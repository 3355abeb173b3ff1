// Package timeline holds the one data model that crosses the pipeline:
// ingesters append Events to a Timeline, analyses read it, and nothing else
// (Arrow, parsers, renderers) leaks across. A Timeline is built once and then
// treated as immutable by every analysis.
package timeline

import (
	"cmp"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/stampede/stampede/spill"
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
const NoRetryAfter Millis = -1

// Millis is a duration to the millisecond, as an Event holds its
// retry-after: 4 bytes rather than 8, up to 24 days, finer than any
// server states one (whole seconds, or retry-after-ms).
type Millis int32

// MillisOf is d to the nearest millisecond, a positive d under half of
// one counting as one, so that a retry-after stays a retry-after; a
// negative d is NoRetryAfter, and one past 24 days is held there.
func MillisOf(d time.Duration) Millis {
	switch {
	case d < 0:
		return NoRetryAfter
	case d > 0 && d < time.Millisecond/2:
		return 1
	case d >= math.MaxInt32*time.Millisecond:
		return math.MaxInt32
	}
	return Millis((d + time.Millisecond/2) / time.Millisecond)
}

// Duration is m as a time.Duration.
func (m Millis) Duration() time.Duration { return time.Duration(m) * time.Millisecond }

// Seconds is m in seconds.
func (m Millis) Seconds() float64 { return float64(m) / 1e3 }

// Event is one observation: an attempt, a call or a queue attempt.
// Zero values mean "the log did not say".
//
// An Event holds no pointers (strings are Syms), so that a timeline of
// millions of them is one block the garbage collector never reads. Fields
// are ordered largest first so that none is padded.
type Event struct {
	// Start is when the observed unit began (request arrival, call start), in
	// Unix nanoseconds UTC.
	Start int64
	// End is when it finished, or 0 when the log has only one timestamp.
	End int64
	// Line is 1-based within the file Source names.
	Line int64
	// RetryAfter is the server's retry-after, or NoRetryAfter.
	RetryAfter Millis

	// Source indexes Timeline.Sources.
	Source int32
	// Status is the HTTP status, 0 when unknown.
	Status int16
	// Attempt is the 1-based attempt number within its call.
	Attempt int16
	// MaxAttempts is the SDK's attempt limit when the wire says it
	// (amz-sdk-request max=M).
	MaxAttempts int16
	// QueueAttempt is the 1-based queue attempt number within its task.
	QueueAttempt int16
	// Attempts is, on a call event, how many attempts the SDK reported making.
	Attempts int16

	ErrorCode Sym
	Route     Sym
	// Client is the User-Agent or SDK name.
	Client    Sym
	TaskID    Sym
	CallID    Sym
	RequestID Sym

	Layer   Layer
	Outcome Outcome
	Class   Class
}

// Small is n as an Event's status or attempt field: those hold int16, so
// that an event takes 72 bytes, and no real status or attempt number comes
// near its bound; a larger one (a damaged log, a counter) is held at the
// bound rather than wrapped round into another number, and a negative one
// is unknown (0).
func Small[T ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64](n T) int16 {
	switch {
	case n < 0:
		return 0
	case uint64(n) > math.MaxInt16:
		return math.MaxInt16
	}
	return int16(n)
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
	// Reasons counts skipped lines by ReasonKey of their reason; they add
	// up to Skipped.
	Reasons map[string]int64 `json:"skip_reasons,omitempty"`
	// FoldedReasons is how many distinct reasons without a key of their
	// own in Reasons are counted under OtherReasons: exact up to
	// MaxFoldedReasons, a floor past it (FoldedReasonsAtLeast).
	FoldedReasons        int64 `json:"skip_reasons_folded,omitempty"`
	FoldedReasonsAtLeast bool  `json:"skip_reasons_folded_at_least,omitempty"`
	// folded are the hashes of the reasons under OtherReasons.
	folded map[uint64]struct{}
	// Duplicates counts events dropped because an earlier input (the same
	// file given twice, an overlapping rotated file) already held them;
	// Events counts only those kept.
	Duplicates int64 `json:"duplicates,omitempty"`
	// Shortened counts the events whose route, User-Agent or error code
	// was shortened, past MaxVerbatimLabels distinct values of its kind
	// (see Labels).
	Shortened ShortenedLabels `json:"shortened_labels,omitzero"`
	// Warnings are doubts about how the file was read (a format guessed
	// from lines it does not fully explain), each naming the option that
	// settles it.
	Warnings []string `json:"warnings,omitempty"`
}

// AddSkip counts a skipped line and keeps a bounded sample of them.
func (s *Source) AddSkip(line int64, reason string) {
	s.Skipped++
	if len(s.Samples) < MaxSkipSamples {
		s.Samples = append(s.Samples, Skip{Line: line, Reason: reason})
	}
	s.countReason(ReasonKey(reason), 1)
}

// AddReasons counts another Source's skip reasons into s, as when the
// pieces of one file read in parallel are put together; their Skipped is
// the caller's to add.
func (s *Source) AddReasons(o *Source) {
	// In order, so that which reasons overflow into OtherReasons does not
	// depend on map order, and OtherReasons last, taking no place of a
	// reason's own.
	keys := make([]string, 0, len(o.Reasons))
	for key := range o.Reasons {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(boolInt(a == OtherReasons), boolInt(b == OtherReasons)), cmp.Compare(a, b))
	})
	for _, key := range keys {
		s.countReason(key, o.Reasons[key])
	}
	for h := range o.folded {
		s.fold(h)
	}
	s.FoldedReasonsAtLeast = s.FoldedReasonsAtLeast || o.FoldedReasonsAtLeast
	// A reason another piece folded may have a key of its own here.
	for key := range s.Reasons {
		if _, ok := s.folded[labelHash([]byte(key))]; ok {
			delete(s.folded, labelHash([]byte(key)))
			s.FoldedReasons--
		}
	}
}

func (s *Source) countReason(key string, n int64) {
	// The last place is kept for OtherReasons.
	if _, ok := s.Reasons[key]; !ok && len(s.Reasons) >= MaxSkipReasons-1 && key != OtherReasons {
		s.fold(labelHash([]byte(key)))
		key = OtherReasons
	}
	if s.Reasons == nil {
		s.Reasons = map[string]int64{}
	}
	s.Reasons[key] += n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fold counts a reason, by its hash, among those under OtherReasons.
func (s *Source) fold(h uint64) {
	if _, ok := s.folded[h]; ok {
		return
	}
	if len(s.folded) >= MaxFoldedReasons {
		s.FoldedReasonsAtLeast = true
		return
	}
	if s.folded == nil {
		s.folded = map[uint64]struct{}{}
	}
	s.folded[h] = struct{}{}
	s.FoldedReasons++
}

// MaxSkipReasons bounds the distinct reasons counted per file, OtherReasons
// included, under which the rest are counted.
const MaxSkipReasons = 32

// MaxFoldedReasons bounds the distinct reasons under OtherReasons that a
// file tells apart to count them.
const MaxFoldedReasons = 4096

// OtherReasons is the reason skipped lines are counted under past
// MaxSkipReasons.
const OtherReasons = "other reasons"

// ReasonKey is a skip reason without the values it quotes, so that lines
// skipped for the same cause count together: `bad $status "99999"` and
// `bad $status "-1"` are both `bad $status …`.
func ReasonKey(reason string) string {
	if !strings.ContainsAny(reason, "0123456789\"'") {
		return reason
	}
	fields := strings.Fields(reason)
	out := fields[:0]
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if q := f[0]; q == '"' || q == '\'' {
			// A quoted value, possibly with spaces: up to its closing quote.
			if !closesQuote(f, q, 2) {
				for i++; i < len(fields)-1 && !closesQuote(fields[i], q, 1); i++ {
				}
				i = min(i, len(fields)-1)
			}
			out = append(out, "…"+trailingPunct(fields[i]))
			continue
		}
		if strings.ContainsAny(f, "0123456789") {
			out = append(out, "…"+trailingPunct(f))
			continue
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}

// closesQuote reports whether field, at least minLen long without its
// trailing punctuation, ends with the quote q.
func closesQuote(field string, q byte, minLen int) bool {
	f := strings.TrimRight(field, ":,;)")
	return len(f) >= minLen && f[len(f)-1] == q
}

func trailingPunct(field string) string {
	return field[len(strings.TrimRight(field, ":,;")):]
}

// Timeline is the merged, time-ordered record of an incident.
type Timeline struct {
	Events  []Event
	Sources []Source
}

// Sort orders events by Start, then by source position, so that output is
// deterministic whatever order the files were read in. While a spill is on,
// Sort may put the events in a new slice; t.Events is then that slice.
func (t *Timeline) Sort() { t.sort(false) }

// sort is Sort; owned says that nothing else holds t.Events, so that a
// slice the events leave can go back to the spill at once.
func (t *Timeline) sort(owned bool) {
	if sortedEvents(t.Events) {
		return
	}
	if positionsInOrder(t.Events) && uint64(len(t.Events)) <= maxShortKeys {
		keys := sortedShortKeys(t.Events)
		reorder(t, keys, owned)
		spill.Free(keys)
		return
	}
	keys := sortedKeys(t.Events)
	reorder(t, keys, owned)
	spill.Free(keys)
}

// reorder puts t's events in the order keys give. In memory it permutes in
// place, which needs no second slice. In the spill it gathers into a new
// slice instead: following the permutation's cycles jumps across the whole
// slice, and once the slice is larger than the resident budget every jump
// faults a page back in; gathering reads each input file's events as a
// nearly sequential stream and writes the new slice in order.
func reorder[K any, PK interface {
	*K
	slot() (index uint32, done *bool)
}](t *Timeline, keys []K, owned bool) {
	if _, spilling := spill.Current(); !spilling {
		permute[K, PK](t.Events, keys)
		return
	}
	gathered := spill.Make[Event](len(t.Events), len(t.Events))
	for i := range keys {
		k, _ := PK(&keys[i]).slot()
		gathered[i] = t.Events[k]
	}
	if owned {
		spill.Free(t.Events)
	}
	t.Events = gathered
}

// positionsInOrder reports whether source and line never decrease along
// the slice, as in one file read in order or files appended one after
// another. Then an event's index orders ties on start exactly as its
// position does, and the sort needs only start and index.
func positionsInOrder(events []Event) bool {
	for i := 1; i < len(events); i++ {
		a, b := &events[i-1], &events[i]
		if b.Source < a.Source || (b.Source == a.Source && b.Line < a.Line) {
			return false
		}
	}
	return true
}

// shortKey is sortKey for events whose positions are in order: 16 bytes
// instead of 24, a third less memory and a cheaper comparison.
type shortKey struct {
	start int64
	index uint32
	// done marks the slot filled while permuting.
	done bool
}

const maxShortKeys = 1<<32 - 1

func sortedShortKeys(events []Event) []shortKey {
	keys := spill.Make[shortKey](len(events), len(events))
	for i := range events {
		keys[i] = shortKey{start: events[i].Start, index: uint32(i)}
	}
	sortParallel(keys, func(a, b shortKey) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.index, b.index)
	})
	return keys
}

// permute moves events into the order keys give, in place: following each
// cycle of the permutation moves every event once and needs no second
// slice of events, which for millions of events is most of the memory.
func permute[K any, PK interface {
	*K
	slot() (index uint32, done *bool)
}](events []Event, keys []K) {
	for i := range keys {
		k, done := PK(&keys[i]).slot()
		if *done {
			continue
		}
		*done = true
		if int(k) == i {
			continue
		}
		tmp := events[i]
		j := i
		for {
			next, nextDone := PK(&keys[j]).slot()
			*nextDone = true
			if int(next) == i {
				events[j] = tmp
				break
			}
			events[j] = events[next]
			j = int(next)
		}
	}
}

func (k *sortKey) slot() (uint32, *bool)  { return k.index, &k.done }
func (k *shortKey) slot() (uint32, *bool) { return k.index, &k.done }

// sortedEvents reports whether events are already in Sort's order, which
// logs written as requests finish nearly are.
func sortedEvents(events []Event) bool {
	for i := 1; i < len(events); i++ {
		if eventLess(&events[i], &events[i-1]) {
			return false
		}
	}
	return true
}

func eventLess(a, b *Event) bool {
	switch {
	case a.Start != b.Start:
		return a.Start < b.Start
	case a.Source != b.Source:
		return a.Source < b.Source
	}
	return a.Line < b.Line
}

// sortKey is what Sort compares, packed so that the sort moves 24 bytes
// per event instead of the event, and reads no event while sorting.
type sortKey struct {
	start int64
	// pos is the source in the top bits and the line below, when both fit.
	pos   uint64
	index uint32
	// done marks the slot filled while permuting.
	done bool
}

// Lines and sources that fit a packed position; beyond them the sort
// falls back to comparing the events themselves.
const (
	posLineBits = 44
	maxPosLine  = 1<<posLineBits - 1
	maxPosSrc   = 1<<(64-posLineBits) - 1
)

// Part is a run of events to merge into a timeline: a file's, or a piece
// of a file parsed on its own. SourceBase is added to each event's Source
// and LineBase to its Line, which makes a piece's lines its file's.
type Part struct {
	Events     []Event
	SourceBase int32
	LineBase   int64
}

// sortedKeys returns where each event goes in Sort's order. Ties on start,
// source and line (several attempts from one line) keep index order, as a
// stable sort would.
func sortedKeys(events []Event) []sortKey {
	keys := spill.Make[sortKey](len(events), len(events))
	packed := true
	for i := range events {
		e := &events[i]
		src, line := int64(e.Source), e.Line
		if line < 0 || line > maxPosLine || src < 0 || src > maxPosSrc {
			packed = false
		}
		keys[i] = sortKey{start: e.Start, pos: uint64(src)<<posLineBits | uint64(line)&maxPosLine, index: uint32(i)}
	}
	if packed {
		sortParallel(keys, func(a, b sortKey) int {
			if c := cmp.Compare(a.start, b.start); c != 0 {
				return c
			}
			if c := cmp.Compare(a.pos, b.pos); c != 0 {
				return c
			}
			return cmp.Compare(a.index, b.index)
		})
	} else {
		slices.SortStableFunc(keys, func(a, b sortKey) int {
			ea, eb := &events[a.index], &events[b.index]
			if c := cmp.Compare(ea.Start, eb.Start); c != 0 {
				return c
			}
			if c := cmp.Compare(ea.Source, eb.Source); c != 0 {
				return c
			}
			return cmp.Compare(ea.Line, eb.Line)
		})
	}
	return keys
}

// Merge builds one timeline from sources and the parts holding their
// events, sorted as Sort sorts. Merge takes the parts' event slices: it
// clears each Part's Events once copied, and the caller must hold no other
// reference to them, so that each part's memory is given back while the
// next is copied and a merge of many files peaks near the size of their
// events once, not twice.
func Merge(sources []Source, parts []Part) *Timeline {
	t := &Timeline{Sources: sources}
	if len(parts) == 1 && parts[0].SourceBase == 0 && parts[0].LineBase == 0 {
		t.Events = parts[0].Events
		parts[0].Events = nil
		t.sort(true)
		return t
	}
	n := 0
	for i := range parts {
		n += len(parts[i].Events)
	}
	// Concatenated in part order, ties on start keep part and index
	// order, as a stable sort would; Sort then orders the one slice in
	// place.
	t.Events = spill.Make[Event](0, n)
	released := 0
	for c := range parts {
		p := &parts[c]
		k := len(t.Events)
		t.Events = append(t.Events, p.Events...)
		if p.SourceBase != 0 || p.LineBase != 0 {
			for i := k; i < len(t.Events); i++ {
				t.Events[i].Source += p.SourceBase
				t.Events[i].Line += p.LineBase
			}
		}
		// A part in the spill file is handed back at once; one on the
		// heap waits for a collection.
		if !spill.Free(p.Events) {
			released += len(p.Events)
		}
		p.Events = nil
		// Events hold no pointers, so a collection costs little; without
		// one here the copied parts would stay resident beside the
		// merged slice until the heap doubled.
		if released*int(unsafe.Sizeof(Event{})) >= releaseBytes && c < len(parts)-1 {
			debug.FreeOSMemory()
			released = 0
		}
	}
	t.sort(true)
	return t
}

// releaseBytes is how much copied event memory Merge lets pile up before
// handing it back to the operating system.
const releaseBytes = 64 << 20

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
