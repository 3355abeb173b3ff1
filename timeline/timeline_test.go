package timeline

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// referenceSort is Sort's specification: a stable sort by start, source
// and line.
func referenceSort(events []Event) []Event {
	out := slices.Clone(events)
	slices.SortStableFunc(out, func(a, b Event) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Source, b.Source); c != 0 {
			return c
		}
		return cmp.Compare(a.Line, b.Line)
	})
	return out
}

// randomEvents makes events with many ties on every key, tagged by
// Attempt with their input position so that stability can be checked.
func randomEvents(r *rand.Rand, n, sources int, bigLines bool) []Event {
	events := make([]Event, n)
	for i := range events {
		line := int64(r.IntN(n/2 + 1))
		if bigLines && r.IntN(4) == 0 {
			line += 1 << 50
		}
		events[i] = Event{Start: int64(r.IntN(n/3 + 1)), Source: int32(r.IntN(sources)), Line: line, Attempt: Small(i), Route: Intern("r")}
	}
	return events
}

func TestSortMatchesStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name     string
		n        int
		bigLines bool
	}{
		{"empty", 0, false},
		{"one", 1, false},
		{"small", 17, false},
		{"large", 5000, false},
		{"lines past the packed key", 3000, true},
		{"positions in order (a file read in order)", 5000, false},
		{"positions in order, small", 40, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := randomEvents(r, tc.n, 3, tc.bigLines)
			if strings.HasPrefix(tc.name, "positions in order") {
				// Several events per line and out-of-order starts, as a
				// log written when requests finish has them.
				slices.SortStableFunc(events, func(a, b Event) int {
					return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Line, b.Line))
				})
				if !positionsInOrder(events) {
					t.Fatal("test input is not in position order")
				}
			}
			want := referenceSort(events)
			tl := &Timeline{Events: events}
			tl.Sort()
			if !slices.Equal(tl.Events, want) {
				t.Fatal("Sort differs from a stable sort by start, source and line")
			}
		})
	}
}

func TestMergeMatchesAppendAndSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name     string
		sizes    []int
		inOrder  bool
		bigLines bool
	}{
		{"one part", []int{100}, false, false},
		{"pieces of one file", []int{50, 0, 70, 30}, false, false},
		{"pieces already in order", []int{40, 40, 40}, true, false},
		{"big lines", []int{300, 200}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Pieces of one source: each piece's lines count from 1, and
			// LineBase makes them the file's.
			var parts []Part
			var whole []Event
			var lineBase int64
			for _, n := range tc.sizes {
				events := randomEvents(r, n, 1, tc.bigLines)
				if tc.inOrder {
					for i := range events {
						events[i].Start = int64(len(whole) + i)
						events[i].Line = int64(i + 1)
					}
				}
				for _, e := range events {
					e.Line += lineBase
					whole = append(whole, e)
				}
				parts = append(parts, Part{Events: events, LineBase: lineBase})
				lineBase += int64(n)
			}
			want := referenceSort(whole)
			got := Merge([]Source{{Path: "a"}}, parts)
			if !slices.Equal(got.Events, want) {
				t.Fatal("Merge differs from a stable sort of the concatenated pieces")
			}
			for i := range parts {
				if parts[i].Events != nil {
					t.Fatalf("part %d still holds its events: Merge must let their memory go", i)
				}
			}
		})
	}
	t.Run("several files", func(t *testing.T) {
		a := randomEvents(r, 500, 2, false)
		b := randomEvents(r, 400, 1, false)
		var whole []Event
		whole = append(whole, a...)
		for _, e := range b {
			e.Source += 2
			whole = append(whole, e)
		}
		want := referenceSort(whole)
		got := Merge([]Source{{Path: "a1"}, {Path: "a2"}, {Path: "b"}}, []Part{{Events: slices.Clone(a)}, {Events: slices.Clone(b), SourceBase: 2}})
		if !slices.Equal(got.Events, want) {
			t.Fatal("Merge of two files differs from Append and a stable sort")
		}
		if len(got.Sources) != 3 {
			t.Fatalf("got %d sources, want 3", len(got.Sources))
		}
	})
}

func TestSmall(t *testing.T) {
	tests := []struct {
		in   int64
		want int16
	}{
		{0, 0},
		{1, 1},
		{429, 429},
		{math.MaxInt16, math.MaxInt16},
		{math.MaxInt16 + 1, math.MaxInt16},
		{1 << 40, math.MaxInt16},
		{math.MaxInt64, math.MaxInt16},
		{-1, 0},
		{math.MinInt64, 0},
	}
	for _, tt := range tests {
		if got := Small(tt.in); got != tt.want {
			t.Errorf("Small(%d) = %d, want %d", tt.in, got, tt.want)
		}
	}
	if got := Small(uint64(math.MaxUint64)); got != math.MaxInt16 {
		t.Errorf("Small(MaxUint64) = %d, want %d", got, math.MaxInt16)
	}
}

func TestMillisOf(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want Millis
	}{
		{0, 0},
		{-1, NoRetryAfter},
		{-time.Hour, NoRetryAfter},
		{time.Nanosecond, 1}, // a retry-after under a millisecond stays one
		{499 * time.Microsecond, 1},
		{500 * time.Microsecond, 1},
		{1499 * time.Microsecond, 1},
		{1500 * time.Microsecond, 2},
		{2 * time.Second, 2000},
		{9999050 * time.Microsecond, 9999},
		{24 * time.Hour, 86_400_000},
		{math.MaxInt32 * time.Millisecond, math.MaxInt32},
		{math.MaxInt64, math.MaxInt32},
	}
	for _, tt := range tests {
		if got := MillisOf(tt.in); got != tt.want {
			t.Errorf("MillisOf(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestMillisRoundTrip: a whole number of milliseconds, as every server
// states a retry-after, survives MillisOf and Duration unchanged, and any
// duration moves by at most half a millisecond.
func TestMillisRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		ms := time.Duration(r.Int64N(int64(math.MaxInt32))) * time.Millisecond
		if got := MillisOf(ms).Duration(); got != ms {
			t.Fatalf("MillisOf(%v).Duration() = %v", ms, got)
		}
		d := time.Duration(r.Int64N(int64(math.MaxInt32) * int64(time.Millisecond)))
		if got := MillisOf(d).Duration(); (got-d).Abs() > time.Millisecond/2 && !(d < time.Millisecond/2 && got == time.Millisecond) {
			t.Fatalf("MillisOf(%v).Duration() = %v, off by more than half a millisecond", d, got)
		}
	}
}
