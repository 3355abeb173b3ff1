package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stampede/stampede/timeline"
)

// Options tune the analyses; the zero value picks everything automatically.
type Options struct {
	// BinWidth is the width of the bins the wave series is counted in;
	// 0 follows the timestamp resolution (1 s or 100 ms).
	BinWidth time.Duration
	// Seed drives the shuffles of the surrogate significance test, so the
	// same input and seed give the same result.
	Seed uint64
	// MinLag is the shortest period considered; 0 means max(3 bins, 2 s).
	MinLag time.Duration
	// Align shifts each log whose clock reliably differs from the access
	// log's by the estimated offset before the other analyses run.
	Align bool
}

// Run analyses a timeline. It is a pure function of tl and opt: tl is only
// read, and the Result owns no memory shared with it. The caveats the
// analyses meet (join coverage, missing logs, too few periods, skipped lines)
// are collected in Result.Warnings; Reconcile, Amplify and FindWaves called
// on their own leave them out.
func Run(tl *timeline.Timeline, opt Options) *Result {
	res := &Result{SchemaVersion: SchemaVersion, Findings: []string{}, Warnings: []string{}}
	counts := countEvents(tl)
	res.Window = counts.window()
	res.Inputs, res.InputsBound = inputs(tl)
	for _, in := range res.Inputs {
		if in.Skipped > 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s lines skipped in %s (of %s)", count(in.Skipped), in.Path, count(in.Lines)))
		}
		res.Warnings = append(res.Warnings, shortenedWarnings(in)...)
		if in.Duplicates > 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s events in %s repeat another input's (the same file given twice, rotated files that overlap, or a second log format of the same requests); they are counted once", count(in.Duplicates), in.Path))
		}
	}
	// The analyses only read the timeline and the joins, so those that do
	// not feed each other run at once: clocks beside clients and the joins,
	// then the reconciliation and amplification beside the wave search.
	// Each keeps its own warnings, added in one fixed order.
	var wg sync.WaitGroup
	var clientsDone sync.WaitGroup
	counted := counts.observers(tl)
	startClients := func(tl *timeline.Timeline) {
		goOrNow(&clientsDone, func() {
			// Clients read no times, so the aligned copy gives the same.
			res.Clients, res.ClientsBound = clients(tl, counted)
		})
	}
	if !opt.Align {
		startClients(tl)
	}
	res.Clocks = EstimateClocks(tl)
	if opt.Align {
		if aligned := alignClocks(tl, res.Clocks); aligned != tl {
			tl = aligned
			counts = countEvents(tl)
			res.Window = counts.window()
		}
		startClients(tl)
	}
	clockWarned := clockWarnings(res.Clocks)
	res.Clocks, res.ClocksBound = foldClocks(res.Clocks)
	goOrNow(&wg, func() {
		res.Series = accumulate(tl, func() *seriesCounts { return newSeriesCounts(res.Window) }).finalize()
	})
	j := buildJoinsWith(tl, counts)
	// Each analysis reads a copy of the joins and lets go of it when done,
	// and the wave search of each part once it has read it for the last
	// time: a slice's memory goes back when no copy holds it, before the
	// wave search's last passes over the attempts need room. j itself is
	// not read again.
	joinWarnings := j.warnings
	reconciled, amplified, waved := *j, *j, *j
	reconciled.warnings, amplified.warnings, waved.warnings = nil, nil, nil
	goOrNow(&wg, func() {
		res.Reconcile = reconcile(&reconciled)
		reconciled.drop()
	})
	goOrNow(&wg, func() {
		res.Amplification = amplify(&amplified)
		amplified.drop()
	})
	res.Waves = findWaves(&waved, opt, true)
	clientsDone.Wait()
	attributeSDK(&res.Waves, res.Clients)
	wg.Wait()
	res.Warnings = append(res.Warnings, joinWarnings...)
	res.Warnings = append(res.Warnings, reconciled.warnings...)
	res.Warnings = append(res.Warnings, amplified.warnings...)
	res.Warnings = append(res.Warnings, waved.warnings...)
	res.Warnings = append(res.Warnings, waveWarnings(&res.Waves, res.Window.Duration)...)
	res.Warnings = append(res.Warnings, clockWarned...)
	res.Findings = findings(res)
	return res
}

// inputs accounts for each file, at most maxInputRows rows: a directory
// of many thousand logs keeps a report of bounded size, its last row
// adding up the files past the others.
func inputs(tl *timeline.Timeline) ([]Input, TableBound) {
	out := make([]Input, 0, min(len(tl.Sources), maxInputRows))
	bound := TableBound{Rows: maxInputRows}
	var other *timeline.Source
	var samples []SkipSample
	for i := range tl.Sources {
		s := &tl.Sources[i]
		if i < maxInputRows-1 || len(tl.Sources) == maxInputRows {
			out = append(out, input(s))
			continue
		}
		if other == nil {
			other = &timeline.Source{Path: otherInputs}
		}
		bound.Folded++
		foldSource(other, s)
		// The row's samples name their own files.
		for _, sk := range s.Samples {
			if len(samples) < timeline.MaxSkipSamples {
				samples = append(samples, SkipSample{Position: fmt.Sprintf("%s:%d", s.Path, sk.Line), Reason: sk.Reason})
			}
		}
	}
	if other != nil {
		in := input(other)
		in.Samples = samples
		out = append(out, in)
	}
	return out, bound
}

const (
	maxInputRows = 100
	otherInputs  = "other inputs"
)

func input(s *timeline.Source) Input {
	in := Input{Path: s.Path, Format: s.Format, Lines: s.Lines, Parsed: s.Parsed, Skipped: s.Skipped, Events: s.Events,
		Duplicates: s.Duplicates, SkippedBy: []SkipReason{},
		Shortened:      ShortenedLabels{Routes: s.Shortened.Routes, UserAgents: s.Shortened.Clients, ErrorCodes: s.Shortened.ErrorCodes},
		SkippedByBound: TableBound{Rows: timeline.MaxSkipReasons, Counted: timeline.MaxSkipReasons - 1, Uncounted: s.FoldedReasons, UncountedAtLeast: s.FoldedReasonsAtLeast}}
	for reason, n := range s.Reasons {
		in.SkippedBy = append(in.SkippedBy, SkipReason{Reason: reason, Lines: n})
	}
	slices.SortFunc(in.SkippedBy, func(a, b SkipReason) int {
		// The row for the rest goes last, whatever its count.
		return cmp.Or(cmp.Compare(boolRank(a.Reason == timeline.OtherReasons), boolRank(b.Reason == timeline.OtherReasons)),
			cmp.Compare(b.Lines, a.Lines), cmp.Compare(a.Reason, b.Reason))
	})
	for _, sk := range s.Samples {
		in.Samples = append(in.Samples, SkipSample{Position: fmt.Sprintf("%s:%d", s.Path, sk.Line), Reason: sk.Reason})
	}
	return in
}

// foldSource adds s's accounting into other, the row of the inputs past
// maxInputRows.
func foldSource(other, s *timeline.Source) {
	other.Lines += s.Lines
	other.Parsed += s.Parsed
	other.Skipped += s.Skipped
	other.Events += s.Events
	other.Duplicates += s.Duplicates
	for _, k := range timeline.LabelKinds {
		*other.Shortened.Of(k) += *s.Shortened.Of(k)
	}
	other.AddReasons(s)
}

// shortenedWarnings say, per kind of label, how many of an input's events
// hold a shortened one.
func shortenedWarnings(in Input) []string {
	var out []string
	for _, k := range []struct {
		n         int64
		one, many string
	}{{in.Shortened.Routes, "route", "routes"}, {in.Shortened.UserAgents, "User-Agent", "User-Agents"}, {in.Shortened.ErrorCodes, "error code", "error codes"}} {
		if k.n == 0 {
			continue
		}
		held := plural(k.n, "the "+k.one+" of 1 event is", fmt.Sprintf("the %s of %s events are", k.many, count(k.n)))
		out = append(out, fmt.Sprintf("%s: more than %s distinct %s in the inputs: %s kept shortened, each word holding a digit written as %s, so that memory does not grow with them",
			in.Path, count(timeline.MaxVerbatimLabels), k.many, held, timeline.ShortLabel))
	}
	return out
}

func waveWarnings(w *Waves, duration float64) []string {
	var out []string
	switch {
	case w.BestLag > 0 && w.ACF > w.Threshold && (len(w.Waves) < 3 || duration < 3*w.BestLag):
		out = append(out, fmt.Sprintf("fewer than 3 periods observed: a %s repeat over %s with %d waves", secs(w.BestLag), secs(duration), len(w.Waves)))
	case !w.Periodic && len(w.Waves) > 0 && len(w.Waves) < 3:
		out = append(out, fmt.Sprintf("fewer than 3 periods observed: only %d %s, too few to tell whether they repeat", len(w.Waves), plural(int64(len(w.Waves)), "burst", "bursts")))
	}
	if w.Periodic && len(w.Suspects) == 0 {
		if w.OnGrid <= w.MinRepeats {
			// Three bursts at one spacing and nothing else is what a short
			// storm looks like, and what bursts at random times sometimes
			// make: the trace cannot tell the two apart.
			out = append(out, fmt.Sprintf("the period rests on %d waves on its grid, the fewest that make one, and matches no measured delay: bursts at unrelated times can line up this well, so check it against the retry and requeue settings", w.OnGrid))
		} else {
			out = append(out, "the period matches no measured delay: requeue or SDK retry delays could not be measured, or another layer sets the pace")
		}
	}
	return out
}

// findings are the headline sentences, most important first.
func findings(r *Result) []string {
	var out []string
	rc := r.Reconcile
	if len(rc.Explanation) > 0 {
		out = append(out, rc.Explanation[0])
	}
	if a := r.Amplification; len(a.Layers) == 1 && a.Layers[0].Method == methodNoCalls {
		if n := a.UnsplitTaskAttempts; n > 0 {
			out = append(out, fmt.Sprintf("Amplification could not be measured: %s attempts carry a task id, but no call id or attempt number, so a task's attempts cannot be split into calls and queue attempts.", count(n)))
		} else {
			out = append(out, "Amplification could not be measured: the logs carry no call id, attempt number or task id.")
		}
	} else if len(a.Layers) > 0 && a.Product > 0 {
		est := ""
		if !a.Exact {
			est = "an estimated "
		}
		s := "Retry layers multiplied each task into " + est + num(a.Product) + " attempts ("
		for i, l := range a.Layers {
			if i > 0 {
				s += " x "
			}
			s += num(l.Mean) + " " + l.Name
		}
		s += ")"
		if a.Tasks > 0 {
			s += fmt.Sprintf(": %s attempts for %s tasks, %s of them successful", count(a.Requests), count(a.Tasks), count(a.Billed))
		}
		var uncapped, capped []string
		for _, l := range a.Layers {
			switch {
			case l.Capped && l.Cap > 0 && l.Units > 0 && int64(l.Max) < l.Cap:
				// No unit reached the cap: it stopped nothing.
				capped = append(capped, fmt.Sprintf("%s never reached their cap of %d", l.Name, l.Cap))
			case l.Capped:
				capped = append(capped, fmt.Sprintf("%s capped at %d", l.Name, l.Cap))
			case l.Exact && l.Units > 0 && l.Max > 1 && l.GiveUpRate < 0.5:
				uncapped = append(uncapped, l.Name)
			}
		}
		if len(uncapped) > 0 {
			s += fmt.Sprintf("; no cap stopped the %s", joinWords(uncapped, "or"))
		}
		if len(capped) > 0 {
			s += "; " + joinWords(capped, "and")
		}
		out = append(out, s+".")
	}
	w := r.Waves
	switch {
	case w.Periodic && len(w.Suspects) > 0:
		out = append(out, fmt.Sprintf("Retries arrived in periodic waves: %s (%s).", w.Suspects[0].Text, w.periodEvidence()))
	case w.Periodic && w.UnseenDelay > 0:
		out = append(out, fmt.Sprintf("Retries arrived in periodic waves every %s (%s): failed calls made one attempt, so the SDK adds nothing to it, and %s of it lies between a failed call's end and its task's next call, which no log given shows (where a job runner's requeue delay would be; its log would time it).",
			secs(w.Period), w.periodEvidence(), secs(w.UnseenDelay)))
	case w.Periodic:
		out = append(out, fmt.Sprintf("Retries arrived in periodic waves every %s (%s), but no measured delay adds up to it.",
			secs(w.Period), w.periodEvidence()))
	case w.BestLag > 0 && w.Rejected == rejectedOutlasted && w.BurstsStopped != nil && len(w.Waves) > 0:
		acf, thr := numPair(w.ACF, w.Threshold)
		class := "attempts"
		if strings.HasPrefix(w.Series, "batch ") {
			class = "batch attempts"
		}
		span := secs(w.BurstsStopped.Sub(w.Waves[0].Start).Seconds())
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s (ACF %s, shuffled-data threshold %s), holds %d of %s on its grid, but the throttling went on without them, and off their grid: %s %s were throttled in the %s from %s after the bursts stopped at %s, against %s in the %s the bursts took. A fixed delay's waves last as long as the throttling, so these bursts were one synchronised start retried at that spacing, as an exactly honoured retry-after does, and the rest of the storm was spread out.",
			secs(w.BestLag), acf, thr, w.OnGrid, burstCount(len(w.Waves)), count(w.ThrottledAfterBursts), class, span, secs(w.BestLag),
			w.BurstsStopped.Format("15:04:05"), count(w.ThrottledDuringBursts), span))
	case w.BestLag > 0 && w.Rejected == rejectedUnfailed && len(w.Outgrown) == 2:
		acf, thr := numPair(w.ACF, w.Threshold)
		side := "not above"
		if w.ACF > w.Threshold {
			side = "above"
		}
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s, has ACF %s, %s the shuffled-data threshold of %s, and %d bursts on its grid, but a burst of %s on it follows a period in which only %s %s failed: a fixed delay sends again only what failed, so these bursts are not one storm's waves replayed.",
			secs(w.BestLag), acf, side, thr, w.OnGrid, count(w.Outgrown[1]), count(w.Outgrown[0]), "attempts"))
	case w.BestLag > 0 && w.Rejected == rejectedUneven:
		acf, thr := numPair(w.ACF, w.Threshold)
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s, has ACF %s, above the shuffled-data threshold of %s, but only three bursts keep to it, and the middle one sits %s from where the period puts it between the others, %s times the %s its waves' spread explains: a fixed delay puts it there, bursts at random times anywhere near.",
			secs(w.BestLag), acf, thr, secs(w.MidwayOffset), num(w.MidwayOffset/w.MidwayError), secs(w.MidwayError)))
	case w.BestLag > 0 && w.Rejected == rejectedSkipped && w.Skipped != nil:
		acf, thr := numPair(w.ACF, w.Threshold)
		side := "not above"
		if w.ACF > w.Threshold {
			side = "above"
		}
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s, has ACF %s, %s the shuffled-data threshold of %s, and %d of %s on its grid, but the wave at %s had %s throttled attempts and no burst came a period later: the next wave on the grid came %s after it. A fixed delay sends every throttled call again one period on, so %s is not the delay the retries waited; runs of bursts this short between empty grid points are the attempts of single calls, one SDK retry delay apart.",
			secs(w.BestLag), acf, side, thr, w.OnGrid, burstCount(len(w.Waves)), w.Skipped.Wave.Format("15:04:05"), count(w.Skipped.Throttled),
			secs(w.Skipped.NextAfter), secs(w.BestLag)))
	case w.BestLag > 0 && w.ACF > w.Threshold && w.Rejected == rejectedWide:
		acf, thr := numPair(w.ACF, w.Threshold)
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s, has ACF %s, above the shuffled-data threshold of %s, and %d bursts on its grid, but they are wide and unlike in width, as bursts run together are, and three such line up by chance too often.",
			secs(w.BestLag), acf, thr, w.OnGrid))
	case w.BestLag > 0 && w.ACF > w.Threshold && w.Rejected == rejectedOverlap:
		acf, thr := numPair(w.ACF, w.Threshold)
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s, has ACF %s, above the shuffled-data threshold of %s, and %d bursts on its grid, but one of them lasts longer than %s, so it would run into the next: bursts run together, not waves.",
			secs(w.BestLag), acf, thr, w.OnGrid, secs(w.BestLag)))
	case w.BestLag > 0 && w.ACF > w.Threshold && w.Rejected == rejectedScattered:
		acf, thr := numPair(w.ACF, w.Threshold)
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s, has ACF %s, above the shuffled-data threshold of %s, and %d bursts on its grid, but at most %d periods in a row hold one (%d are needed): a fixed delay's waves come every period until the storm ends.",
			secs(w.BestLag), acf, thr, w.OnGrid, w.GridRun, w.MinRepeats))
	case w.BestLag > 0 && w.ACF > w.Threshold && w.Rejected == rejectedGrowth && len(w.Outgrown) == 2:
		acf, thr := numPair(w.ACF, w.Threshold)
		bound := fmt.Sprintf("more than %d times as many", survivorGrowth)
		if allowedGrowth(w.ACF, w.Threshold) < survivorGrowth {
			bound = fmt.Sprintf("more than counting noise allows where the ACF is at most %s times its threshold", num(strongGridACF))
		}
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s, has ACF %s, above the shuffled-data threshold of %s, and %d bursts on its grid, but a burst of %s on it follows one of %s, %s: a storm's retries are what its earlier waves left, so bursts that grow like this lined up by chance.",
			secs(w.BestLag), acf, thr, w.OnGrid, count(w.Outgrown[1]), count(w.Outgrown[0]), bound))
	case w.BestLag > 0 && w.ACF > w.Threshold && w.Rejected == rejectedRetries && len(w.Outgrown) == 2:
		acf, thr := numPair(w.ACF, w.Threshold)
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s, has ACF %s, above the shuffled-data threshold of %s, and %d bursts on its grid, but a burst of %s that would be a wave's retry follows a wave of %s: a wave's retries are its failed calls again and never outnumber it, so these bursts lined up by chance.",
			secs(w.BestLag), acf, thr, w.OnGrid, count(w.Outgrown[1]), count(w.Outgrown[0])))
	case w.BestLag > 0 && w.ACF > w.Threshold && w.Rejected == rejectedChance && w.GridChance != nil:
		acf, thr := numPair(w.ACF, w.Threshold)
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s, has ACF %s, above the shuffled-data threshold of %s, and %d of %s on its grid, but bursts at random times line up as well in %s of tries (at most %s allowed).",
			secs(w.BestLag), acf, thr, w.OnGrid, burstCount(len(w.Waves)), pct(*w.GridChance), pct(w.MaxGridChance)))
	case w.BestLag > 0 && w.ACF > w.Threshold:
		// The repeat is significant, but the bursts do not keep to it.
		acf, thr := numPair(w.ACF, w.Threshold)
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s, has ACF %s, above the shuffled-data threshold of %s, but only %d of %s sit on its grid (%d, and half of them, are needed).",
			secs(w.BestLag), acf, thr, w.OnGrid, burstCount(len(w.Waves)), w.MinRepeats))
	case w.BestLag > 0:
		acf, thr := numPair(w.ACF, w.Threshold)
		out = append(out, fmt.Sprintf("No periodic waves: the best repeat, %s, has ACF %s, not above the shuffled-data threshold of %s, %s.",
			secs(w.BestLag), acf, thr, overBursts(len(w.Waves))))
	case w.Bins > 0 && float64(w.Bins)*w.BinWidth < 2*w.MinLag:
		out = append(out, fmt.Sprintf("No periodic waves: %s span only %s, too short to hold a repeat of at least %s.",
			w.Series, secs(float64(w.Bins)*w.BinWidth), secs(w.MinLag)))
	case w.Bins > 0:
		out = append(out, fmt.Sprintf("No periodic waves: the %s show no repeat between %s and half the window (%s).",
			w.Series, secs(w.MinLag), secs(float64(w.Bins)*w.BinWidth/2)))
	}
	if len(w.Groups) > 1 {
		out = append(out, groupFinding(w.Groups))
	} else if f, ok := unperiodicFixedRequeue(w); ok {
		out = append(out, f)
	}
	if w.Periodic && len(w.Waves) >= 3 {
		s := fmt.Sprintf("%d waves of %s", len(w.Waves), w.Series)
		s += fmt.Sprintf(", from %s down to %s", count(w.Waves[0].Size), count(w.Waves[len(w.Waves)-1].Size))
		if w.DecayRatio > 0 {
			s += fmt.Sprintf(", each about %s of the one before (geometric fit, R² %s)", num(w.DecayRatio), num(w.DecayR2))
		}
		if w.BurstsStopped != nil {
			s += "; the bursts stopped at " + w.BurstsStopped.Format("15:04:05")
		}
		if w.IntraWaveSpacing > 0 {
			s += fmt.Sprintf("; inside each wave retries repeat every %s", secs(w.IntraWaveSpacing))
		}
		if w.FirstWaveGap > 0 {
			s += fmt.Sprintf("; the first wave came %s before the next on the grid, %s, as its failed calls took %s than the later waves'",
				secs(w.FirstWaveGap), periodAnd(w.FirstWaveGap, w.Period), longerOrShorter(w.FirstWaveCallDifference))
			if w.FirstWaveCallDifference > 0 {
				s += " (more retries before a client-wide retry quota ran out, or slower answers to the first wave's load)"
			}
		}
		out = append(out, s+".")
	}
	if s := interactiveFinding(&w); s != "" {
		out = append(out, s)
	}
	// The client whose policy can synchronise retries, when it was
	// throttled: the knob a user turns next.
	for _, c := range r.Clients {
		if c.Synchronising && c.Throttled > 0 {
			out = append(out, fmt.Sprintf("The client %s (%s of %s attempts throttled).", clientPolicy(r, c), count(c.Throttled), count(c.Attempts)))
			break
		}
	}
	return out
}

// clientPolicy is the client's policy as its finding states it. Where it
// is the only client and its calls' attempts were counted, calls that made
// more or fewer attempts than its default say it was configured so; with
// one attempt it retries nothing and so synchronises nothing itself.
func clientPolicy(r *Result, c Client) string {
	if len(r.Clients) != 1 || c.MaxAttempts <= 0 || len(r.Amplification.Layers) == 0 {
		return c.Policy
	}
	l := r.Amplification.Layers[0]
	seen := int(l.Max)
	if l.Name != layerAttempts || !l.Exact || l.Units == 0 || seen == c.MaxAttempts || seen < 1 {
		return c.Policy
	}
	name := c.sdkName()
	switch {
	case seen == 1:
		return fmt.Sprintf("%s makes %d attempts per call by default and %s, but no call here made more than one: it was configured not to retry, so none of the waves is its doing", name, c.MaxAttempts, c.RetryAfter)
	case seen < c.MaxAttempts:
		return fmt.Sprintf("%s, but no call here made more than %d attempts: it was configured to fewer", c.Policy, seen)
	}
	return fmt.Sprintf("%s, but calls here made up to %d attempts: it was configured to more", c.Policy, seen)
}

// periodAnd says how a gap compares with the period: "a period and 1.03 s"
// or "0.73 s short of a period".
func periodAnd(gap, period float64) string {
	if gap >= period {
		return "a period and " + secs(gap-period)
	}
	return secs(period-gap) + " short of a period"
}

// longerOrShorter says a difference in time as "1.29 s longer" or
// "0.73 s less".
func longerOrShorter(d float64) string {
	if d >= 0 {
		return secs(d) + " longer"
	}
	return secs(-d) + " less"
}

// joinWords lists items as "a, b or c".
func joinWords(items []string, conj string) string {
	s := ""
	for i, it := range items {
		switch {
		case i == 0:
		case i == len(items)-1:
			s += " " + conj + " "
		default:
			s += ", "
		}
		s += it
	}
	return s
}

// periodEvidence says, for a periodic result, what made the period.
func (w *Waves) periodEvidence() string {
	if w.PeriodEvidence == evidenceGrid {
		acf, thr := numPair(w.ACF, w.Threshold)
		three := ","
		switch {
		case w.MidwayError > 0 && w.GridChance != nil && w.NextWaveChance != nil:
			three = fmt.Sprintf(", the middle one as close to halfway between the others as %s of places between them would put bursts at random times, and %d arrivals where the grid puts the next wave against %s from background, as many as background alone brings in %s of tries (both together: %s),",
				pct(w.MidwayChance), w.NextWaveArrivals, num(w.NextWaveExpected), pct(*w.NextWaveChance), pct(*w.GridChance))
		case w.MidwayError > 0 && w.GridChance != nil && w.TaskRhythm != nil:
			r := w.TaskRhythm
			three = fmt.Sprintf(", the middle one as close to halfway between the others as %s of places between them would put bursts at random times, and the tasks' queue attempts coming back %s apart (%s to %s, %d gaps), as close to the period as %s of spacings would come (both together: %s),",
				pct(w.MidwayChance), secs(r.Spacing), secs(r.Low), secs(r.High), r.Gaps, pct(r.Chance), pct(*w.GridChance))
		case w.MidwayError > 0 && w.GridChance != nil:
			three = fmt.Sprintf(", the middle one as close to halfway between the others as only %s of places between them would put bursts at random times,", pct(*w.GridChance))
		}
		if w.CombBursts > 0 {
			return fmt.Sprintf("all %d waves on its grid, the %d other bursts their retries %s apart, while the ACF, %s, is under the shuffled-data threshold of %s that a series of %d bins sets", w.OnGrid, w.CombBursts, secs(w.IntraWaveSpacing), acf, thr, w.Bins)
		}
		return fmt.Sprintf("all %d bursts on its grid%s while the ACF, %s, is under the shuffled-data threshold of %s that a series of %d bins sets", w.OnGrid, three, acf, thr, w.Bins)
	}
	return fmt.Sprintf("ACF %s, %s x the shuffled-data threshold", num(w.ACF), num(w.Significance))
}

func burstCount(n int) string {
	if n == 1 {
		return "1 burst"
	}
	return fmt.Sprintf("%d bursts", n)
}

func overBursts(n int) string {
	if n == 0 {
		return "with no burst standing out of the background"
	}
	return "over " + burstCount(n)
}

// unperiodicFixedRequeue is the finding for a job runner whose requeue
// delay was fixed where no period was found: the delay that lines a storm
// up is there, and the bursts' own spacing says why no one period held
// (the AWS SDKs' retry quota running out mid-storm, a concurrency limit).
// Without it, "no period" would read as "no fixed delay".
func unperiodicFixedRequeue(w Waves) (string, bool) {
	d, ok := delayOf(w.Delays, kindRequeue)
	if w.Periodic || !ok || !d.Fixed || d.N < minFixedRequeueGaps {
		return "", false
	}
	s := fmt.Sprintf("The job runner's requeue delay was fixed all the same: %s over %s gaps", secsSpread(d.Mean, d.Sigma), count(d.N))
	if len(w.Waves) >= 3 {
		var gaps []float64
		var listed []string
		for i := 1; i < len(w.Waves); i++ {
			gaps = append(gaps, w.Waves[i].Start.Sub(w.Waves[i-1].Start).Seconds())
			if i <= maxListedGaps {
				listed = append(listed, secs(gaps[i-1]))
			}
		}
		more := ""
		if len(gaps) > maxListedGaps {
			more = ", …"
		}
		if lo, hi := slices.Min(gaps), slices.Max(gaps); hi-lo > max(0.1*hi, 2*w.BinWidth) {
			s += fmt.Sprintf(", though the bursts kept no one spacing (they began %s%s apart)", joinWords(listed, "and"), more)
		} else {
			s += fmt.Sprintf("; the bursts began %s%s apart", joinWords(listed, "and"), more)
		}
	}
	return s + ". A fixed requeue delay sends the tasks that fail together back together; jitter spreads them.", true
}

const (
	// minFixedRequeueGaps is the fewest requeue gaps that name a fixed
	// requeue delay where no period was found.
	minFixedRequeueGaps = 10
	// maxListedGaps is how many gaps between bursts a finding lists.
	maxListedGaps = 8
)
