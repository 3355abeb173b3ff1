//go:build !linux

package spill

import (
	"errors"
	"unsafe"
)

// arena exists only on Linux; elsewhere Start fails and Make always
// allocates on the heap.
type arena struct{ minBytes int64 }

func (a *arena) alloc(int64) ([]byte, bool) { return nil, false }
func (a *arena) free(uintptr, int64) bool   { return false }
func (a *arena) stats() Stats               { return Stats{} }
func (a *arena) take(int64) bool            { return false }
func (a *arena) inUse() bool                { return false }

// Start reports that the spill needs Linux.
func Start(opt Options) (stop func(), err error) {
	return nil, errors.New("spill: a spill file needs Linux")
}

// adviseHuge does nothing: huge-page advice is Linux's.
func adviseHuge(unsafe.Pointer, int64) {}

// mapOffHeap declines: private mappings are placed on Linux only, and
// the slices stay on the heap elsewhere.
func mapOffHeap(int64) ([]byte, bool) { return nil, false }

func releaseOffHeap(uintptr, int64) bool { return false }
