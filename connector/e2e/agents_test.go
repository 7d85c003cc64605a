package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// The hooks of Cursor, Gemini CLI and Windsurf, run as the agents run
// them (`sandbox hook AGENT`, one event on stdin) in a project wired by
// `sandbox init`, with a scripted human deciding escalations.
func TestOtherAgentsHooks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("cursor", map[string]string{"data.txt": "secret\n"})
	e.mustSandbox("init", dir, "--gemini", "--windsurf")
	e.approver(dir, func(s queue.Summary) decision {
		if strings.Contains(s.Summary, "refuse-me") {
			return decision{reason: "not this one"}
		}
		return decision{approve: true}
	})
	cursorEv := func(cmd string) map[string]any {
		return map[string]any{"hook_event_name": "beforeShellExecution", "conversation_id": "c1", "generation_id": "g1",
			"workspace_roots": []string{dir}, "command": cmd, "cwd": dir}
	}
	geminiEv := func(cmd string) map[string]any {
		return map[string]any{"session_id": "s1", "cwd": dir, "hook_event_name": "BeforeTool",
			"tool_name": "run_shell_command", "tool_input": map[string]any{"command": cmd, "description": "e2e"}}
	}
	windsurfEv := func(cmd string) map[string]any {
		return map[string]any{"agent_action_name": "pre_run_command", "trajectory_id": "t1", "execution_id": "x1",
			"tool_info": map[string]any{"command_line": cmd, "cwd": dir}}
	}
	tests := []struct {
		name, agent    string
		event          map[string]any
		code           int
		stdout, errOut string
	}{
		{"cursor allows", "cursor", cursorEv("ls"), 0, `{"permission":"allow"}`, ""},
		{"cursor: approved output to the model", "cursor", cursorEv(escalating), 0, `"agent_message":"sandbox: APPROVED and EXECUTED`, ""},
		{"cursor: the policy denies", "cursor", cursorEv("rm -rf .sandbox"), 0, `"permission":"deny"`, ""},
		{"gemini allows", "gemini", geminiEv("ls"), 0, `{"decision":"allow"`, ""}, // jailed where the jail works: gemini_linux_test.go
		{"gemini: the human denies", "gemini", geminiEv("chown --reference=data.txt data.txt # refuse-me"), 0, `"reason":"sandbox: DENIED by`, ""},
		{"windsurf allows", "windsurf", windsurfEv("ls"), 0, "", ""},
		{"windsurf: approved output on stderr", "windsurf", windsurfEv("chown --reference=data.txt data.txt && echo WS-MARKER"), 2, "", "WS-MARKER"},
		{"cursor fails closed", "cursor", map[string]any{"hook_event_name": "beforeTabFileRead"}, 2, `"permission":"deny"`, "refused"},
		{"gemini fails closed", "gemini", map[string]any{"hook_event_name": "BeforeTool", "cwd": dir}, 2, "", "refused"},
		{"windsurf fails closed", "windsurf", map[string]any{"agent_action_name": "pre_run_command", "tool_info": map[string]any{}}, 2, "", "refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := e.hook(t, tc.event, tc.agent)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.errOut) {
				t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			if tc.code == 0 && tc.stdout != "" && !json.Valid([]byte(out)) {
				t.Errorf("stdout is not one JSON answer: %q", out)
			}
		})
	}
	if got := readFile(t, filepath.Join(dir, "runs.txt")); got != "once\n" {
		t.Errorf("runs.txt = %q", got)
	}
}

// `sandbox init` with every agent flag merges into the user's own
// configuration files, and `sandbox uninstall` gives each back byte for
// byte.
func TestInitEveryAgentThenUninstall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	user := map[string]string{
		".mcp.json":             "{\n  \"mcpServers\": {\n    \"db\": {\"command\": \"db-mcp\"}\n  }\n}\n",
		".cursor/hooks.json":    "{\n  \"version\": 1,\n  \"hooks\": {\"stop\": [{\"command\": \"./done.sh\"}]}\n}\n",
		".cursor/mcp.json":      "{\"mcpServers\": {}}\n",
		".gemini/settings.json": "{\n  \"theme\": \"Dracula\",\n  \"hooks\": {}\n}\n",
		".windsurf/hooks.json":  "{\n\t\"hooks\": {\n\t\t\"post_write_code\": [{\"command\": \"./fmt.sh\"}]\n\t}\n}\n",
		".codex/config.toml":    "model = \"o3\"\n",
		".claude/settings.json": "{\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]}\n}\n",
	}
	dir := e.project("mcp", user)
	out := e.mustSandbox("init", dir, "--claude", "--codex", "--cursor", "--gemini", "--windsurf")
	for _, agent := range []string{"claude", "codex", "cursor", "gemini", "windsurf"} {
		mustContain(t, "init's output", out, "wired "+agent)
	}
	for rel, content := range user {
		if got := readFile(t, filepath.Join(dir, rel)); got == content || !strings.Contains(got, sandboxBin) {
			t.Errorf("%s was not merged into:\n%s", rel, got)
		}
	}
	e.mustSandbox("uninstall", dir, "--yes")
	for rel, content := range user {
		if got := readFile(t, filepath.Join(dir, rel)); got != content {
			t.Errorf("%s after uninstall:\n%q\nwant\n%q", rel, got, content)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".sandbox", "installed.json")); !os.IsNotExist(err) {
		t.Errorf("the manifest is left: %v", err)
	}
}
