package agents

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// prepare is PrepareLand of r's agent with o's mode, target and flags,
// the test command answered by a stand-in that reports what it was given.
func (r *landRepo) prepare(o LandOptions) (*Plan, error) {
	r.t.Helper()
	o.Main = folder.Folder{Root: r.root}
	if o.Record.Name == "" {
		o.Record = Record{Name: r.name, Branch: "sandbox/" + r.name, Worktree: r.worktree}
	}
	if o.Mode == "" {
		o.Mode = Merge
	}
	o.Exe = "/usr/local/bin/sandbox"
	return PrepareLand(context.Background(), o)
}

// TestPrepareLandShows: the request runs apply-land with the pinned
// commit ids, and its text shows the agent, the branch and pinned commit,
// the target and its commit, the mode, the diffstat, the test result and
// what will be done.
func TestPrepareLandShows(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "shown")
	head := r.agentCommit("work", "a.txt", "one\nTWO\nthree\n", "docs/new.md", "new\n")
	target := r.rev("main")
	var ranIn, ran string
	p, err := r.prepare(LandOptions{Mode: Squash, Test: "make check", RunTest: func(_ context.Context, wt, cmd string) TestResult {
		ranIn, ran = wt, cmd
		return TestResult{Command: cmd, Passed: true, Tail: "ok  pkg 0.1s\nPASS\n"}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if ranIn != r.worktree || ran != "make check" {
		t.Fatalf("test ran %q in %q", ran, ranIn)
	}
	want := []string{"/usr/local/bin/sandbox", "agents", "apply-land", "--squash", "--head", head, "--into", "main",
		"--target", target, "--ident", testIdent, "shown"}
	req := p.Request
	if req.Shell == nil || !slices.Equal(req.Shell.Argv, want) || req.Cwd != r.root {
		t.Fatalf("request %+v %+v", req, req.Shell)
	}
	text := req.Justification
	for _, s := range []string{"land agent shown: squash commit " + head[:12] + " of sandbox/shown into main",
		"sandbox/shown at " + head, "main at " + target, "checked out in MAIN", "squash: one new commit",
		"docs/new.md", "2 files changed", "`make check`", "passed", "PASS", "the worktree had the pinned commit checked out"} {
		if !strings.Contains(text, s) {
			t.Errorf("the text lacks %q:\n%s", s, text)
		}
	}
}

// TestPrepareLandSaysWhatWasTested: the test ran on whatever the agent
// had checked out; when that is not the pinned commit, the text says so.
func TestPrepareLandSaysWhatWasTested(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "moved")
	old := r.agentCommit("one", "x.txt", "x\n")
	r.agentCommit("two", "y.txt", "y\n")
	gitT(t, r.worktree, "checkout", "-q", "--detach", old)
	p, err := r.prepare(LandOptions{Test: "true", RunTest: func(context.Context, string, string) TestResult {
		return TestResult{Command: "true", Passed: true}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "NOTE: the worktree had " + old[:12] + " checked out, not the pinned commit"; !strings.Contains(p.Request.Justification, want) {
		t.Fatalf("the text lacks %q:\n%s", want, p.Request.Justification)
	}
}

// TestPrepareLandRefuses: what cannot be landed is refused before any
// request exists: a conflict (with its files), a branch that does not
// exist, an invalid name, a head main already has, a push without an
// upstream; nothing in MAIN changes.
func TestPrepareLandRefuses(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "no")
	r.agentCommit("agent", "a.txt", "one\nAGENT\nthree\n")
	r.mainCommit("user", "a.txt", "one\nUSER\nthree\n")
	before := r.snapshot()
	_, err := r.prepare(LandOptions{})
	var ce *ConflictError
	if !errors.As(err, &ce) || !slices.Equal(ce.Files, []string{"a.txt"}) {
		t.Fatalf("conflict: err = %v", err)
	}
	for _, tc := range []struct {
		name string
		o    LandOptions
		want error
	}{
		{"no branch", LandOptions{Record: Record{Name: "ghost"}}, ErrNoBranch},
		{"bad name", LandOptions{Record: Record{Name: "../x"}}, ErrBadName},
		{"no target", LandOptions{Into: "nope"}, ErrNoBranch},
		{"into itself", LandOptions{Into: "sandbox/no"}, ErrLandUsage},
		{"bad target", LandOptions{Into: "-x"}, ErrLandUsage},
		{"contained", LandOptions{Record: Record{Name: "old"}}, ErrNothingToLand},
		{"push without upstream", LandOptions{Push: true, Into: "side"}, ErrLandUsage},
	} {
		if tc.name == "contained" {
			gitT(t, r.root, "branch", "sandbox/old", "main~1")
			before = r.snapshot()
		}
		if tc.name == "push without upstream" {
			gitT(t, r.root, "branch", "side", "main~1")
			before = r.snapshot()
		}
		_, err := r.prepare(tc.o)
		if !errors.Is(err, tc.want) || !IsUsage(err) {
			t.Errorf("%s: err = %v, want %v (a usage error)", tc.name, err, tc.want)
		}
		if r.snapshot() != before {
			t.Errorf("%s: a refused land changed MAIN", tc.name)
		}
	}
}

// TestPrepareLandPush: --push appends the push to the target's upstream,
// as a script the policy sees (so that its approval grants the network).
func TestPrepareLandPush(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "up")
	r.agentCommit("work", "x.txt", "x\n")
	gitT(t, r.root, "config", "branch.main.remote", "origin")
	gitT(t, r.root, "config", "branch.main.merge", "refs/heads/trunk")
	p, err := r.prepare(LandOptions{Push: true})
	if err != nil {
		t.Fatal(err)
	}
	sh := p.Request.Shell
	if len(sh.Argv) != 0 || sh.Shell != "bash" || !strings.HasSuffix(sh.Script, " && git push origin refs/heads/main:refs/heads/trunk") ||
		!strings.HasPrefix(sh.Script, "/usr/local/bin/sandbox agents apply-land --merge --head ") {
		t.Fatalf("script: %+v", sh)
	}
	if !strings.Contains(p.Request.Justification, "then push main to origin refs/heads/trunk") {
		t.Fatalf("text:\n%s", p.Request.Justification)
	}
}

// TestLandIgnoresPlantedGitConfig: the agent repoints its worktree's
// .git file at a repository it planted, whose config runs an fsmonitor
// and whose hooks write a marker, and plants the same in MAIN's .git
// (hooks, fsmonitor, a replace ref that would show another commit):
// neither preparing nor applying the land runs any of it, and the commit
// that lands is the real one.
func TestLandIgnoresPlantedGitConfig(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "evil")
	head := r.agentCommit("work", "x.txt", "x\n")
	decoy := r.agentCommit("decoy", "decoy.txt", "decoy\n")
	gitT(t, r.worktree, "reset", "-q", "--hard", head)
	gitT(t, r.root, "replace", decoy, head)
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "evil.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marker+"\n"), 0o755)
	planted := filepath.Join(t.TempDir(), "planted")
	gitT(t, t.TempDir(), "init", "-q", planted)
	for _, gitDir := range []string{filepath.Join(planted, ".git"), filepath.Join(r.root, ".git")} {
		for _, h := range []string{"post-merge", "post-checkout", "reference-transaction", "pre-commit", "post-rewrite", "pre-merge-commit"} {
			os.WriteFile(filepath.Join(gitDir, "hooks", h), []byte("#!/bin/sh\n"+script+" hook "+h+"\n"), 0o755)
		}
		f, err := os.OpenFile(filepath.Join(gitDir, "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("[core]\n\tfsmonitor = " + script + "\n")
		f.Close()
	}
	os.WriteFile(filepath.Join(r.worktree, ".git"), []byte("gitdir: "+filepath.Join(planted, ".git")+"\n"), 0o644)
	p, err := r.prepare(LandOptions{RunTest: nil})
	if err != nil {
		t.Fatal(err)
	}
	if p.Landing.Head != head {
		t.Fatalf("pinned %s, want %s", p.Landing.Head, head)
	}
	a, err := Apply(context.Background(), r.root, p.Landing)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("planted code ran during the land:\n%s", b)
	}
	cmd := exec.Command("git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "--no-replace-objects", "rev-parse", a.New+"^2")
	cmd.Dir = r.root
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != head {
		t.Fatalf("landed %s^2 = %s (%v), want %s", a.New, out, err, head)
	}
	if _, err := os.Stat(filepath.Join(r.root, "decoy.txt")); err == nil {
		t.Fatal("the replace ref's decoy landed")
	}
}
