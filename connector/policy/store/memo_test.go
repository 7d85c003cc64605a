package store

import (
	"os"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/internal/filestamp"
)

// TestMemo: a memo hands out the same engine while the policy's files
// stay, and reads them again after every kind of change a human (or the
// agent, for policy.yaml) can make between two loads.
func TestMemo(t *testing.T) {
	defer func(r time.Duration) { filestamp.Racy = r }(filestamp.Racy)
	filestamp.Racy = 0 // the files were all written a moment ago
	f, st := project(t)
	writePolicy(t, f, polA)
	if err := Accept(f, st, []byte(polA)); err != nil {
		t.Fatal(err)
	}
	m := NewMemo(nil)
	mustLoad := func(what string, wantHit bool) *policy.Engine {
		t.Helper()
		h0, _ := m.counts()
		e, _, err := m.Load(f, st)
		if err != nil {
			t.Fatal(err)
		}
		if h1, _ := m.counts(); (h1 > h0) != wantHit {
			t.Fatalf("%s: reused %v, want %v", what, h1 > h0, wantHit)
		}
		return e
	}
	mustLoad("first", false)
	e := mustLoad("unchanged", true)
	if e2 := mustLoad("unchanged again", true); e2 != e {
		t.Fatal("a reuse gave another engine")
	}

	// a newly accepted policy
	writePolicy(t, f, polB)
	if got := mustLoad("policy.yaml edited", false); got.Status() != policy.StatusPending {
		t.Errorf("edited: status %v", got.Status())
	}
	if err := Accept(f, st, []byte(polB)); err != nil {
		t.Fatal(err)
	}
	e = mustLoad("accepted", false)
	if e.Status() != policy.StatusAccepted || e.Write("/tmp/x", "").Decision != policy.Allow {
		t.Errorf("after accept: %v %v", e.Status(), e.Write("/tmp/x", "").Decision)
	}
	mustLoad("accepted, settled", true)

	// a remembered decision
	if err := Remember(f, st, policy.Remembered{Trigger: policy.Shell, Tier: policy.Deny, Pattern: "git status --porcelain"}); err != nil {
		t.Fatal(err)
	}
	if got := mustLoad("remembered", false); got.Shell("git status --porcelain", "").Decision != policy.Deny {
		t.Error("the remembered deny is not in force")
	}
	mustLoad("remembered, settled", true)

	// policy.yaml rewritten in place with the same size and its old
	// modification time: the change time still tells
	fi, err := os.Stat(f.Policy())
	if err != nil {
		t.Fatal(err)
	}
	same := []byte(polB)
	same[len(same)-2] = ' ' // "]}\n" -> "] \n": the same length, and pending now
	if err := os.WriteFile(f.Policy(), same, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(f.Policy(), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := mustLoad("rewritten in place", false); got.Status() != policy.StatusPending {
		t.Errorf("rewritten in place: status %v", got.Status())
	}
	mustLoad("rewritten, settled", true)

	// another user's state (another key) never gets this engine
	other, err := userstate.OpenDir(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	h0, l0 := m.counts()
	if got, _, err := m.Load(f, other); err != nil || got.Status() != policy.StatusNothingAccepted {
		t.Errorf("another state: %v %v", got.Status(), err)
	}
	if h1, l1 := m.counts(); h1 != h0 || l1 != l0+1 {
		t.Error("another state reused the engine")
	}
}

// TestMemoRacy: files changed within the racy window are read on every
// load, so a rewrite within the file system's timestamp granularity is
// never missed.
func TestMemoRacy(t *testing.T) {
	defer func(r time.Duration) { filestamp.Racy = r }(filestamp.Racy)
	filestamp.Racy = time.Hour
	f, st := project(t)
	writePolicy(t, f, polA)
	if err := Accept(f, st, []byte(polA)); err != nil {
		t.Fatal(err)
	}
	m := NewMemo(nil)
	for range 3 {
		if _, _, err := m.Load(f, st); err != nil {
			t.Fatal(err)
		}
	}
	if hits, loads := m.counts(); hits != 0 || loads != 3 {
		t.Errorf("hits %d loads %d, want every load to read", hits, loads)
	}
	var nilMemo *Memo // a nil memo loads as Load does
	if e, _, err := nilMemo.Load(f, st); err != nil || e.Status() != policy.StatusAccepted {
		t.Errorf("nil memo: %v", err)
	}
}
