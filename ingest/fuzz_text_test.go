package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzTextDetection gives the ranking of text access-log formats and the
// collector-prefix stripper arbitrary lines, seeded from the real-world-like
// examples, and checks that detection decides the same way twice, that a
// prefix cut stays inside its line, and that reading keeps the books.
func FuzzTextDetection(f *testing.F) {
	dir := filepath.Join("..", "testdata", "ingest", "realworld-like")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("web-1  | \nweb-1  | x\n"))
	f.Add([]byte("<1>Nov 30 02:47:31 h t: \n"))
	f.Add([]byte("2026-11-30T02:47:31Z \"\" 200\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sample := sampleOf(data, true)
		for _, l := range sample {
			for _, lp := range linePrefixes {
				if k := lp.cut(l.text); k > len(l.text) || k < -1 {
					t.Fatalf("%s cut %d of a %d-byte line", lp.name, k, len(l.text))
				}
			}
		}
		p1, _ := chooseText(sample, nil, newInterner())
		p2, _ := chooseText(sample, nil, newInterner())
		if (p1 == nil) != (p2 == nil) || p1 != nil && p1.format() != p2.format() {
			t.Fatalf("detection differs between two runs: %v, %v", p1, p2)
		}
		checkAccounting(t, data, Options{})
	})
}
