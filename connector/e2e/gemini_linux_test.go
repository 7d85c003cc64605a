//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// geminiHome is a fresh GEMINI_CLI_HOME: API-key auth (the key is a
// dummy, the fake model takes any), usage statistics and telemetry off,
// no update checks.
func geminiHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	settings := `{"security": {"auth": {"selectedType": "gemini-api-key"}},
 "privacy": {"usageStatisticsEnabled": false},
 "telemetry": {"enabled": false},
 "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}}
`
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// startGemini starts a fake Gemini API that plays turns, one per turn,
// then says "finished".
func startGemini(t *testing.T, turns ...fakemodel.Reply) *fakemodel.Gemini {
	t.Helper()
	m, err := fakemodel.StartGemini(func(r *fakemodel.Request) fakemodel.Reply {
		if r.Turn < len(turns) {
			return turns[r.Turn]
		}
		return fakemodel.Reply{Text: "finished"}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// shellCall is a turn that calls Gemini CLI's run_shell_command.
func shellCall(input map[string]any) fakemodel.Reply {
	return fakemodel.Reply{Text: "Running it.", ToolCalls: []fakemodel.ToolCall{{Name: "run_shell_command", Input: input}}}
}

// runGemini runs `gemini -p` in dir (a trusted workspace) against model,
// offline. Gemini CLI's own policy, which decides after the hook, lets
// through the jailed command lines only, by the rule docs/AGENTS.md
// gives: their prefix, the sandbox binary quoted. Without it a
// non-interactive Gemini CLI refuses every shell command.
func (e *env) runGemini(t *testing.T, dir string, model *fakemodel.Gemini) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, client(t, "gemini"), "--allowed-tools", "run_shell_command("+display.SingleQuote(sandboxBin)+")",
		"-p", "do the task", "-o", "json")
	cmd.Dir = dir
	cmd.Env = e.vars("GEMINI_CLI_HOME="+geminiHome(t), "GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL="+model.URL,
		"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_CLI_NO_RELAUNCH=true", "GOOGLE_API_KEY=", "GOOGLE_GENAI_USE_VERTEXAI=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	return string(out)
}

// Gemini CLI's BeforeTool answer can replace the tool's arguments
// (hookSpecificOutput.tool_input): an allowed run_shell_command runs in
// the project jail, in the directory the model named, and the model
// receives the jailed command's output, stderr and exit status as its
// own, then (AfterTool) how to ask a human for what the jail refused.
// Gemini CLI refuses a command holding a command substitution, so the
// jailed form holds none (the script is one quoted word).
func TestGeminiAllowedShellRunsInTheJail(t *testing.T) {
	t.Parallel()
	testenv.RequireRoot(t)
	probe, escape := proveJail(t)
	e := newEnv(t)
	dir := e.project("gemini", map[string]string{"probe.sh": probe, "sub/keep": ""})
	os.Chmod(filepath.Join(dir, "probe.sh"), 0o755)
	e.editPolicy(t, dir, "shell:\n  allow:\n", "shell:\n  allow:\n    - {pattern: \"./probe.sh\"}\n")
	model := startGemini(t,
		shellCall(map[string]any{"command": "./probe.sh", "description": "show where commands run"}),
		shellCall(map[string]any{"command": `pwd; echo "it's" '$(not run)'; grep NoNewPrivs /proc/self/status`,
			"description": "where am I", "dir_path": "sub"}))
	a := e.approver(dir, approveAll)
	out := e.runGemini(t, dir, model)

	res := resultOf(t, model.MainRequests(), 1)
	output, note, _ := strings.Cut(res.Content, "<hook_context>")
	mustContain(t, "the tool result", output, "start-marker", "NoNewPrivs:\t1", "CONTAINED", "to-stderr", "Exit Code: 3")
	if strings.Contains(output, "WROTE-OUTSIDE") || strings.Contains(output, "sandbox:") {
		t.Errorf("the command ran outside the jail, or sandbox spoke in its output:\n%s", res.Content)
	}
	// AfterTool: the jail refused the write to /etc; how to ask a human
	// for it follows the output, naming the model's own command
	mustContain(t, "the hook's note", note, "sandbox: the jail refused a write to "+escape, "--script './probe.sh'")
	contained(t, escape)
	res = resultOf(t, model.MainRequests(), 2)
	mustContain(t, "the second call's result", res.Content, filepath.Join(dir, "sub")+"\n", "it's $(not run)", "NoNewPrivs:\t1")
	if seen := a.answered(); len(seen) != 0 {
		t.Errorf("the allowed calls reached the approver: %+v", seen)
	}
	mustContain(t, "gemini's answer", out, `"response": "finished"`)
}

// An escalated run_shell_command is decided by a human; the approved
// command's real output reaches the model as the call's error (Gemini
// CLI hands it the BeforeTool reason), and it ran once.
func TestGeminiEscalationOutputReachesTheModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("gemini", map[string]string{"data.txt": "secret\n"})
	model := startGemini(t, shellCall(map[string]any{"command": escalating, "description": "make data.txt private (e2e)"}))
	a := e.approver(dir, approveAll)
	e.runGemini(t, dir, model)

	res := resultOf(t, model.MainRequests(), 1)
	mustContain(t, "the tool result", res.Content, "sandbox: APPROVED and EXECUTED", "exit code 0", "OUTPUT-MARKER-1")
	if got := readFile(t, filepath.Join(dir, "runs.txt")); got != "once\n" {
		t.Errorf("runs.txt = %q: the command must run exactly once", got)
	}
	if req := onlyOne(t, a); req.Kind != queue.KindShell || req.Source != queue.SourceGeminiHook {
		t.Errorf("request %+v", req)
	}
}

// Without the client: `sandbox hook gemini` answers an allowed
// run_shell_command with its own arguments and the command jailed, and
// that command, run by bash in the call's directory as Gemini CLI runs
// it, prints what the original prints, whatever quotes it holds.
func TestGeminiHookRewriteRunsTheSameCommand(t *testing.T) {
	t.Parallel()
	testenv.RequireRoot(t)
	e := newEnv(t)
	dir := e.project("gemini", map[string]string{"sub/keep": ""})
	original := `pwd; echo "it's" '$(id -u)' "a\\b" $'tab\there'; printf '%s\n' "'\''"`
	out, errOut, code := e.hook(t, map[string]any{"session_id": "s1", "cwd": dir, "hook_event_name": "BeforeTool",
		"tool_name": "run_shell_command", "tool_input": map[string]any{"command": original, "description": "quoting", "dir_path": "sub"}}, "gemini")
	var ans struct {
		Decision           string
		HookSpecificOutput struct {
			ToolInput map[string]any `json:"tool_input"`
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &ans) != nil {
		t.Fatalf("hook: exit %d\n%s\n%s", code, out, errOut)
	}
	upd := ans.HookSpecificOutput.ToolInput
	jailed, _ := upd["command"].(string)
	if ans.Decision != "allow" || !strings.HasPrefix(jailed, display.SingleQuote(sandboxBin)+" run --quiet ") {
		t.Fatalf("not jailed: %s", out)
	}
	if upd["description"] != "quoting" || upd["dir_path"] != "sub" {
		t.Errorf("the other arguments were not kept: %v", upd)
	}
	plain := exec.Command("bash", "-c", original)
	plain.Dir = filepath.Join(dir, "sub")
	want, _ := plain.CombinedOutput()
	run := exec.Command("bash", "-c", jailed)
	run.Dir, run.Env = filepath.Join(dir, "sub"), e.vars()
	got, err := run.CombinedOutput()
	if err != nil || string(got) != string(want) {
		t.Errorf("jailed: %v\n%q\nwant %q", err, got, want)
	}
}
