//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// proveJail is a script in the project that a human allowed to run
// (`./probe.sh` added to the policy's allow rules: the analyzer cannot
// see what a script does, as with a Makefile or a test). It shows where
// it ran: a write outside the project (escape, a path in /etc of the
// test's own, so that tests running side by side never see or remove
// each other's) fails only in the jail, the jail sets no_new_privs, and
// its exit status (3) is its own.
func proveJail(t *testing.T) (script, escape string) {
	escape = "/etc/sandbox-e2e-escape-" + t.Name()
	os.Remove(escape)
	return "#!/bin/bash\necho start-marker\ngrep NoNewPrivs /proc/self/status\n" +
		"if echo x > " + escape + " 2>/dev/null; then echo WROTE-OUTSIDE; else echo CONTAINED; fi\n" +
		"echo to-stderr >&2\nexit 3\n", escape
}

// contained fails the test when proveJail's write outside the project
// took place.
func contained(t *testing.T, escape string) {
	t.Helper()
	if _, err := os.Stat(escape); err == nil {
		os.Remove(escape)
		t.Error("the allowed command wrote outside the project")
	}
}

// proveTmp, allowed like proveJail, reads a file the agent left in the
// host's /tmp (DIR/in.txt), writes one there for its next command, and
// looks at a socket there (SOCK, as tmux's /tmp/tmux-UID/default).
const proveTmp = "#!/bin/bash\ncat DIR/in.txt\necho from-the-jail > DIR/out.txt\n" +
	"if [ -S SOCK ]; then echo SOCKET-VISIBLE; else echo socket-hidden; fi\n"

// In connector mode the hook rewrites an allowed Bash call into the same
// command run in the project jail (Claude Code's updatedInput): the real
// Claude Code runs it, and the model receives the jailed command's
// output, stderr and exit status as its own. Each call is a jail of its
// own that shares the host's /tmp (what the agent's Write tool or an
// earlier call put there is there) but not the sockets in it.
//
// Not in parallel: the test leaves a socket in the host's /tmp, which
// changes how every jail started meanwhile shares /tmp (without a mount
// namespace, entry by entry).
func TestClaudeAllowedBashRunsInTheJail(t *testing.T) {
	testenv.RequireRoot(t)
	probe, escape := proveJail(t)
	e := newEnv(t)
	hostTmp := tmpDir(t, "sandbox-e2e-")
	if err := os.WriteFile(filepath.Join(hostTmp, "in.txt"), []byte("left-by-the-agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(tmpDir(t, "tmux-e2e-"), "default")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	useTmp := strings.NewReplacer("DIR", hostTmp, "SOCK", sock).Replace(proveTmp)
	dir := e.project("claude", map[string]string{"probe.sh": probe, "tmp.sh": useTmp, "sub/keep": ""})
	os.Chmod(filepath.Join(dir, "probe.sh"), 0o755)
	os.Chmod(filepath.Join(dir, "tmp.sh"), 0o755)
	e.editPolicy(t, dir, "shell:\n  allow:\n", "shell:\n  allow:\n    - {pattern: \"./probe.sh\"}\n    - {pattern: \"./tmp.sh\"}\n")
	model := startModel(t, bashCall("./probe.sh", "show where commands run"), bashCall("./tmp.sh", "use /tmp"),
		bashCall("cd sub && echo moved", "go to sub"), bashCall("pwd", "where am I"))
	a := e.approver(dir, approveAll)
	e.runClaude(t, dir, model)

	res := resultOf(t, model.MainRequests(), 1)
	mustContain(t, "the tool result", res.Content, "start-marker", "NoNewPrivs:\t1", "CONTAINED", "to-stderr", "Exit code 3")
	if strings.Contains(res.Content, "WROTE-OUTSIDE") || strings.Contains(res.Content, "sandbox:") {
		t.Errorf("the command ran outside the jail, or sandbox spoke in its output:\n%s", res.Content)
	}
	contained(t, escape)
	if seen := a.answered(); len(seen) != 0 {
		t.Errorf("the allowed call reached the approver: %+v", seen)
	}
	// a `cd` in a jailed call moves the agent's shell, as unjailed
	mustContain(t, "the next call's result", resultOf(t, model.MainRequests(), 4).Content, filepath.Join(dir, "sub"))
	res = resultOf(t, model.MainRequests(), 2)
	mustContain(t, "the /tmp call's result", res.Content, "left-by-the-agent", "socket-hidden")
	if b, err := os.ReadFile(filepath.Join(hostTmp, "out.txt")); err != nil || string(b) != "from-the-jail\n" {
		t.Errorf("the jailed call's file in /tmp did not reach the host: %q, %v\n%s", b, err, res.Content)
	}
}

// tmpDir is a fresh directory in the host's own /tmp.
func tmpDir(t *testing.T, prefix string) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// The README's two quick starts together: `sandbox init . --claude --mcp`
// and then `sandbox run -- claude`. The hooks and the MCP server run
// inside the jail, where the per-user state is hidden: an allowed call
// runs (jailed, not rewritten again), an escalated one goes through the
// bus to a scripted human, the MCP server runs an allowed command, and
// every output reaches the model.
func TestClaudeHooksWorkUnderSandboxRun(t *testing.T) {
	t.Parallel()
	testenv.RequireRoot(t)
	e := newEnv(t)
	dir := e.project("claude", map[string]string{"data.txt": "secret\n"})
	e.mustSandbox("init", dir, "--mcp")
	model := startModel(t,
		bashCall(`echo allowed-marker; grep NoNewPrivs /proc/self/status`, "show the jail"),
		bashCall(escalating, "make data.txt private (e2e)"),
		fakemodel.Reply{Text: "Asking the MCP server.", ToolCalls: []fakemodel.ToolCall{{
			Name: "mcp__sandbox__run_privileged", Input: map[string]any{"command": "echo mcp-marker; grep NoNewPrivs /proc/self/status", "reason": "show the jail"}}}})
	addr := forward(t, "127.0.0.2", strings.TrimPrefix(model.URL, "http://"))
	// Claude Code's own git calls go through the jail's shims too: they
	// are not what this test is about, and a human would deny them
	a := e.approver(dir, func(s queue.Summary) decision {
		if s.Source == queue.SourceClaudeHook {
			return decision{approve: true}
		}
		return decision{reason: "not part of the test"}
	})
	out := e.runClaudeJailed(t, dir, "http://"+addr, addr)

	allowed := resultOf(t, model.MainRequests(), 1)
	mustContain(t, "the allowed call's result", allowed.Content, "allowed-marker", "NoNewPrivs:\t1")
	for _, bad := range []string{"per-user", "sandbox init", "run --quiet"} {
		if strings.Contains(allowed.Content, bad) {
			t.Errorf("the allowed call's result mentions %q:\n%s", bad, allowed.Content)
		}
	}
	esc := resultOf(t, model.MainRequests(), 2)
	mustContain(t, "the escalated call's result", esc.Content, "sandbox: APPROVED and EXECUTED", "OUTPUT-MARKER-1")
	mcp := resultOf(t, model.MainRequests(), 3)
	mustContain(t, "the MCP call's result", mcp.Content, "mcp-marker", "NoNewPrivs:")
	if mcp.IsError {
		t.Errorf("the MCP server inside the jail failed:\n%s", mcp.Content)
	}
	var hooked []queue.Summary
	for _, r := range a.answered() {
		if r.Source == queue.SourceClaudeHook {
			hooked = append(hooked, r)
		}
	}
	if len(hooked) != 1 || hooked[0].Kind != queue.KindShell {
		t.Errorf("the hook's requests: %+v, want the one escalated Bash call", hooked)
	}
	mustContain(t, "claude's answer", out, `"result":"finished"`)
}

// runClaudeJailed runs `sandbox run -- claude -p` in dir with the fake
// model at baseURL, whose address the accepted policy lets out.
func (e *env) runClaudeJailed(t *testing.T, dir, baseURL, addr string) string {
	t.Helper()
	e.editPolicy(t, dir, "network:\n  allow:\n", "network:\n  allow:\n    - \""+addr+"\"\n")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sandboxBin, "run", "--quiet", "--dir", dir, "--", client(t, "claude"),
		"-p", "do the task", "--output-format", "json", "--allowedTools", "Bash,mcp__sandbox__run_privileged")
	cmd.Dir = dir
	cmd.Env = e.vars("ANTHROPIC_BASE_URL="+baseURL, "ANTHROPIC_API_KEY=dummy", "CLAUDE_CONFIG_DIR="+t.TempDir(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sandbox run claude: %v\n%s", err, out)
	}
	return string(out)
}

// editPolicy replaces old with new in dir's policy and accepts it.
func (e *env) editPolicy(t *testing.T, dir, old, new string) {
	t.Helper()
	pol := filepath.Join(dir, ".sandbox", "policy.yaml")
	src := readFile(t, pol)
	if !strings.Contains(src, old) {
		t.Fatalf("the policy lacks %q", old)
	}
	if err := os.WriteFile(pol, []byte(strings.Replace(src, old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	e.mustSandbox("policy", "accept", "--yes", "--dir", dir)
}

// forward relays connections from a free port on host to target, so that
// the jail reaches a loopback server through the run's proxy: the jail's
// NO_PROXY holds 127.0.0.1, not 127.0.0.2.
func forward(t *testing.T, host, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp4", host+":0")
	if err != nil {
		testenv.Skip(t, "no "+host+" here: "+err.Error())
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { io.Copy(up, c); up.(*net.TCPConn).CloseWrite() }()
				io.Copy(c, up)
			}()
		}
	}()
	return ln.Addr().String()
}

// A hostile agent outside any jail that sets the launcher's marker in the
// hook's environment gets no weaker answer: the hook still asks the
// per-user state and still rewrites the allowed command into the jail
// (the marker counts only with no_new_privs, which the agent's process
// would have to carry). The rewritten command, run by bash as Claude Code
// runs it, does exactly what the original does, whatever quotes and
// substitutions the original holds.
func TestHookForgedJailMarkerStillJails(t *testing.T) {
	t.Parallel()
	testenv.RequireRoot(t)
	e := newEnv(t)
	dir := e.project("claude", nil)
	original := `echo "it's" '$(id -u)' "a\\b" $'tab\there'; printf '%s\n' "'\''"`
	ev := preEvent(dir, "Bash", map[string]any{"command": original, "description": "quoting", "timeout": 60000})
	in, _ := json.Marshal(ev)
	cmd := exec.Command(sandboxBin, "hook", "claude")
	cmd.Env = e.vars("SANDBOX_JAIL=1")
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hook: %v", err)
	}
	var ans struct {
		HookSpecificOutput struct {
			PermissionDecision string
			UpdatedInput       map[string]any
		}
	}
	if err := json.Unmarshal(out, &ans); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	upd := ans.HookSpecificOutput.UpdatedInput
	jailed, _ := upd["command"].(string)
	if ans.HookSpecificOutput.PermissionDecision != "allow" || !strings.Contains(jailed, " run --quiet ") {
		t.Fatalf("a forged marker got an unjailed answer: %s", out)
	}
	if upd["description"] != "quoting" || upd["timeout"] != float64(60000) {
		t.Errorf("the other input fields were not kept: %v", upd)
	}
	want, _ := exec.Command("bash", "-c", original).CombinedOutput()
	run := exec.Command("bash", "-c", jailed)
	run.Dir, run.Env = dir, e.vars()
	got, err := run.CombinedOutput()
	if err != nil || string(got) != string(want) {
		t.Errorf("jailed: %v\n%q\nwant %q", err, got, want)
	}
}

// run --cwd-fd reports the directory the jailed shell ended in, and only
// that: the descriptor never reaches the jail (a command writing to it
// finds it closed), and the command's stdin is empty.
func TestRunCwdFDReportsOnlyTheFinalDirectory(t *testing.T) {
	t.Parallel()
	testenv.RequireRoot(t)
	e := newEnv(t)
	dir := e.project("claude", map[string]string{"sub/keep": ""})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	script := `trap 'pwd -P >&0 2>/dev/null' EXIT; if (echo /etc >&3) 2>/dev/null; then echo LEAKED; fi; cat; cd sub`
	cmd := exec.Command(sandboxBin, "run", "--quiet", "--dir", dir, "--cwd-fd", "3", "--", "bash", "-c", script)
	cmd.Dir, cmd.Env, cmd.ExtraFiles = dir, e.vars(), []*os.File{w}
	cmd.Stdin = strings.NewReader("stdin-must-not-arrive\n")
	out, err := cmd.CombinedOutput()
	w.Close()
	report, _ := io.ReadAll(r)
	if err != nil || len(out) != 0 {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if got := string(report); got != filepath.Join(dir, "sub")+"\n" {
		t.Errorf("reported %q, want %s/sub", got, dir)
	}
}

// The MCP server's run_privileged runs an allowed command in the project
// jail too in connector mode, and its output reaches the model.
func TestMCPAllowedCommandRunsInTheJail(t *testing.T) {
	t.Parallel()
	testenv.RequireRoot(t)
	probe, escape := proveJail(t)
	e := newEnv(t)
	dir := e.project("claude", map[string]string{"probe.sh": probe})
	os.Chmod(filepath.Join(dir, "probe.sh"), 0o755)
	e.mustSandbox("init", dir, "--mcp")
	e.editPolicy(t, dir, "shell:\n  allow:\n", "shell:\n  allow:\n    - {pattern: \"./probe.sh\"}\n")
	model := startModel(t, fakemodel.Reply{Text: "Running it.", ToolCalls: []fakemodel.ToolCall{{
		Name: "mcp__sandbox__run_privileged", Input: map[string]any{"command": "./probe.sh", "reason": "show where commands run"}}}})
	e.runClaudeAllowing(t, dir, model, "mcp__sandbox__run_privileged")

	res := resultOf(t, model.MainRequests(), 1)
	mustContain(t, "the tool result", res.Content, "start-marker", "NoNewPrivs:", "1", "CONTAINED", "to-stderr")
	if strings.Contains(res.Content, "WROTE-OUTSIDE") {
		t.Errorf("the allowed command ran outside the jail:\n%s", res.Content)
	}
	contained(t, escape)
}

// Codex's PreToolUse honours updatedInput for its shell tool: an allowed
// command runs in the project jail, its output and exit status reaching
// the model.
func TestCodexAllowedCommandRunsInTheJail(t *testing.T) {
	t.Parallel()
	testenv.RequireRoot(t)
	probe, escape := proveJail(t)
	e := newEnv(t)
	dir := e.project("codex", map[string]string{"probe.sh": probe})
	os.Chmod(filepath.Join(dir, "probe.sh"), 0o755)
	e.editPolicy(t, dir, "shell:\n  allow:\n", "shell:\n  allow:\n    - {pattern: \"./probe.sh\"}\n")
	model, err := fakemodel.StartResponses(func(r *fakemodel.Request) fakemodel.Reply {
		if r.Turn == 0 {
			return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{Name: "exec_command", Input: map[string]any{"cmd": "./probe.sh"}}}}
		}
		return fakemodel.Reply{Text: "finished"}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, client(t, "codex"), "exec", "--json", "--skip-git-repo-check",
		"--dangerously-bypass-hook-trust", "--sandbox", "danger-full-access", "-C", dir, "do the task")
	cmd.Dir = dir
	cmd.Env = e.vars("CODEX_HOME=" + codexHome(t, model, dir))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}
	res := resultOf(t, model.MainRequests(), 1)
	mustContain(t, "the tool output", res.Content, "start-marker", "NoNewPrivs:\t1", "CONTAINED", "to-stderr")
	contained(t, escape)
}

// Class 26 without an agent: `sandbox hook claude` started inside
// `sandbox run`'s jail answers from the trusted side: an allowed call is
// allowed as it is (it is jailed already), a write to .sandbox/ is denied,
// and an escalated call becomes a request a human approves, whose output
// comes back. None of it reads the per-user state, which the jail hides.
func TestHookInsideTheJailAnswersFromTheTrustedSide(t *testing.T) {
	t.Parallel()
	testenv.RequireRoot(t)
	e := newEnv(t)
	dir := e.project("claude", map[string]string{"data.txt": "secret\n"})
	a := e.approver(dir, approveAll)
	jailedHook := func(ev map[string]any) (string, error) {
		in, _ := json.Marshal(ev)
		cmd := exec.Command(sandboxBin, "run", "--quiet", "--dir", dir, "--", sandboxBin, "hook", "claude")
		cmd.Dir, cmd.Env, cmd.Stdin = dir, e.vars(), bytes.NewReader(in)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := jailedHook(preEvent(dir, "Bash", map[string]any{"command": "ls", "description": "look"}))
	if err != nil || !strings.Contains(out, `"permissionDecision":"allow"`) || strings.Contains(out, "updatedInput") {
		t.Errorf("allowed call inside the jail: %v\n%s", err, out)
	}
	out, err = jailedHook(preEvent(dir, "Write", map[string]any{"file_path": filepath.Join(dir, ".sandbox", "policy.yaml"), "content": "x"}))
	if err != nil || !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Errorf("write to .sandbox inside the jail: %v\n%s", err, out)
	}
	out, err = jailedHook(preEvent(dir, "Bash", map[string]any{"command": escalating, "description": "make data.txt private"}))
	if err != nil {
		t.Fatalf("escalated call inside the jail: %v\n%s", err, out)
	}
	mustContain(t, "the escalated call's answer", out, "APPROVED and EXECUTED", "OUTPUT-MARKER-1")
	if req := onlyOne(t, a); req.Source != queue.SourceClaudeHook {
		t.Errorf("request %+v", req)
	}
}
