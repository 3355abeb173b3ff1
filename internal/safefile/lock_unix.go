//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package safefile

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// lockPoll is how often a waiting LockDir looks again, and at its context.
const lockPoll = 5 * time.Millisecond

// LockDir takes an exclusive advisory lock on the directory itself, so that
// runs writing a set of files there (a report and its charts) put their sets
// in place one at a time; it creates no file. It waits for another holder
// until ctx is done. Where the file system has no locks (some network file
// systems), nothing is held and the caller goes on unlocked; the only
// error is ctx's cause.
func LockDir(ctx context.Context, dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return func() {}, nil
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return func() {}, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, context.Cause(ctx)
		case <-time.After(lockPoll):
		}
	}
}
