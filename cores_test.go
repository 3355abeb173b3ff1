package stampede_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/simulate"
)

// TestCoresGiveTheSameResult analyses an incident large enough that the
// accumulators split their events into stretches and the sort its keys,
// on one core and on several: the result is the same, byte for byte.
func TestCoresGiveTheSameResult(t *testing.T) {
	sc, err := simulate.LoadScenario("testdata/scenarios/seed-incident.json")
	if err != nil {
		t.Fatal(err)
	}
	sc.Scale(16)
	out, err := simulate.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "access.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.WriteAccessLog(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cfg := stampede.Config{Inputs: []string{path}, Seed: 1}
	var want []byte
	for _, cores := range []int{1, 2, 5} {
		runtime.GOMAXPROCS(cores)
		got := analyzeJSON(t, cfg)
		if want == nil {
			want = got
			continue
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("on %d cores the result differs from the one on one core", cores)
		}
	}
}
