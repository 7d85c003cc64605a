//go:build unix

package broker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// TestRunTimeoutKillsTheGroup: on timeout the leader and a grandchild in
// the background both die, and the outcome says so.
func TestRunTimeoutKillsTheGroup(t *testing.T) {
	tests := []struct {
		name   string
		script string
		signal string
	}{
		// SIGTERM is enough.
		{"term", "sleep 1000 & echo $! > pid; sleep 1000", "SIGTERM"},
		// The leader and the grandchild ignore SIGTERM: SIGKILL after the grace.
		{"kill after grace", "trap '' TERM; sleep 1000 & echo $! > pid; while :; do sleep 1; done", "SIGKILL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			oc, err := run(t, broker.Spec{Root: root, Script: tc.script, Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if !oc.TimedOut || oc.Signal != tc.signal {
				t.Errorf("timed out %v signal %q, want %q", oc.TimedOut, oc.Signal, tc.signal)
			}
			waitDead(t, readPid(t, filepath.Join(root, "pid")))
		})
	}
}

// TestRunKillsLeftoversAfterExit: what a command leaves running in the
// background dies with it, and Run does not wait for it.
func TestRunKillsLeftoversAfterExit(t *testing.T) {
	root := t.TempDir()
	oc := mustRun(t, broker.Spec{Root: root, Script: "sleep 1000 & echo $! > pid; echo done"})
	if oc.ExitCode != 0 || oc.Stdout != "done\n" || oc.TimedOut {
		t.Errorf("outcome %+v", oc)
	}
	waitDead(t, readPid(t, filepath.Join(root, "pid")))
}

func TestRunCancelKillsTheGroup(t *testing.T) {
	root := t.TempDir()
	pidFile := filepath.Join(root, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		testenv.WaitFor(t, "pid file", func() bool { _, err := os.Stat(pidFile); return err == nil })
		cancel()
	}()
	oc, err := broker.Run(ctx, broker.Spec{
		Root: root, Script: "sleep 1000 & echo $! > pid.tmp; mv pid.tmp pid; sleep 1000",
		Env: broker.Scrub(os.Environ(), nil), Timeout: time.Minute,
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if oc.Started.IsZero() || oc.Signal != "SIGTERM" || oc.TimedOut {
		t.Errorf("outcome %+v", oc)
	}
	waitDead(t, readPid(t, pidFile))
}

func TestRunCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	root := t.TempDir()
	_, err := broker.Run(ctx, broker.Spec{Root: root, Script: "touch ran"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("ran after cancellation")
	}
}
