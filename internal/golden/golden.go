// Package golden compares test output with files under testdata/ and
// rewrites them when a test binary runs with -update. Every package's golden
// tests share it, so that one flag and one diff format serve them all.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Update is set by -update: golden files are rewritten instead of compared.
var Update = flag.Bool("update", false, "rewrite golden files under testdata/ instead of comparing with them")

// Check compares got with the golden file at path, or writes it under
// -update. A mismatch reports the first differing lines.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (rerun the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output; if the change is intended, rerun with -update and review the diff:\n%s",
			path, Diff(string(want), string(got)))
	}
}

// maxDiffLines bounds a diff to what a reader needs to see what moved.
const maxDiffLines = 10

// Diff lists the first lines that differ between want and got.
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < maxDiffLines; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
