//go:build linux

package initsig

import (
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestStarted: outside a jail init nothing was registered at start-up;
// Started then registers the forwarded signals, which arrive on its
// channel instead of acting on the process.
func TestStarted(t *testing.T) {
	if ch != nil {
		t.Fatal("registered at initialisation outside a jail init")
	}
	c, done := Started()
	t.Cleanup(func() { signal.Stop(c) })
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("signals not registered")
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-c:
		if s != syscall.SIGUSR1 {
			t.Errorf("got %v, want SIGUSR1", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SIGUSR1 did not arrive on the channel")
	}
}
