//go:build linux

package spill

import (
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

type pointerFreeRecord struct {
	start int64
	id    uint32
	flags [3]bool
}

type recordWithPointer struct {
	start int64
	name  string
}

// startForTest turns a spill on that takes every slice, and off at the end.
func startForTest(t *testing.T, budget int64) *arena {
	t.Helper()
	stop, err := Start(Options{Dir: t.TempDir(), Budget: budget, MinBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return active.Load()
}

func inSpill[T any](a *arena, s []T) bool {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.regions {
		if base := uintptr(unsafeStart(r.mem)); p >= base && p < base+uintptr(len(r.mem)) {
			return true
		}
	}
	return false
}

func TestMakeWithoutSpillIsHeap(t *testing.T) {
	if _, ok := Current(); ok {
		t.Fatal("a spill is on before any test started one")
	}
	s := Make[int64](3, 10)
	if len(s) != 3 || cap(s) != 10 {
		t.Fatalf("len %d cap %d, want 3 and 10", len(s), cap(s))
	}
	// Pointers are fine on the heap.
	_ = Make[recordWithPointer](1, 1)
}

// TestSpillKeepsData writes a pattern, drops every page from the resident
// set as the watchdog does, and reads the pattern back.
func TestSpillKeepsData(t *testing.T) {
	a := startForTest(t, 0)
	for _, tc := range []struct {
		name string
		n, c int
	}{
		{"one page", 10, 512},
		{"many pages", 1 << 20, 1 << 20},
		{"length below capacity", 1000, 1 << 18},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Make[pointerFreeRecord](tc.n, tc.c)
			if len(s) != tc.n || cap(s) != tc.c {
				t.Fatalf("len %d cap %d, want %d and %d", len(s), cap(s), tc.n, tc.c)
			}
			if !inSpill(a, s) {
				t.Fatal("the slice is not in the spill file")
			}
			s = s[:cap(s)]
			for i := range s {
				if s[i] != (pointerFreeRecord{}) {
					t.Fatalf("fresh slot %d holds %+v, want zero", i, s[i])
				}
				s[i] = pointerFreeRecord{start: int64(i) * 7, id: uint32(i), flags: [3]bool{i%2 == 0}}
			}
			a.release()
			for i := range s {
				if want := (pointerFreeRecord{start: int64(i) * 7, id: uint32(i), flags: [3]bool{i%2 == 0}}); s[i] != want {
					t.Fatalf("slot %d after release holds %+v, want %+v", i, s[i], want)
				}
			}
		})
	}
}

func TestFree(t *testing.T) {
	a := startForTest(t, 0)
	whole := Make[int64](1<<16, 1<<16)
	window := whole[1024:2048]
	if Free(window) {
		t.Fatal("Free of a window inside a slice reported freeing it")
	}
	if st := a.stats(); st.Freed != 0 {
		t.Fatalf("freeing a window inside a slice freed %d bytes; it must free nothing", st.Freed)
	}
	whole[5] = 42
	if !Free(whole[:10]) { // same start and capacity: the slice as made
		t.Fatal("Free of the slice as made reported freeing nothing")
	}
	st := a.stats()
	if st.Freed != 1<<19 {
		t.Fatalf("freed %d bytes, want %d", st.Freed, 1<<19)
	}
	// Freed memory stays mapped and reads as zeros, so a mistaken late
	// read gives zeros, not a crash.
	if whole[5] != 0 {
		t.Fatalf("freed slot reads %d, want 0", whole[5])
	}
	if Free(whole) { // twice: nothing more
		t.Fatal("a second Free reported freeing the slice again")
	}
	if again := a.stats(); again.Freed != st.Freed {
		t.Fatalf("a second Free freed %d more bytes", again.Freed-st.Freed)
	}
}

func TestMakeRejectsPointers(t *testing.T) {
	startForTest(t, 0)
	for _, tc := range []struct {
		name string
		make func()
	}{
		{"string", func() { Make[string](1, 1) }},
		{"struct with a string", func() { Make[recordWithPointer](1, 1) }},
		{"slice", func() { Make[[]int](1, 1) }},
		{"pointer in an array", func() { Make[[2]*int](1, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("Make accepted a type with pointers")
				}
			}()
			tc.make()
		})
	}
}

func TestHasPointers(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  bool
		want bool
	}{
		{"int64", hasPointers(typeOf[int64]()), false},
		{"pointer-free struct", hasPointers(typeOf[pointerFreeRecord]()), false},
		{"empty array of pointers", hasPointers(typeOf[[0]*int]()), false},
		{"struct with a string", hasPointers(typeOf[recordWithPointer]()), true},
		{"map", hasPointers(typeOf[map[int]int]()), true},
		{"interface", hasPointers(typeOf[any]()), true},
		{"unsafe.Pointer", hasPointers(typeOf[unsafe.Pointer]()), true},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: hasPointers = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// TestReleaseDropsResidentPages checks what the budget rests on: the
// watchdog's release takes the spill's pages out of the resident set.
func TestReleaseDropsResidentPages(t *testing.T) {
	a := startForTest(t, 0)
	const size = 256 << 20
	s := Make[byte](size, size)
	before, ok := residentBytes()
	if !ok {
		t.Skip("no /proc/self/statm")
	}
	for i := 0; i < size; i += 4096 {
		s[i] = 1
	}
	touched, _ := residentBytes()
	if touched-before < size/2 {
		t.Fatalf("writing %d MiB raised the resident set by only %d MiB", size>>20, (touched-before)>>20)
	}
	a.release()
	released, _ := residentBytes()
	if touched-released < size/2 {
		t.Fatalf("release lowered the resident set by only %d MiB of %d", (touched-released)>>20, size>>20)
	}
	if st := a.stats(); st.Releases != 1 {
		t.Fatalf("Releases = %d, want 1", st.Releases)
	}
	for i := 0; i < size; i += 4096 {
		if s[i] != 1 {
			t.Fatalf("byte %d lost after release", i)
		}
	}
}

func TestStartTwiceFails(t *testing.T) {
	startForTest(t, 0)
	if _, err := Start(Options{Dir: t.TempDir()}); err == nil {
		t.Fatal("a second Start succeeded while the first spill was on")
	}
}

func TestStartInMissingDirFails(t *testing.T) {
	if _, err := Start(Options{Dir: t.TempDir() + "/missing"}); err == nil {
		t.Fatal("Start succeeded in a directory that does not exist")
	}
	if _, ok := Current(); ok {
		t.Fatal("a failed Start left a spill on")
	}
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

func TestStartRefusesMemoryFileSystems(t *testing.T) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &fs); err != nil || uint32(fs.Type) != tmpfsMagic {
		t.Skip("no tmpfs at /dev/shm")
	}
	stop, err := Start(Options{Dir: "/dev/shm"})
	if err == nil {
		stop()
		t.Fatal("Start accepted a tmpfs directory, where the spill would stay in memory")
	}
	if !strings.Contains(err.Error(), "tmpfs") {
		t.Fatalf("error %q does not say why", err)
	}
}

// TestStandby holds the spill back until the heap would pass HeapAbove:
// before, slices are the heap's and no file exists; the slice that passes
// it is the first in the file, and OnFirst hears of it once, with the
// error when the file cannot be made.
func TestStandby(t *testing.T) {
	tests := []struct {
		name      string
		heapAbove int64
		dir       func(t *testing.T) string
		inFile    bool
		wantErr   string // from OnFirst; "" for none
		called    bool
	}{
		{"a heap under the mark", 1 << 50, func(t *testing.T) string { return t.TempDir() }, false, "", false},
		{"a heap past it", 1, func(t *testing.T) string { return t.TempDir() }, true, "", true},
		{"a file that cannot be made", 1, func(t *testing.T) string { return t.TempDir() + "/missing" }, false, "no such file", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []error
			stop, err := Start(Options{Dir: tt.dir(t), MinBytes: 1, HeapAbove: tt.heapAbove, OnFirst: func(err error) { calls = append(calls, err) }})
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			a := active.Load()
			for range 3 {
				s := Make[int64](10, 1000)
				if inSpill(a, s) != tt.inFile {
					t.Fatalf("in the file: %v, want %v", inSpill(a, s), tt.inFile)
				}
			}
			if _, on := Current(); on != tt.inFile {
				t.Errorf("Current says on: %v, want %v", on, tt.inFile)
			}
			if len(calls) != map[bool]int{false: 0, true: 1}[tt.called] {
				t.Fatalf("OnFirst called %d times", len(calls))
			}
			if tt.called && (tt.wantErr == "") != (calls[0] == nil) || tt.wantErr != "" && !strings.Contains(calls[0].Error(), tt.wantErr) {
				t.Fatalf("OnFirst(%v), want an error with %q", calls[0], tt.wantErr)
			}
		})
	}
}

// TestHeapSlicesAdvisedHuge checks, in /proc/self/smaps, that a large
// heap slice's whole huge pages are marked for transparent huge pages
// ("hg" in VmFlags) and a small one's are not: the advice is what lets a
// machine whose THP setting is "madvise" back the events with 2 MiB pages.
func TestHeapSlicesAdvisedHuge(t *testing.T) {
	tests := []struct {
		name    string
		bytes   int
		advised bool
	}{
		// First, before any advised slice's memory can be reused for it.
		{"4 MiB", 4 << 20, false},
		{"64 MiB of events", 64 << 20, true},
		{"8 MiB, the smallest advised", hugeAdviceBytes, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Make[pointerFreeRecord](0, tc.bytes/int(unsafe.Sizeof(pointerFreeRecord{})))
			p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
			// A whole huge page inside the slice, where the advice lands.
			page := (p + hugePage - 1) &^ (hugePage - 1)
			if page+hugePage > p+uintptr(tc.bytes) {
				t.Skip("no whole huge page inside this slice")
			}
			if got := vmFlagsAt(t, page); strings.Contains(got, " hg") != tc.advised {
				t.Errorf("VmFlags at %#x: %q; want hg: %v", page, got, tc.advised)
			}
			runtime.KeepAlive(s)
		})
	}
}

// vmFlagsAt returns the VmFlags line of the mapping holding addr.
func vmFlagsAt(t *testing.T, addr uintptr) string {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	in := false
	for line := range strings.Lines(string(raw)) {
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			continue
		}
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return " " + strings.TrimSpace(rest)
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return ""
}

// TestKeepOffHeap places large pointer-free slices in mappings of their
// own, hands them back only when freed whole, and leaves small slices,
// slices with pointers and slices made after stop on the heap.
func TestKeepOffHeap(t *testing.T) {
	stop := KeepOffHeap()
	defer stop()
	const n = DefaultMinBytes / 8
	large := func() []int64 { return Make[int64](n, n) }
	tests := []struct {
		name    string
		made    func() bool // whether the slice made is off the heap
		offHeap bool
	}{
		{"a large pointer-free slice", func() bool { return isOffHeap(large()) }, true},
		{"a small one", func() bool { return isOffHeap(Make[int64](10, 10)) }, false},
		{"a large one with pointers", func() bool { return isOffHeap(Make[recordWithPointer](n/2, n/2)) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.made(); got != tc.offHeap {
				t.Fatalf("off the heap: %v, want %v", got, tc.offHeap)
			}
		})
	}

	before := offHeapBytes()
	s := large()
	if got := offHeapBytes() - before; got != n*8 {
		t.Fatalf("a slice of %d bytes added %d off-heap bytes", n*8, got)
	}
	s[5] = 42
	if Free(s[100:200]) {
		t.Fatal("Free of a window inside the slice reported freeing it")
	}
	if s[5] != 42 {
		t.Fatal("freeing a window lost the slice's data")
	}
	if !Free(s[:10]) {
		t.Fatal("Free of the slice as made reported freeing nothing")
	}
	if got := offHeapBytes(); got != before {
		t.Fatalf("%d off-heap bytes after Free, want %d", got, before)
	}
	// As with the spill file, a late read gives zeros, not a fault.
	if s[5] != 0 {
		t.Fatalf("freed slot reads %d, want 0", s[5])
	}
	if Free(s) {
		t.Fatal("a second Free reported freeing the slice again")
	}

	stop()
	if isOffHeap(large()) {
		t.Fatal("a slice made after stop is off the heap")
	}
}

// isOffHeap reports whether s starts one of KeepOffHeap's mappings.
func isOffHeap[T any](s []T) bool {
	offHeapMaps.Lock()
	defer offHeapMaps.Unlock()
	_, ok := offHeapMaps.byStart[uintptr(unsafe.Pointer(unsafe.SliceData(s)))]
	return ok
}

// offHeapBytes is what the off-heap mappings not handed back hold.
func offHeapBytes() int64 {
	offHeapMaps.Lock()
	defer offHeapMaps.Unlock()
	var total int64
	for _, mem := range offHeapMaps.byStart {
		total += int64(len(mem))
	}
	return total
}
