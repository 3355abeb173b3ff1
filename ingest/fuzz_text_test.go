package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stampede/stampede/timeline"
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

// FuzzPrettyJSON gives the reader of pretty-printed JSON records any
// document and checks that every line is accounted for, once.
func FuzzPrettyJSON(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "testdata", "ingest", "realworld-like", "apigateway-console.json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("{\n\"a\": \"}\\\"{\"\n}\n{"))
	f.Add([]byte("2026-11-30T02:47:31Z\n\n{\n} x\nnot json\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		p := newPrettyJSONParser(newAPIGatewayJSONParser(newInterner()))
		var s timeline.Source
		var events []timeline.Event
		if err := p.parseDocument(doc, &s, func(line int64) *timeline.Event {
			events = append(events, timeline.Event{Line: line})
			return &events[len(events)-1]
		}); err != nil {
			t.Fatal(err)
		}
		lines := int64(bytes.Count(doc, []byte{'\n'}))
		if len(doc) > 0 && doc[len(doc)-1] != '\n' {
			lines++
		}
		if s.Lines != lines || s.Parsed+s.Skipped != s.Lines {
			t.Fatalf("%d lines in the input, accounting %+v", lines, s)
		}
		for _, e := range events {
			if e.Line < 1 || e.Line > s.Lines {
				t.Fatalf("event on line %d of %d", e.Line, s.Lines)
			}
		}
	})
}
