package stampede

import (
	"strconv"
	"testing"

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
