//go:build unix

package folder

import (
	"path/filepath"
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
