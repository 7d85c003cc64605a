package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// hook runs `sandbox hook AGENT args...` with event on stdin.
func (e *env) hook(t *testing.T, event any, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	in, _ := json.Marshal(event)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sandboxBin, append([]string{"hook"}, args...)...)
	cmd.Env = e.vars()
	cmd.Stdin = bytes.NewReader(in)
	var o, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), errb.String(), code
}

func preEvent(dir, tool string, input map[string]any) map[string]any {
	return map[string]any{"session_id": "s-hook", "transcript_path": "/dev/null", "cwd": dir, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_hook"}
}

var requestID = regexp.MustCompile(`request ([0-9a-z]{20,})`)

func TestHookPendingThenRetryJoins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("claude", nil)
	ev := preEvent(dir, "Bash", map[string]any{"command": "git push origin main", "description": "publish"})
	var ids []string
	for range 2 {
		out, errOut, code := e.hook(t, ev, "claude", "--wait", "300ms")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		mustContain(t, "the pending answer", out, `"permissionDecision":"deny"`, "WAITING", "joins the same request", "check_request")
		m := requestID.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no request id in %s", out)
		}
		ids = append(ids, m[1])
	}
	if ids[0] != ids[1] {
		t.Fatalf("the retry made a new request %s instead of joining %s", ids[1], ids[0])
	}
	if out := e.mustSandbox("list", "--json", "--state", "pending", "--dir", dir); strings.Count(out, `"id"`) != 1 {
		t.Fatalf("pending: %s", out)
	}
	e.mustSandbox("deny", ids[0], "--reason", "no pushes today", "--dir", dir)
	out, _, _ := e.hook(t, ev, "claude", "--wait", "5s")
	mustContain(t, "the answer after the denial", out, "DENIED by", "no pushes today", ids[0])
}

func TestHookFailsClosed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("claude", nil)
	bare := t.TempDir()
	tests := []struct {
		name  string
		event any
		args  []string
	}{
		{"no sandbox folder", preEvent(bare, "Bash", map[string]any{"command": "ls"}), []string{"claude"}},
		{"unknown event", map[string]any{"hook_event_name": "Stop", "cwd": dir}, []string{"claude"}},
		{"not an event", "just a string", []string{"claude"}},
		{"unknown agent", preEvent(dir, "Bash", map[string]any{"command": "ls"}), []string{"nobody"}},
		{"tool input of the wrong shape", preEvent(dir, "Bash", map[string]any{"command": 42}), []string{"codex"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := e.hook(t, tc.event, tc.args...)
			if code != 2 {
				t.Fatalf("exit %d (stdout %q): must be 2", code, out)
			}
			if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "sandbox: hook") {
				t.Errorf("stderr is not one line: %q", errOut)
			}
		})
	}
}

func TestHookAllowedWriteKeepsTheOriginal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("claude", map[string]string{"notes.md": "v1\n"})
	target := filepath.Join(dir, "notes.md")
	ev := preEvent(dir, "Write", map[string]any{"file_path": target, "content": "v2\n"})
	out, errOut, code := e.hook(t, ev, "claude")
	if code != 0 || strings.TrimSpace(out) != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}` {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	os.WriteFile(target, []byte("v2\n"), 0o644) // what the agent does next
	ev["hook_event_name"] = "PostToolUse"
	ev["tool_response"] = map[string]any{"type": "update"}
	if _, errOut, code := e.hook(t, ev, "claude"); code != 0 {
		t.Fatalf("PostToolUse: exit %d %s", code, errOut)
	}
	mustContain(t, "restore --list", e.mustSandbox("restore", dir, "--list"), "s-hook", "toolu_hook", target)
	e.mustSandbox("restore", "--dir", dir, target, "--yes")
	if got := readFile(t, target); got != "v1\n" {
		t.Errorf("restored %q", got)
	}
	mustContain(t, "the audit log", e.auditLines(t, dir), `"event":"tool.done"`, `"actor":"hook:claude"`)
}

func TestHookSessionStartBriefsTheModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("claude", nil)
	out, errOut, code := e.hook(t, map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "SessionStart", "source": "startup"}, "claude")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var ans struct {
		HookSpecificOutput struct{ HookEventName, AdditionalContext string }
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil || ans.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Fatalf("answer %q: %v", out, err)
	}
	mustContain(t, "the brief", ans.HookSpecificOutput.AdditionalContext, "APPROVED and EXECUTED", "description", "DENIED", ".sandbox/")
}
