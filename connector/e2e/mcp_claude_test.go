package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// runClaudeAllowing runs `claude -p` in dir against model, offline, with
// the given tools allowed.
func (e *env) runClaudeAllowing(t *testing.T, dir string, model *fakemodel.Anthropic, tools string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, client(t, "claude"), "-p", "do the task", "--output-format", "json", "--allowedTools", tools)
	cmd.Dir = dir
	cmd.Env = e.vars("ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=dummy", "CLAUDE_CONFIG_DIR="+t.TempDir(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	return string(out)
}

// Claude Code calls the sandbox MCP server's run_privileged (registered
// by `sandbox init --mcp` in .mcp.json); a human approves; the model gets
// the approved command's real output as the tool result.
func TestMCPClaudeRunPrivileged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("claude", map[string]string{"data.txt": "secret\n"})
	e.mustSandbox("init", dir, "--mcp")
	model := startModel(t, fakemodel.Reply{Text: "Asking for it.", ToolCalls: []fakemodel.ToolCall{{
		Name: "mcp__sandbox__run_privileged", Input: map[string]any{"command": escalating, "reason": "make data.txt private (claude mcp)"}}}})
	a := e.approver(dir, approveAll)
	out := e.runClaudeAllowing(t, dir, model, "mcp__sandbox__run_privileged")

	res := resultOf(t, model.MainRequests(), 1)
	if res.IsError {
		t.Errorf("the tool result is an error:\n%s", res.Content)
	}
	// Claude Code hands the model the structuredContent (as JSON) rather
	// than the text blocks: its summary carries the same words.
	mustContain(t, "the tool result", res.Content, "APPROVED by", "EXECUTED outside the agent", "exit code 0",
		"do not run it again", "OUTPUT-MARKER-1")
	if got := readFile(t, filepath.Join(dir, "runs.txt")); got != "once\n" {
		t.Errorf("runs.txt = %q: the command must run exactly once", got)
	}
	req := onlyOne(t, a)
	if req.Kind != queue.KindShell || req.Source != queue.SourceMCP {
		t.Errorf("request %+v", req)
	}
	mustContain(t, "claude's result", out, `"result":"finished"`)
	if tools := toolsOffered(model); !strings.Contains(tools, "mcp__sandbox__run_privileged") {
		t.Errorf("the model was not offered the tool: %s", tools)
	}
}

// toolsOffered is the raw tools list of the first main request.
func toolsOffered(model *fakemodel.Anthropic) string {
	for _, r := range model.MainRequests() {
		return string(r.Body)
	}
	return ""
}
