package stampede

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/timeline"
)

// twoServers is the costly case for duplicate detection: two access logs
// of one format over the same seconds, none of whose events repeat.
func twoServers(n int) *timeline.Timeline {
	tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "a", Format: "nginx:combined"}, {Path: "b", Format: "nginx:combined"}}}
	for i := range n {
		for src := range int32(2) {
			tl.Events = append(tl.Events, timeline.Event{
				Start: int64(i/100) * 1e9, Layer: timeline.LayerHTTP, Status: 429,
				Route: timeline.Intern("/v1/chat/" + strconv.Itoa(int(src))), Client: timeline.Intern("OpenAI/Python 1.52.0"), Source: src, Line: int64(i + 1),
			})
		}
	}
	tl.Sources[0].Events, tl.Sources[1].Events = int64(n), int64(n)
	tl.Sort()
	return tl
}

func BenchmarkDropDuplicatesTwoServers(b *testing.B) {
	base := twoServers(200_000)
	events := make([]timeline.Event, len(base.Events))
	b.ReportAllocs()
	for b.Loop() {
		copy(events, base.Events)
		tl := &timeline.Timeline{Events: events, Sources: append([]timeline.Source(nil), base.Sources...)}
		dropDuplicates(tl)
		if tl.Sources[1].Duplicates != 0 {
			b.Fatal("dropped events of another server")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(base.Events)), "ns/event")
}

// TestFarEventsAreKept checks which events far from the median stay: those
// of a log spanning months stay, with a warning that names the span; a
// stamp no log can hold (the epoch, the year 2200) goes, counted as skipped.
func TestFarEventsAreKept(t *testing.T) {
	day := int64(24 * time.Hour)
	base := time.Date(2026, 11, 30, 2, 47, 0, 0, time.UTC).UnixNano()
	tests := []struct {
		name      string
		far       []int64 // starts of the events after 50 at base
		kept      int
		skipped   int64
		warnsFrom string // "" for no warning
	}{
		{"none far", []int64{base + day}, 51, 0, ""},
		{"months earlier", []int64{base - 90*day, base - 60*day}, 52, 0, "2 events lie more than 30 days from the median time of all inputs, 2026-11-30T02:47:24Z (from 2026-09-01T02:47:00Z to 2026-10-01T02:47:00Z)"},
		{"years later", []int64{base + 800*day}, 51, 0, "1 events lie more than 30 days"},
		{"the epoch", []int64{1e9}, 50, 1, ""},
		{"the year 2200", []int64{time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()}, 50, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &timeline.Timeline{Sources: []timeline.Source{{Path: "a"}}}
			for i := range 50 {
				tl.Events = append(tl.Events, timeline.Event{Start: base + int64(i)*1e9, Line: int64(i + 1), Layer: timeline.LayerHTTP})
			}
			for i, s := range tt.far {
				tl.Events = append(tl.Events, timeline.Event{Start: s, Line: int64(51 + i), Layer: timeline.LayerHTTP})
			}
			src := &tl.Sources[0]
			src.Lines, src.Parsed, src.Events = int64(len(tl.Events)), int64(len(tl.Events)), int64(len(tl.Events))
			tl.Sort()
			dropFarEvents(tl)
			if len(tl.Events) != tt.kept || src.Skipped != tt.skipped || src.Events != int64(tt.kept) || src.Parsed+src.Skipped != src.Lines {
				t.Errorf("kept %d, source %+v; want %d kept, %d skipped", len(tl.Events), *src, tt.kept, tt.skipped)
			}
			w := strings.Join(src.Warnings, "\n")
			if tt.warnsFrom == "" && w != "" || !strings.Contains(w, tt.warnsFrom) {
				t.Errorf("warnings %q, want %q", w, tt.warnsFrom)
			}
			if tt.skipped > 0 && !strings.Contains(src.Samples[0].Reason, "days from the median") {
				t.Errorf("skip reason %q", src.Samples[0].Reason)
			}
		})
	}
}
