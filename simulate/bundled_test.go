package simulate

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stampede/stampede/internal/golden"
)

// bundledDir holds the committed seed incident that other packages read.
var bundledDir = filepath.Join("..", "testdata", "seed-incident")

// TestBundledIncident fails when testdata/seed-incident is not what
// seed-incident.json produces; -update regenerates it.
func TestBundledIncident(t *testing.T) {
	sc := loadTestScenario(t, "seed-incident")
	out, files := render(t, sc)
	if *golden.Update {
		if err := out.WriteDir(bundledDir); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(bundledDir, name))
		if err != nil {
			t.Fatalf("%v (run go test ./simulate -run TestBundledIncident -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what seed-incident.json produces at line %d (run with -update)",
				name, firstDifferentLine(got, want))
		}
		if len(got) > 10<<20 {
			t.Errorf("%s is %d bytes, want under 10 MB", name, len(got))
		}
	}
}

func firstDifferentLine(a, b []byte) int {
	line := 1
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return line
		}
		if a[i] == '\n' {
			line++
		}
	}
	return line
}
