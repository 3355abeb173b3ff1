package ingest

import (
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDetectNoFalseMatch runs the sniffer of each proxy and CDN format on
// the example of every other format under testdata/ingest, bare and
// behind the prefix detection strips, and wants it to decline: a sniffer
// that claims a foreign example would steal that log from its own parser
// wherever it sits in the chain. Their own examples are claimed
// (TestDetectEveryExample checks the chain's pick).
func TestDetectNoFalseMatch(t *testing.T) {
	sniffers := []struct {
		format string // examples under this folder are its own
		sniff  sniffer
	}{
		{"haproxy", sniffHAProxy},
		{"cloudflare", sniffCloudflare},
		{"gcp-lb", sniffGCPLB},
		{"kong", sniffKong},
		{"cloudfront", sniffCloudFront},
	}
	root := filepath.Join("..", "testdata", "ingest")
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && d.Name() == "golden":
			return filepath.SkipDir
		case d.IsDir(), strings.HasSuffix(path, ".md"), strings.HasSuffix(path, ".golden"), strings.HasSuffix(path, ".conf"):
			return nil
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The recorded storms are examples too: nginx's and HAProxy's own.
	rec, _ := filepath.Glob(filepath.Join("..", "testdata", "recorded", "*-haproxy", "*.gz"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "recorded", "openai-ra2-fixed10", "*.gz"))
	files = append(files, append(rec, more...)...)
	for _, path := range files {
		rel, _ := filepath.Rel(filepath.Join(".."), path)
		sample := exampleSample(t, path)
		stripped := sample
		if pre := findPrefix(sample); pre != nil {
			stripped = pre.stripSample(sample)
		}
		for _, sn := range sniffers {
			own := strings.Contains(filepath.ToSlash(rel), "/"+sn.format+"/") ||
				(sn.format == "haproxy" && strings.Contains(rel, "-haproxy/access.log"))
			claimed := false
			for _, s := range [][]sampledLine{sample, stripped} {
				if p, _ := sn.sniff(s, Options{}, newInterner()); p != nil {
					claimed = true
				}
			}
			// A log of a format of its own is read with its definition.
			_, err := os.Stat(strings.TrimSuffix(path, filepath.Ext(path)) + ".conf")
			switch {
			case own && !claimed && err != nil:
				t.Errorf("%s: its own example is not claimed", rel)
			case !own && claimed:
				t.Errorf("%s claims %s", sn.format, rel)
			}
		}
	}
}

// exampleSample reads the detection sample of a file, gunzipped.
func exampleSample(t *testing.T, path string) []sampledLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	b, err := io.ReadAll(io.LimitReader(r, readBufferBytes))
	if err != nil {
		t.Fatal(err)
	}
	return sampleOf(b, true)
}
