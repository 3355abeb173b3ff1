package stampede

import (
	"fmt"
	"math/rand/v2"
	"slices"
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

// TestOverlapSweeps checks the sweeps that find overlapping inputs against
// comparing every two inputs, on hand-made cases and on random ones: the
// sweeps exist so that thousands of rotated logs are not compared pairwise,
// and must find exactly the pairs the comparison finds, in the same order.
func TestOverlapSweeps(t *testing.T) {
	type input struct {
		format   string
		observer timeline.Observer
		starts   []int64 // seconds
	}
	tests := []struct {
		name   string
		inputs []input
	}{
		{"one input", []input{{"combined", "proxy", []int64{1, 2}}}},
		{"rotated, disjoint", []input{{"combined", "proxy", []int64{1, 2}}, {"combined", "proxy", []int64{3, 4}}, {"combined", "proxy", []int64{5}}}},
		{"rotated, touching", []input{{"combined", "proxy", []int64{1, 2}}, {"combined", "proxy", []int64{2, 3}}}},
		{"nested in an earlier long one", []input{{"combined", "proxy", []int64{1, 100}}, {"combined", "proxy", []int64{2}}, {"combined", "proxy", []int64{50}}}},
		{"two formats of one proxy", []input{{"combined", "proxy", []int64{1, 5}}, {"stampede", "proxy", []int64{3, 9}}, {"combined", "proxy", []int64{9, 12}}}},
		{"two formats a second apart", []input{{"combined", "proxy", []int64{1}}, {"stampede", "proxy", []int64{2}}}},
		{"two formats far apart", []input{{"combined", "proxy", []int64{1}}, {"stampede", "proxy", []int64{30}}}},
		{"other observers", []input{{"combined", "proxy", []int64{1, 5}}, {"jsonl", "sdk", []int64{1, 5}}, {"har", "", []int64{1, 5}}, {"k6", "", []int64{1, 5}}}},
		{"no events", []input{{"combined", "proxy", nil}, {"stampede", "proxy", nil}, {"combined", "proxy", []int64{1}}}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		var in []input
		for range 1 + rng.IntN(12) {
			starts := make([]int64, rng.IntN(3))
			for k := range starts {
				starts[k] = rng.Int64N(40)
			}
			in = append(in, input{[]string{"combined", "stampede", "jsonl"}[rng.IntN(3)], []timeline.Observer{"proxy", "sdk", ""}[rng.IntN(3)], starts})
		}
		tests = append(tests, struct {
			name   string
			inputs []input
		}{fmt.Sprintf("random %d", i), in})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &timeline.Timeline{}
			for src, in := range tt.inputs {
				tl.Sources = append(tl.Sources, timeline.Source{Path: strconv.Itoa(src), Format: in.format, Observer: in.observer})
				for _, s := range in.starts {
					tl.Events = append(tl.Events, timeline.Event{Start: s * 1e9, Layer: timeline.LayerHTTP, Source: int32(src)})
				}
			}
			tl.Sort()
			spans := sourceSpans(tl, func(*timeline.Event) bool { return true })
			var wantPairs [][2]int32
			wantShared := false
			for a := range tl.Sources {
				for b := a + 1; b < len(tl.Sources); b++ {
					sa, sb := &tl.Sources[a], &tl.Sources[b]
					if sa.Format == sb.Format && spans[a].overlaps(spans[b], 0) {
						wantShared = true
					}
					if sa.Observer != "" && sa.Observer == sb.Observer && sa.Format != sb.Format && spans[a].overlaps(spans[b], int64(viewTolerance)) {
						wantPairs = append(wantPairs, [2]int32{int32(a), int32(b)})
					}
				}
			}
			if got := sharedFormat(tl); got != wantShared {
				t.Errorf("sharedFormat = %v, want %v", got, wantShared)
			}
			if got := viewCandidates(tl); !slices.Equal(got, wantPairs) {
				t.Errorf("viewCandidates = %v, want %v", got, wantPairs)
			}
			for src := range tl.Sources {
				for other := range tl.Sources {
					var want int64
					for _, e := range tl.Events {
						if e.Source == int32(src) && spans[other].seen && e.Start >= spans[other].lo && e.Start <= spans[other].hi {
							want++
						}
					}
					if got := eventsInRange(tl, int32(src), spans[other]); got != want {
						t.Errorf("eventsInRange(%d, span of %d) = %d, want %d", src, other, got, want)
					}
				}
			}
		})
	}
}
