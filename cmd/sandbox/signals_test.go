//go:build unix

package main

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestNotifyContext: once registered, a signal cancels the context
// instead of killing the process; stop cancels it too.
func TestNotifyContext(t *testing.T) {
	t.Run("signal", func(t *testing.T) {
		ctx, stop, registered := notifyContextAsync(context.Background(), syscall.SIGUSR1)
		defer stop()
		select {
		case <-registered:
		case <-time.After(10 * time.Second):
			t.Fatal("signals not registered")
		}
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the signal did not cancel the context")
		}
	})
	t.Run("stop", func(t *testing.T) {
		ctx, stop := notifyContext(context.Background(), syscall.SIGUSR2)
		stop()
		if ctx.Err() == nil {
			t.Fatal("stop did not cancel the context")
		}
	})
}
