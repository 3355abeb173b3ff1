package timeline

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortParallel: split between cores, the keys come out in the order a
// single sort gives, for the orders logs arrive in.
func TestSortParallel(t *testing.T) {
	byKey := func(a, b shortKey) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.index, b.index))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name  string
		start func(i int) int64
	}{
		{"in order", func(i int) int64 { return int64(i) }},
		{"reversed", func(i int) int64 { return int64(-i) }},
		{"nearly in order, as start = end - duration gives", func(i int) int64 { return int64(i*10 - rng.IntN(50)) }},
		{"one instant", func(int) int64 { return 7 }},
		{"two instants", func(i int) int64 { return int64(i % 2) }},
		{"random", func(int) int64 { return rng.Int64N(1000) }},
	}
	for _, tt := range tests {
		for _, n := range []int{0, 1, minParallelSort - 1, 2*minParallelSort + 7} {
			for _, workers := range []int{1, 2, 3, 8} {
				keys := make([]shortKey, n)
				for i := range keys {
					keys[i] = shortKey{start: tt.start(i), index: uint32(i)}
				}
				want := slices.Clone(keys)
				slices.SortFunc(want, byKey)
				sortOn(keys, byKey, workers)
				if !slices.Equal(keys, want) {
					t.Errorf("%s, %d keys on %d cores: not the single sort's order", tt.name, n, workers)
				}
			}
		}
	}
}
