//go:build windows

package broker_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"golang.org/x/sys/windows"
)

func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP}
}

// TestWindowsBrokerKillsDetachedChildren: a process the approved command
// started detached (its own process group, no console) dies when the
// command ends: the command's Job Object takes it along.
func TestWindowsBrokerKillsDetachedChildren(t *testing.T) {
	dir, err := os.MkdirTemp("", "broker-job-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	exe, _ := os.Executable()
	pidFile := filepath.Join(dir, "pid")
	env := append(broker.Scrub(os.Environ(), nil), "BROKER_TEST_ROLE=spawn", "BROKER_TEST_PIDFILE="+pidFile)
	oc, err := broker.Run(context.Background(), broker.Spec{Root: dir, Argv: []string{exe}, Env: env, Timeout: time.Minute})
	if err != nil || oc.ExitCode != 0 {
		t.Fatalf("run: %v %+v", err, oc)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return // gone already
	}
	defer windows.CloseHandle(h)
	if ev, _ := windows.WaitForSingleObject(h, 5000); ev != windows.WAIT_OBJECT_0 {
		windows.TerminateProcess(h, 1)
		t.Fatalf("the detached child %d outlived the approved command", pid)
	}
}
