package simulate

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"time"
)

// Truth is truth.json: the scenario and the figures the simulator counted
// while running. None of it is derived from the written logs, so analyses of
// those logs can be checked against it.
type Truth struct {
	Scenario    Scenario `json:"scenario"`
	GeneratedBy string   `json:"generated_by"`
	Window      Window   `json:"window"`
	HTTP        HTTP     `json:"http"`
	Calls       Calls    `json:"calls"`
	Tasks       Tasks    `json:"tasks"`
	// Waves are the batch's queue attempts: all tasks start together, so
	// queue attempt k is wave k.
	Waves     []Wave    `json:"waves"`
	WaveCount int       `json:"wave_count"`
	Cycle     Cycle     `json:"cycle"`
	Decay     Decay     `json:"decay"`
	Amplify   Amplify   `json:"amplification"`
	Bucket    BucketUse `json:"bucket"`
}

// Window is the simulated span. Offsets are seconds from Scenario.Start.
type Window struct {
	FirstRequest     string  `json:"first_request_utc"`
	LastResponse     string  `json:"last_response_utc"`
	BatchSubmitS     float64 `json:"batch_submit_s"`
	BatchResolvedS   float64 `json:"batch_resolved_s"` // -1: not resolved by end_s
	BatchResolvedUTC string  `json:"batch_resolved_utc"`
}

// HTTP counts attempts on the wire.
type HTTP struct {
	Attempts  int64                `json:"attempts"`
	Status429 int64                `json:"status_429"`
	ByClass   map[string]HTTPClass `json:"by_class"`
}

// HTTPClass counts one class's attempts.
type HTTPClass struct {
	Attempts  int64 `json:"attempts"`
	Status429 int64 `json:"status_429"`
}

// Calls counts SDK calls.
type Calls struct {
	Calls           int64                `json:"calls"`
	Failed          int64                `json:"failed"`
	AttemptsPerCall map[int]int64        `json:"attempts_per_call_hist"`
	ByClass         map[string]CallClass `json:"by_class"`
}

// CallClass counts one class's calls.
type CallClass struct {
	Calls           int64         `json:"calls"`
	Failed          int64         `json:"failed"`
	ErrorRate       float64       `json:"error_rate"`
	HTTPAttempts    int64         `json:"http_attempts"`
	AttemptsPerCall map[int]int64 `json:"attempts_per_call_hist"`
}

// Tasks is the job runner's account of the backlog. Submitted ==
// Succeeded + Abandoned + PendingAtEnd.
type Tasks struct {
	Submitted      int64 `json:"submitted"`
	Succeeded      int64 `json:"succeeded"`
	Abandoned      int64 `json:"abandoned"`
	AbandonedByCap int64 `json:"abandoned_by_cap"`
	PendingAtEnd   int64 `json:"pending_at_end"`
	// QueueAttemptsPerTask is a histogram: queue attempts -> tasks.
	QueueAttemptsPerTask map[int]int64 `json:"queue_attempts_per_task_hist"`
}

// Wave is queue attempt k of the batch. Times are seconds from Scenario.Start.
type Wave struct {
	QueueAttempt int   `json:"wave"`
	Calls        int64 `json:"calls"`
	// Succeeded is the tasks the bucket admitted in this wave.
	Succeeded    int64   `json:"succeeded"`
	Failed       int64   `json:"failed"`
	Requeued     int64   `json:"requeued"`
	Abandoned    int64   `json:"abandoned"`
	HTTPAttempts int64   `json:"http_attempts"`
	Status429    int64   `json:"status_429"`
	StartS       float64 `json:"start_s"`
	StartUTC     string  `json:"start_utc"`
	// FirstStartS and LastStartS bound the starts of the wave's calls.
	FirstStartS float64 `json:"first_call_start_s"`
	LastStartS  float64 `json:"last_call_start_s"`
	// ReturnRatio is the next wave's calls over this wave's; 0 for the last.
	ReturnRatio float64 `json:"return_ratio"`

	firstStart, lastStart time.Duration
}

// Cycle is the spacing of wave starts.
type Cycle struct {
	// MedianS is the median spacing of consecutive wave starts; 0 with fewer
	// than two waves.
	MedianS float64   `json:"median_s"`
	Spacing []float64 `json:"spacings_s"`
	// ExpectedS is the spacing the configuration implies: requeue delay plus
	// the SDK's waits plus the reject latencies of the failed call. Exact only
	// when retry-after is honoured exactly and the requeue is not jittered;
	// otherwise it uses the means of the random waits.
	ExpectedS     float64 `json:"expected_s"`
	ExpectedBasis string  `json:"expected_basis"`
	// Periodic says whether the configuration makes waves land on a fixed
	// period (no random term in the cycle).
	Periodic bool `json:"periodic"`
}

// Decay is the geometric fit of wave sizes: size_k ≈ size_1 · Ratio^(k-1).
type Decay struct {
	// Ratio is exp of the least-squares slope of ln(calls) over wave number.
	Ratio float64 `json:"ratio"`
	Waves int     `json:"waves_fitted"`
}

// Amplify is how the retry layers multiplied the work.
type Amplify struct {
	BatchAttemptsPerCall float64 `json:"batch_attempts_per_call"`
	CallsPerTask         float64 `json:"calls_per_task"`
	AttemptsPerTask      float64 `json:"attempts_per_task"`
}

// BucketUse is what the token bucket went through.
type BucketUse struct {
	// MinTokens is the lowest level after any admission or charge; never
	// below minus bucket.debt_floor (0 without a debt).
	MinTokens float64 `json:"min_tokens"`
}

// LoadTruth reads a truth.json written by WriteDir.
func LoadTruth(path string) (Truth, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Truth{}, fmt.Errorf("load truth: %w", err)
	}
	var t Truth
	if err := json.Unmarshal(data, &t); err != nil {
		return Truth{}, fmt.Errorf("load truth %s: %w", path, err)
	}
	return t, nil
}

func roundTo(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p) / p
}

func secs(d time.Duration) float64 { return roundTo(d.Seconds(), 6) }

func (s *simulation) utc(d time.Duration) string {
	return s.sc.Start.Add(d).UTC().Format("2006-01-02T15:04:05.000Z")
}

func (s *simulation) truth() Truth {
	c := &s.count
	sc := s.sc
	t := Truth{
		Scenario:    sc,
		GeneratedBy: "stampede simulate: counted by the discrete-event simulator while running, not derived from the logs",
	}
	t.Window = Window{
		BatchSubmitS:   sc.Batch.SubmitS,
		BatchResolvedS: -1,
	}
	if c.firstAttempt >= 0 {
		t.Window.FirstRequest = s.utc(c.firstAttempt)
		t.Window.LastResponse = s.utc(c.lastAttempt)
	}
	if s.resolvedAt >= 0 {
		t.Window.BatchResolvedS = secs(s.resolvedAt)
		t.Window.BatchResolvedUTC = s.utc(s.resolvedAt)
	}

	t.HTTP = HTTP{
		Attempts:  c.attempts[Batch] + c.attempts[Interactive],
		Status429: c.throttled[Batch] + c.throttled[Interactive],
		ByClass:   map[string]HTTPClass{},
	}
	t.Calls = Calls{
		Calls:           c.calls[Batch] + c.calls[Interactive],
		Failed:          c.failed[Batch] + c.failed[Interactive],
		AttemptsPerCall: map[int]int64{},
		ByClass:         map[string]CallClass{},
	}
	for _, k := range []Kind{Batch, Interactive} {
		t.HTTP.ByClass[k.String()] = HTTPClass{Attempts: c.attempts[k], Status429: c.throttled[k]}
		cc := CallClass{
			Calls: c.calls[k], Failed: c.failed[k], HTTPAttempts: c.attempts[k],
			AttemptsPerCall: c.attemptsPerCall[k],
		}
		if cc.Calls > 0 {
			cc.ErrorRate = roundTo(float64(cc.Failed)/float64(cc.Calls), 6)
		}
		t.Calls.ByClass[k.String()] = cc
		for n, v := range c.attemptsPerCall[k] {
			t.Calls.AttemptsPerCall[n] += v
		}
	}

	t.Tasks = Tasks{
		Submitted: int64(sc.Batch.Tasks), Succeeded: c.succeeded, Abandoned: c.abandoned,
		AbandonedByCap: c.abandonedByCap, PendingAtEnd: c.pendingAtEnd,
		QueueAttemptsPerTask: map[int]int64{},
	}
	for _, n := range s.taskQueueAttempts {
		t.Tasks.QueueAttemptsPerTask[int(n)]++
	}

	t.Waves = c.waves
	if t.Waves == nil {
		t.Waves = []Wave{}
	}
	var starts []float64
	for i := range t.Waves {
		w := &t.Waves[i]
		w.StartS = secs(w.firstStart)
		w.StartUTC = s.utc(w.firstStart)
		w.FirstStartS = secs(w.firstStart)
		w.LastStartS = secs(w.lastStart)
		if i+1 < len(t.Waves) {
			w.ReturnRatio = roundTo(float64(t.Waves[i+1].Calls)/float64(w.Calls), 6)
		}
		starts = append(starts, w.firstStart.Seconds())
	}
	t.WaveCount = len(t.Waves)
	t.Cycle = expectedCycle(sc)
	t.Cycle.Spacing = []float64{}
	for i := 1; i < len(starts); i++ {
		t.Cycle.Spacing = append(t.Cycle.Spacing, roundTo(starts[i]-starts[i-1], 6))
	}
	t.Cycle.MedianS = roundTo(median(t.Cycle.Spacing), 6)
	sizes := make([]float64, len(t.Waves))
	for i, w := range t.Waves {
		sizes[i] = float64(w.Calls)
	}
	t.Decay = Decay{Ratio: roundTo(GeometricRatio(sizes), 6), Waves: len(sizes)}

	if c.calls[Batch] > 0 {
		t.Amplify.BatchAttemptsPerCall = roundTo(float64(c.attempts[Batch])/float64(c.calls[Batch]), 6)
	}
	if sc.Batch.Tasks > 0 {
		t.Amplify.CallsPerTask = roundTo(float64(c.calls[Batch])/float64(sc.Batch.Tasks), 6)
		t.Amplify.AttemptsPerTask = roundTo(float64(c.attempts[Batch])/float64(sc.Batch.Tasks), 6)
	}
	t.Bucket.MinTokens = roundTo(float64(s.bucket.min)/1e6, 6)
	return t
}

// expectedCycle is the wave spacing the configuration implies for a task
// failing every attempt: its queue attempt lasts the SDK's waits plus one
// reject latency per attempt, and the requeue timer starts after that.
func expectedCycle(sc Scenario) Cycle {
	p := sc.SDK
	r := sc.Runner
	c := Cycle{Periodic: p.RetryAfterMode == RetryAfterExact && r.RequeueJitter == JitterNone}
	wait := 0.0
	for n := range p.MaxAttempts - 1 {
		switch p.RetryAfterMode {
		case RetryAfterExact:
			wait += p.RetryAfterWait()
		case RetryAfterJitter:
			wait += 1.5 * p.RetryAfterWait()
		case RetryAfterIgnore:
			wait += backoffCeiling(&p, n) / 2
		}
	}
	requeue := r.RequeueDelayS
	switch r.RequeueJitter {
	case JitterFull:
		requeue /= 2
	case JitterEqual:
		requeue *= 0.75
	}
	latency := float64(p.MaxAttempts) * sc.Latency.RejectMs / 1000
	c.ExpectedS = roundTo(requeue+wait+latency, 6)
	c.ExpectedBasis = fmt.Sprintf("requeue %gs (%s) + %d SDK waits totalling %gs (%s) + %d reject latencies of %gms",
		requeue, r.RequeueJitter, p.MaxAttempts-1, roundTo(wait, 6), p.RetryAfterMode, p.MaxAttempts, sc.Latency.RejectMs)
	if !c.Periodic {
		c.ExpectedBasis = "mean: " + c.ExpectedBasis
	}
	return c
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// GeometricRatio fits sizes[k] ≈ a·r^k by least squares on ln(sizes) and
// returns r. Non-positive sizes are left out; fewer than two points give 0.
func GeometricRatio(sizes []float64) float64 {
	var n, sx, sy, sxx, sxy float64
	for k, v := range sizes {
		if v <= 0 {
			continue
		}
		x, y := float64(k), math.Log(v)
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	den := n*sxx - sx*sx
	if n < 2 || den == 0 {
		return 0
	}
	return math.Exp((n*sxy - sx*sy) / den)
}
