package ingest

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

// FuzzDetect gives format detection whole inputs of several lines, in any
// bytes (binary, compressed, cut short), and checks that it decides the
// same way twice, that it either claims the input or says why not, and that
// reading what it claims keeps the books.
func FuzzDetect(f *testing.F) {
	for _, c := range formatLineCases() {
		if c.opt.LogFormat == "" {
			f.Add([]byte(strings.Repeat(c.line+"\n", 3)))
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat(albLine+"\n", 4)))
	zw.Close()
	f.Add(gz.Bytes())
	f.Add(gz.Bytes()[:gz.Len()/2])
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0x00, 0x00})
	f.Add([]byte("\xef\xbb\xbf{\"ts_start\":1796006850}\r\n\r\n{\"ts_start\":1}"))
	f.Add([]byte("{\n  \"log\": {\n    \"entries\": [\n"))
	f.Add([]byte("{\n\"resourceSpans\": [\n"))
	f.Add([]byte("timeStamp,elapsed,label,responseCode\n"))
	f.Add([]byte("\x00\x00\x00\n\xff\xfe\n"))
	// The proxy and CDN formats, each sniffed by its own shape.
	f.Add([]byte(strings.Repeat(haproxyLine+"\n", 2) + haproxyCLFLine + "\n"))
	f.Add([]byte("Dec  1 12:00:18 lb1 haproxy[2310]: " + haproxyNoCapLine + "\n"))
	f.Add([]byte("#Version: 1.0\n#Fields: date time sc-status time-taken x-edge-request-id\n2026-12-01\t12:00:18\t429\t0.005\tX==\n"))
	f.Add([]byte(`{"EdgeStartTimestamp":"2026-12-01T12:00:18Z","EdgeResponseStatus":429,"OriginResponseStatus":0}` + "\n"))
	f.Add([]byte(`{"started_at":1796126420310,"latencies":{"request":0,"proxy":-1},"response":{"status":429}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sample := sampleOf(data, true)
		p1, err1 := chooseParser(sample, true, Options{}, newInterner())
		p2, err2 := chooseParser(sample, true, Options{}, newInterner())
		if (p1 == nil) != (p2 == nil) || (err1 == nil) != (err2 == nil) {
			t.Fatalf("detection differs between two runs: %v/%v, %v/%v", p1, p2, err1, err2)
		}
		if p1 != nil && p1.format() != p2.format() {
			t.Fatalf("detected %s, then %s", p1.format(), p2.format())
		}
		if p1 == nil && err1 == nil && len(sample) > 0 {
			t.Fatalf("%d sampled lines, no format and no error", len(sample))
		}
		checkAccounting(t, data, Options{})
	})
}
