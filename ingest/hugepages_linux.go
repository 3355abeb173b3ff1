package ingest

import (
	"syscall"
	"unsafe"

	"github.com/stampede/stampede/timeline"
)

// hugePageBytes is the size of a transparent huge page on the machines
// stampede runs on (x86-64 and arm64 with 4 KiB base pages).
const hugePageBytes = 2 << 20

// adviseHugePages asks the kernel to back a large events slice with huge
// pages. Writing fresh memory page by page is much of the cost of reading a
// large log, one fault per 4 KiB; with huge pages it is one per 2 MiB. On
// kernels whose transparent huge pages are "madvise" (common on servers)
// nothing else turns them on; where they are "always" or "never", or the
// call fails, the slice is simply used as it is.
func adviseHugePages(events []timeline.Event) {
	size := uintptr(len(events)) * unsafe.Sizeof(timeline.Event{})
	if size < 4*hugePageBytes {
		return
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(events))), size)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	// madvise needs page-aligned bounds; only whole huge pages inside the
	// slice can be huge anyway.
	lo := (start+hugePageBytes-1)&^(hugePageBytes-1) - start
	hi := (start+size)&^(hugePageBytes-1) - start
	if hi <= lo {
		return
	}
	_ = syscall.Madvise(raw[lo:hi], 14) // MADV_HUGEPAGE
}
