package analyze

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stampede/stampede/internal/racedetect"
	"github.com/stampede/stampede/timeline"
)

// accuracyTraces sets how many labelled traces TestAccuracy scores; the
// default keeps the test a few seconds long. STAMPEDE_ACCURACY_TRACES in the
// environment overrides it too, for runs through scripts.
var accuracyTraces = flag.Int("accuracy.traces", 320, "labelled traces scored by TestAccuracy")

// accuracyStream picks another stream of labelled traces, so the detector
// can be scored on traces it was never tuned on; 0 is the tuned default.
var accuracyStream = flag.Uint64("accuracy.stream", 0, "which stream of labelled traces TestAccuracy draws (0: the default one)")

// accuracyOnly scores a few traces of the stream, by index, so that a miss
// can be looked into without scoring the rest.
var accuracyOnly = flag.String("accuracy.only", "", "comma-separated trace indices TestAccuracy scores alone")

// labelled is a synthetic trace with the answer a period detector should
// give.
type labelled struct {
	kind string // "periodic" or the aperiodic family
	tl   *timeline.Timeline
	// period is the true wave period in seconds, 0 when aperiodic.
	period float64
	// waves is how many waves hold at least minTruthWave calls: a wave of
	// one call cannot be told from background.
	waves int
	// comb is the retry-after spacing inside each wave when the detector
	// can see it (attempts binned, spacing above the minimum lag and at
	// least twice the wave width), else 0.
	comb float64
	// bin is the bin width the trace's timestamp resolution implies; the
	// period tolerance is never finer than one bin.
	bin float64
	// attempts is how many attempts each call makes (1: no comb at all).
	attempts int
	desc     string
}

const minTruthWave = 5

// aperiodicKinds are the families of traces with no period.
var aperiodicKinds = []string{"full-jitter backoff", "random bursts", "steady poisson", "ramp"}

// labelledTrace draws trace i of the benchmark: three in five periodic, the
// rest spread over the aperiodic families. The same i always gives the same
// trace.
func labelledTrace(i int) labelled { return labelledTraceOf(*accuracyStream, i) }

// labelledTraceOf is trace i of the given stream.
func labelledTraceOf(stream uint64, i int) labelled {
	rng := rand.New(rand.NewPCG(uint64(i), 0xacc+stream))
	if i%5 < 3 {
		return periodicTrace(rng, uint64(i))
	}
	kind := aperiodicKinds[(i/5*2+i%5-3)%len(aperiodicKinds)]
	return aperiodicTrace(rng, kind, uint64(i))
}

func uniform(rng *rand.Rand, lo, hi float64) float64 { return lo + rng.Float64()*(hi-lo) }

func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(uniform(rng, math.Log(lo), math.Log(hi)))
}

func secs2d(s float64) time.Duration { return time.Duration(s * 1e9) }

// periodicTrace is an incident with a fixed requeue delay: period 5–300 s,
// 3–15 waves decaying by 0.4–1.0, varied width, background and timestamp
// resolution, small requeue jitter and, in two traces of five, a nested
// retry-after comb seen on the wire.
func periodicTrace(rng *rand.Rand, seed uint64) labelled {
	period := logUniform(rng, 5, 300)
	n := 3 + rng.IntN(13)
	decay := uniform(rng, 0.4, 1.0)
	first := logUniform(rng, 40, 600)
	in := incident{sizes: geometric(first, decay, n), attempts: 1, seed: seed}
	in.attemptTime = secs2d(uniform(rng, 0.05, 0.3))
	in.wholeSeconds = rng.IntN(2) == 0
	bin := 0.1
	if in.wholeSeconds {
		bin = 1
	}
	// Wide enough to hold the wave, narrow enough that waves stay apart.
	in.width = secs2d(logUniform(rng, 0.1, math.Max(0.2, math.Min(0.12*period, 10))))
	in.background = logUniform(rng, 0.02, 2)
	nested := rng.IntN(5) < 2
	minLag := math.Max(3*bin, 2)
	if nested && period >= 6*minLag {
		in.wireOnly = true
		in.attempts = 2 + rng.IntN(3)
		// The comb spans at most half the period, so the waves stay apart.
		maxRA := 0.5 * period / float64(in.attempts-1)
		ra := uniform(rng, 1.5*minLag, math.Max(1.5*minLag, maxRA))
		if in.wholeSeconds {
			ra = math.Round(ra)
		}
		in.retryAfter = secs2d(ra)
	} else if rng.IntN(3) == 0 {
		in.wireOnly = true
	}
	fixed := time.Duration(in.attempts-1)*in.retryAfter + time.Duration(in.attempts)*in.attemptTime
	in.requeue = secs2d(period) - fixed
	// Small jitter: a job runner's timer resolution, not a backoff policy.
	in.jitter = secs2d(uniform(rng, 0, math.Min(0.005*period, 0.5)))
	waves := 0
	for _, s := range in.sizes {
		if s >= minTruthWave {
			waves++
		}
	}
	l := labelled{kind: "periodic", tl: in.build(), period: in.period().Seconds(), waves: waves, bin: bin, attempts: in.attempts}
	if spacing := in.retryAfter + in.attemptTime; in.wireOnly && in.attempts > 1 && in.width <= spacing/2 {
		// Wider waves smear a wave's attempts into one another: there is
		// no comb left to see.
		l.comb = spacing.Seconds()
	}
	l.desc = fmt.Sprintf("P=%.2fs waves=%d/%d decay=%.2f first=%.0f width=%v bg=%.2f/s attempts=%d ra=%v whole=%v wire=%v",
		l.period, waves, n, decay, first, in.width, in.background, in.attempts, in.retryAfter, in.wholeSeconds, in.wireOnly)
	return l
}

// aperiodicTrace draws one trace of an aperiodic family.
func aperiodicTrace(rng *rand.Rand, kind string, seed uint64) labelled {
	whole := rng.IntN(2) == 0
	span := logUniform(rng, 300, 3600)
	var times []int64
	add := func(t float64) { times = append(times, genEpoch+int64(t*1e9)) }
	poisson := func(rate, from, to float64) {
		for t := from + rng.ExpFloat64()/rate; t < to; t += rng.ExpFloat64() / rate {
			add(t)
		}
	}
	switch kind {
	case "full-jitter backoff":
		// A herd of tasks fails at once and each retries after
		// U(0, min(cap, base*2^k)) until it gets through.
		base, cp := uniform(rng, 0.5, 5), uniform(rng, 20, 300)
		tasks := int(logUniform(rng, 50, 800))
		pOK := uniform(rng, 0.2, 0.6)
		width := uniform(rng, 0.1, 5)
		for k := 0; k < tasks; k++ {
			t := rng.Float64() * width
			for a := 0; a < 12 && t < span; a++ {
				add(t)
				if rng.Float64() < pOK {
					break
				}
				t += rng.Float64() * math.Min(cp, base*math.Exp2(float64(a)))
			}
		}
		poisson(logUniform(rng, 0.02, 2), 0, span)
	case "random bursts":
		// Bursts at Poisson times, of random size and width.
		gap := logUniform(rng, 20, 200)
		for t := rng.ExpFloat64() * gap; t < span; t += rng.ExpFloat64() * gap {
			size, width := int(logUniform(rng, 10, 300)), logUniform(rng, 0.1, 8)
			for k := 0; k < size; k++ {
				add(t + rng.Float64()*width)
			}
		}
		poisson(logUniform(rng, 0.02, 2), 0, span)
	case "steady poisson":
		poisson(logUniform(rng, 0.1, 20), 0, span)
	case "ramp":
		// Rate rising (or falling) linearly, by thinning a Poisson process.
		r0, r1 := logUniform(rng, 0.05, 5), logUniform(rng, 1, 30)
		if rng.IntN(2) == 0 {
			r0, r1 = r1, r0
		}
		peak := math.Max(r0, r1)
		for t := rng.ExpFloat64() / peak; t < span; t += rng.ExpFloat64() / peak {
			if rng.Float64()*peak < r0+(r1-r0)*t/span {
				add(t)
			}
		}
	}
	tl := &timeline.Timeline{Sources: []timeline.Source{{Path: kind + ".log", Format: "synthetic"}}}
	for n, t := range times {
		if whole {
			t -= t % int64(time.Second)
		}
		out := timeline.OutcomeOK
		if rng.IntN(3) == 0 {
			out = timeline.OutcomeThrottled
		}
		tl.Events = append(tl.Events, timeline.Event{Start: t, End: t + 1e8, Layer: timeline.LayerHTTP, Outcome: out,
			Class: timeline.ClassBatch, Status: timeline.Small(statusOf(out)), RetryAfter: timeline.NoRetryAfter, Line: int64(n + 1)})
	}
	tl.Sort()
	bin := 0.1
	if whole {
		bin = 1
	}
	return labelled{kind: kind, tl: tl, bin: bin, desc: fmt.Sprintf("%s span=%.0fs events=%d whole=%v", kind, span, len(times), whole)}
}

// verdict is what a detector says about one trace.
type verdict struct {
	found  bool
	period float64
	comb   float64
	source string // where the period's candidate came from
	// why says what the detector saw when it reported no period: the lag
	// it weighed, its ACF against the threshold, and the test that
	// rejected it. Misses print it, so a miss can be read without a rerun.
	why string
}

type detector struct {
	name string
	run  func(tl *timeline.Timeline, seed uint64) verdict
}

var stampedeDetector = detector{"stampede", func(tl *timeline.Timeline, seed uint64) verdict {
	w := FindWaves(tl, Options{Seed: seed})
	why := fmt.Sprintf("lag %.2f s, ACF %.3f / threshold %.3f, %d bursts, %d on the grid, rejected %q",
		w.BestLag, w.ACF, w.Threshold, len(w.Waves), w.OnGrid, w.Rejected)
	return verdict{found: w.Periodic, period: w.Period, comb: w.IntraWaveSpacing, source: w.CandidateSource, why: why}
}}

// naiveACFThreshold is the fixed cut-off of the baseline: the textbook
// "autocorrelation above 0.3 means a period".
const naiveACFThreshold = 0.3

// naiveDetector is plain ACF argmax: the same series and bins as stampede,
// the mean removed, the highest ACF at lags from the minimum lag to half the
// series, reported when above a fixed threshold. No smoothing, no detrending,
// no harmonic check, no significance test.
var naiveDetector = detector{"naive ACF argmax", func(tl *timeline.Timeline, seed uint64) verdict {
	s := pickSeries(buildJoins(tl))
	if len(s.times) < 2 {
		return verdict{}
	}
	bw := autoBinWidth(s.times)
	b := binSeries(s.times, bw)
	minLag := int((max(3*bw, int64(2*time.Second)) + bw - 1) / bw)
	n := len(b.counts)
	if n/2 <= minLag {
		return verdict{}
	}
	r := newACFEngine(n).acf(centre(b.counts))
	best := minLag
	for k := minLag; k <= n/2; k++ {
		if r[k] > r[best] {
			best = k
		}
	}
	return verdict{found: r[best] > naiveACFThreshold, period: float64(best) * seconds(bw)}
}}

// score accumulates one detector's verdicts.
type score struct {
	periodic4, hit4      int // traces with >= 4 waves, and those with the period right
	periodic3, hit3      int // traces with 3 waves
	reported, correct    int // periods reported on any trace, and those right
	errs                 []float64
	aperiodic, fp        int
	fpByKind             map[string]int
	combTruth, combFound int
	// combFalse counts periodic traces with no retry-after comb that were
	// given an intra-wave spacing anyway.
	noComb, combFalse int
	// bySource counts the right periods by where their candidate came from.
	bySource map[string]int
	misses   []string
}

func (s *score) add(i int, l labelled, v verdict) {
	tol := math.Max(0.02*l.period, l.bin)
	right := l.period > 0 && v.found && math.Abs(v.period-l.period) <= tol
	if v.found {
		s.reported++
		if right {
			s.correct++
			s.bySource[v.source]++
		}
	}
	switch {
	case l.period == 0:
		s.aperiodic++
		if v.found {
			s.fp++
			s.fpByKind[l.kind]++
			s.misses = append(s.misses, fmt.Sprintf("FP trace %d %s: period %.2f s (%s)", i, l.desc, v.period, v.why))
		}
		return
	case l.waves >= 4:
		s.periodic4++
		if right {
			s.hit4++
		} else {
			s.misses = append(s.misses, fmt.Sprintf("miss trace %d %s: found %v period %.2f s (%s)", i, l.desc, v.found, v.period, v.why))
		}
	case l.waves == 3:
		s.periodic3++
		if right {
			s.hit3++
		}
	}
	if v.found {
		s.errs = append(s.errs, math.Abs(v.period-l.period)/l.period)
	}
	if l.waves >= 4 && l.comb == 0 && l.attempts <= 1 {
		s.noComb++
		if v.comb > 0 {
			s.combFalse++
			s.misses = append(s.misses, fmt.Sprintf("comb %.2f s reported without one %s", v.comb, l.desc))
		}
	}
	if l.comb > 0 && l.waves >= 4 {
		s.combTruth++
		if math.Abs(v.comb-l.comb) <= math.Max(0.05*l.comb, l.bin) {
			s.combFound++
		} else {
			s.misses = append(s.misses, fmt.Sprintf("comb %.2f s not reported %s: found %.2f s", l.comb, l.desc, v.comb))
		}
	}
}

func share(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func (s *score) row(name string) []string {
	sort.Float64s(s.errs)
	med, p95 := "-", "-"
	if len(s.errs) > 0 {
		med = fmt.Sprintf("%.2f%%", 100*percentileSorted(s.errs, 0.5))
		p95 = fmt.Sprintf("%.2f%%", 100*percentileSorted(s.errs, 0.95))
	}
	return []string{name, share(s.hit4, s.periodic4), share(s.hit3, s.periodic3), share(s.correct, s.reported), med, p95,
		share(s.fp, s.aperiodic), share(s.combFound, s.combTruth)}
}

// TestAccuracy scores stampede's period detector and the naive ACF-argmax
// baseline on the same labelled traces, prints the table, and holds
// stampede to the acceptance thresholds:
//   - >= 4 waves: period within max(2%, one bin) in >= 95% of traces;
//   - aperiodic: no period on >= 98%;
//   - the intra-wave retry-after spacing reported when present (>= 90%).
//
// Enlarge the run with -accuracy.traces=N or STAMPEDE_ACCURACY_TRACES=N.
func TestAccuracy(t *testing.T) {
	racedetect.SkipResultsTest(t)
	n := *accuracyTraces
	if v, err := strconv.Atoi(os.Getenv("STAMPEDE_ACCURACY_TRACES")); err == nil && v > 0 {
		n = v
	}
	if testing.Short() {
		n = min(n, 60)
	}
	indices := make([]int, 0, n)
	for i := range n {
		indices = append(indices, i)
	}
	if *accuracyOnly != "" {
		indices = indices[:0]
		for _, f := range strings.Split(*accuracyOnly, ",") {
			i, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || i < 0 {
				t.Fatalf("-accuracy.only: %q is not a trace index", f)
			}
			indices = append(indices, i)
		}
	}
	n = len(indices)
	detectors := []detector{stampedeDetector, naiveDetector}
	scores := make([]score, len(detectors))
	for i := range scores {
		scores[i].fpByKind = map[string]int{}
		scores[i].bySource = map[string]int{}
	}
	verdicts := make([][]verdict, n)
	traces := make([]labelled, n)
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				l := labelledTrace(indices[i])
				vs := make([]verdict, len(detectors))
				for d, det := range detectors {
					vs[d] = det.run(l.tl, uint64(indices[i]))
				}
				l.tl = nil // keep memory flat on large runs
				traces[i], verdicts[i] = l, vs
			}
		}()
	}
	wg.Wait()
	for i := range traces {
		for d := range detectors {
			scores[d].add(indices[i], traces[i], verdicts[i][d])
		}
	}

	var b strings.Builder
	header := []string{"detector", "recall >=4 waves", "recall 3 waves", "precision", "median err", "p95 err", "aperiodic FP", "comb reported"}
	rows := [][]string{header}
	for d, det := range detectors {
		rows = append(rows, scores[d].row(det.name))
	}
	widths := make([]int, len(header))
	for _, r := range rows {
		for c, cell := range r {
			widths[c] = max(widths[c], len([]rune(cell)))
		}
	}
	for ri, r := range rows {
		b.WriteString("|")
		for c, cell := range r {
			fmt.Fprintf(&b, " %-*s |", widths[c], cell)
		}
		b.WriteString("\n")
		if ri == 0 {
			b.WriteString("|")
			for c := range r {
				b.WriteString(strings.Repeat("-", widths[c]+2) + "|")
			}
			b.WriteString("\n")
		}
	}
	st := &scores[0]
	fmt.Fprintf(&b, "%d traces: %d periodic with >= 4 waves, %d with 3, %d aperiodic (%d with a visible retry-after comb)\n",
		n, st.periodic4, st.periodic3, st.aperiodic, st.combTruth)
	fmt.Fprintf(&b, "stampede: right periods by candidate source %v; comb reported on %s of %d periodic traces with one attempt per call\n",
		st.bySource, share(st.combFalse, st.noComb), st.noComb)
	for d, det := range detectors {
		if len(scores[d].fpByKind) > 0 {
			fmt.Fprintf(&b, "%s false positives by family: %v\n", det.name, scores[d].fpByKind)
		}
	}
	t.Log("\n" + b.String())
	for _, m := range st.misses {
		t.Log(m)
	}

	if got := frac(st.hit4, st.periodic4); got < 0.95 {
		t.Errorf("period right on %.1f%% of traces with >= 4 waves, want >= 95%%", 100*got)
	}
	if got := frac(st.aperiodic-st.fp, st.aperiodic); got < 0.98 {
		t.Errorf("no period on %.1f%% of aperiodic traces, want >= 98%%", 100*got)
	}
	if got := frac(st.combFound, st.combTruth); got < 0.9 {
		t.Errorf("retry-after comb reported on %.1f%% of traces that have one, want >= 90%%", 100*got)
	}
}

func frac(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// TestAccuracyCases pins traces of the accuracy streams that the detector
// once got wrong, each for the reason named, so that a change that fixes
// one kind of miss cannot quietly bring back another.
func TestAccuracyCases(t *testing.T) {
	tests := []struct {
		name   string
		stream uint64
		trace  int
	}{
		{"two attempts 19.2 s apart in a 40.7 s period, sizes stepping under their noise", 1915, 36},
		{"two attempts, short storm: sizes a little less alike than the bar, gaps split cleanly", 1915, 66},
		{"whole seconds, three waves and a fourth of a few calls where the grid says it is due", 2012, 135},
		{"one burst a wave whose rounding alternates one and two: no pairs, no doubled period", 2001, 142},
		{"random bursts on a 63 s grid whose comb retry outnumbers its wave", 1924, 24},
		{"random bursts merged into clumps of 140-380 s on a 606 s grid", 1921, 154},
		{"four attempts 5 s apart filling the period, every fourth gap 2 s longer", 3005, 171},
		{"four attempts 5 s apart filling the period, sizes stepping three times their noise", 1981, 251},
		{"two attempts half the period apart on the wire: read from the pairs, not as runs of six", 2007, 202},
		{"four attempts 15.3 s apart in a 159 s period: a third of the comb's spacing is no comb", 3023, 42},
		{"two attempts, a grid through the retries taking in a background clump of three", 3024, 236},
		{"three attempts 60 s apart merged into 120 s waves over a busy background: the wire's retry-after keeps the comb", 1968, 21},
		{"one attempt, whole seconds: four waves of 65 to 6 calls on a 6.7 s grid, the ACF at 0.68 of its threshold", 1953, 267},
		{"one attempt, whole seconds: four waves on a 19.6 s grid, the ACF at 0.55 of its threshold", 3006, 210},
		{"one attempt, ten waves decaying by 0.95: neighbours alike at every burst are no pairs, no doubled period", 3106, 191},
		{"one attempt, seven waves decaying by 0.96 with noise that pairs them: no doubled period", 3176, 120},
		{"two attempts, whole seconds: the throttling after the bursts keeps to a grid 1.6% longer than the ACF's lag", 3141, 82},
		{"one attempt, two bursts 66.7 s apart with the ACF at twice its threshold: the third wave is found where it is due", 1985, 76},
		{"three attempts, two bursts 51.1 s apart over a busy background: the third wave is found where it is due", 1984, 36},
		{"four attempts 5 s apart, whole seconds: late waves split where an attempt was too small to find", 3219, 105},
		{"four attempts 5 s apart, whole seconds: the third wave lost its first attempt", 1944, 262},
		{"four attempts 21 s apart in a 193 s period: the shortest third of the gaps between groups is no period", 3064, 245},
		{"three attempts 5 s apart, whole seconds: merged in some waves and apart in others, the waves compared whole", 1988, 20},
		{"random bursts of 172, 167 and 167 calls 142.4 and 142.6 s apart, two thirds of each succeeding", 3097, 234},
		{"random bursts 60-400 s wide on a 661 s grid, each larger than the failures before it", 3049, 224},
		{"random bursts 150-270 s wide on a 374 s grid, each larger than the failures before it", 3085, 34},
		{"one attempt, a background clump of three on the grid before the storm's first wave of 287", 3036, 297},
		{"three attempts merged into 105 s waves over 1/s of background, a late wave's size as noisy as the background", 3044, 37},
		{"one attempt, twelve waves: the eleventh's burst found 2.5 s after its first requests, their failures still its own", 5035, 37},
		{"four attempts, five waves: random placements match the grid in over 5% but under 15%, and the waves replay their failures", 3012, 51},
		{"four attempts, seven waves with stray comb bursts beside them: random placements match in over 5% but under 15%", 5018, 125},
		{"random bursts: three alone on a 191 s grid, the middle one 4.4 s from halfway where its spread explains 0.12 s", 5011, 164},
		{"full-jitter backoff: a herd's burst of 144 and two clumps of 9 and 3 on a 10 s grid", 5090, 43},
		{"one attempt, whole seconds: three waves of 64 to 13 calls 115 s apart, the ACF at 0.83 of its threshold, the middle 0.27 s from halfway", 5043, 195},
		{"one attempt, whole seconds: three waves of 80 to 16 calls 272 s apart, the ACF at 0.79 of its threshold", 5043, 315},
		{"random bursts of 106, 9, 38 and 5 calls on a 150 s grid, three periods in a row only through the clump of 9", 6088, 14},
		{"one attempt, whole seconds: three waves 7.7 s apart, the middle's place too coarse alone, the fourth's few calls where the grid puts it", 1972, 185},
		{"four attempts 5 s apart merged into waves about 17 s wide on a 30 s grid: three spacings are each wave's own", 3048, 41},
		{"one attempt, whole seconds: three waves 22.6 s apart, 4% of places as close, the fourth's 8 arrivals where background brings 3.2", 3061, 100},
		{"random bursts: three of five on a 297 s grid under an ACF twice its threshold, the middle 8.2 s from halfway where its spread explains 0.24 s", 8044, 254},
		{"two attempts 6 s apart, whole seconds: the first, second and fourth waves on a 21.4 s grid, the third's attempts merged off it", 8024, 121},
		{"four attempts 28.8 s apart merged into 87 s waves, the fourth wave 31 s wide: its start keeps to the grid, its centre does not", 8084, 157},
		{"three attempts 7 s apart, whole seconds: a fourth wave of 10 calls, 4 s wide beside waves of 14 s, starting on the grid", 8053, 212},
		{"one attempt, whole seconds: three waves 7.5 s apart under an ACF at 0.78 of its threshold, every task back 7.5 s after its last try", 8046, 120},
		{"one attempt, whole seconds: three waves 82.5 s apart, the ACF just short of its threshold, every task back 82.5 s after its last try", 12002, 131},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := labelledTraceOf(tc.stream, tc.trace)
			v := stampedeDetector.run(l.tl, uint64(tc.trace))
			tol := math.Max(0.02*l.period, l.bin)
			if l.period == 0 {
				if v.found {
					t.Errorf("%s: period %.2f s, want none (%s)", l.desc, v.period, v.why)
				}
				return
			}
			if !v.found || math.Abs(v.period-l.period) > tol {
				t.Errorf("%s: found %v, period %.2f s, want %.2f s ± %.2f (%s)", l.desc, v.found, v.period, l.period, tol, v.why)
			}
		})
	}
}
