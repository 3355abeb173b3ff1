package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stampede/stampede/analyze"
)

// TestVerboseShowsEvidence: the terminal's default report leaves the
// evidence out and --verbose (Options.Verbose) puts it back; Markdown, for
// an incident document, always holds it. Each marker is the label or key of
// one evidence block of the fixture.
func TestVerboseShowsEvidence(t *testing.T) {
	render := func(f Format, opts Options) string {
		var b bytes.Buffer
		if err := RenderWith(&b, incidentResult(), f, opts); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	wide := 1 << 20 // no marker is cut by wrapping
	plainView := render(FormatTable, Options{Width: wide})
	verbose := render(FormatTable, Options{Width: wide, Verbose: true})
	markdown := render(FormatMarkdown, Options{})
	for _, tc := range []struct{ name, marker string }{
		{"skipped lines one by one", "Skipped lines"},
		{"join method", "join method"},
		{"reconciliation in sentences", "were followed by a successful attempt of the same call"},
		{"cap reasoning per layer", "Method and cap evidence per layer"},
		{"distributions", "Distribution (value × units)"},
		{"the autocorrelation test", "autocorrelation at period"},
		{"the search's set-up", "shortest period considered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(plainView, tc.marker) {
				t.Errorf("the default terminal report shows %q", tc.marker)
			}
			if !strings.Contains(verbose, tc.marker) {
				t.Errorf("the verbose terminal report lacks %q", tc.marker)
			}
			if !strings.Contains(markdown, tc.marker) {
				t.Errorf("the Markdown report lacks %q", tc.marker)
			}
		})
	}
	// What the default view keeps: every table, and the numbers an
	// incident document quotes.
	for _, keep := range []string{"FINDINGS", "RECONCILIATION", "AMPLIFICATION", "give-up rate", "WAVES", "period", "Measured delays", "CLIENTS", "WARNINGS"} {
		if !strings.Contains(plainView, keep) {
			t.Errorf("the default terminal report lacks %q", keep)
		}
	}
}

// TestGroupsWithoutSuspects: tasks split by requeue delay have fixed delays
// of their own, so the Waves section must not say bare "no fixed-delay
// suspects" beside a finding that names them; it shows the groups.
func TestGroupsWithoutSuspects(t *testing.T) {
	for _, tc := range []struct {
		name       string
		groups     []analyze.WaveGroup
		say, never []string
	}{
		{"two groups", []analyze.WaveGroup{{RequeueDelay: 10, Tasks: 150, Periodic: true, Period: 14.14, Waves: 8}, {RequeueDelay: 17, Tasks: 150, Waves: 2}},
			[]string{"Groups of tasks by requeue delay", "14.1 s", "each group above has its own requeue delay"}, []string{"no fixed-delay suspects\n"}},
		{"no groups", nil, []string{"no fixed-delay suspects\n"}, []string{"Groups of tasks"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := incidentResult()
			r.Waves.Suspects, r.Waves.Groups = nil, tc.groups
			var b bytes.Buffer
			if err := RenderWith(&b, r, FormatTable, Options{Width: 1 << 20}); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.say {
				if !strings.Contains(b.String(), want) {
					t.Errorf("report lacks %q", want)
				}
			}
			for _, bad := range tc.never {
				if strings.Contains(b.String(), bad) {
					t.Errorf("report says %q", bad)
				}
			}
		})
	}
}

// TestThreeBurstEvidence: a period that three bursts alone make states the
// middle one's place and, where that alone was not enough, the count where
// the next wave is due, each with the chance that the report compares with
// its bar.
func TestThreeBurstEvidence(t *testing.T) {
	midwayOnly, both, next := 0.0066, 0.0164, 0.0214
	tests := []struct {
		name        string
		waves       analyze.Waves
		want, avoid []string
	}{
		{name: "the middle's place alone",
			waves: analyze.Waves{GridChance: &midwayOnly, MaxGridChance: 0.01, MidwayOffset: 0.265, MidwayError: 0.38, MidwayChance: midwayOnly},
			want:  []string{"middle of the three bursts: 0.265 s from halfway between the others (standard error 0.380 s); random bursts land as close in 0.7% of places between them (at most 1.0% allowed)"},
			avoid: []string{"where the next wave is due"}},
		{name: "the middle's place and the next wave",
			waves: analyze.Waves{GridChance: &both, MaxGridChance: 0.05, MidwayError: 0.354, MidwayChance: 0.1088, NextWaveArrivals: 9, NextWaveExpected: 3.8, NextWaveChance: &next},
			want: []string{"random bursts land as close in 10.9% of places between them",
				"where the next wave is due: 9 arrivals against 3.8 from background, as many as background alone brings in 2.1% of tries; both by chance: 1.6% (at most 5.0% allowed)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.waves
			w.Periodic, w.Period, w.BestLag, w.OnGrid, w.PeriodEvidence = true, 7, 7, 3, "burst grid"
			var text []string
			for _, b := range wavesSection(&w, analyze.Window{}).blocks {
				for _, f := range b.facts {
					text = append(text, f.key+": "+f.value)
				}
			}
			checkSays(t, "facts", strings.Join(text, "\n"), tc.want, tc.avoid)
		})
	}
}
