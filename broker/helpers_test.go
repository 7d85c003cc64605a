//go:build unix

package broker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"golang.org/x/sys/unix"
)

// run runs spec with a temporary root (unless set), the scrubbed test
// environment and a generous timeout.
func run(t *testing.T, spec broker.Spec) (broker.Outcome, error) {
	t.Helper()
	if spec.Root == "" {
		spec.Root = t.TempDir()
	}
	if spec.Env == nil {
		spec.Env = broker.Scrub(os.Environ(), nil)
	}
	if spec.Timeout == 0 {
		spec.Timeout = time.Minute
	}
	return broker.Run(context.Background(), spec)
}

func mustRun(t *testing.T, spec broker.Spec) broker.Outcome {
	t.Helper()
	oc, err := run(t, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return oc
}

// readPid reads a pid that a script wrote to path.
func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		t.Fatalf("pid file %q: %v", b, err)
	}
	return pid
}

// waitDead waits (bounded) until pid no longer exists or is a zombie
// nobody has reaped yet; it fails the test if pid stays alive.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	for range 500 {
		if !alive(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	unix.Kill(pid, unix.SIGKILL)
	t.Fatalf("process %d survived the broker", pid)
}

func alive(pid int) bool {
	if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true // no /proc: kill(pid, 0) said it exists
	}
	// "pid (comm) S ...": the state follows the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
