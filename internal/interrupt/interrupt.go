// Package interrupt catches SIGINT and SIGTERM from the moment the process
// initialises its packages. Until a program asks for them, Go lets these
// signals kill it (status 130 or 143); a handler installed in main comes only
// after every imported package has initialised, about 5 ms after the start
// for the command, so a signal sent at once, as a CI runner cancelling a job
// does, bypassed the command's own error and exit status.
//
// The package imports nothing slow to initialise, so Go initialises it right
// after os/signal, well under a millisecond after the process starts:
// importing it is all it takes. A signal caught before Context is called is
// kept for it.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// caught holds the first signal until Context reads it; later ones are
// dropped, as signal.NotifyContext does once its context is done.
var caught = make(chan os.Signal, 1)

func init() {
	signal.Notify(caught, os.Interrupt, syscall.SIGTERM)
}

// Context returns a copy of parent that is cancelled by the first SIGINT or
// SIGTERM, one caught before this call included: then it is cancelled
// already. stop restores the signals' default action and releases the
// context.
func Context(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	stop = func() {
		signal.Stop(caught)
		cancel()
	}
	select {
	case <-caught:
		cancel()
		return ctx, stop
	default:
	}
	go func() {
		select {
		case <-caught:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, stop
}

// Reset gives SIGINT and SIGTERM their default action back, for a test
// binary that imports a command's package but is not that command.
func Reset() {
	signal.Stop(caught)
}
