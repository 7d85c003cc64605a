//go:build linux

package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// The real Claude Code started with `init --claude --mcp` under `sandbox
// run` runs git for its own housekeeping before the model says anything
// (the branch, the status, the recent commits, with -c settings that
// switch off git's credential prompts and remote helpers). None of it may
// ask a human: only the model's first tool call may. The scripted human
// denies everything and records what it saw; the project is a git
// repository with a commit, as where Claude Code is used.
func TestClaudeStartsUnderSandboxRunWithoutAsking(t *testing.T) {
	t.Parallel()
	testenv.RequireRoot(t)
	e := newEnv(t)
	dir := e.project("claude", map[string]string{"main.go": "package main\n\nfunc main() {}\n", "go.mod": "module example.com/p\n\ngo 1.22\n"})
	gitCommitAll(t, dir)
	e.mustSandbox("init", dir, "--mcp")
	// git traces every command it runs here: the proof that Claude Code's
	// own git calls went through the shims (and so were decided) at all
	trace := filepath.Join(dir, "git-trace.log")
	e.setenv("GIT_TRACE", trace)
	model := startModel(t, bashCall("echo first-call; git status --short", "the model's first tool call"))
	addr := forward(t, "127.0.0.2", strings.TrimPrefix(model.URL, "http://"))
	a := e.approver(dir, func(queue.Summary) decision { return decision{reason: "the test denies everything"} })
	out := e.runClaudeJailed(t, dir, "http://"+addr, addr)

	res := resultOf(t, model.MainRequests(), 1)
	mustContain(t, "the first call's result", res.Content, "first-call")
	for i, r := range a.answered() {
		t.Errorf("asked the human: %s (%s, source %s)\n%s", r.Summary, r.Kind, r.Source, a.shownAt(i))
	}
	if log := readFile(t, trace); !strings.Contains(log, "git rev-parse --is-inside-work-tree") || !strings.Contains(log, "git log --oneline") {
		t.Errorf("Claude Code's own git calls did not run (git's trace):\n%s", log)
	}
	if t.Failed() {
		t.Logf("claude:\n%s\naudit:\n%s", out, e.auditLines(t, dir))
	}
}

// gitCommitAll makes dir a git repository with everything in it committed.
func gitCommitAll(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com",
			"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
