//go:build unix

package main

import (
	"context"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestNotifyContext: once registered, a signal cancels the context
// instead of killing the process; stop cancels it too.
func TestNotifyContext(t *testing.T) {
	t.Parallel()
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

// TestIgnoreUntilArmed: before arm a signal is ignored (neither kills the
// process nor cancels the context); after it, a signal cancels.
func TestIgnoreUntilArmed(t *testing.T) {
	t.Parallel()
	defer signal.Reset(syscall.SIGUSR1)
	ctx, arm, stop := ignoreUntilArmed(context.Background(), syscall.SIGUSR1)
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // an ignored signal leaves no trace to wait for
	if ctx.Err() != nil {
		t.Fatal("a signal before arm cancelled the context")
	}
	arm()
	arm() // idempotent
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a signal after arm did not cancel the context")
	}
}
