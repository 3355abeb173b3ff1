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
	// "abandon" or "end" (the simulation stopped first), or "retry" when an
	// application retry layer (Scenario.Layers) calls the SDK again; "" for
	// interactive.
	Next         string
	RequeueDelay time.Duration
	// Try numbers the SDK calls of one queue attempt from 1; above 1 only
	// when Scenario.Layers retried the call.
	Try int
}

// Output is one simulated incident: every attempt in log order (response
// time), every call in order of its end, and the figures counted while
// running.
type Output struct {
	Scenario Scenario
	Attempts []Attempt
	Calls    []Call
	Truth    Truth
	// Stats are figures counted while running that truth.json leaves out.
	Stats Stats
	// events is how many events the run processed, for benchmarks.
	events int
}

// Stats are what the what-if comparison needs beyond Truth: how long the
// bucket could not serve an interactive request, and how far the retry
// layers went for one task.
type Stats struct {
	// BucketEmpty is the time the token bucket held less than one
	// interactive request's cost (one batch task's when there is no
	// interactive traffic), or the request bucket less than one request.
	BucketEmpty time.Duration
	// MaxAttemptsPerTask is the most HTTP attempts any task made.
	MaxAttemptsPerTask int
	// MaxInFlight is the most batch queue attempts in flight at once.
	MaxInFlight int
	// BudgetDenied counts retries the retry budget refused.
	BudgetDenied int64
}

// maxSimulated bounds a scenario with no end_s whose backlog never resolves.
const maxSimulated = 24 * time.Hour

type eventKind uint8

const (
	evInteractiveArrival eventKind = iota
	evQueueAttempt
	evAttemptArrival
	evAttemptResponse
	evLayerRetry
	evAttemptHandled
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
	// floor is how low rejection charges may take tokens: 0, or minus the
	// debt a limiter keeps.
	floor int64
	// empty accumulates the time tokens sat below emptyBelow.
	emptyBelow int64
	empty      time.Duration
}

func (b *bucket) advance(t time.Duration) {
	if t > b.last {
		if b.tokens < b.emptyBelow {
			need := float64(b.emptyBelow-b.tokens) / b.refillPerNs
			b.empty += time.Duration(min(need, float64(t-b.last)))
		}
		// One multiplication, so no fused multiply-add can change the result.
		add := int64(float64(t-b.last) * b.refillPerNs)
		b.tokens = min(b.capacity, b.tokens+add)
		b.last = t
	}
}

// charge takes a rejection's charge, never below the floor.
func (b *bucket) charge(v int64) {
	// Compared as a difference so that no charge can overflow past the floor.
	if v < 0 || v >= b.tokens-b.floor {
		b.tokens = min(b.tokens, b.floor)
		return
	}
	b.tokens -= v
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
	// lastSleep is the previous backoff, for decorrelated jitter.
	lastSleep time.Duration
	// tries indexes Simulation.tries: the attempt counts of each of
	// Scenario.Layers for this queue attempt; -1 without layers.
	tries int32
	try   int32
	id    int32
	// spent is what the call's retries took from an AWS-style retry quota.
	spent float64
}

// Independent random streams: changing one traffic parameter leaves the
// draws of the other components where they were.
const (
	streamSubmit = iota + 1
	streamInteractive
	streamLatency
	streamSDK
	streamRunner
	streamLayers
)

type simulation struct {
	sc      Scenario
	queue   eventQueue
	seq     uint64
	bucket  bucket
	calls   []callState
	out     *Output
	rngs    [streamLayers + 1]*rand.Rand
	costs   [2]int64
	reject  [2]int64
	stopAt  time.Duration // no new call starts after this
	iEnd    time.Duration // interactive arrivals stop after this
	iPolicy *SDKPolicy

	taskQueueAttempts []int32
	resolved          int
	resolvedAt        time.Duration
	count             counters

	// The optional parts, all nil or empty unless the scenario asks.
	requests *bucket
	chargeRq bool
	limit    *limiter
	tries    [][]int32
	budgets  map[*SDKPolicy]*float64
	taskHTTP []int32
	// handleFree is when the batch client is done handling the responses
	// it has received (Batch.HandleMs).
	handleFree time.Duration
	// firstWave is how long after its start a call of the submitted burst,
	// which ends at burstEnd, acts on its first answer (Batch.FirstWaveMs).
	firstWave, burstEnd time.Duration
}

// limiter is the batch's concurrency limit; waiting holds the tasks whose
// queue attempt is due but has no slot, in order.
type limiter struct {
	cfg          Concurrency
	limit        float64
	inFlight     int
	waiting      []int32
	lastDecrease time.Duration
}

func (l *limiter) free() bool { return l.inFlight < max(1, int(l.limit)) }

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
	for k := range s.reject {
		s.reject[k] = microTokens(sc.Bucket.RejectCost) + microTokens(sc.Bucket.RejectFraction*[2]float64{sc.Batch.Cost, sc.Interactive.Cost}[k])
	}
	s.bucket.floor = -microTokens(sc.Bucket.DebtFloor)
	s.bucket.emptyBelow = s.costs[Batch]
	if sc.Interactive.RatePerS > 0 {
		s.bucket.emptyBelow = s.costs[Interactive]
	}
	if r := sc.Requests; r != nil {
		s.requests = &bucket{capacity: microTokens(r.Capacity), tokens: microTokens(r.Capacity),
			refillPerNs: r.RefillPerS / 1000, emptyBelow: microTokens(1)}
		s.chargeRq = r.ChargeRejected
	}
	if c := sc.Batch.Concurrency; c != nil {
		s.limit = &limiter{cfg: *c, limit: c.Limit, lastDecrease: -time.Hour}
	}
	s.budgets = map[*SDKPolicy]*float64{}
	s.taskHTTP = make([]int32, sc.Batch.Tasks)
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
	s.burstEnd = submit + seconds(window)
	if f := sc.Batch.FirstWaveMs; f > 0 && sc.Batch.Tasks > 0 {
		// The first wave is slow by the connections its burst opens at
		// once: a concurrency limit opens only as many as it lets in.
		burst := 1.0
		if c := sc.Batch.Concurrency; c != nil {
			burst = math.Min(1, c.Limit/float64(sc.Batch.Tasks))
		}
		s.firstWave = seconds(f * burst / 1000)
	}
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
		case evLayerRetry:
			s.onLayerRetry(ev.at, ev.id)
		case evAttemptHandled:
			s.onAttemptHandled(ev.at, &s.calls[ev.id], ev.id)
		}
	}
	s.out.Stats.BucketEmpty = s.bucket.empty
	if s.requests != nil {
		s.out.Stats.BucketEmpty = max(s.bucket.empty, s.requests.empty)
	}
	for _, n := range s.taskHTTP {
		s.out.Stats.MaxAttemptsPerTask = max(s.out.Stats.MaxAttemptsPerTask, int(n))
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
	at := ev.at
	if at > s.iEnd || ev.at > s.stopAt || (s.resolvedAt >= 0 && ev.at > s.resolvedAt+seconds(s.sc.TailS)) {
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
	if l := s.limit; l != nil {
		if !l.free() {
			l.waiting = append(l.waiting, task)
			return
		}
		l.inFlight++
		s.out.Stats.MaxInFlight = max(s.out.Stats.MaxInFlight, l.inFlight)
	}
	s.startQueueAttempt(ev.at, task)
}

// release frees a finished queue attempt's slot and starts waiting ones.
func (s *simulation) release(at time.Duration) {
	l := s.limit
	if l == nil {
		return
	}
	l.inFlight--
	for len(l.waiting) > 0 && l.free() {
		task := l.waiting[0]
		l.waiting = l.waiting[1:]
		if at > s.stopAt {
			s.count.pendingAtEnd++
			continue
		}
		l.inFlight++
		s.out.Stats.MaxInFlight = max(s.out.Stats.MaxInFlight, l.inFlight)
		s.startQueueAttempt(at, task)
	}
}

// adapt is the AIMD step of an adaptive limiter after a batch response.
func (s *simulation) adapt(at time.Duration, throttled bool) {
	l := s.limit
	if l == nil || l.cfg.Mode != ConcurrencyAdaptive {
		return
	}
	if throttled {
		// One decrease per second: a burst of 429s is one congestion signal.
		if at-l.lastDecrease >= time.Second {
			l.limit = max(l.cfg.Min, l.limit*l.cfg.Decrease)
			l.lastDecrease = at
		}
		return
	}
	l.limit = min(l.cfg.Max, l.limit+1/l.limit)
}

func (s *simulation) startQueueAttempt(at time.Duration, task int32) {
	s.taskQueueAttempts[task]++
	qa := s.taskQueueAttempts[task]
	w := s.wave(int(qa))
	if w.Calls == 0 {
		w.firstStart = at
	}
	w.Calls++
	w.lastStart = at
	s.startCall(at, Batch, task, qa, 0, &s.sc.SDK)
	if len(s.sc.Layers) > 0 {
		t := make([]int32, len(s.sc.Layers))
		for i := range t {
			t[i] = 1
		}
		s.tries = append(s.tries, t)
		c := &s.calls[len(s.calls)-1]
		c.tries, c.try = int32(len(s.tries)-1), 1
	}
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
		retryAfter: -1, policy: policy, tries: -1, id: int32(len(s.calls)),
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
	if s.requests != nil {
		s.requests.advance(at)
	}
	if cost := s.costs[c.kind]; s.bucket.tokens >= cost && (s.requests == nil || s.requests.tokens >= 1e6) {
		s.bucket.tokens -= cost
		if s.requests != nil {
			s.requests.tokens -= 1e6
		}
		c.status = 200
		jitter := (2*s.rngs[streamLatency].Float64() - 1) * lat.OKJitterMs
		latency = seconds((lat.OKMs + jitter) / 1000)
	} else {
		s.bucket.charge(s.reject[c.kind])
		if s.requests != nil && s.chargeRq {
			s.requests.charge(1e6)
		}
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
		s.taskHTTP[c.task]++
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
	if c.kind == Batch {
		s.adapt(at, c.status == 429)
		handled := at
		if c.queueAttempt == 1 && c.attempts == 1 && c.start <= s.burstEnd {
			handled = max(at, c.start+s.firstWave)
		}
		if h := s.sc.Batch.HandleMs; h > 0 {
			s.handleFree = max(handled, s.handleFree) + seconds(h/1000)
			s.push(s.handleFree, evAttemptHandled, id)
			return
		}
		if handled > at {
			s.push(handled, evAttemptHandled, id)
			return
		}
	}
	s.onAttemptHandled(at, c, id)
}

// onAttemptHandled is the client's answer to a response it has handled:
// the call ends, or sleeps before its next attempt.
func (s *simulation) onAttemptHandled(at time.Duration, c *callState, id int32) {
	switch {
	case c.status == 200:
		s.spendBudget(c, false)
		s.endCall(at, c, true)
	case int(c.attempts) < c.policy.MaxAttempts && s.spendBudget(c, true):
		s.push(at+s.sdkWait(c), evAttemptArrival, id)
	default:
		s.endCall(at, c, false)
	}
}

// spendBudget updates the call's policy's retry budget after an attempt
// and says whether a throttled attempt may be retried. Without a budget
// every retry is allowed.
func (s *simulation) spendBudget(c *callState, throttled bool) bool {
	p := c.policy
	b := p.Budget
	if b == nil {
		return true
	}
	tokens := s.budgets[p]
	if tokens == nil {
		tokens = new(float64)
		*tokens = b.MaxTokens
		s.budgets[p] = tokens
	}
	if b.RetryCost > 0 {
		// The AWS retry quota: retries pay up front, and a success repays
		// what its last retry paid (botocore's retries/standard.py and the
		// JavaScript v3 StandardRetryStrategy keep only that), or a token.
		switch {
		case !throttled && c.spent > 0:
			*tokens = min(b.MaxTokens, *tokens+b.RetryCost)
		case !throttled:
			*tokens = min(b.MaxTokens, *tokens+b.TokenRatio)
		case *tokens >= b.RetryCost:
			*tokens -= b.RetryCost
			c.spent += b.RetryCost
		default:
			s.out.Stats.BudgetDenied++
			return false
		}
		return true
	}
	if !throttled {
		*tokens = min(b.MaxTokens, *tokens+b.TokenRatio)
		return true
	}
	*tokens = max(0, *tokens-1)
	if *tokens > b.MaxTokens/2 {
		return true
	}
	s.out.Stats.BudgetDenied++
	return false
}

// sdkWait is the SDK's sleep after a 429, counted from its arrival.
func (s *simulation) sdkWait(c *callState) time.Duration {
	p := c.policy
	rng := s.rngs[streamSDK]
	ra := p.RetryAfterWait()
	switch p.RetryAfterMode {
	case RetryAfterJitter:
		return seconds(ra + ra*rng.Float64())
	case RetryAfterIgnore:
		if p.Backoff == "" || p.Backoff == BackoffFull {
			return seconds(backoffCeiling(p, int(c.attempts)-1) * rng.Float64())
		}
		c.lastSleep = backoff(p.Backoff, p.BackoffBaseS, p.BackoffCapS, int(c.attempts)-1, c.lastSleep, rng)
		return c.lastSleep
	}
	return seconds(ra)
}

// backoff is the wait before retry number retry (0 for the first) on one
// of the backoff curves; prev is the previous wait, for decorrelated jitter.
func backoff(curve string, base, ceiling float64, retry int, prev time.Duration, rng *rand.Rand) time.Duration {
	top := math.Min(ceiling, math.Ldexp(base, min(retry, 62)))
	switch curve {
	case BackoffNone:
		return seconds(base)
	case BackoffExponential:
		return seconds(top)
	case BackoffEqual:
		return seconds(top/2 + top/2*rng.Float64())
	case BackoffQuarter:
		return seconds(top * (1 - 0.25*rng.Float64()))
	case BackoffDecorrelated:
		// min(cap, U(base, 3·previous)), as in the AWS write-up.
		p := math.Max(base, prev.Seconds())
		return seconds(math.Min(ceiling, base+(3*p-base)*rng.Float64()))
	}
	return seconds(top * rng.Float64())
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
		Attempts: int(c.attempts), RetryAfter: int(c.retryAfter), Try: max(1, int(c.try)),
	}
	s.count.calls[c.kind]++
	s.count.attemptsPerCall[c.kind][int(c.attempts)]++
	if !ok {
		s.count.failed[c.kind]++
	}
	if c.kind == Batch && !ok && s.layerRetry(at, c, &call) {
		s.out.Calls = append(s.out.Calls, call)
		return
	}
	if c.kind == Batch {
		// Starting a waiting queue attempt appends to s.calls, which may
		// move c: the slot is released once c is no longer read.
		defer s.release(at)
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

// layerRetry lets the innermost application retry layer with tries left
// start the SDK call again; false when every layer is spent (or there are
// none) and the queue attempt has failed.
func (s *simulation) layerRetry(at time.Duration, c *callState, call *Call) bool {
	if c.tries < 0 {
		return false
	}
	tries := s.tries[c.tries]
	for i := len(tries) - 1; i >= 0; i-- {
		l := &s.sc.Layers[i]
		if int(tries[i]) >= l.MaxAttempts {
			continue
		}
		retry := int(tries[i]) - 1
		tries[i]++
		for j := i + 1; j < len(tries); j++ {
			tries[j] = 1
		}
		d := backoff(l.Backoff, l.BackoffBaseS, l.BackoffCapS, retry, c.lastSleep, s.rngs[streamLayers])
		call.Next = "retry"
		// The next SDK call is created when the wait ends; its id is this
		// call's, to copy the task and the layer counts from.
		c.lastSleep = d
		s.push(at+d, evLayerRetry, c.id)
		return true
	}
	return false
}

func (s *simulation) onLayerRetry(at time.Duration, id int32) {
	prev := s.calls[id]
	s.startCallAfter(at, prev)
}

// startCallAfter starts the next SDK call of a queue attempt whose previous
// call a retry layer is retrying.
func (s *simulation) startCallAfter(at time.Duration, prev callState) {
	s.calls = append(s.calls, callState{
		kind: prev.kind, task: prev.task, queueAttempt: prev.queueAttempt, start: at,
		retryAfter: -1, policy: prev.policy, tries: prev.tries, try: prev.try + 1,
		lastSleep: prev.lastSleep, id: int32(len(s.calls)),
	})
	id := int32(len(s.calls) - 1)
	s.onAttemptArrival(at, &s.calls[id], id)
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
	case JitterPct:
		delay *= 1 + r.RequeueJitterPct/100*(2*rng.Float64()-1)
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
