package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// codexHome writes a fresh CODEX_HOME whose model provider is the fake
// Responses API, with analytics and plugins off (they reach the internet)
// and the project trusted (Codex ignores an untrusted project's config).
func codexHome(t *testing.T, model *fakemodel.Responses, project string) string {
	t.Helper()
	home := t.TempDir()
	cfg := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"

[analytics]
enabled = false

[features]
plugins = false

[projects.%q]
trust_level = "trusted"
`, model.URL, project)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestCodexEscalationOutputReachesTheModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("codex", map[string]string{"data.txt": "secret\n"})
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

	res := resultOf(t, model.MainRequests(), 1)
	mustContain(t, "the tool output", res.Content, "sandbox: APPROVED and EXECUTED outside the agent",
		"exit code 0", "do not run it again", "OUTPUT-MARKER-1")
	if got := readFile(t, filepath.Join(dir, "runs.txt")); got != "once\n" {
		t.Errorf("runs.txt = %q: the command must run exactly once", got)
	}
	if req := onlyOne(t, a); req.Kind != queue.KindShell || req.Source != queue.SourceCodexHook {
		t.Errorf("request %+v", req)
	}
	mustContain(t, "codex's events", string(out), `"text":"finished"`)
}
