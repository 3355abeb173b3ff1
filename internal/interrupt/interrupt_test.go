package interrupt

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestContext sends the test process each signal, before and after
// Context is called: the context ends either way, and the process lives.
func TestContext(t *testing.T) {
	tests := []struct {
		name   string
		sig    syscall.Signal
		before bool
	}{
		{"SIGTERM before Context", syscall.SIGTERM, true},
		{"SIGINT before Context", syscall.SIGINT, true},
		{"SIGTERM after Context", syscall.SIGTERM, false},
		{"SIGINT after Context", syscall.SIGINT, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Caught from here on, as init does, for whichever row ran
			// the previous stop.
			signal.Notify(caught, os.Interrupt, syscall.SIGTERM)
			if tt.before {
				must(t, syscall.Kill(os.Getpid(), tt.sig))
				// Delivery is asynchronous: wait until it is held.
				for deadline := time.Now().Add(2 * time.Second); len(caught) == 0; time.Sleep(time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the signal never reached the package")
					}
				}
			}
			ctx, stop := Context(context.Background())
			defer stop()
			if tt.before && ctx.Err() == nil {
				t.Fatal("a signal caught before Context left its context running")
			}
			if !tt.before {
				must(t, syscall.Kill(os.Getpid(), tt.sig))
			}
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
				t.Fatal("the context did not end")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
