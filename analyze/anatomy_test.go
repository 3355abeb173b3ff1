package analyze

import (
	"encoding/json"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/ingest"
	"github.com/stampede/stampede/timeline"
)

// anatomyTimeline builds two batch waves at 10 s and 70 s whose truth is
// known by construction: each wave sends 11 attempts 0.1 s apart, the first
// two pass and the rest are throttled (the bucket empties 0.2 s in).
// Interactive attempts arrive at every half second past the second, from
// 0.5 s to 129.5 s; those inside a wave window are throttled, as are those
// in [71.5 s, 71.5 s + tail) after the last wave.
func anatomyTimeline(tail float64, neverRecovers bool) (*timeline.Timeline, []Wave) {
	return anatomyTimelineWith(func(s float64) bool {
		return inAnatomyWave(s) || (s >= 71.5 && (s < 71.5+tail || neverRecovers))
	})
}

// inAnatomyWave says whether an interactive attempt of anatomyTimeline at
// s seconds falls inside a wave window (first to last batch attempt plus
// the 0.5 s margin).
func inAnatomyWave(s float64) bool { return (s > 10 && s < 11.5) || (s > 70 && s < 71.5) }

// anatomyTimelineWith is anatomyTimeline's two batch waves with the
// interactive attempt at s seconds throttled when throttled(s).
func anatomyTimelineWith(throttled func(s float64) bool) (*timeline.Timeline, []Wave) {
	tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "synthetic.log", Format: "synthetic"}}}
	at := func(s float64) int64 { return genEpoch + int64(math.Round(s*1e9)) }
	add := func(s float64, class timeline.Class, o timeline.Outcome) {
		tl.Events = append(tl.Events, timeline.Event{Start: at(s), Layer: timeline.LayerHTTP, Class: class,
			Outcome: o, Status: timeline.Small(statusOf(o)), RetryAfter: timeline.NoRetryAfter})
	}
	starts := []float64{10, 70}
	for s := 0.5; s < 130; s++ {
		o := timeline.OutcomeOK
		if throttled(s) {
			o = timeline.OutcomeThrottled
		}
		add(s, timeline.ClassInteractive, o)
	}
	for _, w := range starts {
		for k := 0; k <= 10; k++ {
			o := timeline.OutcomeThrottled
			if k < 2 {
				o = timeline.OutcomeOK
			}
			add(w+float64(k)/10, timeline.ClassBatch, o)
		}
	}
	tl.Sort()
	waves := []Wave{{Start: time.Unix(0, at(10)).UTC(), Width: 1, Size: 11}, {Start: time.Unix(0, at(70)).UTC(), Width: 1, Size: 11}}
	return tl, waves
}

func TestDescribeAnatomy(t *testing.T) {
	for _, tc := range []struct {
		name           string
		tail           float64
		never          bool
		emptyFor       float64
		recoveredAfter float64
		recovered      bool
		after          ImpactSpan
	}{
		{name: "recovers at once", emptyFor: 0.5, recovered: true, after: ImpactSpan{Attempts: 59}},
		{name: "degraded 20 s", tail: 20, emptyFor: 10.5, recoveredAfter: 20, recovered: true,
			after: ImpactSpan{Attempts: 59, Throttled: 20, ThrottleRate: 20.0 / 59}},
		{name: "never recovers", never: true, emptyFor: 0.5, recoveredAfter: 129.5 - 71.5,
			after: ImpactSpan{Attempts: 59, Throttled: 59, ThrottleRate: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl, waves := anatomyTimeline(tc.tail, tc.never)
			j := buildJoins(tl)
			w := Waves{Waves: waves, Periodic: true, Period: 60, BinWidth: 0.1, DecayRatio: 0.5}
			countWaveAttempts(j, w.Waves)
			describeAnatomy(j, &w)
			if got := w.Waves[0].ThrottledShare; math.Abs(got-9.0/11) > 1e-9 {
				t.Errorf("wave 1 throttled share %v, want 9/11", got)
			}
			if w.BucketEmptyAfter == nil || math.Abs(*w.BucketEmptyAfter-0.2) > 1e-6 {
				t.Errorf("bucket empty after %v, want 0.2 s", w.BucketEmptyAfter)
			}
			if w.BucketEmptyFor == nil || math.Abs(*w.BucketEmptyFor-tc.emptyFor) > 1e-6 {
				t.Errorf("bucket empty for %v, want %v s", w.BucketEmptyFor, tc.emptyFor)
			}
			im := w.Interactive
			if im == nil {
				t.Fatal("no interactive impact")
			}
			want := map[string][2]ImpactSpan{
				"in":      {im.InWaves, {Attempts: 2, Throttled: 2, ThrottleRate: 1}},
				"between": {im.Between, {Attempts: 59}},
				"before":  {im.Before, {Attempts: 10}},
				"after":   {im.After, tc.after},
			}
			for k, v := range want {
				if math.Abs(v[0].ThrottleRate-v[1].ThrottleRate) > 1e-9 || v[0].Attempts != v[1].Attempts || v[0].Throttled != v[1].Throttled {
					t.Errorf("%s: %+v, want %+v", k, v[0], v[1])
				}
			}
			if wantEmpty := int64(2 + min(tc.tail, 60)); !tc.never && im.EmptySeconds != wantEmpty {
				t.Errorf("empty seconds %d, want %d", im.EmptySeconds, wantEmpty)
			}
			if !im.Degraded {
				t.Error("not degraded, want degraded")
			}
			if im.Recovered != tc.recovered || math.Abs(im.RecoveredAfter-tc.recoveredAfter) > 1e-6 {
				t.Errorf("recovered %v after %v s, want %v after %v s", im.Recovered, im.RecoveredAfter, tc.recovered, tc.recoveredAfter)
			}
			if f := interactiveFinding(&w); !strings.HasPrefix(f, "Interactive requests were throttled 100.0% of the time inside waves and 0.0% between them") {
				t.Errorf("finding %q", f)
			}
		})
	}
}

// TestInteractiveDegradedAfterBatch pins what "degraded" and "recovered"
// mean for interactive traffic. The batch load of anatomyTimeline's waves
// falls back at 11.5 s and 71.5 s; throttling after that (between the
// waves, or after the last) is what a limiter that keeps a debt, or a
// window a wave emptied, does. Interactive attempts come once a second at
// s + 0.5 s, so a 10 s window holds ten of them and any throttle in it is
// above the 5-point tolerance.
func TestInteractiveDegradedAfterBatch(t *testing.T) {
	span := func(lo, hi float64) func(float64) bool { return func(s float64) bool { return s >= lo && s < hi } }
	for _, tc := range []struct {
		name      string
		throttled func(s float64) bool
		degraded  bool
		// recoveredAfter is seconds after 71.5 s, the end of the last wave.
		recoveredAfter float64
		recovered      bool
		// afterLoad and throttledFor are EmptyAfterLoad and ThrottledFor.
		afterLoad    int64
		throttledFor float64
		// say and never are parts the finding must and must not hold.
		say, never []string
	}{
		{name: "never throttled", throttled: func(float64) bool { return false }, recovered: true,
			say: []string{"; the waves did not degrade them"}, never: []string{"stayed degraded"}},
		{name: "throttled as before the waves", throttled: func(s float64) bool { return int(s)%2 == 1 }, recovered: true,
			afterLoad: 60, throttledFor: 119.5,
			say: []string{"(50.0% before the first)", "; the waves did not degrade them"}},
		{name: "throttled inside waves only", throttled: inAnatomyWave, degraded: true, recovered: true, throttledFor: 60.5,
			say: []string{"; no degradation remained after the last wave"}, never: []string{"between waves, after"}},
		// The waves themselves pass interactive requests, the gap after
		// the first is starved: degraded, though not inside a wave.
		{name: "starved between waves only", throttled: span(12, 40), degraded: true, recovered: true, afterLoad: 28, throttledFor: 29.5,
			say: []string{"0.0% of the time inside waves", "; they stayed degraded between waves, after the batch load had fallen back; no degradation remained"}},
		{name: "starved 20 s after the last wave", throttled: func(s float64) bool { return inAnatomyWave(s) || span(71.5, 91.5)(s) },
			degraded: true, recoveredAfter: 20, recovered: true, afterLoad: 20, throttledFor: 80.5, say: []string{"; they stayed degraded 20.0 s after the last wave"}},
		// Clean from 81.5 s to 93.5 s, longer than a window, then
		// throttled again until 103.5 s: the lull is not the recovery.
		{name: "a lull is not a recovery", throttled: func(s float64) bool { return inAnatomyWave(s) || span(71.5, 81.5)(s) || span(93.5, 103.5)(s) },
			degraded: true, recoveredAfter: 32, recovered: true, afterLoad: 20, throttledFor: 92.5, say: []string{"; they stayed degraded 32.0 s after the last wave"}},
		// Degraded only after the last wave still counts as degraded.
		{name: "starved only after the last wave", throttled: span(71.5, 86.5), degraded: true, recoveredAfter: 15, recovered: true, afterLoad: 15, throttledFor: 75.5,
			say: []string{"; they stayed degraded 15.0 s after the last wave"}, never: []string{"between waves, after"}},
		{name: "still starved when the log ends", throttled: func(s float64) bool { return inAnatomyWave(s) || s >= 71.5 },
			degraded: true, recoveredAfter: 129.5 - 71.5, afterLoad: 59, throttledFor: 119.5, say: []string{"; they were still degraded 58.0 s after the last wave, when the log ends"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl, waves := anatomyTimelineWith(tc.throttled)
			j := buildJoins(tl)
			w := Waves{Waves: waves, Periodic: true, Period: 60, BinWidth: 0.1, DecayRatio: 0.5}
			countWaveAttempts(j, w.Waves)
			describeAnatomy(j, &w)
			im := w.Interactive
			if im == nil {
				t.Fatal("no interactive impact")
			}
			if im.Degraded != tc.degraded {
				t.Errorf("degraded %v, want %v (in waves %+v, between %+v, after %+v)", im.Degraded, tc.degraded, im.InWaves, im.Between, im.After)
			}
			if im.Recovered != tc.recovered || math.Abs(im.RecoveredAfter-tc.recoveredAfter) > 1e-6 {
				t.Errorf("recovered %v after %v s, want %v after %v s", im.Recovered, im.RecoveredAfter, tc.recovered, tc.recoveredAfter)
			}
			if im.EmptyAfterLoad != tc.afterLoad || math.Abs(im.ThrottledFor-tc.throttledFor) > 1e-6 {
				t.Errorf("empty seconds after the load %d, throttled for %v s; want %d, %v s", im.EmptyAfterLoad, im.ThrottledFor, tc.afterLoad, tc.throttledFor)
			}
			checkPhrases(t, interactiveFinding(&w), tc.say, tc.never)
		})
	}
}

func TestNoInteractiveNoImpact(t *testing.T) {
	tl := (incident{sizes: []int{200, 100, 50, 25}, width: time.Second, requeue: 60 * time.Second, attempts: 1, seed: 3}).build()
	r := Run(tl, Options{Seed: 1})
	if r.Waves.Interactive != nil {
		t.Errorf("interactive impact %+v on a batch-only timeline", r.Waves.Interactive)
	}
	for _, f := range r.Findings {
		if strings.HasPrefix(f, "Interactive") {
			t.Errorf("finding %q on a batch-only timeline", f)
		}
	}
}

func TestPearson(t *testing.T) {
	x := []float64{1, 5, 2, 8, 3, 0, 4}
	neg := make([]float64, len(x))
	lin := make([]float64, len(x))
	for i, v := range x {
		neg[i], lin[i] = -v, 3*v+2
	}
	for _, tc := range []struct {
		name string
		x, y []float64
		want float64
	}{
		{"itself", x, x, 1},
		{"linear", x, lin, 1},
		{"negated", x, neg, -1},
		{"constant", x, make([]float64, len(x)), 0},
		{"too short", []float64{1}, []float64{1}, 0},
		{"orthogonal", []float64{1, -1, 1, -1}, []float64{1, 1, -1, -1}, 0},
	} {
		if got := pearson(tc.x, tc.y); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: r = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestProjectBelowInteractive(t *testing.T) {
	start := time.Unix(0, genEpoch).UTC()
	for _, tc := range []struct {
		name     string
		w        Waves
		rate     float64
		wantWave int
		wantAt   float64 // seconds after start, -1 for none
	}{
		// 100/s halves each wave: 50, 25, 12.5, 6.25 < 10 at wave 5.
		{"periodic", Waves{Periodic: true, Period: 60, DecayRatio: 0.5, Waves: []Wave{{Start: start, Size: 100, Width: 1}}}, 10, 5, 240},
		// Bursts without a period are due at no time, so only one seen is named.
		{"aperiodic, below past the bursts seen", Waves{DecayRatio: 0.5, Waves: []Wave{{Start: start, Size: 100, Width: 1}}}, 10, 0, -1},
		{"aperiodic, below within the bursts seen", Waves{DecayRatio: 0.5, Waves: []Wave{
			{Start: start, Size: 100, Width: 1}, {Start: start.Add(9 * time.Second), Size: 50, Width: 1},
			{Start: start.Add(23 * time.Second), Size: 25, Width: 1}, {Start: start.Add(31 * time.Second), Size: 12, Width: 1},
			{Start: start.Add(40 * time.Second), Size: 6, Width: 1}}}, 10, 5, -1},
		{"already below", Waves{Periodic: true, Period: 60, DecayRatio: 0.5, Waves: []Wave{{Start: start, Size: 5, Width: 1}}}, 10, 1, 0},
		{"no decay", Waves{Periodic: true, Period: 60, DecayRatio: 1.1, Waves: []Wave{{Start: start, Size: 100, Width: 1}}}, 10, 0, -1},
		{"no interactive", Waves{Periodic: true, Period: 60, DecayRatio: 0.5, Waves: []Wave{{Start: start, Size: 100, Width: 1}}}, 0, 0, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.w
			projectBelowInteractive(&w, tc.rate)
			if w.BelowInteractiveWave != tc.wantWave {
				t.Errorf("wave %d, want %d", w.BelowInteractiveWave, tc.wantWave)
			}
			switch {
			case tc.wantAt < 0 && w.BelowInteractiveAt != nil:
				t.Errorf("at %v, want none", w.BelowInteractiveAt)
			case tc.wantAt >= 0 && (w.BelowInteractiveAt == nil || w.BelowInteractiveAt.Sub(start).Seconds() != tc.wantAt):
				t.Errorf("at %v, want start + %v s", w.BelowInteractiveAt, tc.wantAt)
			}
		})
	}
}

func TestAttributeSDK(t *testing.T) {
	text := "period 84.0 s = requeue delay 60.0 s ± 0 s + 2 x retry-after 12.0 s ± 0 s honoured exactly (SDK)"
	for _, tc := range []struct {
		name    string
		clients []Client
		want    string
	}{
		{"synchronising client", []Client{
			{SDK: "botocore standard", Throttled: 50},
			{SDK: "openai-python", Version: "1.52.0", Throttled: 10, Synchronising: true, RetryAfter: "honours retry-after exactly up to 60 s"},
		}, "honoured exactly (SDK: openai-python 1.52.0)"},
		{"no synchronising client", []Client{{SDK: "botocore standard", Throttled: 50}}, "honoured exactly (SDK)"},
		{"no clients", nil, "honoured exactly (SDK)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := Waves{Suspects: []FixedDelay{{Kind: kindRequeue, Text: text}, {Kind: kindSDKDelay, Text: "2 x retry-after 12.0 s ± 0 s honoured exactly (SDK)"}}}
			attributeSDK(&w, tc.clients)
			for _, s := range w.Suspects {
				if !strings.HasSuffix(s.Text, tc.want) {
					t.Errorf("text %q, want it to end %q", s.Text, tc.want)
				}
			}
		})
	}
}

// TestInteractiveImpactRealTrace compares the impact figures on a recorded
// botocore trace with the figures its server-side truth file gives for the
// same spans. The access log stamps whole seconds, so each wave window can
// start up to a second early and end up to a second late: the in-wave
// counts are loosely bounded, the spans outside the storm exactly.
func TestInteractiveImpactRealTrace(t *testing.T) {
	dir := "../testdata/traces/botocore-standard/"
	tl, err := ingest.ReadFile(dir+"access.log", ingest.Options{})
	if err != nil {
		t.Skip(err)
	}
	calls, err := ingest.ReadFile(dir+"calls.jsonl", ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tl.Append(calls)
	tl.Sort()
	timeline.ApplyClassRules(tl, timeline.DefaultClassRules, false)
	timeline.ResolveClasses(tl)
	var truth struct {
		Impact map[string]json.RawMessage `json:"interactive_vs_waves"`
	}
	b, err := os.ReadFile(dir + "truth.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	type span struct {
		Requests int64   `json:"requests"`
		Rate     float64 `json:"rate_429"`
	}
	im := Run(tl, Options{Seed: 1}).Waves.Interactive
	if im == nil {
		t.Fatal("no interactive impact")
	}
	for _, tc := range []struct {
		key            string
		got            ImpactSpan
		attempts, rate float64 // tolerances
	}{
		{"before_batch", im.Before, 0, 0},
		{"after_batch", im.After, 0, 0},
		{"in_waves", im.InWaves, 10, 0.12},
		{"outside_waves_during_batch", im.Between, 10, 0.03},
	} {
		var want span
		if err := json.Unmarshal(truth.Impact[tc.key], &want); err != nil {
			t.Fatalf("truth %s: %v", tc.key, err)
		}
		if math.Abs(float64(tc.got.Attempts-want.Requests)) > tc.attempts || math.Abs(tc.got.ThrottleRate-want.Rate) > tc.rate+1e-9 {
			t.Errorf("%s: %d attempts at %.3f throttled, truth %d at %.3f", tc.key, tc.got.Attempts, tc.got.ThrottleRate, want.Requests, want.Rate)
		}
	}
	if !im.Degraded || !im.Recovered || im.RecoveredAfter != 0 {
		t.Errorf("degraded %v, recovered %v after %v s; truth: degraded inside waves, 0%% throttled after them", im.Degraded, im.Recovered, im.RecoveredAfter)
	}
}

// TestBucketRefill drives waves through a token bucket of known capacity
// and refill rate (one token per request) and checks that the refill time
// read from the verdicts alone is capacity / rate, the time the bucket
// takes to refill what the wave found in it.
func TestBucketRefill(t *testing.T) {
	for _, tc := range []struct {
		name           string
		capacity, rate float64 // tokens, tokens per second
		arrivals       float64 // requests per second within a wave
		width          float64 // seconds each wave lasts
	}{
		{"small bucket, slow refill", 20, 2, 50, 10},
		{"large bucket, fast refill", 200, 25, 400, 6},
		{"refill near the arrival rate", 30, 8, 12, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "synthetic.log", Format: "synthetic"}}}
			var waves []Wave
			tokens, last := tc.capacity, 0.0
			for _, start := range []float64{10, 100, 190} {
				waves = append(waves, Wave{Start: time.Unix(0, genEpoch+int64(start*1e9)).UTC(), Width: tc.width, Size: 1})
				for s := start; s < start+tc.width; s += 1 / tc.arrivals {
					tokens = min(tc.capacity, tokens+(s-last)*tc.rate)
					last = s
					o := timeline.OutcomeThrottled
					if tokens >= 1 {
						tokens--
						o = timeline.OutcomeOK
					}
					tl.Events = append(tl.Events, timeline.Event{Start: genEpoch + int64(math.Round(s*1e9)), Layer: timeline.LayerHTTP,
						Class: timeline.ClassBatch, Outcome: o, Status: timeline.Small(statusOf(o)), RetryAfter: timeline.NoRetryAfter})
				}
			}
			tl.Sort()
			j := buildJoins(tl)
			w := Waves{Waves: waves, Periodic: true, Period: 90, BinWidth: 0.1}
			describeAnatomy(j, &w)
			want := tc.capacity / tc.rate
			if w.BucketRefill == nil || math.Abs(*w.BucketRefill-want) > 0.1*want {
				t.Errorf("refill %v s, want %.2f s (capacity / rate) ± 10%%", deref(w.BucketRefill), want)
			}
			// The wave drains the bucket at its arrival rate less the refill.
			empty := tc.capacity / (tc.arrivals - tc.rate)
			if w.BucketEmptyAfter == nil || math.Abs(*w.BucketEmptyAfter-empty) > 0.1*empty+1/tc.arrivals {
				t.Errorf("emptied after %v s, want %.2f s (capacity / (arrivals - rate)) ± 10%%", deref(w.BucketEmptyAfter), empty)
			}
		})
	}
}

// TestBucketRefillNotFromDebt drives waves of three 1 s bursts 12 s apart
// (a wave and its two retries) through a bucket of 20 tokens refilling 4 a
// second, one token a request, with an interactive caller every second.
// Without a debt, the bucket refills under its rejected callers and gives
// a refill time. With one, every rejected request is charged a token down
// to 20 below zero: after each wave the bucket refuses the interactive
// callers for the seconds it takes to pay the debt back, far longer than
// the interval at which it admitted requests during the wave. That
// admission rate is no refill rate, so no refill time is given; the
// emptying times still are.
func TestBucketRefillNotFromDebt(t *testing.T) {
	const capacity, rate, arrivals = 20.0, 4.0, 50.0
	for _, tc := range []struct {
		name       string
		debt       float64
		wantRefill bool
		emptyFor   [2]float64 // bounds on the median time to the next success
	}{
		{name: "refills under its callers", wantRefill: true, emptyFor: [2]float64{0, 1}},
		{name: "keeps a debt", debt: capacity, emptyFor: [2]float64{5, 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "synthetic.log", Format: "synthetic"}}}
			type arrival struct {
				s     float64
				class timeline.Class
			}
			var in []arrival
			var waves []Wave
			for _, start := range []float64{10, 100, 190} {
				waves = append(waves, Wave{Start: time.Unix(0, genEpoch+int64(start*1e9)).UTC(), Width: 1, Size: 50})
				for _, burst := range []float64{0, 12, 24} {
					for k := range int(arrivals) {
						in = append(in, arrival{start + burst + float64(k)/arrivals, timeline.ClassBatch})
					}
				}
			}
			for s := 0.5; s < 270; s++ {
				in = append(in, arrival{s, timeline.ClassInteractive})
			}
			sort.SliceStable(in, func(a, b int) bool { return in[a].s < in[b].s })
			tokens, last := capacity, 0.0
			for _, a := range in {
				tokens = min(capacity, tokens+(a.s-last)*rate)
				last = a.s
				o := timeline.OutcomeOK
				switch {
				case tokens >= 1:
					tokens--
				case tc.debt > 0:
					tokens = max(-tc.debt, tokens-1)
					o = timeline.OutcomeThrottled
				default:
					o = timeline.OutcomeThrottled
				}
				tl.Events = append(tl.Events, timeline.Event{Start: genEpoch + int64(math.Round(a.s*1e9)), Layer: timeline.LayerHTTP,
					Class: a.class, Outcome: o, Status: timeline.Small(statusOf(o)), RetryAfter: timeline.NoRetryAfter})
			}
			tl.Sort()
			j := buildJoins(tl)
			w := Waves{Waves: waves, Periodic: true, Period: 90, BinWidth: 0.1}
			describeAnatomy(j, &w)
			if got := w.BucketRefill != nil; got != tc.wantRefill {
				t.Errorf("refill %v s, want one: %v", deref(w.BucketRefill), tc.wantRefill)
			}
			if w.BucketEmptyAfter == nil || w.BucketEmptyFor == nil || *w.BucketEmptyFor < tc.emptyFor[0] || *w.BucketEmptyFor > tc.emptyFor[1] {
				t.Errorf("emptied after %v s, empty for %v s; want both, the second within %v s", deref(w.BucketEmptyAfter), deref(w.BucketEmptyFor), tc.emptyFor)
			}
		})
	}
}

// deref prints an optional time; -1 stands for none.
func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

// TestInteractiveFindingLogEndsAtLastWave: with no interactive request after
// the last wave there is nothing to measure a recovery by, and "still
// degraded 0 s after the last wave" would state a measurement no request
// made.
func TestInteractiveFindingLogEndsAtLastWave(t *testing.T) {
	for _, tc := range []struct {
		name       string
		after      ImpactSpan
		say, never string
	}{
		{"no request after the last wave", ImpactSpan{},
			"no interactive request after the last wave to tell whether they recovered", "still degraded"},
		{"requests after the last wave, still throttled", ImpactSpan{Attempts: 10, Throttled: 10, ThrottleRate: 1},
			"still degraded 0 s after the last wave, when the log ends", "to tell whether"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := Waves{Periodic: true, Interactive: &InteractiveImpact{Degraded: true,
				InWaves: ImpactSpan{Attempts: 10, Throttled: 9, ThrottleRate: 0.9}, After: tc.after}}
			f := interactiveFinding(&w)
			if !strings.Contains(f, tc.say) || strings.Contains(f, tc.never) {
				t.Errorf("finding %q, want it to say %q and not %q", f, tc.say, tc.never)
			}
		})
	}
}

// TestInteractiveFindingNamesBursts: where the bursts keep to no period
// the report lists them as bursts, not waves, and the interactive finding
// beside "No periodic waves" names them the same way.
func TestInteractiveFindingNamesBursts(t *testing.T) {
	empty := 2.0
	for _, tc := range []struct {
		name       string
		periodic   bool
		say, never []string
	}{
		{"periodic", true,
			[]string{"inside waves and", "between waves, after the batch load", "after a wave's batch load", "from the first wave", "after the last wave", "into each wave", "what a wave found", "a wave's edge"},
			[]string{"burst"}},
		{"no period", false,
			[]string{"inside bursts and", "between bursts, after the batch load", "after a burst's batch load", "from the first burst", "after the last burst", "into each burst", "what a burst found", "a burst's edge"},
			[]string{"wave"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := Waves{Periodic: tc.periodic, BucketResolution: 1, BucketEmptyAfter: &empty, BucketEmptyFor: &empty, BucketRefill: &empty,
				Interactive: &InteractiveImpact{Degraded: true, EmptySeconds: 5, EmptyAfterLoad: 2, ThrottledFor: 90, RecoveredAfter: 12,
					InWaves: ImpactSpan{Attempts: 10, Throttled: 9, ThrottleRate: 0.9},
					Between: ImpactSpan{Attempts: 10, Throttled: 8, ThrottleRate: 0.8},
					After:   ImpactSpan{Attempts: 10, Throttled: 10, ThrottleRate: 1}}}
			checkPhrases(t, interactiveFinding(&w), tc.say, tc.never)
		})
	}
}

// checkPhrases fails t unless finding holds every phrase of say and none
// of never.
func checkPhrases(t *testing.T, finding string, say, never []string) {
	t.Helper()
	for _, want := range say {
		if !strings.Contains(finding, want) {
			t.Errorf("finding %q, want it to say %q", finding, want)
		}
	}
	for _, bad := range never {
		if strings.Contains(finding, bad) {
			t.Errorf("finding %q says %q", finding, bad)
		}
	}
}

// TestInteractiveFindingOnWholeSeconds: the split inside and between waves
// states the stamps' resolution where they are whole seconds, since an
// attempt can then sit a second from where it was stamped.
func TestInteractiveFindingOnWholeSeconds(t *testing.T) {
	im := &InteractiveImpact{InWaves: ImpactSpan{Attempts: 60, Throttled: 34, ThrottleRate: 34.0 / 60},
		Between: ImpactSpan{Attempts: 206, Throttled: 95, ThrottleRate: 95.0 / 206}, Before: ImpactSpan{Attempts: 20}}
	caveat := "inside and between told apart on timestamps to 1.00 s"
	for _, tc := range []struct {
		name       string
		resolution float64
		want       string
	}{
		{"whole seconds", 1, "(0.0% before the first; " + caveat},
		{"milliseconds", 0.001, "(0.0% before the first);"},
		{"resolution unknown", 0, "(0.0% before the first);"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := interactiveFinding(&Waves{Interactive: im, BucketResolution: tc.resolution})
			if !strings.Contains(f, tc.want) {
				t.Errorf("finding %q, want it to hold %q", f, tc.want)
			}
			if strings.Contains(f, caveat) != (tc.resolution >= 1) {
				t.Errorf("finding %q: the resolution's caveat only on whole seconds", f)
			}
		})
	}
}
