package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
)

// TestClaudePortableWiring: with sandbox on PATH, init writes the
// portable hook line (no path of this machine), and the real Claude Code
// runs it: the hooks answer, the allowed call runs and is recorded.
func TestClaudePortableWiring(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("PATH", filepath.Dir(sandboxBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := e.project("claude", nil)
	settings := readFile(t, filepath.Join(dir, ".claude", "settings.json"))
	if !strings.Contains(settings, "exec sandbox hook claude") || strings.Contains(settings, sandboxBin) {
		t.Fatalf("init did not write the portable hook line:\n%s", settings)
	}
	model := startModel(t, bashCall("echo portable-marker", "show a marker"))
	e.runClaude(t, dir, model)
	if res := resultOf(t, model.MainRequests(), 1); res.IsError || !strings.Contains(res.Content, "portable-marker") {
		t.Errorf("the allowed Bash call: %+v", res)
	}
	if n := strings.Count(e.auditLines(t, dir), `"event":"tool.done"`); n != 1 {
		t.Errorf("%d PostToolUse records, want 1", n)
	}
}

// TestCodexPortableWiring: the real Codex runs the portable hook line of
// .codex/config.toml (a shell line, not a path) and the escalation works.
func TestCodexPortableWiring(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("PATH", filepath.Dir(sandboxBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := e.project("codex", map[string]string{"data.txt": "secret\n"})
	if cfg := readFile(t, filepath.Join(dir, ".codex", "config.toml")); !strings.Contains(cfg, "exec sandbox hook codex") {
		t.Fatalf("init did not write the portable hook line:\n%s", cfg)
	}
	model, err := fakemodel.StartResponses(func(r *fakemodel.Request) fakemodel.Reply {
		if r.Turn == 0 {
			return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{Name: "exec_command", Input: map[string]any{"cmd": escalating}}}}
		}
		return fakemodel.Reply{Text: "finished"}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	e.approver(dir, approveAll)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, client(t, "codex"), "exec", "--json", "--skip-git-repo-check",
		"--dangerously-bypass-hook-trust", "-C", dir, "do the task")
	cmd.Dir = dir
	cmd.Env = e.vars("CODEX_HOME=" + codexHome(t, model, dir))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}
	res := resultOf(t, model.MainRequests(), 1)
	mustContain(t, "the tool output", res.Content, "sandbox: APPROVED and EXECUTED outside the agent", "OUTPUT-MARKER-1")
}
