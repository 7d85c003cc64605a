//go:build linux

package jail_linux

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// deadPID is the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot start true:", err)
	}
	return cmd.Process.Pid
}

// TestSweepStale: a killed supervisor's empty, old jail cgroups go; a live
// supervisor's, a fresh one (another supervisor may be about to start its
// init in it), a populated one (rmdir refuses) and anything not named as
// a jail's cgroup stay.
func TestSweepStale(t *testing.T) {
	dir := t.TempDir()
	dead, self := strconv.Itoa(deadPID(t)), strconv.Itoa(os.Getpid())
	old := time.Now().Add(-2 * staleAge)
	for name, age := range map[string]time.Time{
		"sandbox-" + dead + "-1": old,        // stale: goes
		"sandbox-" + dead + "-2": time.Now(), // fresh: stays
		"sandbox-" + dead + "-3": old,        // populated (a file below): stays
		"sandbox-" + self + "-1": old,        // this process's: stays
		"sandbox-1-1":            old,        // init's PID, alive: stays
		"sandbox-" + dead:        old,        // not a jail's name: stays
		"user.slice":             old,
	} {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if name == "sandbox-"+dead+"-3" {
			os.WriteFile(filepath.Join(p, "cgroup.procs"), []byte("1\n"), 0o644)
		}
		if err := os.Chtimes(p, age, age); err != nil {
			t.Fatal(err)
		}
	}
	removed := sweepStale(dir)
	if want := []string{"sandbox-" + dead + "-1"}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 6 {
		t.Errorf("%d entries left, want 6", len(left))
	}
}

func TestJailCgroupPID(t *testing.T) {
	for name, want := range map[string]int{
		"sandbox-123-4": 123, "sandbox-1-1": 1, "sandbox-123": 0, "sandbox--1-2": 0, "sandbox-x-1": 0,
		"sandbox-12-x": 0, "sandbox-supervisor": 0, "other-1-2": 0, "sandbox-0-1": 0,
	} {
		if got, ok := jailCgroupPID(name); got != want && ok || !ok && want != 0 {
			t.Errorf("%s: %d, %v; want %d", name, got, ok, want)
		}
	}
}
