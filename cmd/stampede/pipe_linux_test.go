package main

import (
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// shrinkPipe makes f's pipe hold a page, less than any output the tests
// block on.
func shrinkPipe(t *testing.T, f *os.File) {
	t.Helper()
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_SETPIPE_SZ, 4096); errno != 0 {
		t.Fatalf("F_SETPIPE_SZ: %v", errno)
	}
}

// pending is how many bytes wait in f's pipe.
func pending(t *testing.T, f *os.File) int {
	t.Helper()
	var n int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("FIONREAD: %v", errno)
	}
	return int(n)
}
