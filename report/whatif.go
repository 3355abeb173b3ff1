package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/stampede/stampede/analyze"
)

// whatIfSection is the what-if comparison as one section of the incident
// report: the table of policies first, then what to change, then the
// inputs and the checks that make the table trustworthy.
func whatIfSection(w *analyze.WhatIf) section {
	s := section{title: "What if"}
	for _, sub := range whatIfSections(w, true) {
		for i, b := range sub.blocks {
			if i == 0 && b.label == "" {
				b.label = sub.title
			}
			s.blocks = append(s.blocks, b)
		}
	}
	return s
}

// whatIfSections lays the comparison out as sections, for the what-if
// command's own report.
func whatIfSections(w *analyze.WhatIf, withRecommendations bool) []section {
	cmp := section{title: "Policies compared"}
	g := newGrid("policy", "#HTTP requests", "#peak req/s", "#bucket empty", "#interactive throttled", "#share",
		"#interactive p99", "#drain", "#billed", "#tasks done")
	for _, r := range w.Rows {
		g.add(r.Policy, spreadText(r.Requests, countF), spreadText(r.PeakPerSecond, countF),
			spreadText(r.BucketEmptyS, seconds), spreadText(r.InteractiveThrottled, countF),
			spreadText(r.InteractiveShare, percent), spreadText(r.InteractiveP99S, seconds),
			spreadText(r.DrainS, drainText), spreadText(r.Billed, countF), spreadText(r.TasksDone, countF))
	}
	cmp.blocks = append(cmp.blocks, block{
		label: fmt.Sprintf("Median over %d seeds, range in brackets; bucket empty: time it could not serve one interactive request", len(w.Seeds)),
		table: g,
	})
	var desc []string
	for _, r := range w.Rows {
		desc = append(desc, r.Policy+": "+r.Description)
	}
	cmp.blocks = append(cmp.blocks, block{label: "Policies", items: desc})

	rec := section{title: "Capacity"}
	if withRecommendations {
		rec.title = "Recommendations"
	}
	switch {
	case !withRecommendations:
		// The what-if report lists them first, as its findings.
	case len(w.Recommendations) == 0:
		rec.blocks = append(rec.blocks, sentences("none"))
	default:
		rec.blocks = append(rec.blocks, block{items: w.Recommendations})
	}
	c := w.Capacity
	rec.blocks = append(rec.blocks, block{facts: []fact{
		{"spare capacity", fmt.Sprintf("(%s − %s interactive) tokens/min ÷ %s tokens per task = %s tasks/min",
			countF(c.TokensPerMinute), countF(c.InteractiveTokensPerMinute), countF(c.TaskTokens), fixed(c.TasksPerMinute, 1))},
		{"shortest drain for " + count(c.Tasks) + " tasks", drainText(c.DrainS)},
	}})
	if len(w.NonRetryable) > 0 {
		ng := newGrid("error code", "#status", "#errors", "#retried", "#wasted attempts")
		for _, e := range w.NonRetryable {
			ng.add(e.Code, fmt.Sprint(e.Status), count(e.Errors), count(e.Retried), count(e.Wasted))
		}
		rec.blocks = append(rec.blocks, block{label: "Non-retryable errors that were retried", table: ng})
		if w.NonRetryableBound.Cut() {
			rec.blocks = append(rec.blocks, sentences(boundText(w.NonRetryableBound, "most wasteful", "error codes", "error codes")))
		}
	}

	in := section{title: "Replay inputs"}
	pg := newGrid("parameter", "value", "source")
	for _, p := range w.Parameters {
		pg.add(p.Name, p.Text, p.Source)
	}
	in.blocks = append(in.blocks, block{table: pg})
	if len(w.Validation) > 0 {
		vg := newGrid("replay check", "#trace", "#simulated", "#error", "verdict")
		for _, v := range w.Validation {
			verdict := "within " + percent(v.Tolerance)
			if !v.OK {
				verdict = "outside " + percent(v.Tolerance)
			}
			vg.add(v.Name, fixedTrim(v.Trace), fixedTrim(v.Simulated), percent(v.Error), verdict)
		}
		in.blocks = append(in.blocks, block{label: "The \"as measured\" row against the trace (waves and period from analysing the replay's own logs)", table: vg})
	}
	if len(w.Notes) > 0 {
		in.blocks = append(in.blocks, block{label: "Notes", items: w.Notes})
	}
	return []section{cmp, rec, in}
}

func countF(v float64) string { return count(int64(v + 0.5*sign(v))) }

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

// fixedTrim writes v with up to three decimals, none for whole numbers.
func fixedTrim(v float64) string {
	if v == float64(int64(v)) {
		return count(int64(v))
	}
	return strings.TrimRight(strings.TrimRight(fixed(v, 3), "0"), ".")
}

func drainText(s float64) string {
	if s < 0 {
		return "not drained"
	}
	return fmt.Sprintf("%.1f min", s/60)
}

// spreadText is the median, with the range when the seeds disagree.
func spreadText(s analyze.Spread, f func(float64) string) string {
	med := f(s.Median)
	lo, hi := f(s.Min), f(s.Max)
	if lo == hi {
		return med
	}
	return fmt.Sprintf("%s [%s–%s]", med, lo, hi)
}

// RenderWhatIf writes a what-if comparison on its own, in any format: the
// table and Markdown reports, HTML, or the WhatIf object as JSON.
func RenderWhatIf(w io.Writer, wi *analyze.WhatIf, f Format, opts Options) error {
	if wi == nil {
		return fmt.Errorf("render %s: no what-if comparison", f)
	}
	d := &document{
		title: "stampede what-if",
		facts: []fact{
			{"replayed from", wi.Source},
			{"seeds", seedsText(wi.Seeds)},
			{"schema", analyze.SchemaVersion},
		},
		findings: wi.Recommendations,
		sections: whatIfSections(wi, false),
	}
	var err error
	switch f {
	case FormatTable:
		err = renderTable(w, d, opts)
	case FormatMarkdown:
		err = renderMarkdown(w, d)
	case FormatJSON:
		var b []byte
		if b, err = json.MarshalIndent(wi, "", "  "); err == nil {
			_, err = w.Write(escapeInvisible(append(b, '\n')))
		}
	case FormatHTML:
		err = renderHTML(w, &analyze.Result{}, d)
	default:
		return fmt.Errorf("unknown report format %q (want table, markdown, json or html)", string(f))
	}
	if err != nil {
		return fmt.Errorf("render %s: %w", f, err)
	}
	return nil
}

func seedsText(seeds []uint64) string {
	if len(seeds) == 0 {
		return "none"
	}
	if len(seeds) == 1 {
		return fmt.Sprint(seeds[0])
	}
	return fmt.Sprintf("%d (%d to %d)", len(seeds), seeds[0], seeds[len(seeds)-1])
}
