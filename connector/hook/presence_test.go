//go:build unix

package hook_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// TestNobodyWatchingEndsTheWait: with no approver watching the folder the
// hook stops waiting early and tells the model how to start one; with one
// watching, it waits its whole wait and says nothing of the kind. (Not a
// timing assertion: the wait is an hour, so only the presence check can
// end the first case.)
func TestNobodyWatchingEndsTheWait(t *testing.T) {
	old := hook.NoApproverGrace
	hook.NoApproverGrace = 0
	t.Cleanup(func() { hook.NoApproverGrace = old })
	root, _ := filepath.EvalSymlinks(t.TempDir())
	dir := folder.Folder{Root: root}
	if err := dir.Create(); err != nil {
		t.Fatal(err)
	}
	f := newFixture(tiers(policy.Escalate, policy.Allow), func(*queue.Request) *queue.Result { return nil })
	f.core.Folder = dir
	f.core.Options.Wait = time.Hour
	out, err := f.core.PreToolUse(context.Background(), bash("git push"))
	if err != nil || out.Verdict != hook.Deny || !strings.Contains(out.Reason, "no approver is watching "+root) ||
		!strings.Contains(out.Reason, "sandbox watch") {
		t.Fatalf("nobody watching: %+v %v", out, err)
	}

	release, err := dir.HoldApprover()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	f.core.Options.Wait = 2 * time.Second
	out, err = f.core.PreToolUse(context.Background(), bash("git push"))
	if err != nil || !strings.Contains(out.Reason, "WAITING") || strings.Contains(out.Reason, "no approver") {
		t.Fatalf("an approver watching: %+v %v", out, err)
	}
}

func TestBriefSaysNobodyIsWatching(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	dir := folder.Folder{Root: root}
	if err := dir.Create(); err != nil {
		t.Fatal(err)
	}
	core := &hook.Core{Folder: dir}
	if b := core.Brief(hook.BriefOptions{}); !strings.Contains(b, "no approver is watching "+root) {
		t.Fatalf("brief without an approver:\n%s", b)
	}
	release, err := dir.HoldApprover()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if b := core.Brief(hook.BriefOptions{}); strings.Contains(b, "no approver") {
		t.Fatalf("brief with an approver:\n%s", b)
	}
}
