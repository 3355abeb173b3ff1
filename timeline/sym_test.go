package timeline

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"unsafe"
)

func TestInternRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    string
	}{
		{"empty is NoSym", ""},
		{"ascii", "/v1/chat/completions"},
		{"unicode", "клиент 😀"},
		{"NUL and invalid UTF-8", "a\x00b\xff"},
		{"long", string(make([]byte, 1<<16))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := Intern(tc.s)
			if (id == NoSym) != (tc.s == "") {
				t.Fatalf("Intern(%q) = %d; NoSym is for the empty string only", tc.s, id)
			}
			if got := id.String(); got != tc.s {
				t.Fatalf("String() = %q, want %q", got, tc.s)
			}
			if again := InternBytes([]byte(tc.s)); again != id {
				t.Fatalf("InternBytes gives %d, Intern %d: equal strings must share a Sym", again, id)
			}
		})
	}
}

// TestInternConcurrent interns overlapping sets of strings from several
// goroutines, as the parsers of a file's pieces do, past a chunk boundary:
// every goroutine must get the same Sym for the same string, and distinct
// strings distinct Syms.
func TestInternConcurrent(t *testing.T) {
	const workers, n = 4, 1<<symChunkBits + 3*(1<<12)
	// Multipliers coprime with n (2^12 x 131) make each order a permutation.
	steps := [workers]int{1, 5, 7, 11}
	got := make([][]Sym, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]Sym, n)
			for k := range n {
				// Each worker walks the strings in its own order.
				i := (k*steps[w] + w*7919) % n
				ids[i] = InternBytes(fmt.Appendf(nil, "concurrent-%d", i))
			}
			got[w] = ids
		}()
	}
	wg.Wait()
	seen := make(map[Sym]int, n)
	for i := range n {
		id := got[0][i]
		for w := 1; w < workers; w++ {
			if got[w][i] != id {
				t.Fatalf("string %d: worker 0 got Sym %d, worker %d got %d", i, id, w, got[w][i])
			}
		}
		if j, dup := seen[id]; dup {
			t.Fatalf("strings %d and %d share Sym %d", j, i, id)
		}
		seen[id] = i
		if want := fmt.Sprintf("concurrent-%d", i); id.String() != want {
			t.Fatalf("Sym %d reads back %q, want %q", id, id.String(), want)
		}
	}
}

// TestEventHoldsNoPointers guards what makes large timelines cheap: an
// Event with a string, slice or pointer in it would be scanned by the
// garbage collector millions of times over, and grow past 72 bytes.
func TestEventHoldsNoPointers(t *testing.T) {
	typ := reflect.TypeFor[Event]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch f.Type.Kind() {
		case reflect.Bool, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			t.Errorf("Event.%s is a %s: events must hold no pointers (intern strings as Syms)", f.Name, f.Type)
		}
	}
	if size := unsafe.Sizeof(Event{}); size > 72 {
		t.Errorf("Event is %d bytes, was 72: order fields largest first so none is padded", size)
	}
}

// TestInternSameHash gives a shard strings whose hashes are equal, so
// that they share both the slot they start probing from and the tag: each
// must still get a Sym of its own, found again past the others.
func TestInternSameHash(t *testing.T) {
	var sh symShard
	const h = 0xdeadbeef_00000040
	var ids []Sym
	for i := range 300 { // past the first growth of the slots
		s := fmt.Sprintf("same-hash-%d", i)
		id := sh.intern(s, h)
		for j, prev := range ids {
			if prev == id {
				t.Fatalf("%q got Sym %d, already %q's (string %d)", s, id, prev.String(), j)
			}
		}
		ids = append(ids, id)
	}
	for i, id := range ids {
		s := fmt.Sprintf("same-hash-%d", i)
		if got := sh.intern(s, h); got != id || got.String() != s {
			t.Fatalf("%q again: Sym %d (%q), want %d", s, got, got.String(), id)
		}
	}
}

// BenchmarkIntern interns task ids as a log of many tasks does: each is
// new once, then comes back.
func BenchmarkIntern(b *testing.B) {
	const distinct = 1 << 20
	ids := make([][]byte, distinct)
	run := fmt.Sprint(unsafe.Pointer(&ids))
	for i := range ids {
		ids[i] = fmt.Appendf(nil, "task-%s-%07d", run, i)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		InternBytes(ids[(i*7919)%distinct])
	}
}
