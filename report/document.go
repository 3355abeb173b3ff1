package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede/stampede/analyze"
)

// document is a Result laid out for reading: sections of sentences, facts
// and tables whose every cell is already formatted. The table and Markdown
// renderers share it, so both show the same content; each applies its own
// escaping to every string, since any of them may come from a log.
type document struct {
	title    string
	facts    []fact
	findings []string
	// charts are image files written beside a Markdown report.
	charts   []chartLink
	sections []section
}

// chartLink is a chart file, relative to the report, and its caption.
type chartLink struct{ file, title string }

type section struct {
	title  string
	blocks []block
}

// block is one of: sentences (text), a bulleted list (items), key/value
// facts, or a table. label, when set, introduces it.
type block struct {
	label string
	text  []string
	items []string
	facts []fact
	table *grid
	// evidence is what a finding or a table rests on rather than what it
	// says: long per-layer reasoning, distributions, the autocorrelation's
	// test, how records were joined. The terminal shows it with --verbose
	// only, so the default report reads findings, then compact tables;
	// Markdown and HTML, written for an incident document, show it all.
	evidence bool
}

type fact struct{ key, value string }

// grid is a table; numeric columns are right-aligned.
type grid struct {
	header  []string
	numeric []bool
	// optional columns repeat what others say; a narrow terminal drops
	// them first.
	optional []bool
	rows     [][]string
}

func newGrid(columns ...string) *grid {
	g := &grid{}
	for _, c := range columns {
		// A leading '?' marks an optional column, then '#' a numeric one.
		opt := strings.HasPrefix(c, "?")
		c = strings.TrimPrefix(c, "?")
		num := strings.HasPrefix(c, "#")
		g.header = append(g.header, strings.TrimPrefix(c, "#"))
		g.numeric = append(g.numeric, num)
		g.optional = append(g.optional, opt)
	}
	return g
}

// without is g less its optional columns.
func (g *grid) without() *grid {
	keep := func(c int) bool { return c >= len(g.optional) || !g.optional[c] }
	t := &grid{}
	for c := range g.header {
		if keep(c) {
			t.header = append(t.header, g.header[c])
			t.numeric = append(t.numeric, c < len(g.numeric) && g.numeric[c])
			t.optional = append(t.optional, false)
		}
	}
	for _, r := range g.rows {
		var row []string
		for c, v := range r {
			if keep(c) {
				row = append(row, v)
			}
		}
		t.rows = append(t.rows, row)
	}
	return t
}

func (g *grid) add(cells ...string) { g.rows = append(g.rows, cells) }

func sentences(s ...string) block { return block{text: s} }

func layout(r *analyze.Result) *document {
	d := &document{title: "stampede report"}
	version := r.SchemaVersion
	if version == "" {
		version = analyze.SchemaVersion
	}
	d.facts = []fact{
		{"window", windowText(r.Window)},
		{"schema", version},
	}
	d.findings = r.Findings
	d.sections = []section{
		inputsSection(r.Inputs, r.InputsBound),
		reconcileSection(&r.Reconcile),
		amplificationSection(&r.Amplification),
		wavesSection(&r.Waves, r.Window),
		clientsSection(r.Clients, r.ClientsBound),
		clocksSection(r.Clocks, r.ClocksBound),
		warningsSection(r.Warnings),
	}
	if r.WhatIf != nil {
		d.sections = append(d.sections, whatIfSection(r.WhatIf))
	}
	d.sayOnce()
	return d
}

// sayOnce drops every sentence and list item that a finding, or an earlier
// block, already says: the reconciliation's headline is finding 1, the
// period split is the periodic-waves finding, the client's policy is the
// client finding. A string counts as said when it is one already said or,
// being long enough to be a sentence of its own, is part of one (a short
// string such as "none" may be part of anything). A block left with
// nothing is dropped with its label.
func (d *document) sayOnce() {
	const sentenceLen = 40
	said := slices.Clone(d.findings)
	isSaid := func(t string) bool {
		for _, s := range said {
			if t == s || (len(t) >= sentenceLen && strings.Contains(s, t)) {
				return true
			}
		}
		return false
	}
	keep := func(texts []string) []string {
		var out []string
		for _, t := range texts {
			if !isSaid(t) {
				out = append(out, t)
				said = append(said, t)
			}
		}
		return out
	}
	for i := range d.sections {
		blocks := d.sections[i].blocks[:0]
		for _, b := range d.sections[i].blocks {
			had := len(b.text) + len(b.items)
			b.text, b.items = keep(b.text), keep(b.items)
			if had > 0 && len(b.text)+len(b.items)+len(b.facts) == 0 && b.table == nil {
				continue
			}
			blocks = append(blocks, b)
		}
		d.sections[i].blocks = blocks
	}
}

func windowText(w analyze.Window) string {
	if w.Start.IsZero() && w.End.IsZero() {
		return "no events"
	}
	return fmt.Sprintf("%s to %s (%s)", timestamp(w.Start), timestamp(w.End), seconds(w.Duration))
}

func inputsSection(inputs []analyze.Input, bound analyze.TableBound) section {
	s := section{title: "Inputs"}
	if len(inputs) == 0 {
		s.blocks = append(s.blocks, sentences("no input files"))
		return s
	}
	g := newGrid("file", "format", "#lines", "#parsed", "#skipped", "#duplicates", "#events")
	var total analyze.Input
	var samples, reasons []string
	for _, in := range inputs {
		g.add(in.Path, in.Format, count(in.Lines), count(in.Parsed), count(in.Skipped), count(in.Duplicates), count(in.Events))
		total.Lines += in.Lines
		total.Parsed += in.Parsed
		total.Skipped += in.Skipped
		total.Duplicates += in.Duplicates
		total.Events += in.Events
		for _, r := range in.SkippedBy {
			reasons = append(reasons, fmt.Sprintf("%s: %s × %s", in.Path, count(r.Lines), r.Reason))
		}
		if in.SkippedByBound.Cut() {
			reasons = append(reasons, in.Path+": "+boundText(in.SkippedByBound, "most frequent", "reasons", "reasons"))
		}
		for _, sm := range in.Samples {
			samples = append(samples, sm.Position+": "+sm.Reason)
		}
		if unshown := in.Skipped - int64(len(in.Samples)); unshown > 0 && len(in.Samples) > 0 {
			samples = append(samples, fmt.Sprintf("%s: %s more skipped lines not shown", in.Path, count(unshown)))
		}
	}
	if len(inputs) > 1 {
		g.add("total", "", count(total.Lines), count(total.Parsed), count(total.Skipped), count(total.Duplicates), count(total.Events))
	}
	s.blocks = append(s.blocks, block{table: g})
	if bound.Cut() {
		s.blocks = append(s.blocks, sentences(boundText(bound, "first", "files", "files")))
	}
	if len(reasons) > 0 {
		s.blocks = append(s.blocks, block{label: "Skipped by reason", items: reasons})
	}
	if len(samples) > 0 {
		// Which lines were skipped, one by one, backs the reasons above.
		s.blocks = append(s.blocks, block{label: "Skipped lines", items: samples, evidence: true})
	}
	return s
}

func reconcileSection(rc *analyze.Reconciliation) section {
	s := section{title: "Reconciliation"}
	if rc.HTTP.Attempts == 0 && rc.App.Calls == 0 {
		s.blocks = append(s.blocks, sentences("no attempts or calls to reconcile"))
		return s
	}
	g := newGrid("class", "#attempts", "#throttled", "#429 rate", "#calls", "#failed", "#failed on throttle", "#error rate", "#attempts/call")
	row := func(class string, h analyze.HTTPSide, a analyze.AppSide, perCall float64) {
		g.add(class,
			count(h.Attempts), count(h.Throttled), rateRange(h.ThrottleRate, h.ThrottleRateMax, h.Attempts),
			count(a.Calls), count(a.Failed), count(a.FailedThrottle), rateRange(a.ErrorRate, a.ErrorRateMax, a.Calls),
			perCallText(perCall, a.Calls))
	}
	row("all", rc.HTTP, rc.App, rc.AttemptsPerCall)
	for _, c := range rc.ByClass {
		row(c.Class, c.HTTP, c.App, c.AttemptsPerCall)
	}
	facts := []fact{
		{"throttled, recovered by a later attempt", count(rc.ThrottledRecovered)},
		{"throttled, in calls that failed", count(rc.ThrottledInFailedCalls)},
		{"throttled, not joined to a call", count(rc.ThrottledUnjoined)},
	}
	if rc.HTTP.Unknown > 0 || rc.App.Unknown > 0 {
		// Said only when the log leaves outcomes out: the rates above are
		// then ranges, and these are what they span.
		facts = slices.Insert(facts, 2, fact{"throttled, in calls of unknown outcome", count(rc.ThrottledInUnknownCalls)})
		facts = append(facts, fact{"outcome not logged", fmt.Sprintf("%s attempts, %s calls: counted neither throttled nor failed",
			count(rc.HTTP.Unknown), count(rc.App.Unknown))})
	}
	if rc.ThrottledByProxy > 0 {
		// Said only when a proxy refused requests itself: its own limit.
		facts = append(facts, fact{"throttled by the proxy's own limit", count(rc.ThrottledByProxy) + " (" + strings.Join(rc.ProxyCodes, ", ") + ")"})
	}
	s.blocks = append(s.blocks,
		block{label: "HTTP side: throttled attempts / attempts; application side: failed calls / calls", table: g},
		// Attempts per call is the table's "all" row: said once, there.
		block{facts: append(facts, []fact{
			{"calls recovered by retry", count(rc.CallsRecoveredByRetry)},
			{"other attempt errors", fmt.Sprintf("%s retryable, %s non-retryable", count(rc.HTTP.Retryable), count(rc.HTTP.NonRetryable))},
			{"calls from", orNA(rc.App.Source)},
			{"attempts joined to a call", joinedText(rc.AttemptsJoined, rc.HTTP.Attempts)},
		}...)},
		block{facts: []fact{{"join method", orNA(rc.Method)}}, evidence: true},
	)
	if len(rc.Explanation) > 0 {
		// The first is finding 1 (sayOnce drops it); the rest put the
		// table and the facts above into sentences.
		s.blocks = append(s.blocks, block{text: rc.Explanation, evidence: true})
	}
	return s
}

func joinedText(joined, attempts int64) string {
	if attempts == 0 {
		return count(joined)
	}
	return fmt.Sprintf("%s of %s (%s)", count(joined), count(attempts), percent(float64(joined)/float64(attempts)))
}

func perCallText(v float64, calls int64) string {
	if calls == 0 {
		return notAvailable
	}
	return factor(v)
}

func orNA(s string) string {
	if s == "" {
		return notAvailable
	}
	return s
}

func amplificationSection(a *analyze.Amplification) section {
	s := section{title: "Amplification"}
	if len(a.Layers) == 0 && a.Tasks == 0 && a.Requests == 0 {
		s.blocks = append(s.blocks, sentences("no retry layers measured"))
		return s
	}
	if len(a.Layers) > 0 {
		// The table holds the verdicts; the reasoning behind each cap
		// verdict, a paragraph per layer, and how it was measured follow
		// as evidence: in a cell they made the table forty lines tall.
		g := newGrid("layer", "#units", "#mean", "#p50", "#p99", "#max", "cap", "#give-up rate")
		var histograms, reasons []string
		for _, l := range a.Layers {
			g.add(l.Name, count(l.Units), factor(l.Mean), quantile(l.P50), quantile(l.P99), quantile(l.Max),
				capText(l), percent(l.GiveUpRate))
			reason := l.Name + ": " + methodText(l.Method, l.Exact)
			if l.CapEvidence != "" {
				reason += "; " + l.CapEvidence
			}
			reasons = append(reasons, reason)
			if h := histogramText(l.Histogram); h != "" {
				histograms = append(histograms, l.Name+": "+h)
			}
		}
		s.blocks = append(s.blocks, block{table: g},
			block{label: "Method and cap evidence per layer", items: reasons, evidence: true})
		if len(histograms) > 0 {
			s.blocks = append(s.blocks, block{label: "Distribution (value × units)", items: histograms, evidence: true})
		}
	}
	means := make([]string, len(a.Layers))
	for i, l := range a.Layers {
		means[i] = factor(l.Mean)
	}
	product := factor(a.Product)
	if len(means) > 1 {
		product = strings.Join(means, " × ") + " = " + product
	}
	s.blocks = append(s.blocks, block{facts: []fact{
		{"attempts per task", product + " (" + exactness(a.Exact) + ")"},
		{"tasks", count(a.Tasks)},
		{"requests sent", count(a.Requests) + perTask(a.Requests, a.Tasks)},
		{"billed (successful attempts)", count(a.Billed) + perTask(a.Billed, a.Tasks)},
	}})
	return s
}

func capText(l analyze.LayerStats) string {
	if l.Capped {
		if l.Cap > 0 && len(l.Histogram) > 0 && int64(l.Max) < l.Cap {
			// A cap announced on the wire that no unit reached: something
			// else (a retry quota) stopped the tries, as the evidence says.
			return "cap of " + count(l.Cap) + ", never reached"
		}
		if l.Cap > 0 {
			return "capped at " + count(l.Cap)
		}
		return "capped"
	}
	if len(l.Histogram) == 0 {
		// A layer estimated from totals has no per-unit counts to judge
		// a cap by; "uncapped" would contradict its evidence.
		return "cannot tell"
	}
	if l.Max <= 1 {
		// Every unit made one try: the layer did not retry at all, which
		// "uncapped" beside "every unit made at most 1 try" contradicts.
		return "no retries"
	}
	return "uncapped"
}

func methodText(method string, exact bool) string {
	if method == "" {
		return exactness(exact)
	}
	if m := strings.ToLower(method); strings.Contains(m, "exact") || strings.Contains(m, "estimat") {
		return method // already says how trustworthy it is
	}
	return method + " (" + exactness(exact) + ")"
}

func exactness(exact bool) string {
	if exact {
		return "exact"
	}
	return "estimated"
}

func perTask(n, tasks int64) string {
	if tasks == 0 {
		return ""
	}
	return " (" + factor(float64(n)/float64(tasks)) + " per task)"
}

// histogramText lists at most maxBars bars; the rest are summarised so a
// long uncapped tail cannot flood the report.
func histogramText(h []analyze.Bucket) string {
	const maxBars = 12
	parts := make([]string, 0, min(len(h), maxBars+1))
	var rest int64
	for i, b := range h {
		if i < maxBars {
			parts = append(parts, count(b.Value)+" × "+count(b.Units))
		} else {
			rest += b.Units
		}
	}
	if rest > 0 {
		parts = append(parts, fmt.Sprintf("%s more units above %s", count(rest), count(h[maxBars-1].Value)))
	}
	return strings.Join(parts, ", ")
}

func wavesSection(w *analyze.Waves, window analyze.Window) section {
	s := section{title: "Waves"}
	// facts are what the waves were; method is how the search was set up
	// and tested, the evidence behind the period (or its absence).
	facts, method := []fact{}, []fact{}
	if w.Series != "" {
		method = append(method, fact{"series", w.Series})
	}
	if w.Bins > 0 {
		method = append(method, fact{"bins", count(int64(w.Bins)) + " × " + seconds(w.BinWidth)})
	}
	if w.MinLag > 0 {
		method = append(method, fact{"shortest period considered", seconds(w.MinLag)})
	}
	if w.MinRepeats > 0 {
		method = append(method, fact{"fewest repeats for a period", fmt.Sprintf("%d waves", w.MinRepeats)})
	}
	if !w.Periodic {
		s.blocks = append(s.blocks, sentences("no periodic waves found"))
		if w.BestLag > 0 {
			candidate := seconds(w.BestLag)
			if w.Threshold > 0 {
				side := "not above"
				if w.ACF > w.Threshold {
					side = "above"
				}
				grid := ""
				if len(w.Waves) > 0 {
					grid = fmt.Sprintf("; %d of %d bursts on its grid", w.OnGrid, len(w.Waves))
				}
				acf, thr := fixed(w.ACF, 2), fixed(w.Threshold, 2)
				for d := 3; acf == thr && w.ACF != w.Threshold && d < 6; d++ {
					acf, thr = fixed(w.ACF, d), fixed(w.Threshold, d)
				}
				candidate += fmt.Sprintf(" (autocorrelation %s, %s the shuffled 99th percentile %s%s)", acf, side, thr, grid)
			}
			method = append(method, fact{"strongest candidate repeat", candidate})
			switch w.Rejected {
			case "wide":
				method = append(method, fact{"why not a period", "its 3 bursts are wide and unlike in width, as bursts run together are"})
			case "overlap":
				method = append(method, fact{"why not a period", "a burst on its grid lasts longer than the period, so it would run into the next"})
			case "outlasted":
				method = append(method, fact{"why not a period", fmt.Sprintf("the throttling went on without its bursts, and off their grid: %s throttled attempts in as long a stretch from a lag after they stopped, against %s while they lasted",
					count(w.ThrottledAfterBursts), count(w.ThrottledDuringBursts))})
			case "scattered":
				method = append(method, fact{"why not a period", fmt.Sprintf("at most %d periods in a row hold a burst on its grid; %d are needed", w.GridRun, w.MinRepeats)})
			case "growth":
				if len(w.Outgrown) == 2 {
					method = append(method, fact{"why not a period", fmt.Sprintf("a burst of %s on its grid follows one of %s: retries cannot outnumber what earlier waves left so far",
						count(w.Outgrown[1]), count(w.Outgrown[0]))})
				}
			case "more than failed":
				if len(w.Outgrown) == 2 {
					method = append(method, fact{"why not a period", fmt.Sprintf("a burst of %s on its grid follows a period in which only %s attempts failed: a fixed delay sends again only what failed",
						count(w.Outgrown[1]), count(w.Outgrown[0]))})
				}
			case "skipped":
				if w.Skipped != nil {
					method = append(method, fact{"why not a period", fmt.Sprintf("the wave at %s had %s throttled attempts and no burst came a period later; the next wave on its grid came %s after it: a fixed delay sends every throttled call again one period on",
						w.Skipped.Wave.Format("15:04:05"), count(w.Skipped.Throttled), seconds(w.Skipped.NextAfter))})
				}
			case "uneven":
				method = append(method, fact{"why not a period", fmt.Sprintf("the 3 bursts on its grid are uneven: the middle one sits %s from where the period puts it between the others, where their spread explains %s",
					seconds(w.MidwayOffset), seconds(w.MidwayError))})
			case "chance":
				if w.GridChance != nil {
					method = append(method, fact{"why not a period", fmt.Sprintf("bursts at random times line up as well in %s of tries (at most %s allowed)",
						percent(*w.GridChance), percent(w.MaxGridChance))})
				}
			}
		}
	} else {
		facts = append(facts, fact{"period", seconds(w.Period)})
		method = append(method, fact{"autocorrelation at period", fmt.Sprintf("%s (shuffled 99th percentile %s, %s× significance)",
			fixed(w.ACF, 2), fixed(w.Threshold, 2), factor(w.Significance))})
		if w.PeriodEvidence == "burst grid" {
			evidence := fmt.Sprintf("all %d bursts on one grid", w.OnGrid)
			if w.CombBursts > 0 {
				evidence = fmt.Sprintf("all %d waves on one grid, the %d other bursts their retry comb", w.OnGrid, w.CombBursts)
			}
			method = append(method, fact{"evidence", evidence + fmt.Sprintf("; the autocorrelation of %s bins alone is under its threshold", count(int64(w.Bins)))})
		}
		switch {
		case w.GridChance != nil && w.MidwayError > 0 && (w.NextWaveChance != nil || w.TaskRhythm != nil):
			// The middle's place, and the second chance it was weighed with.
			method = append(method, fact{"middle of the three bursts", fmt.Sprintf("%s from halfway between the others (standard error %s); random bursts land as close in %s of places between them",
				seconds(w.MidwayOffset), seconds(w.MidwayError), percent(w.MidwayChance))})
			if w.NextWaveChance != nil {
				method = append(method, fact{"where the next wave is due", fmt.Sprintf("%s arrivals against %s from background, as many as background alone brings in %s of tries; both by chance: %s (at most %s allowed)",
					count(int64(w.NextWaveArrivals)), fixed(w.NextWaveExpected, 1), percent(*w.NextWaveChance), percent(*w.GridChance), percent(w.MaxGridChance))})
			} else {
				r := w.TaskRhythm
				method = append(method, fact{"the tasks' own rhythm", fmt.Sprintf("queue attempts came back %s apart (10th–90th percentile %s–%s, %s gaps), as close to the period as %s of spacings would come; both by chance: %s (at most %s allowed)",
					seconds(r.Spacing), seconds(r.Low), seconds(r.High), count(int64(r.Gaps)), percent(r.Chance), percent(*w.GridChance), percent(w.MaxGridChance))})
			}
		case w.GridChance != nil && w.MidwayError > 0:
			method = append(method, fact{"middle of the three bursts", fmt.Sprintf("%s from halfway between the others (standard error %s); random bursts land as close in %s of places between them (at most %s allowed)",
				seconds(w.MidwayOffset), seconds(w.MidwayError), percent(*w.GridChance), percent(w.MaxGridChance))})
		case w.GridChance != nil:
			method = append(method, fact{"random bursts lining up as well", fmt.Sprintf("%s of tries (at most %s allowed)", percent(*w.GridChance), percent(w.MaxGridChance))})
		}
		if w.IntraWaveSpacing > 0 {
			facts = append(facts, fact{"comb spacing inside waves", seconds(w.IntraWaveSpacing)})
		}
		if w.FirstWaveGap > 0 {
			took := seconds(w.FirstWaveCallDifference) + " longer"
			if w.FirstWaveCallDifference < 0 {
				took = seconds(-w.FirstWaveCallDifference) + " less"
			}
			facts = append(facts, fact{"first wave, off the grid", fmt.Sprintf("%s before the next on it; its failed calls took %s than the later waves'",
				seconds(w.FirstWaveGap), took)})
		}
		if w.DecayRatio > 0 {
			decay := fmt.Sprintf("%s (R² %s)", fixed(w.DecayRatio, 2), fixed(w.DecayR2, 2))
			if w.DecayHigh > 0 {
				decay = fmt.Sprintf("%s (95%% CI %s–%s, R² %s)", fixed(w.DecayRatio, 2), fixed(w.DecayLow, 2), fixed(w.DecayHigh, 2), fixed(w.DecayR2, 2))
			}
			facts = append(facts, fact{"decay ratio per wave", decay})
			if w.Ended {
				facts = append(facts, fact{"end of the storm", fmt.Sprintf("ended after wave %d: none of its calls failed, so none was retried", len(w.Waves))})
			} else if w.ProjectedWaves > 0 {
				proj := fmt.Sprintf("%d waves in all", w.ProjectedWaves)
				if w.ProjectedEnd != nil {
					proj += ", the last due " + timestamp(*w.ProjectedEnd)
				}
				facts = append(facts, fact{"projected by the decay fit", proj})
			}
		}
	}
	if w.BelowInteractiveWave > 0 {
		below := fmt.Sprintf("wave %d", w.BelowInteractiveWave)
		if w.BelowInteractiveAt != nil {
			below += ", due " + timestamp(*w.BelowInteractiveAt)
		}
		facts = append(facts, fact{"bursts below the interactive rate from", below})
	}
	if w.BucketEmptyAfter != nil {
		facts = append(facts, fact{"limit empty after (median first attempt to first throttle)", seconds(*w.BucketEmptyAfter)})
	}
	if w.BucketEmptyFor != nil {
		facts = append(facts, fact{"limit empty for (median last throttle to next success)", seconds(*w.BucketEmptyFor)})
	}
	if w.BucketResolution > 0 {
		method = append(method, fact{"bucket times resolved to", seconds(w.BucketResolution)})
	}
	if w.BurstsStopped != nil {
		facts = append(facts, fact{"bursts stopped", timestamp(*w.BurstsStopped) + " (" +
			offset(w.BurstsStopped.Sub(window.Start).Seconds()) + ")"})
	}
	if len(facts) > 0 {
		s.blocks = append(s.blocks, block{facts: facts})
	}
	if len(method) > 0 {
		s.blocks = append(s.blocks, block{facts: method, evidence: true})
	}
	if len(w.Waves) > 0 {
		g := newGrid("#wave", "?start (UTC)", "#offset", "#width", "#size (calls)", "#attempts", "#throttled", "#share")
		for i, wv := range w.Waves {
			g.add(count(int64(i+1)), timestamp(wv.Start), offset(wv.Start.Sub(window.Start).Seconds()),
				seconds(wv.Width), count(wv.Size), count(wv.Attempts), count(wv.Throttled), percent(wv.ThrottledShare))
		}
		s.blocks = append(s.blocks, block{label: "Waves (offset from window start; width holds the central 90% of arrivals; size is calls above the background rate)", table: g})
	}
	if im := w.Interactive; im != nil {
		g := newGrid("interactive attempts", "#attempts", "#throttled", "#throttle rate")
		for _, sp := range []struct {
			name string
			s    analyze.ImpactSpan
		}{{"before the first wave", im.Before}, {"inside waves", im.InWaves}, {"between waves", im.Between}, {"after the last wave", im.After}} {
			g.add(sp.name, count(sp.s.Attempts), count(sp.s.Throttled), percent(sp.s.ThrottleRate))
		}
		s.blocks = append(s.blocks, block{label: fmt.Sprintf("Interactive traffic (wave window: first to last batch attempt + %s)", seconds(im.Margin)), table: g})
		recovery := "not degraded"
		switch {
		case im.Degraded && im.Recovered:
			recovery = seconds(im.RecoveredAfter) + " after the last wave"
		case im.Degraded && im.After.Attempts == 0:
			recovery = "unknown: no interactive attempts after the last wave"
		case im.Degraded:
			recovery = "not before the log ended, " + seconds(im.RecoveredAfter) + " after the last wave"
		}
		s.blocks = append(s.blocks, block{facts: []fact{
			{"seconds the interactive class found the limit empty", count(im.EmptySeconds)},
			{"of them after a wave's batch load had ended", count(im.EmptyAfterLoad)},
			{"interactive throttles ran from the first wave for", seconds(im.ThrottledFor)},
			{"interactive back to its pre-wave throttle rate", recovery},
		}}, block{facts: []fact{
			// Whether interactive throttles follow the batch load second by
			// second, and the load they are a share of: the checks behind
			// the figures above.
			{"correlation, batch attempts vs interactive throttles per second", fixed(im.Correlation, 2)},
			{"interactive attempt rate", fixed(im.Rate, 2) + "/s"},
		}, evidence: true})
	}
	if len(w.Delays) == 0 {
		s.blocks = append(s.blocks, sentences("no retry delays measured"))
	} else {
		g := newGrid("delay", "#n", "#mean", "#σ", "#p50", "#min", "#max", "spread")
		for _, d := range w.Delays {
			kind := "jittered"
			switch {
			case d.Fixed:
				kind = "fixed"
			case d.TooCoarse:
				// The finding names the delay with its range; the table
				// must not call it jittered beside it.
				kind = "too coarse"
			}
			g.add(d.Kind, count(d.N), seconds(d.Mean), spread(d.Mean, d.Sigma), seconds(d.P50), seconds(d.Min), seconds(d.Max), kind)
		}
		s.blocks = append(s.blocks, block{label: "Measured delays", table: g})
	}
	if len(w.Groups) > 1 {
		g := newGrid("#requeue delay", "#tasks", "periodic", "#waves", "#period")
		for _, wg := range w.Groups {
			period := notAvailable
			if wg.Periodic {
				period = seconds(wg.Period)
			}
			g.add(seconds(wg.RequeueDelay), count(int64(wg.Tasks)), yesNo(wg.Periodic), count(int64(wg.Waves)), period)
		}
		s.blocks = append(s.blocks, block{label: "Groups of tasks by requeue delay", table: g})
	}
	switch {
	case len(w.Suspects) == 0 && len(w.Groups) > 1:
		// Bare "no fixed-delay suspects" would deny the fixed requeue
		// delays the groups' finding names.
		s.blocks = append(s.blocks, sentences("no fixed-delay suspects for all tasks together: each group above has its own requeue delay"))
	case len(w.Suspects) == 0 && w.UnseenDelay > 0:
		// The SDK log alone: the period points at a delay no log times.
		s.blocks = append(s.blocks, sentences(fmt.Sprintf("no fixed-delay suspects measured; %s of the period lies between a failed call's end and its task's next call, which no log given shows", seconds(w.UnseenDelay))))
	case len(w.Suspects) == 0:
		s.blocks = append(s.blocks, sentences("no fixed-delay suspects"))
	default:
		g := newGrid("layer", "kind", "#delay", "#σ", "#per period")
		var texts []string
		for _, f := range w.Suspects {
			g.add(f.Layer, f.Kind, seconds(f.Delay), spread(f.Delay, f.Sigma), count(int64(f.Times)))
			if f.Text != "" {
				texts = append(texts, f.Text)
			}
		}
		s.blocks = append(s.blocks, block{label: "Fixed-delay suspects", table: g})
		if len(texts) > 0 {
			s.blocks = append(s.blocks, block{items: texts})
		}
	}
	return s
}

// clientsSection names the SDKs behind the attempts and their known retry
// policies, the settings a user would change.
func clientsSection(clients []analyze.Client, bound analyze.TableBound) section {
	s := section{title: "Clients"}
	if len(clients) == 0 {
		s.blocks = append(s.blocks, sentences("no User-Agent in the access log"))
		return s
	}
	// The retry-after handling is part of each policy sentence below (or
	// of the client finding): a column of it said the policy a third time.
	g := newGrid("user agent", "sdk", "version", "#attempts", "#throttled", "#max attempts")
	var policies []string
	for _, c := range clients {
		maxAttempts := "?"
		if c.Known {
			maxAttempts = strconv.Itoa(c.MaxAttempts)
		}
		g.add(c.UserAgent, c.SDK, orNA(c.Version), count(c.Attempts), count(c.Throttled), maxAttempts)
		// Rows of one policy (tools that are no SDK) say it once.
		if !slices.Contains(policies, c.Policy) {
			policies = append(policies, c.Policy)
		}
	}
	s.blocks = append(s.blocks, block{table: g})
	if bound.Cut() {
		s.blocks = append(s.blocks, sentences(boundText(bound, "busiest", "clients", "User-Agents")))
	}
	s.blocks = append(s.blocks, block{label: "Retry policies", items: policies})
	return s
}

// boundText says how a table was cut: what its "other" row holds, in the
// table's units and, for values first seen past the bound, in the units
// they were told apart by.
func boundText(b analyze.TableBound, kept, unit, uncountedUnit string) string {
	var held []string
	if b.Folded > 0 {
		held = append(held, fmt.Sprintf("%s %s past the %s %s", count(b.Folded), unit, count(int64(b.Rows-1)), kept))
	}
	if b.Uncounted > 0 {
		floor := ""
		if b.UncountedAtLeast {
			floor = "at least "
		}
		held = append(held, fmt.Sprintf("%s%s %s first seen after %s %s were counted", floor, count(b.Uncounted), uncountedUnit, count(int64(b.Counted)), unit))
	}
	return fmt.Sprintf("Table cut at %d rows: the last adds up %s.", b.Rows, strings.Join(held, " and "))
}

// clocksSection shows how far each log's clock reads from the access log's.
func clocksSection(clocks []analyze.ClockOffset, bound analyze.TableBound) section {
	s := section{title: "Clocks"}
	if len(clocks) == 0 {
		s.blocks = append(s.blocks, sentences("only one log, nothing to compare"))
		return s
	}
	g := newGrid("log", "against", "#offset", "#±", "measured by", "#events", "verdict")
	for i, c := range clocks {
		if i == len(clocks)-1 && bound.Cut() {
			// The row for the rest has no one offset.
			g.add(c.Source, c.Reference, "–", "–", "–", count(c.Events), c.Note)
			continue
		}
		verdict := "in step"
		switch {
		case c.Note != "":
			verdict = c.Note
		case c.Applied:
			verdict = "corrected (--align)"
		case math.Abs(c.Offset) > c.Uncertainty:
			verdict = "skewed: use --align"
		}
		sign := "+"
		if c.Offset < 0 {
			sign = "-"
		}
		// Measured call by call, the offset owes nothing to how well the
		// series of starts line up.
		measured := "bursts lined up (r " + strconv.FormatFloat(c.Correlation, 'f', 2, 64) + ")"
		if c.Method == analyze.ClockByCallIDs {
			measured = "calls joined by call id"
		}
		g.add(c.Source, c.Reference, sign+seconds(math.Abs(c.Offset)), seconds(c.Uncertainty),
			measured, count(c.Events), verdict)
	}
	s.blocks = append(s.blocks, block{table: g})
	if bound.Cut() {
		s.blocks = append(s.blocks, sentences(boundText(bound, "first", "logs", "logs")))
	}
	return s
}

func warningsSection(warnings []string) section {
	s := section{title: "Warnings"}
	if len(warnings) == 0 {
		s.blocks = append(s.blocks, sentences("none"))
	} else {
		s.blocks = append(s.blocks, block{items: warnings})
	}
	return s
}
