package timeline

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
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
		events[i] = Event{Start: int64(r.IntN(n/3 + 1)), Source: int32(r.IntN(sources)), Line: line, Attempt: int32(i), Route: Intern("r")}
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
