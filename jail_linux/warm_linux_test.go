//go:build linux

package jail_linux

import (
	"os"
	"syscall"
	"testing"
)

// TestWarmPidfdHoldsNothing: the warm-up leaves no descriptor open, and
// this process can still be found and signalled afterwards.
func TestWarmPidfdHoldsNothing(t *testing.T) {
	before := openFDs(t)
	warmPidfd()
	warmPidfd()
	if after := openFDs(t); after != before {
		t.Errorf("open descriptors: %d before, %d after", before, after)
	}
	p, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if err := p.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("signal 0 to self: %v", err)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
