package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// TestAuditLogSurvivesTheUsersGit: the user's own `git stash -u`, `git
// stash --all` and `git clean -fdx` leave the audit log whole (it lives
// in the per-user state, not in .sandbox/), so `audit verify` passes
// after each; on the version that kept it in .sandbox/audit/, clean -fdx
// took it and verify reported the records missing.
func TestAuditLogSurvivesTheUsersGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitIn("init", "-q")
	if code, _, errs := run(t, root, "init", root); code != 0 {
		t.Fatalf("init: %d %s", code, errs)
	}
	gitIn("add", "-A")
	gitIn("commit", "-qm", "sandbox")
	st, err := userstate.OpenDir(filepath.Join(state, "sandbox"), false)
	if err != nil {
		t.Fatal(err)
	}
	appendRecords(t, folder.Folder{Root: root}, st, 5)
	for _, step := range [][]string{
		{"stash", "-u"}, {"stash", "--all"}, {"stash", "pop", "-q"}, {"clean", "-fdx"},
	} {
		if step[1] != "pop" {
			os.WriteFile(filepath.Join(root, "untracked.txt"), []byte("x"), 0o644)
		}
		gitIn(step...)
		if code, out, errs := run(t, root, "audit", "verify"); code != 0 {
			t.Fatalf("audit verify after git %v: %d\n%s%s", step, code, out, errs)
		}
	}
}

func appendRecords(t *testing.T, f folder.Folder, st *userstate.State, n int) {
	t.Helper()
	l, err := audit.Open(f, st)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for range n {
		if _, err := l.Append(audit.Entry{Actor: "cli", Event: "test.record"}); err != nil {
			t.Fatal(err)
		}
	}
}
