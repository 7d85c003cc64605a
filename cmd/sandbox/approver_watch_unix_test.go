//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// watch shows, at start, what the human must know about: a request whose
// approver was killed while running it (interrupted, never run again) and
// a bad file in pending/ (quarantined); neither blocks the next request.
func TestWatchShowsInterruptedAndQuarantined(t *testing.T) {
	t.Parallel()
	root := project(t, false)
	r := startRequest(t, root, "k", "", "--script", "echo $$ >> pids.txt; exec sleep 60")
	approve := sandboxCmd(t, root, "approve", r.id, "--hash", hashOf(t, root, r.id))
	if err := approve.Start(); err != nil {
		t.Fatal(err)
	}
	pids := filepath.Join(root, "pids.txt")
	for i := 0; ; i++ {
		if data, _ := os.ReadFile(pids); len(data) > 0 {
			t.Cleanup(func() { killText(string(data)) })
			break
		}
		if i > 1000 {
			t.Fatal("the command did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	approve.Process.Kill()
	approve.Wait()
	os.Symlink("/etc/passwd", filepath.Join(root, ".sandbox", "escalations", "pending", "01aaaaaaaaaaaaaaaaaaaaaaaa.json"))

	screen, key, wait := plainWatch(t, root) // its Recover finds the dead approver
	screen.waitFor(t, "! interrupted: "+r.id, 1)
	screen.waitFor(t, "quarantine", 1)
	if code := r.wait(); code != 125 || !strings.Contains(r.err.String(), "interrupted") {
		t.Errorf("the agent's request after its approver died: exit %d, %s", code, r.err.String())
	}
	next := startRequest(t, root, "k2", "", "--script", "echo still-working")
	screen.waitFor(t, "── request "+next.id, 1)
	key("a")
	if code := next.wait(); code != 0 {
		t.Errorf("next request: exit %d", code)
	}
	key("q")
	wait()
	data, _ := os.ReadFile(pids)
	if n := strings.Count(string(data), "\n"); n != 1 {
		t.Errorf("the interrupted command ran %d times", n)
	}
}

func killText(pids string) {
	for _, f := range strings.Fields(pids) {
		if pid, err := strconv.Atoi(f); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
