//go:build windows

package jail_windows

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/testenv"
	"golang.org/x/sys/windows"
)

// readPids waits (bounded) for the spawn helper's "child grandchild" line.
func readPids(t *testing.T, file string) [2]uint32 {
	t.Helper()
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil {
			f := strings.Fields(string(b))
			a, _ := strconv.ParseUint(f[0], 10, 32)
			c, _ := strconv.ParseUint(f[1], 10, 32)
			return [2]uint32{uint32(a), uint32(c)}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pids in %s", file)
	return [2]uint32{}
}

// openProcs opens the processes to watch them end; a test that fails
// terminates them.
func openProcs(t *testing.T, pids ...uint32) []windows.Handle {
	t.Helper()
	var hs []windows.Handle
	for _, pid := range pids {
		h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, pid)
		if err != nil {
			t.Fatalf("open process %d: %v", pid, err)
		}
		hs = append(hs, h)
	}
	t.Cleanup(func() {
		for _, h := range hs {
			windows.TerminateProcess(h, 1)
			windows.CloseHandle(h)
		}
	})
	return hs
}

// assertDead waits, bounded, for every process to end.
func assertDead(t *testing.T, what string, hs []windows.Handle) {
	t.Helper()
	for i, h := range hs {
		ev, err := windows.WaitForSingleObject(h, uint32(bound.Milliseconds()))
		if err != nil || ev != windows.WAIT_OBJECT_0 {
			t.Errorf("%s: process %d of the tree is still running (%v)", what, i, err)
		}
	}
}

func TestWaitKillsWhatTheCommandLeft(t *testing.T) {
	file := filepath.Join(testenv.TempDir(t), "pids")
	var j Jail
	p, err := j.Start(context.Background(), helperSpec(t, "spawn", file, "exit"))
	if err != nil {
		t.Fatal(err)
	}
	pids := readPids(t, file)
	gc := openProcs(t, pids[1])
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	st, err := p.Wait(ctx)
	if err != nil || st.Code != 3 {
		t.Fatalf("Wait = %+v, %v; want code 3", st, err)
	}
	assertDead(t, "after Wait", gc)
}

func TestKillKillsTheTree(t *testing.T) {
	file := filepath.Join(testenv.TempDir(t), "pids")
	var j Jail
	p, err := j.Start(context.Background(), helperSpec(t, "spawn", file, "sleep"))
	if err != nil {
		t.Fatal(err)
	}
	pids := readPids(t, file)
	hs := openProcs(t, pids[0], pids[1])
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	assertDead(t, "TerminateJobObject", hs)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if st, err := p.Wait(ctx); err != nil || st.Code != KilledCode {
		t.Fatalf("Wait = %+v, %v; want code %d", st, err, KilledCode)
	}
}

// The supervisor holds the only handle to the job: when it dies, however
// it dies, the job closes and kills the command and its children.
func TestSupervisorDeathKillsTheTree(t *testing.T) {
	dir := testenv.TempDir(t)
	file := filepath.Join(dir, "pids")
	sup := selfCmd("supervise", file)
	sup.Dir = dir
	if err := sup.Start(); err != nil {
		t.Fatal(err)
	}
	defer sup.Wait()
	pids := readPids(t, file)
	hs := openProcs(t, pids[0], pids[1])
	if err := sup.Process.Kill(); err != nil {
		t.Fatalf("kill the supervisor: %v", err)
	}
	assertDead(t, "kill-on-close", hs)
}
