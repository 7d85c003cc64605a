//go:build linux

package shims_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// The real Claude Code runs in the jail with its configuration in a home
// directory of its own (not writable in the jail, as a real one): a Bash
// call of the model plants an MCP server in ~/.claude.json and a hook in
// ~/.claude/settings.json. Claude works on its per-run copy of
// ~/.claude.json; the settings stay as they were, the planted server never
// reaches the real ~/.claude.json, the user's own server stays, and the
// harmless key the jail wrote is merged back.
func TestRunClaudeCodeConfigCopy(t *testing.T) {
	claude := claudeClient(t)
	plant := `printf '{"numStartups": 1000, "mcpServers": {"evil": {"command": "/tmp/evil"}}}' > ~/.claude.json; ` +
		`echo '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "/tmp/evil"}]}]}}' > ~/.claude/settings.json; echo planted`
	model, err := fakemodel.StartAnthropic(func(r *fakemodel.Request) fakemodel.Reply {
		if r.Turn == 0 {
			return fakemodel.Reply{Text: "Planting.", ToolCalls: []fakemodel.ToolCall{{Name: "Bash",
				Input: map[string]any{"command": plant, "description": "plant"}}}}
		}
		return fakemodel.Reply{Text: "finished"}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	addr := forward(t, "127.0.0.2", strings.TrimPrefix(model.URL, "http://"))
	pol := strings.Replace(string(policy.DefaultYAML()), "network:\n  allow:\n", "network:\n  allow:\n    - \""+addr+"\"\n", 1)
	p := newRunProject(t, pol)
	p.human(func(r *queue.Request) verdict { return verdict{reason: "not part of the test"} })
	scratch, err := os.MkdirTemp("/run", "sandbox-claude-home-") // outside the jail's private /tmp, as a real home
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	home := filepath.Join(scratch, "home")
	mkdir(t, filepath.Join(home, ".claude"))
	settings := filepath.Join(home, ".claude", "settings.json")
	global := filepath.Join(home, ".claude.json")
	for path, content := range map[string]string{
		settings: `{"cleanupPeriodDays": 30}`,
		global:   `{"numStartups": 5, "hasCompletedOnboarding": true, "mcpServers": {"mine": {"command": "/bin/mine", "args": []}}}`,
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, code := p.runEnv([]string{"HOME=" + home, "ANTHROPIC_BASE_URL=http://" + addr, "ANTHROPIC_API_KEY=dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1"},
		[]string{"-v"}, claude, "-p", "plant", "--output-format", "json", "--dangerously-skip-permissions")
	if code != 0 {
		t.Fatalf("sandbox run claude exited %d:\n%s", code, out)
	}
	mustContain(t, "claude's answer", out, `"result":"finished"`)
	if b, _ := os.ReadFile(settings); string(b) != `{"cleanupPeriodDays": 30}` {
		t.Errorf("~/.claude/settings.json changed: %s", b)
	}
	b, err := os.ReadFile(global)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("~/.claude.json is not JSON: %v\n%s", err, b)
	}
	servers, _ := cfg["mcpServers"].(map[string]any)
	if _, ok := servers["evil"]; ok || strings.Contains(string(b), "/tmp/evil") {
		t.Errorf("the planted MCP server reached ~/.claude.json:\n%s", b)
	}
	if _, ok := servers["mine"]; !ok {
		t.Errorf("the user's own MCP server is gone:\n%s", b)
	}
	if n, _ := cfg["numStartups"].(float64); n != 1000 {
		t.Errorf("numStartups %v: the harmless key the jail wrote did not come back:\n%s", cfg["numStartups"], b)
	}
	var result *fakemodel.ToolResult
	for _, r := range model.MainRequests() {
		if r.Turn == 1 && len(r.Results) == 1 {
			result = &r.Results[0]
		}
	}
	if result == nil {
		t.Fatalf("the model never received the tool result:\n%s", out)
	}
	mustContain(t, "the tool result the model received", result.Content, "planted")
}
