//go:build unix

package folder

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestApproverPresence(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	f := Folder{Root: root}
	if err := f.Create(); err != nil {
		t.Fatal(err)
	}
	if got := f.ApproverWatching(); got != PresenceNobody {
		t.Fatalf("before any approver: %v", got)
	}
	r1, err := f.HoldApprover()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := f.HoldApprover()
	if err != nil {
		t.Fatal(err)
	}
	if got := f.ApproverWatching(); got != PresenceWatching {
		t.Fatalf("two approvers: %v", got)
	}
	r1()
	if got := f.ApproverWatching(); got != PresenceWatching {
		t.Fatalf("one approver left: %v", got)
	}
	r2()
	if got := f.ApproverWatching(); got != PresenceNobody {
		t.Fatalf("after both left: %v", got)
	}
}

// An agent's worktree sends the human to its repository's inbox; any
// other folder to a watch of itself.
func TestHowToApprove(t *testing.T) {
	for root, want := range map[string]string{
		"/r/p":                         "start one in another terminal with `sandbox watch /r/p`",
		"/r/my p/.sandbox/worktrees/a": "no approver is watching agent a: start the inbox of its repository in another terminal with `cd '/r/my p' && sandbox watch`",
		"/r/worktrees/a":               "`sandbox watch /r/worktrees/a`",
	} {
		if got := (Folder{Root: root}).HowToApprove(); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q in it", root, got, want)
		}
	}
}
