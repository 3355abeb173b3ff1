package simulate

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Kind is the traffic class of a call or attempt.
type Kind uint8

// The two traffic classes sharing the bucket.
const (
	Batch Kind = iota
	Interactive
)

func (k Kind) String() string {
	if k == Batch {
		return "batch"
	}
	return "interactive"
}

// Attempt is one HTTP request on the wire, as the endpoint saw it. Times are
// offsets from Scenario.Start.
type Attempt struct {
	Arrived time.Duration
	// Logged is when the response was sent, which is when nginx writes the line.
	Logged time.Duration
	Kind   Kind
	// Task is the task index (0-based), -1 for interactive calls.
	Task         int
	QueueAttempt int
	// Seq is the interactive call's sequence number (Call.Seq); 0 for batch.
	Seq int
	// Retry is the SDK's retry count: attempt number - 1 within the call.
	Retry  int
	Status int
	// RetryAfter is the retry-after header sent with a 429, -1 when absent.
	RetryAfter int
}

// Call is one SDK invocation, from its first attempt to its outcome.
type Call struct {
	Kind  Kind
	Task  int // -1 for interactive
	Seq   int // interactive sequence number, from 1; 0 for batch
	Start time.Duration
	End   time.Duration
	// QueueAttempt is the job runner's attempt number, from 1; 0 for interactive.
	QueueAttempt int
	OK           bool
	Status       int
	Attempts     int
	RetryAfter   int // last retry-after seen, -1 if none
	// Next is the runner's decision after a batch call: "done", "requeue",
	// "abandon" or "end" (the simulation stopped first); "" for interactive.
	Next         string
	RequeueDelay time.Duration
}

// Output is one simulated incident: every attempt in log order (response
// time), every call in order of its end, and the figures counted while
// running.
type Output struct {
	Scenario Scenario
	Attempts []Attempt
	Calls    []Call
	Truth    Truth
	// events is how many events the run processed, for benchmarks.
	events int
}

// maxSimulated bounds a scenario with no end_s whose backlog never resolves.
const maxSimulated = 24 * time.Hour

type eventKind uint8

const (
	evInteractiveArrival eventKind = iota
	evQueueAttempt
	evAttemptArrival
	evAttemptResponse
)

type event struct {
	at   time.Duration
	seq  uint64 // insertion order breaks ties, so runs are reproducible
	kind eventKind
	id   int32
}

type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// bucket is a token bucket in micro-tokens so that admission decisions are
// integer comparisons, identical on every platform.
type bucket struct {
	tokens, capacity int64
	refillPerNs      float64 // micro-tokens per nanosecond
	last             time.Duration
	min              int64
}

func (b *bucket) advance(t time.Duration) {
	if t > b.last {
		// One multiplication, so no fused multiply-add can change the result.
		add := int64(float64(t-b.last) * b.refillPerNs)
		b.tokens = min(b.capacity, b.tokens+add)
		b.last = t
	}
}

func microTokens(v float64) int64 { return int64(math.Round(v * 1e6)) }

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

type callState struct {
	kind         Kind
	task         int32
	queueAttempt int32
	seq          int32
	attempts     int32
	status       int32
	retryAfter   int32
	start        time.Duration
	arrived      time.Duration
	policy       *SDKPolicy
}

// Independent random streams: changing one traffic parameter leaves the
// draws of the other components where they were.
const (
	streamSubmit = iota + 1
	streamInteractive
	streamLatency
	streamSDK
	streamRunner
)

type simulation struct {
	sc      Scenario
	queue   eventQueue
	seq     uint64
	bucket  bucket
	calls   []callState
	out     *Output
	rngs    [streamRunner + 1]*rand.Rand
	costs   [2]int64
	reject  int64
	stopAt  time.Duration // no new call starts after this
	iEnd    time.Duration // interactive arrivals stop after this
	iPolicy *SDKPolicy

	taskQueueAttempts []int32
	resolved          int
	resolvedAt        time.Duration
	count             counters
}

// counters are the figures the simulator counts as it goes; truth.json is
// built from them, never from the written logs.
type counters struct {
	attempts, throttled  [2]int64
	calls, failed        [2]int64
	attemptsPerCall      [2]map[int]int64
	succeeded, abandoned int64
	abandonedByCap       int64
	pendingAtEnd         int64
	waves                []Wave
	firstAttempt         time.Duration
	lastAttempt          time.Duration
	interactiveSeq       int32
}

// Run simulates a scenario. The same scenario always gives the same Output.
func Run(sc Scenario) (*Output, error) {
	if err := sc.Validate(); err != nil {
		return nil, fmt.Errorf("simulate %s: %w", sc.Name, err)
	}
	s := &simulation{sc: sc, out: &Output{Scenario: sc}}
	for i := range s.rngs {
		s.rngs[i] = rand.New(rand.NewPCG(sc.Seed, uint64(i)))
	}
	s.bucket = bucket{
		capacity:    microTokens(sc.Bucket.Capacity),
		tokens:      microTokens(sc.Bucket.Capacity),
		refillPerNs: sc.Bucket.RefillPerS / 1000,
	}
	s.bucket.min = s.bucket.tokens
	s.costs[Batch] = microTokens(sc.Batch.Cost)
	s.costs[Interactive] = microTokens(sc.Interactive.Cost)
	s.reject = microTokens(sc.Bucket.RejectCost)
	s.iPolicy = &s.sc.SDK
	if sc.InteractiveSDK != nil {
		s.iPolicy = s.sc.InteractiveSDK
	}
	s.stopAt = maxSimulated
	if sc.EndS > 0 {
		s.stopAt = seconds(sc.EndS)
	}
	s.iEnd = s.stopAt
	if sc.Interactive.EndS > 0 {
		s.iEnd = min(s.iEnd, seconds(sc.Interactive.EndS))
	}
	s.count.attemptsPerCall = [2]map[int]int64{{}, {}}
	s.count.firstAttempt = -1
	s.resolvedAt = -1

	s.taskQueueAttempts = make([]int32, sc.Batch.Tasks)
	submit := seconds(sc.Batch.SubmitS)
	window := sc.Batch.SubmitWindowS
	for i := range sc.Batch.Tasks {
		at := submit + seconds(window*s.rngs[streamSubmit].Float64())
		s.push(at, evQueueAttempt, int32(i))
	}
	if sc.Batch.Tasks == 0 {
		s.resolve(submit)
	}
	if sc.Interactive.RatePerS > 0 {
		s.push(s.interactiveArrival(0, 0), evInteractiveArrival, 0)
	}

	for s.queue.Len() > 0 {
		ev := heap.Pop(&s.queue).(event)
		s.out.events++
		switch ev.kind {
		case evInteractiveArrival:
			s.onInteractiveArrival(ev)
		case evQueueAttempt:
			s.onQueueAttempt(ev)
		case evAttemptArrival:
			s.onAttemptArrival(ev.at, &s.calls[ev.id], ev.id)
		case evAttemptResponse:
			s.onAttemptResponse(ev.at, &s.calls[ev.id], ev.id)
		}
	}
	if s.resolvedAt < 0 && sc.EndS == 0 {
		return nil, fmt.Errorf("simulate %s: backlog still unresolved after %v of simulated time; set end_s", sc.Name, maxSimulated)
	}
	s.out.Truth = s.truth()
	return s.out, nil
}

func (s *simulation) push(at time.Duration, kind eventKind, id int32) {
	s.seq++
	heap.Push(&s.queue, event{at: at, seq: s.seq, kind: kind, id: id})
}

// interactiveArrival is the time of interactive call i (0-based), given the
// previous arrival prev.
func (s *simulation) interactiveArrival(i int, prev time.Duration) time.Duration {
	it := s.sc.Interactive
	rng := s.rngs[streamInteractive]
	if it.Arrivals == ArrivalsPoisson {
		if i == 0 {
			prev = seconds(it.StartS)
		}
		return prev + seconds(rng.ExpFloat64()/it.RatePerS)
	}
	at := seconds(it.StartS + float64(i)/it.RatePerS)
	if it.JitterMs > 0 {
		at += seconds((2*rng.Float64() - 1) * it.JitterMs / 1000)
	}
	return max(at, prev, 0)
}

func (s *simulation) onInteractiveArrival(ev event) {
	if ev.at > s.iEnd || ev.at > s.stopAt || (s.resolvedAt >= 0 && ev.at > s.resolvedAt+seconds(s.sc.TailS)) {
		return
	}
	s.count.interactiveSeq++
	s.startCall(ev.at, Interactive, -1, 0, s.count.interactiveSeq, s.iPolicy)
	s.push(s.interactiveArrival(int(ev.id)+1, ev.at), evInteractiveArrival, ev.id+1)
}

func (s *simulation) onQueueAttempt(ev event) {
	task := ev.id
	if ev.at > s.stopAt {
		s.count.pendingAtEnd++
		return
	}
	s.taskQueueAttempts[task]++
	qa := s.taskQueueAttempts[task]
	w := s.wave(int(qa))
	if w.Calls == 0 {
		w.firstStart = ev.at
	}
	w.Calls++
	w.lastStart = ev.at
	s.startCall(ev.at, Batch, task, qa, 0, &s.sc.SDK)
}

func (s *simulation) wave(queueAttempt int) *Wave {
	for len(s.count.waves) < queueAttempt {
		s.count.waves = append(s.count.waves, Wave{QueueAttempt: len(s.count.waves) + 1})
	}
	return &s.count.waves[queueAttempt-1]
}

func (s *simulation) startCall(at time.Duration, kind Kind, task, qa, seq int32, policy *SDKPolicy) {
	s.calls = append(s.calls, callState{
		kind: kind, task: task, queueAttempt: qa, seq: seq, start: at,
		retryAfter: -1, policy: policy,
	})
	id := int32(len(s.calls) - 1)
	s.onAttemptArrival(at, &s.calls[id], id)
}

func (s *simulation) onAttemptArrival(at time.Duration, c *callState, id int32) {
	s.bucket.advance(at)
	c.attempts++
	c.arrived = at
	lat := s.sc.Latency
	var latency time.Duration
	if cost := s.costs[c.kind]; s.bucket.tokens >= cost {
		s.bucket.tokens -= cost
		c.status = 200
		jitter := (2*s.rngs[streamLatency].Float64() - 1) * lat.OKJitterMs
		latency = seconds((lat.OKMs + jitter) / 1000)
	} else {
		s.bucket.tokens -= min(s.reject, s.bucket.tokens)
		c.status = 429
		latency = seconds(lat.RejectMs / 1000)
		s.count.throttled[c.kind]++
	}
	s.bucket.min = min(s.bucket.min, s.bucket.tokens)
	s.count.attempts[c.kind]++
	if s.count.firstAttempt < 0 {
		s.count.firstAttempt = at
	}
	if c.kind == Batch {
		w := s.wave(int(c.queueAttempt))
		w.HTTPAttempts++
		if c.status == 429 {
			w.Status429++
		}
	}
	s.push(at+latency, evAttemptResponse, id)
}

func (s *simulation) onAttemptResponse(at time.Duration, c *callState, id int32) {
	a := Attempt{
		Arrived: c.arrived, Logged: at, Kind: c.kind, Task: int(c.task),
		QueueAttempt: int(c.queueAttempt), Seq: int(c.seq), Retry: int(c.attempts - 1),
		Status: int(c.status), RetryAfter: -1,
	}
	if c.status == 429 {
		a.RetryAfter = c.policy.RetryAfterS
		c.retryAfter = int32(c.policy.RetryAfterS)
	}
	s.out.Attempts = append(s.out.Attempts, a)
	s.count.lastAttempt = at
	switch {
	case c.status == 200:
		s.endCall(at, c, true)
	case int(c.attempts) < c.policy.MaxAttempts:
		s.push(at+s.sdkWait(c), evAttemptArrival, id)
	default:
		s.endCall(at, c, false)
	}
}

// sdkWait is the SDK's sleep after a 429, counted from its arrival.
func (s *simulation) sdkWait(c *callState) time.Duration {
	p := c.policy
	rng := s.rngs[streamSDK]
	ra := float64(p.RetryAfterS)
	switch p.RetryAfterMode {
	case RetryAfterJitter:
		return seconds(ra + ra*rng.Float64())
	case RetryAfterIgnore:
		return seconds(backoffCeiling(p, int(c.attempts)-1) * rng.Float64())
	}
	return seconds(ra)
}

// backoffCeiling is min(cap, base·2^retry), the upper end of the full-jitter
// draw for retry number retry (0 for the first retry).
func backoffCeiling(p *SDKPolicy, retry int) float64 {
	return math.Min(p.BackoffCapS, math.Ldexp(p.BackoffBaseS, min(retry, 62)))
}

func (s *simulation) endCall(at time.Duration, c *callState, ok bool) {
	call := Call{
		Kind: c.kind, Task: int(c.task), Seq: int(c.seq), Start: c.start, End: at,
		QueueAttempt: int(c.queueAttempt), OK: ok, Status: int(c.status),
		Attempts: int(c.attempts), RetryAfter: int(c.retryAfter),
	}
	s.count.calls[c.kind]++
	s.count.attemptsPerCall[c.kind][int(c.attempts)]++
	if !ok {
		s.count.failed[c.kind]++
	}
	if c.kind == Batch {
		w := s.wave(int(c.queueAttempt))
		switch {
		case ok:
			call.Next = "done"
			w.Succeeded++
			s.count.succeeded++
			s.resolve(at)
		default:
			w.Failed++
			call.Next, call.RequeueDelay = s.runnerDecision(at, c)
			switch call.Next {
			case "requeue":
				w.Requeued++
				s.push(at+call.RequeueDelay, evQueueAttempt, c.task)
			case "abandon":
				w.Abandoned++
				s.count.abandoned++
				s.resolve(at)
			}
		}
	}
	s.out.Calls = append(s.out.Calls, call)
}

// runnerDecision is the job runner's choice after a failed call.
func (s *simulation) runnerDecision(at time.Duration, c *callState) (string, time.Duration) {
	r := s.sc.Runner
	if r.MaxQueueAttempts > 0 && int(c.queueAttempt) >= r.MaxQueueAttempts {
		s.count.abandonedByCap++
		return "abandon", 0
	}
	rng := s.rngs[streamRunner]
	if rng.Float64() >= r.Survival {
		return "abandon", 0
	}
	delay := r.RequeueDelayS
	switch r.RequeueJitter {
	case JitterFull:
		delay *= rng.Float64()
	case JitterEqual:
		delay = delay/2 + delay/2*rng.Float64()
	}
	d := seconds(delay)
	if at+d > s.stopAt {
		// The requeue timer outlives the simulation: the task stays pending.
		s.count.pendingAtEnd++
		return "end", d
	}
	return "requeue", d
}

// resolve counts one task as finished; the last one starts the tail.
func (s *simulation) resolve(at time.Duration) {
	if s.sc.Batch.Tasks > 0 {
		s.resolved++
		if s.resolved < s.sc.Batch.Tasks {
			return
		}
	}
	s.resolvedAt = at
}
