package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Codex calls run_privileged on the sandbox MCP server that
// `sandbox init --codex` registered in .codex/config.toml (its tools are
// approved there, and the call may wait for a human); a human approves;
// the model gets the approved command's real output.
func TestMCPCodexRunPrivileged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("codex", map[string]string{"data.txt": "secret\n"})
	// Codex hands an MCP server only a short list of variables (HOME,
	// PATH, ...): without this, `sandbox mcp` would use the real per-user
	// state under HOME, whose key is not the one the test's approver signs
	// results with (docs/AGENTS.md says the same to users who set
	// XDG_STATE_HOME).
	cfg := filepath.Join(dir, ".codex", "config.toml")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[mcp_servers.sandbox.env]\nXDG_STATE_HOME = %q\n", e.state)
	f.Close()
	model, err := fakemodel.StartResponses(func(r *fakemodel.Request) fakemodel.Reply {
		if r.Turn == 0 {
			return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{Name: "run_privileged", Namespace: "mcp__sandbox",
				Input: map[string]any{"command": escalating, "reason": "make data.txt private (codex mcp)"}}}}
		}
		return fakemodel.Reply{Text: "finished"}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	a := e.approver(dir, approveAll)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, client(t, "codex"), "exec", "--json", "--skip-git-repo-check",
		"--dangerously-bypass-hook-trust", "-C", dir, "do the task")
	cmd.Dir = dir
	cmd.Env = e.vars("CODEX_HOME=" + codexHome(t, model, dir))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}

	reqs := model.MainRequests()
	if !strings.Contains(string(reqs[0].Body), `"type":"namespace","name":"mcp__sandbox"`) {
		t.Fatal("Codex did not offer the sandbox MCP server's tools")
	}
	res := resultOf(t, reqs, 1)
	mustContain(t, "the tool output", res.Content, "APPROVED by", "EXECUTED outside the agent", "exit code 0",
		"do not run it again", "OUTPUT-MARKER-1")
	if got := readFile(t, filepath.Join(dir, "runs.txt")); got != "once\n" {
		t.Errorf("runs.txt = %q: the command must run exactly once", got)
	}
	if req := onlyOne(t, a); req.Kind != queue.KindShell || req.Source != queue.SourceMCP {
		t.Errorf("request %+v", req)
	}
	mustContain(t, "codex's events", string(out), `"text":"finished"`)
}
