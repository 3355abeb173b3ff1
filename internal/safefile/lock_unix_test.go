//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package safefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLockDir: a second holder waits for the first, or gives up with its
// context's cause, and the lock leaves no file behind; a directory that
// cannot be locked is no error.
func TestLockDir(t *testing.T) {
	stop := errors.New("stopped for the test")
	tests := []struct {
		name string
		// release ends the first holder's lock after this long; 0 keeps
		// it until the second gives up.
		release time.Duration
		wantErr error
	}{
		{"waits for the first holder", 50 * time.Millisecond, nil},
		{"gives up when its context ends", 0, stop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			first, err := LockDir(context.Background(), dir)
			must(t, err)
			released := make(chan time.Time, 1)
			if tt.release > 0 {
				time.AfterFunc(tt.release, func() { released <- time.Now(); first() })
			} else {
				defer first()
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			time.AfterFunc(200*time.Millisecond, func() { cancel(stop) })
			second, err := LockDir(ctx, dir)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("LockDir = %v, want %v", err, tt.wantErr)
			}
			if err == nil {
				second()
				select {
				case <-released:
				default:
					t.Error("the second holder got the lock while the first held it")
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the lock left %d files", len(entries))
			}
		})
	}
	unlock, err := LockDir(context.Background(), filepath.Join(t.TempDir(), "missing"))
	if err != nil {
		t.Errorf("LockDir of a missing directory = %v, want no lock and no error", err)
	}
	unlock()
}
