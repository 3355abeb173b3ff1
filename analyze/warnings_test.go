package analyze

import (
	"strings"
	"testing"
)

func TestWaveWarnings(t *testing.T) {
	three := make([]Wave, 3)
	five := make([]Wave, 5)
	tests := []struct {
		name string
		w    Waves
		want string // a substring of the one warning expected, "" for none
	}{
		{"period on three waves, no delay measured", Waves{Periodic: true, Period: 142.5, BestLag: 142.5, OnGrid: 3, MinRepeats: 3, Waves: three}, "rests on 3 waves on its grid"},
		{"period on five waves, no delay measured", Waves{Periodic: true, Period: 60, BestLag: 60, OnGrid: 5, MinRepeats: 3, Waves: five}, "matches no measured delay: requeue"},
		{"period on three waves that a delay explains", Waves{Periodic: true, Period: 60, BestLag: 60, OnGrid: 3, MinRepeats: 3, Waves: three, Suspects: []FixedDelay{{}}}, ""},
		{"two bursts and no period", Waves{Waves: three[:2]}, "too few to tell"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := waveWarnings(&tc.w, 1000)
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("warnings %q, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("warnings %q, want one holding %q", got, tc.want)
			}
		})
	}
}

// TestThreeWavePeriodWarns checks, on the accuracy stream's random bursts
// that three equal bursts 142.5 s apart pass for a period, that the report
// says how little holds it up.
func TestThreeWavePeriodWarns(t *testing.T) {
	l := labelledTraceOf(3097, 234)
	w := FindWaves(l.tl, Options{Seed: 234})
	if !w.Periodic || w.OnGrid != minRepeats {
		t.Skipf("the detector no longer reads a period on three waves here (periodic %v, %d on the grid)", w.Periodic, w.OnGrid)
	}
	got := waveWarnings(&w, 375)
	if !strings.Contains(strings.Join(got, "\n"), "rests on 3 waves") {
		t.Fatalf("warnings %q, want the three-wave caveat", got)
	}
}
