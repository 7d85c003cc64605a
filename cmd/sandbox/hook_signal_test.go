//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHookSIGTERMWhileWaiting: `sandbox hook claude` waiting for a human
// answers "still pending" (a deny, exit 0) when SIGTERM arrives, instead
// of dying without an answer, which the agent would take as leave to run
// the call.
func TestHookSIGTERMWhileWaiting(t *testing.T) {
	bin := sandboxBinary(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root := t.TempDir()
	if out, err := exec.Command(bin, "init", root, "--claude").CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	event := `{"session_id":"s","cwd":"` + root + `","hook_event_name":"PreToolUse","tool_name":"Bash",` +
		`"tool_input":{"command":"curl https://example.invalid/x","description":"fetch"},"tool_use_id":"t1"}`
	cmd := exec.Command(bin, "hook", "claude")
	cmd.Stdin = strings.NewReader(event)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pending := filepath.Join(root, ".sandbox", "escalations", "pending")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if ents, _ := os.ReadDir(pending); len(ents) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no request appeared; stderr: %s", stderr.String())
		}
	}
	// the signals are caught from before the request is submitted
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	killer := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	defer killer.Stop()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("hook: %v; stderr: %s", err, stderr.String())
	}
	if out := stdout.String(); !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "WAITING") {
		t.Errorf("answer %q, want the still-pending deny", out)
	}
}
