package spill

import (
	"sync"
	"syscall"
	"unsafe"
)

// offHeapMaps are the mappings Make made while KeepOffHeap was on and
// Free has not handed back, by start address: Free hands one back only
// when given the whole of it, never a window of it.
var offHeapMaps struct {
	sync.Mutex
	byStart map[uintptr][]byte
}

// mapOffHeap maps size bytes of private memory of their own, advised to
// huge pages as heapSlice's are (a pass over millions of events in a
// random order costs a TLB miss a page otherwise).
func mapOffHeap(size int64) ([]byte, bool) {
	if size <= 0 || int64(int(size)) != size {
		return nil, false
	}
	mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, false
	}
	adviseHuge(unsafe.Pointer(unsafe.SliceData(mem)), size)
	offHeapMaps.Lock()
	if offHeapMaps.byStart == nil {
		offHeapMaps.byStart = map[uintptr][]byte{}
	}
	offHeapMaps.byStart[uintptr(unsafe.Pointer(unsafe.SliceData(mem)))] = mem
	offHeapMaps.Unlock()
	return mem, true
}

// releaseOffHeap hands the pages of the mapping that starts at start and is
// capBytes long back to the kernel, and reports whether there was one. The
// range stays mapped and reads as zeros, as a freed slice of the spill
// file does: a slice freed while a copy of it is still read gives zeros,
// not a fault.
func releaseOffHeap(start uintptr, capBytes int64) bool {
	offHeapMaps.Lock()
	mem, ok := offHeapMaps.byStart[start]
	ok = ok && int64(len(mem)) == capBytes
	if ok {
		delete(offHeapMaps.byStart, start)
	}
	offHeapMaps.Unlock()
	if ok {
		syscall.Madvise(mem, syscall.MADV_DONTNEED)
	}
	return ok
}
