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

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// escalating is a Bash command the default policy escalates (chown), with
// a side effect that shows how many times it ran.
const escalating = `chown --reference=data.txt data.txt && chmod 600 data.txt && echo once >> runs.txt && echo "OUTPUT-MARKER-$(wc -l < runs.txt)"`

// runClaude runs `claude -p` in dir against model, offline.
func (e *env) runClaude(t *testing.T, dir string, model *fakemodel.Anthropic) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, client(t, "claude"), "-p", "do the task", "--output-format", "json", "--allowedTools", "Bash")
	cmd.Dir = dir
	cmd.Env = e.vars("ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=dummy", "CLAUDE_CONFIG_DIR="+t.TempDir(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	return string(out)
}

// startModel starts a fake Anthropic API that plays turns, one per turn,
// then says "finished".
func startModel(t *testing.T, turns ...fakemodel.Reply) *fakemodel.Anthropic {
	t.Helper()
	m, err := fakemodel.StartAnthropic(func(r *fakemodel.Request) fakemodel.Reply {
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

func bashCall(command, why string) fakemodel.Reply {
	return fakemodel.Reply{Text: "Running it.", ToolCalls: []fakemodel.ToolCall{
		{Name: "Bash", Input: map[string]any{"command": command, "description": why}}}}
}

// resultOf returns the tool result the model received on turn n.
func resultOf(t *testing.T, reqs []*fakemodel.Request, turn int) fakemodel.ToolResult {
	t.Helper()
	for _, r := range reqs {
		if r.Turn == turn && len(r.Results) == 1 {
			return r.Results[0]
		}
	}
	t.Fatalf("no request on turn %d carried one tool result (%d main requests)", turn, len(reqs))
	return fakemodel.ToolResult{}
}

func mustContain(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s lacks %q:\n%s", what, s, text)
		}
	}
}

func TestClaudeEscalationApprovedReturnsTheRealOutput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("claude", map[string]string{"data.txt": "secret\n"})
	model := startModel(t, bashCall(escalating, "make data.txt private (e2e)"))
	a := e.approver(dir, approveAll)
	out := e.runClaude(t, dir, model)

	res := resultOf(t, model.MainRequests(), 1)
	mustContain(t, "the tool result", res.Content, "sandbox: APPROVED and EXECUTED outside the agent",
		"exit code 0", "do not run it again", "--- stdout ---\nOUTPUT-MARKER-1")
	if got := readFile(t, filepath.Join(dir, "runs.txt")); got != "once\n" {
		t.Errorf("runs.txt = %q: the command must run exactly once", got)
	}
	if fi, err := os.Stat(filepath.Join(dir, "data.txt")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("data.txt mode: %v %v", fi.Mode(), err)
	}
	req := onlyOne(t, a)
	if req.Kind != queue.KindShell || req.Source != queue.SourceClaudeHook || req.Session == "" {
		t.Errorf("request %+v", req)
	}
	mustContain(t, "the request as shown to the human", a.shownFirst(), `"justification": "make data.txt private (e2e)"`, "chown --reference=data.txt data.txt")
	mustContain(t, "claude's result", out, `"result":"finished"`)
	e.verifyAudit(t, dir, req.ID)
	if lines := e.auditLines(t, dir); strings.Contains(lines, `"tool.done"`) {
		t.Errorf("Claude Code ran the command itself (a PostToolUse record):\n%s", lines)
	}
}

func TestClaudeHumanDenialReachesTheModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("claude", map[string]string{"data.txt": "secret\n"})
	model := startModel(t, bashCall(escalating, "make data.txt private (e2e)"))
	e.approver(dir, func(queue.Summary) decision { return decision{reason: "not today: data.txt is shared"} })
	e.runClaude(t, dir, model)

	res := resultOf(t, model.MainRequests(), 1)
	mustContain(t, "the tool result", res.Content, "sandbox: DENIED by", "not today: data.txt is shared", "Do not retry this; ask the user")
	if _, err := os.Stat(filepath.Join(dir, "runs.txt")); !os.IsNotExist(err) {
		t.Errorf("the denied command ran: %v", err)
	}
}

func TestClaudeProtectedWriteIsAppliedAndRestored(t *testing.T) {
	t.Parallel()
	const original, changed = "name: ci\non: push\n", "name: ci\non: [push, pull_request]\n"
	e := newEnv(t)
	dir := e.project("claude", map[string]string{".github/workflows/ci.yml": original})
	target := filepath.Join(dir, ".github", "workflows", "ci.yml")
	model := startModel(t,
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{Name: "Read", Input: map[string]any{"file_path": target}}}},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{Name: "Write", Input: map[string]any{"file_path": target, "content": changed}}}},
	)
	a := e.approver(dir, approveAll)
	e.runClaude(t, dir, model)

	mustContain(t, "the Read result", resultOf(t, model.MainRequests(), 1).Content, "on: push")
	res := resultOf(t, model.MainRequests(), 2)
	mustContain(t, "the Write result", res.Content, "sandbox: APPROVED and APPLIED", target, "do not write it again")
	if got := readFile(t, target); got != changed {
		t.Fatalf("after the approved write: %q", got)
	}
	if req := onlyOne(t, a); req.Kind != queue.KindWrite {
		t.Errorf("request kind %s", req.Kind)
	}
	dry := e.mustSandbox("restore", dir, "--all")
	mustContain(t, "restore's dry run", dry, "restore", target, "--yes")
	if got := readFile(t, target); got != changed {
		t.Fatal("a dry run changed the file")
	}
	e.mustSandbox("restore", dir, "--all", "--yes")
	if got := readFile(t, target); got != original {
		t.Errorf("after restore: %q, want the original", got)
	}
}

// verifyAudit checks that the audit log verifies and that it holds the
// hook's escalation and the approver's execution of request id.
func (e *env) verifyAudit(t *testing.T, dir, id string) {
	t.Helper()
	out, err := e.sandbox("audit", "verify", "--dir", dir)
	if err != nil {
		t.Errorf("sandbox audit verify: %v\n%s", err, out)
	}
	var actors []string
	for _, line := range strings.Split(e.auditLines(t, dir), "\n") {
		var r struct {
			Actor, Event string
			RequestID    string `json:"request_id"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.RequestID == id {
			actors = append(actors, r.Actor+" "+r.Event)
		}
	}
	all := strings.Join(actors, "\n")
	mustContain(t, "the audit records of "+id, all, "hook:claude hook.escalate", "approver:cli")
}

func (e *env) auditLines(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.state, "sandbox", "folders", "*", "audit", "*.jsonl"))
	var b strings.Builder
	for _, f := range files {
		b.WriteString(readFile(t, f))
	}
	return b.String()
}

func TestClaudeAllowedCallsRunAndAreKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("claude", nil)
	notes := filepath.Join(dir, "notes.md")
	model := startModel(t,
		bashCall("echo allowed-marker > out.txt && cat out.txt", "write and show a file"),
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{Name: "Write", Input: map[string]any{"file_path": notes, "content": "# notes\n"}}}},
	)
	a := e.approver(dir, approveAll)
	e.runClaude(t, dir, model)

	if res := resultOf(t, model.MainRequests(), 1); res.IsError || !strings.Contains(res.Content, "allowed-marker") {
		t.Errorf("the allowed Bash call: %+v", res)
	}
	if got := readFile(t, notes); got != "# notes\n" {
		t.Errorf("notes.md = %q", got)
	}
	if seen := a.answered(); len(seen) != 0 {
		t.Errorf("allowed calls reached the approver: %+v", seen)
	}
	if n := strings.Count(e.auditLines(t, dir), `"event":"tool.done"`); n != 2 {
		t.Errorf("%d PostToolUse records, want 2", n)
	}
	e.mustSandbox("restore", dir, "--all", "--yes")
	if _, err := os.Stat(notes); !os.IsNotExist(err) {
		t.Errorf("restore left the file the agent created: %v", err)
	}
}
