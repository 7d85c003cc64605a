//go:build linux

package e2e

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// maxSessionAsks is what the issue allows a realistic session to ask: the
// dependency's registry, the push, one unknown host.
const maxSessionAsks = 3

// A realistic session of a Go service (testdata/session/go-notes.txt:
// explore, edit, build, test, commit, branch, merge, a dependency, a dev
// server on loopback, an unknown host, a push to a local bare remote),
// replayed through the real Claude Code and its hook against the fake
// model, once with the default policy and once with the default policy of
// 2026-12-01 (testdata/session/policy-2026-12-01.yaml, before the jail's
// policy), beside each other. A scripted human approves every request
// except those the script marks as leaving the machine (no internet here),
// and counts them. The default policy may not ask more than the policy it
// replaces; the target is at most maxSessionAsks.
//
// Not in parallel: the script's dev servers listen on fixed loopback
// ports and its commands write fixed paths in /tmp.
func TestScriptedSessionAsksOnlyWhatMatters(t *testing.T) {
	testenv.RequireRoot(t)
	script := filepath.Join("testdata", "session", "go-notes.txt")
	cache := goCache(t)
	var ours, before sessionRun
	// the old policy first: the default policy's replay then meets a Go
	// build cache at least as warm, never a colder one
	t.Run("2026-12-01", func(t *testing.T) {
		before = runSession(t, script, filepath.Join("testdata", "session", "policy-2026-12-01.yaml"), cache)
	})
	t.Run("default", func(t *testing.T) { ours = runSession(t, script, "", cache) })
	t.Logf("scripted session %s: %d tool calls; the human was asked %d times with the default policy, %d times with the policy of 2026-12-01",
		script, ours.calls, len(ours.asked), len(before.asked))
	// hack/bench-prompts.sh reads this line
	t.Logf("BENCH session-prompts calls=%d ours=%d before=%d", ours.calls, len(ours.asked), len(before.asked))
	for _, a := range ours.asked {
		t.Logf("asked (default policy): %s", a)
	}
	for _, a := range before.asked {
		t.Logf("asked (2026-12-01 policy): %s", a)
	}
	if ours.calls == 0 || before.calls == 0 {
		return // one of the two replays was not asked for (-run)
	}
	if ours.calls < 150 {
		t.Errorf("the session has %d tool calls, want at least 150", ours.calls)
	}
	if len(ours.asked) > len(before.asked) {
		t.Errorf("the default policy asked %d times, more than the policy of 2026-12-01 (%d)", len(ours.asked), len(before.asked))
	}
	// The target. Until the default policy and the analyzer reach
	// it, the test says so and the count above tells by how much
	// (hack/bench-prompts.sh prints it as met or NOT met); it fails only
	// when the default policy does worse than the policy it replaces.
	if len(ours.asked) > maxSessionAsks {
		t.Logf("target NOT met: the default policy asked %d times, the target is at most %d", len(ours.asked), maxSessionAsks)
	}
}

// sessionRun is what one replay of a session saw.
type sessionRun struct {
	calls int
	asked []string // the requests' summaries, in order
}

// runSession replays script in a fresh copy of testdata/session/project
// (a git repository with a bare origin), with policy (a file) accepted
// in place of the default policy when it is not empty, and cache as the
// Go build cache.
func runSession(t *testing.T, script, policy, cache string) sessionRun {
	t.Helper()
	e := newEnv(t)
	dir := sessionProject(t, e)
	if policy != "" {
		b, err := os.ReadFile(policy)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".sandbox", "policy.yaml"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		e.mustSandbox("policy", "accept", "--yes", "--dir", dir)
	}
	calls, err := parseSession(script, dir)
	if err != nil {
		t.Fatal(err)
	}
	var offline []string
	for _, c := range calls {
		if c.offline {
			offline = append(offline, c.input["command"].(string))
		}
	}
	model := startModel(t, replies(calls)...)
	a := e.approver(dir, func(s queue.Summary) decision {
		for _, cmd := range offline {
			if strings.Contains(s.Summary, cmd[:min(len(cmd), 24)]) {
				return decision{reason: "no internet here"}
			}
		}
		return decision{approve: true}
	})
	out := e.runClaudeSession(t, dir, model, cache)
	reqs := model.MainRequests()
	if len(reqs) == 0 {
		t.Fatalf("the model saw no request:\n%s", out)
	}
	results, err := conversationResults(reqs[len(reqs)-1].Body)
	if err != nil || len(results) != len(calls) {
		t.Fatalf("the conversation holds %d tool results (%v), want %d:\n%s", len(results), err, len(calls), out)
	}
	for i, c := range calls {
		for _, want := range c.expect {
			if !strings.Contains(results[i].Content, want) {
				t.Errorf("%s:%d: %s: the result lacks %q:\n%s", script, c.line, c.summary(), want, results[i].Content)
			}
		}
	}
	run := sessionRun{calls: len(calls)}
	for _, s := range a.answered() {
		run.asked = append(run.asked, string(s.Kind)+" "+s.Summary)
	}
	return run
}

// sessionProject copies testdata/session/project into a fresh folder,
// makes it a git repository with one commit and a bare origin beside it,
// and runs `sandbox init --claude` there.
func sessionProject(t *testing.T, e *env) string {
	t.Helper()
	dir := e.project("claude", nil)
	src := filepath.Join("testdata", "session", "project")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// the repository ignores the folder's own state, as a user's would
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("bin/\n*.pid\n.sandbox/\n.claude/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCommitAll(t, dir)
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[user]\n\tname = e2e\n\temail = e2e@example.com\n")
	f.Close()
	bare := filepath.Join(t.TempDir(), "origin.git")
	for _, args := range [][]string{{"init", "-q", "--bare", bare}, {"-C", dir, "remote", "add", "origin", bare}, {"-C", dir, "push", "-q", "origin", "main"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// runClaudeSession runs the real Claude Code through the whole script,
// every tool the script uses allowed by Claude Code itself (the hook
// decides), with cache as the Go build cache. The bound is a safety net,
// not a figure: 205 calls, each a hook and most a jail, took over 15
// minutes on two shared cores under a load of 10.
func (e *env) runClaudeSession(t *testing.T, dir string, model *fakemodel.Anthropic, cache string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, client(t, "claude"), "-p", "do the task", "--output-format", "json",
		"--max-turns", "1000", "--allowedTools", "Bash,Read,Write,Edit,Glob,Grep")
	cmd.Dir = dir
	cmd.Env = e.vars("ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=dummy", "CLAUDE_CONFIG_DIR="+t.TempDir(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1",
		"GOCACHE="+cache, "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	return string(out)
}

// goCache is a Go build cache the jail can write: the jail keeps the home
// directory's caches read-only (a build cache the jail could write would
// feed the user's next build outside it), so a session that builds Go
// needs one of its own, as a developer sets GOCACHE for a sandbox.
func goCache(t *testing.T) string {
	t.Helper()
	return filepath.Join(tmpDir(t, "sandbox-e2e-gocache-"), "go-build")
}
