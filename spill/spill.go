// Package spill keeps the slices that grow with an input's lines out of the
// process's resident memory, so that a log larger than memory can still be
// analysed whole.
//
// Once Start has run, Make places every large slice in a temporary file
// mapped into memory instead of on the Go heap. The analyses read and write
// such a slice as any other; the kernel keeps the pages it can in its page
// cache and writes the rest to disk. A watchdog drops the file's pages from
// the process's resident set whenever the resident set passes the budget,
// so that the memory stampede holds itself stays under it; the pages stay
// in the page cache, which the kernel reclaims under pressure, and come back
// on the next read.
//
// Only pointer-free element types can live there: the garbage collector
// does not look inside the file, so a pointer kept in it would not keep
// anything alive. Make panics on a type with pointers.
package spill

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// DefaultMinBytes is the size below which Make allocates on the heap even
// while the spill is on: small slices gain nothing from a mapping of their
// own.
const DefaultMinBytes = 4 << 20

// Options configure Start.
type Options struct {
	// Dir holds the spill file; "" is os.TempDir().
	Dir string
	// Budget is the resident set, in bytes, past which the spill's pages
	// are dropped from it; 0 never drops them.
	Budget int64
	// MinBytes is the smallest slice placed in the file; 0 is
	// DefaultMinBytes.
	MinBytes int64
	// HeapAbove, when not 0, holds the spill in standby while the Go
	// heap stays under it: Make allocates on the heap as if the spill were
	// off, and the file is made only for the first slice that would take
	// the heap past HeapAbove. For a run that cannot know its input's size
	// beforehand: a small input never touches the disk.
	HeapAbove int64
	// OnFirst, when set, is called once, as standby ends: err is nil when
	// the file was made, else why not (the slices then stay on the heap).
	OnFirst func(err error)
}

// active is the spill in use, or nil.
var active atomic.Pointer[arena]

// Stats describe the spill of a run.
type Stats struct {
	// Dir holds the spill file (already unlinked, so that nothing is
	// left behind even if the process is killed).
	Dir string
	// Bytes is the file space reserved so far, Freed the part handed back.
	Bytes, Freed int64
	// Releases counts the times the watchdog dropped the spill's pages
	// from the resident set.
	Releases int64
	// Fallbacks counts slices that went to the heap because the spill
	// file could not grow (a full disk).
	Fallbacks int64
}

// Current reports the active spill's figures; ok is false when no spill
// is on, or it is in standby (see Options.HeapAbove).
func Current() (Stats, bool) {
	a := active.Load()
	if a == nil || !a.inUse() {
		return Stats{}, false
	}
	return a.stats(), true
}

// Make returns a slice of length n and capacity c, in the spill file when
// the spill is on and the slice is at least its MinBytes, else on the heap.
// Memory from the spill file reads as zeros, like make's.
func Make[T any](n, c int) []T {
	if c < n {
		panic(fmt.Sprintf("spill.Make: len %d larger than cap %d", n, c))
	}
	var zero T
	size := int64(c) * int64(unsafe.Sizeof(zero))
	a := active.Load()
	if a == nil && offHeap.Load() && size >= DefaultMinBytes && isPointerFree(reflect.TypeFor[T]()) {
		if mem, ok := mapOffHeap(size); ok {
			return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), c)[:n]
		}
	}
	if a == nil || size < a.minBytes || !a.take(size) {
		return heapSlice[T](n, c, size)
	}
	mustBePointerFree(reflect.TypeFor[T]())
	mem, ok := a.alloc(size)
	if !ok {
		return heapSlice[T](n, c, size)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), c)[:n]
}

// heapSlice is make([]T, n, c), size bytes, asking the kernel to back a
// large one with huge pages before it is first written (see adviseHuge).
func heapSlice[T any](n, c int, size int64) []T {
	s := make([]T, n, c)
	if size >= hugeAdviceBytes {
		adviseHuge(unsafe.Pointer(unsafe.SliceData(s)), size)
	}
	return s
}

// hugeAdviceBytes is the smallest slice worth the system call: under a few
// huge pages the faults saved do not pay for it.
const hugeAdviceBytes = 8 << 20

// Free hands back the file space and page cache of a slice Make placed in
// the spill file, or the pages of one it mapped under KeepOffHeap. s must
// be Make's slice, or a reslice of it with the same start and capacity;
// nothing may use that slice afterwards, as its memory reads as zeros from
// then on. A window inside such a slice frees nothing, and heap slices,
// and slices of a spill that has since stopped, are left to the garbage
// collector. Free reports whether it handed anything back.
func Free[T any](s []T) bool {
	if cap(s) == 0 {
		return false
	}
	var zero T
	start, size := uintptr(unsafe.Pointer(unsafe.SliceData(s))), int64(cap(s))*int64(unsafe.Sizeof(zero))
	if releaseOffHeap(start, size) {
		return true
	}
	a := active.Load()
	if a == nil {
		return false
	}
	return a.free(start, size)
}

// offHeap is KeepOffHeap's switch.
var offHeap atomic.Bool

// KeepOffHeap makes Make place, from now on and while no spill is on,
// every slice of at least DefaultMinBytes whose elements hold no pointers
// in private memory mapped for it alone, instead of on the Go heap; Free
// hands its pages back to the kernel at once. The collector lets the heap
// grow by a share of the live heap (GOGC) before it collects, and the
// events and their indexes, hundreds of megabytes that it never needs to
// scan, would otherwise make most of that live heap and so most of the
// room it leaves: on a 5M-line log the peak resident set fell from about
// 720 MB to about 630 MB, with no speed change beyond run-to-run noise.
//
// A slice made so lives until Free or the process's end: the garbage
// collector does not know it, so a program that drops such a slice without
// Free keeps its memory. It is for a run that ends with its process, as
// the command's are; stop turns it off for the slices made afterwards.
func KeepOffHeap() (stop func()) {
	offHeap.Store(true)
	return func() { offHeap.Store(false) }
}

// pointerFree caches mustBePointerFree's verdict per type.
var pointerFree sync.Map

func mustBePointerFree(t reflect.Type) {
	if !isPointerFree(t) {
		panic(fmt.Sprintf("spill.Make: %s holds pointers, which the garbage collector cannot see in the spill file", t))
	}
}

// isPointerFree reports whether t holds no pointers, walking each type once.
func isPointerFree(t reflect.Type) bool {
	if free, ok := pointerFree.Load(t); ok {
		return free.(bool)
	}
	free := !hasPointers(t)
	pointerFree.Store(t, free)
	return free
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	}
	return true
}

func unsafeStart(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
