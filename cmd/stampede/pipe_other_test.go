//go:build !linux

package main

import (
	"os"
	"testing"
)

// shrinkPipe and pending need Linux's pipe controls; elsewhere the tests
// that block a write on a pipe are skipped.
func shrinkPipe(t *testing.T, f *os.File) {
	t.Skip("needs F_SETPIPE_SZ (Linux)")
}

func pending(t *testing.T, f *os.File) int { return 0 }
