//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// approveWith approves request id (by its listed hash) with `sandbox
// approve` started with extra open files, as a shell or an IDE may start
// it.
func approveWith(t *testing.T, root, id string, extra ...*os.File) (code int, stdout, stderr string) {
	t.Helper()
	hash := ""
	for _, it := range list(t, root, "--state", "pending") {
		if it.ID == id {
			hash = it.Hash
		}
	}
	cmd := sandboxCmd(t, root, "approve", "--hash", hash, id)
	cmd.ExtraFiles = extra
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// TestApprovedCommandGetsNoApproverDescriptor: the approver was started
// with a secret file open on descriptor 3; the approved command reaches
// it neither through /proc/self/fd/3 nor by reading descriptor 3.
func TestApprovedCommandGetsNoApproverDescriptor(t *testing.T) {
	t.Parallel()
	root := project(t, true)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("APPROVER-SECRET\n"), 0o600)
	f, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := startRequest(t, root, "fd", "", "--script", "cat /proc/self/fd/3; cat <&3; ls -l /proc/self/fd/")
	code, out, errs := approveWith(t, root, r.id, f)
	r.wait()
	if strings.Contains(out+errs, "APPROVER-SECRET") || strings.Contains(out, secret) {
		t.Fatalf("the approved command read the approver's descriptor (exit %d):\n%s%s", code, out, errs)
	}
}

// TestApprovedCommandLeavesNothingRunning: a process the approved command
// setsid's away is gone once the approval has ended.
func TestApprovedCommandLeavesNothingRunning(t *testing.T) {
	t.Parallel()
	requireRunJail(t)
	root := project(t, true)
	r := startRequest(t, root, "bg", "", "--script", "setsid sleep 4321.7 </dev/null >/dev/null 2>&1 & sleep 0.2; echo started")
	code, out, errs := approveWith(t, root, r.id)
	r.wait()
	if code != 0 || !strings.Contains(out, "started") {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(sleepers("4321.7")) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the setsid'd process outlived the approval: %v", sleepers("4321.7"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sleepers lists the pids whose command line contains arg.
func sleepers(arg string) []string {
	entries, _ := os.ReadDir("/proc")
	var pids []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), arg) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
