package stampede_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/simulate"
)

// TestSameIncidentInEveryFormat writes the seed incident as an nginx access
// log, an Envoy JSON access log and OTLP/JSON client spans, and checks
// that each, read alone, gives the same analysis: the wire's counts, the
// amplification of each layer and the waves.
func TestSameIncidentInEveryFormat(t *testing.T) {
	sc, err := simulate.LoadScenario(filepath.Join("testdata", "scenarios", "seed-incident.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := simulate.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	formats := []string{"nginx", "envoy-json", "otlp-json"}
	paths, err := out.WriteFormats(t.TempDir(), formats...)
	if err != nil {
		t.Fatal(err)
	}
	results := make([]*analyze.Result, len(paths))
	for i, p := range paths {
		results[i] = analyzeDir(t, stampede.Config{Inputs: []string{p}})
		if got := results[i].Inputs[0].Format; !hasPrefix(got, formats[i]) {
			t.Fatalf("%s read as %s, want %s", filepath.Base(p), got, formats[i])
		}
	}
	base := results[0]
	if base.Reconcile.HTTP.Attempts != int64(len(out.Attempts)) {
		t.Fatalf("nginx: %d attempts, simulated %d", base.Reconcile.HTTP.Attempts, len(out.Attempts))
	}
	t.Logf("nginx: %+v; amplification %.3f over %d layers; %d waves, period %.2f s",
		base.Reconcile.HTTP, base.Amplification.Product, len(base.Amplification.Layers), len(base.Waves.Waves), base.Waves.Period)
	for i, res := range results[1:] {
		name := formats[i+1]
		if res.Reconcile.HTTP != base.Reconcile.HTTP {
			t.Errorf("%s: HTTP side %+v, nginx %+v", name, res.Reconcile.HTTP, base.Reconcile.HTTP)
		}
		if len(res.Amplification.Layers) != len(base.Amplification.Layers) {
			t.Errorf("%s: %d amplification layers, nginx %d", name, len(res.Amplification.Layers), len(base.Amplification.Layers))
		} else {
			for k, l := range res.Amplification.Layers {
				b := base.Amplification.Layers[k]
				if l.Name != b.Name || l.Units != b.Units || l.Mean != b.Mean || l.Max != b.Max || l.Capped != b.Capped {
					t.Errorf("%s: layer %s units=%d mean=%.4f max=%.0f capped=%v; nginx %s units=%d mean=%.4f max=%.0f capped=%v",
						name, l.Name, l.Units, l.Mean, l.Max, l.Capped, b.Name, b.Units, b.Mean, b.Max, b.Capped)
				}
			}
		}
		if res.Amplification.Product != base.Amplification.Product {
			t.Errorf("%s: amplification %.4f, nginx %.4f", name, res.Amplification.Product, base.Amplification.Product)
		}
		w, bw := res.Waves, base.Waves
		if w.Periodic != bw.Periodic || math.Abs(w.Period-bw.Period) > 0.01*bw.Period {
			t.Errorf("%s: periodic=%v period %.2f s; nginx periodic=%v period %.2f s", name, w.Periodic, w.Period, bw.Periodic, bw.Period)
		}
		if len(w.Waves) != len(bw.Waves) {
			t.Errorf("%s: %d waves, nginx %d", name, len(w.Waves), len(bw.Waves))
			continue
		}
		for k := range w.Waves {
			if w.Waves[k].Size != bw.Waves[k].Size || w.Waves[k].Attempts != bw.Waves[k].Attempts {
				t.Errorf("%s: wave %d size %d attempts %d; nginx size %d attempts %d", name, k+1,
					w.Waves[k].Size, w.Waves[k].Attempts, bw.Waves[k].Size, bw.Waves[k].Attempts)
			}
		}
	}
}

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }
